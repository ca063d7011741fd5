"""Evolving a state: what each event changes, and the replay of a whole log.

It keeps the books of RULES.md §1: The deal; The first turn; A turn; Knocking; A drawn hand;
The end of the game.
§2: roles after each hand, and Advice kept as events by older games.
§3: the alternating deal.
Extensions: Resigning; Abandoned games.
"""

from __future__ import annotations

from typing import Any, Iterable

from .cards import INDEX_OF
from .fairness import DEFAULT_CLIENT_SEED
from .events import (
    AdviceGiven,
    CardDiscarded,
    CardDrawn,
    CardsCut,
    ClientSeedSent,
    ClientSeedsClosed,
    DealerChosen,
    Event,
    GameAbandoned,
    GameExpired,
    GameCreated,
    GameEnded,
    GameResigned,
    HandDealt,
    HandDrawn,
    HandScored,
    Knocked,
    RolesAssigned,
    SeatClaimed,
    TurnTimedOut,
    UpcardPassed,
    UpcardTaken,
    decode,
)
from .layoffs import in_laying_order
from .scoring import replay_details
from .rulesets import hand_knock_limit
from .variants import LATER_OPTIONS
from .state import DISCARD, DRAW, GAME_OVER, HAND_OVER, UPCARD, GameState, clone, new_state


# Each evolver changes a copy (state.clone).
# Only this module and state write a state's fields.
def _game_created(_: Any, e: GameCreated) -> GameState:
    # games recorded before an option existed read it as its default (client seeds: no wait)
    options = {**LATER_OPTIONS, **dict(e.options)}
    return new_state(
        variant=e.variant,
        options=options,
        rules_version=e.rules_version,
        players=tuple(e.players),
        commitment=e.commitment,
        randomly_dealt=e.randomly_dealt,
        seed=bytes.fromhex(e.seed),
        decks=tuple(tuple(d) for d in e.decks) if e.decks else None,
        spec_roles=dict(e.roles) if e.roles is not None else None,
        spec_first_dealer=e.first_dealer,
        invites=dict(e.invites) if e.invites else None,
        fairness=e.derivation,
        rules=e.rules,
        imported_from=e.imported_from,
    )


def _seat_claimed(s: GameState, e: SeatClaimed) -> GameState:
    n = clone(s)
    players = list(s._players)
    players[e.seat] = dict(e.player)
    n._players = tuple(players)
    return n


def _client_seed_sent(s: GameState, e: ClientSeedSent) -> GameState:
    n = clone(s)
    n.client_seeds = s.client_seeds[: e.seat] + (e.client_seed,) + s.client_seeds[e.seat + 1 :]
    return n


def _client_seeds_closed(s: GameState, e: ClientSeedsClosed) -> GameState:
    # the seats that sent none get the default: the wait is over
    n = clone(s)
    n.client_seeds = tuple(DEFAULT_CLIENT_SEED if i in e.seats else c for i, c in enumerate(s.client_seeds))
    return n


def _cards_cut(s: GameState, e: CardsCut) -> GameState:
    n = clone(s)
    n.cuts = s.cuts + ((e.purpose, e.round, tuple(e.seats), tuple(e.cards)),)
    return n


def _roles_assigned(s: GameState, e: RolesAssigned) -> GameState:
    n = clone(s)
    n._roles = (e.box, e.captain, e.advisor)
    n.dealer = e.box
    n.non_dealer = e.captain
    return n


def _dealer_chosen(s: GameState, e: DealerChosen) -> GameState:
    n = clone(s)
    n.dealer = e.dealer
    n.non_dealer = 1 - e.dealer
    return n


def _hand_dealt(s: GameState, e: HandDealt) -> GameState:
    # The deal (RULES.md §1): ten cards each, the upcard, the stock.
    n = clone(s)
    deck = tuple(INDEX_OF[c] for c in e.deck)
    non_dealer_hand = dealer_hand = 0
    for c in deck[0:20:2]:
        non_dealer_hand |= 1 << c
    for c in deck[1:20:2]:
        dealer_hand |= 1 << c
    hands = [0] * s.nseats
    hands[e.non_dealer] = non_dealer_hand
    hands[e.dealer] = dealer_hand
    n.status = "playing"
    n.hand_no = e.hand_no
    n.dealer = e.dealer
    n.non_dealer = e.non_dealer
    n.hands = tuple(hands)
    n.deck = deck
    n.knock_limit = hand_knock_limit(s._options, deck)
    n.pile = (deck[20],)
    n.stock_pos = 21
    n.taken = -1
    n.drawn = -1
    n.passes = 0
    n.turns = 0
    n.known = (0,) * s.nseats
    n.knock = None
    n.phase = UPCARD
    n.to_act = (e.non_dealer,)
    return n


def _replaced(t: tuple, i: int, value: Any) -> tuple:
    return t[:i] + (value,) + t[i + 1 :]


def _upcard_taken(s: GameState, e: UpcardTaken) -> GameState:
    n = clone(s)
    bit = 1 << INDEX_OF[e.card]
    n.hands = _replaced(s.hands, e.seat, s.hands[e.seat] | bit)
    n.known = _replaced(s.known, e.seat, s.known[e.seat] | bit)
    n.pile = s.pile[:-1]
    n.taken = INDEX_OF[e.card]
    n.turns = s.turns + 1
    n.phase = DISCARD
    n.to_act = (e.seat,)
    return n


def _upcard_passed(s: GameState, e: UpcardPassed) -> GameState:
    n = clone(s)
    n.passes = s.passes + 1
    if n.passes == 1:
        n.to_act = (s.dealer,)
    else:
        n.phase = DRAW
        n.to_act = (s.non_dealer,)
    return n


def _card_drawn(s: GameState, e: CardDrawn) -> GameState:
    n = clone(s)
    card = INDEX_OF[e.card]
    bit = 1 << card
    n.hands = _replaced(s.hands, e.seat, s.hands[e.seat] | bit)
    if e.source == "stock":
        n.stock_pos = s.stock_pos + 1
        n.drawn = card
        n.taken = -1
    else:
        n.pile = s.pile[:-1]
        n.taken = card
        n.drawn = -1
        n.known = _replaced(s.known, e.seat, s.known[e.seat] | bit)
    n.turns = s.turns + 1
    n.phase = DISCARD
    return n


def _card_discarded(s: GameState, e: CardDiscarded) -> GameState:
    n = clone(s)
    card = INDEX_OF[e.card]
    keep = ~(1 << card)
    n.hands = _replaced(s.hands, e.seat, s.hands[e.seat] & keep)
    if s.known[e.seat] >> card & 1:
        n.known = _replaced(s.known, e.seat, s.known[e.seat] & keep)
    n.pile = s.pile + (card,)
    n.taken = -1
    n.drawn = -1
    n.phase = DRAW
    n.to_act = (s.non_dealer if e.seat == s.dealer else s.dealer,)
    return n


def _knocked(s: GameState, e: Knocked) -> GameState:
    n = clone(s)
    if e.discard is not None:
        card = INDEX_OF[e.discard]
        n.hands = _replaced(s.hands, e.seat, s.hands[e.seat] & ~(1 << card))
        n.pile = s.pile + (card,)
    n.taken = -1
    n.drawn = -1
    n.knock = e
    n.phase = HAND_OVER
    n.to_act = ()
    return n


def _hand_scored(s: GameState, e: HandScored) -> GameState:
    n = clone(s)
    k = s.knock
    n._scores = tuple(e.scores)
    # an event upcast from version 1 lacks what version 2 records: the state before it has it all
    details = replay_details(s, e) if e.upcast else {name: getattr(e, name) for name in e.ADDED_IN_V2}
    result = {
        "hand_no": e.hand_no,
        "dealer": s.dealer,
        "outcome": e.outcome,
        "knocker": e.knocker,
        "defender": e.defender,
        "discard": k.discard if k is not None else None,
        "knocker_melds": [list(m) for m in k.melds] if k is not None else [],
        "knocker_deadwood_cards": list(k.deadwood_cards) if k is not None else [],
        "knocker_deadwood": e.knocker_deadwood,
        "defender_melds": [list(m) for m in e.defender_melds],
        "layoffs": in_laying_order(e.layoffs, k.melds) if k is not None else [list(x) for x in e.layoffs],
        "defender_deadwood_cards": list(e.defender_deadwood_cards),
        "defender_deadwood": e.defender_deadwood,
        "winner": e.winner,
        "points": e.points,
        "scores": list(e.scores),
        # version 2: what a replay needs to explain the hand line by line
        "hands": [None if h is None else list(h) for h in details["hands"]],
        "turns": details["turns"],
        "defender_deadwood_before_layoffs": details["defender_deadwood_before_layoffs"],
        "next_dealer": details["next_dealer"],
    }
    if e.multiplier is not None:
        result["multiplier"] = e.multiplier  # §5 Oklahoma: a spade upcard doubled the hand's points
    if e.hollywood is not None:
        # §5 Hollywood: the games the hand went into, each game's scores after it, the games it ended
        games = [dict(g) for g in e.hollywood["games"]]
        before = s.hollywood["games"]
        result["hollywood"] = {
            "entered": list(e.hollywood["entered"]),
            "scores": [list(g["scores"]) for g in games],
            "ended": [i + 1 for i, g in enumerate(games) if g["winner"] is not None and before[i]["winner"] is None],
        }
        hands_won = list(s.hollywood["hands_won"])
        hands_won[e.winner] += 1
        n.hollywood = {"hands_won": hands_won, "games": games}
    n.results = s.results + (result,)
    return n


def _hand_drawn(s: GameState, e: HandDrawn) -> GameState:
    n = clone(s)
    n.results = s.results + (
        {"hand_no": e.hand_no, "dealer": s.dealer, "outcome": "drawn", "reason": e.reason},
    )
    n.phase = HAND_OVER
    n.to_act = ()
    return n


def _advice_given(s: GameState, e: AdviceGiven) -> GameState:
    n = clone(s)
    n.advice = s.advice + (
        {"hand_no": e.hand_no, "advisor": e.seat, "captain": e.captain, "text": e.text},
    )
    return n


def _turn_timed_out(s: GameState, e: TurnTimedOut) -> GameState:
    # a marker in the log: the move that follows was played by the clock; the game is unchanged
    return clone(s)


def _game_ended(s: GameState, e: GameEnded) -> GameState:
    n = clone(s)
    n.status = "over"
    n.phase = GAME_OVER
    n.to_act = ()
    n.winner = e.winner
    n._scores = tuple(e.scores)
    n.end = {"reason": "target_score", "resigned": None, "idle_s": None}
    n.bonuses = dict(e.bonuses) if e.bonuses is not None else None
    if e.hollywood is not None:
        n.hollywood = {**s.hollywood, "games": [dict(g) for g in e.hollywood["games"]]}
    return n


def _game_stopped(s: GameState, winner: int | None, scores: tuple, end: dict) -> GameState:
    """The game is over before anyone reached the target: the hand in play stops where it is."""
    n = clone(s)
    n.status = "over"
    n.phase = GAME_OVER
    n.to_act = ()
    n.taken = -1
    n.drawn = -1
    n.winner = winner
    n._scores = tuple(scores)
    n.end = end
    return n


def _game_resigned(s: GameState, e: GameResigned) -> GameState:
    return _game_stopped(s, e.winner, e.scores, {"reason": "resigned", "resigned": e.seat, "idle_s": None})


def _game_abandoned(s: GameState, e: GameAbandoned) -> GameState:
    end = {"reason": "abandoned", "resigned": None, "idle_s": e.idle_s}
    if e.drawn_hands is not None:
        end["drawn_hands"] = e.drawn_hands  # a game of bots alone that kept redealing
    return _game_stopped(s, None, e.scores, end)


def _game_expired(s: GameState, e: GameExpired) -> GameState:
    return _game_stopped(s, None, e.scores, {"reason": "expired", "resigned": None, "idle_s": e.waited_s})


_EVOLVERS = {
    GameCreated: _game_created,
    SeatClaimed: _seat_claimed,
    ClientSeedSent: _client_seed_sent,
    ClientSeedsClosed: _client_seeds_closed,
    CardsCut: _cards_cut,
    RolesAssigned: _roles_assigned,
    DealerChosen: _dealer_chosen,
    HandDealt: _hand_dealt,
    UpcardTaken: _upcard_taken,
    UpcardPassed: _upcard_passed,
    CardDrawn: _card_drawn,
    CardDiscarded: _card_discarded,
    Knocked: _knocked,
    HandScored: _hand_scored,
    HandDrawn: _hand_drawn,
    AdviceGiven: _advice_given,
    TurnTimedOut: _turn_timed_out,
    GameEnded: _game_ended,
    GameResigned: _game_resigned,
    GameAbandoned: _game_abandoned,
    GameExpired: _game_expired,
}


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``; never checks and never fails on a log that decide produced."""
    # It applies one event without any check, so a replay cannot fail halfway.
    # Whether an event may happen is decide's question (deciders module).
    return _EVOLVERS[type(event)](state, event)


def replay(events: Iterable) -> GameState:
    """The state after a whole log (events or their encoded dicts)."""
    state = None
    for e in events:
        if type(e) is dict:
            e = decode(e)
        state = _EVOLVERS[type(e)](state, e)
    return state
