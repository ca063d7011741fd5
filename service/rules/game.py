"""Game flow: start, decide, evolve, replay and legal_moves.

Implements RULES.md §1 (Deal, First turn, A normal turn, Knocking, Laying off, Drawn hand,
Game), §2 (roles by cut, the box deals, scoring, rotation, advice), §3 (gin rami: dealer cut,
alternating deal, big gin, flat gin scores) and §4 (rule options, via ``variants``).

``decide(state, actor, command)`` checks a command and returns the events it causes, or raises
RulesError; it never changes the state. ``evolve(state, event)`` applies one event without any
check, so a replay cannot fail halfway. A hand that ends is followed, in the same list of
events, by the next deal (or by GameEnded).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from . import cards as C
from . import fairness
from . import melds as M
from . import variants as V
from .commands import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS_UPCARD,
    TAKE_UPCARD,
    Advise,
    ClaimSeat,
    Command,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    PlayTimedOutTurn,
    TakeUpcard,
    MAX_ADVICE_LENGTH,
)
from .errors import conflict, invalid
from .events import (
    AdviceGiven,
    CardDiscarded,
    CardDrawn,
    CardsCut,
    DealerChosen,
    Event,
    GameCreated,
    GameEnded,
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
    encode,
)

# Phases of a game. "hand_over" only lasts between a hand's end and the next deal, inside one
# list of events, so nobody ever waits in it.
WAITING = "waiting_for_players"
UPCARD = "upcard"
DRAW = "draw"
DISCARD = "discard"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"

_CODES = C.DECK
_INDEX = {c: i for i, c in enumerate(C.DECK)}
_DISCARD_CMD = tuple(Discard(c) for c in C.DECK)
_KNOCK_CMD = tuple(Knock(c, None) for c in C.DECK)
_BIG_GIN_CMD = Knock(None, None)
# The Discard commands of every 13-bit suit pattern, per suit: legal_moves lists a hand's
# discards with four look-ups instead of walking its bits (it runs once per decision).
def _suit_discards(suit: int) -> tuple:
    table: list = [()] * (1 << 13)
    for p in range(1, 1 << 13):
        low = (p & -p).bit_length() - 1
        # the lowest card, then the rest (already built: a smaller pattern), in index order
        table[p] = (_DISCARD_CMD[13 * suit + low],) + table[p & (p - 1)]
    return tuple(table)


_SUIT_DISCARDS = tuple(_suit_discards(s) for s in range(4))


@dataclass
class GameSpec:
    """What a new game needs (RULES.md §4 options; §1 explicit decks; §2 explicit roles).

    ``players``: one entry per seat, a dict (opaque to the engine) or None for an open seat.
    ``seed``: the secret bytes every random deal and cut derives from (fairness module).
    ``decks``: explicit decks (52 codes, top first) for hands 1, 2, ...; later hands use the seed.
    ``roles``: three-hand {"box": seat, "captain": seat, "advisor": seat} instead of a cut.
    ``first_dealer``: gin-rami first dealer instead of a cut.
    """

    variant: str
    players: list
    options: dict | None = None
    seed: bytes | None = None
    decks: list | None = None
    roles: dict | None = None
    first_dealer: int | None = None


class GameState:
    """The state of a game: a snapshot built only by ``evolve``; treat it as immutable.

    Cards are ints (cards module), hands are 52-bit masks, sequences are tuples, so that a copy
    per event is cheap. Public attributes are those of the facade; the others are the engine's.
    """

    __slots__ = (
        "variant",
        "_options",
        "rules_version",
        "nseats",
        "knock_limit",
        "max_turns",
        "big_gin",
        "status",
        "version",
        "_players",
        "_scores",
        "hand_no",
        "phase",
        "to_act",
        "_roles",
        "dealer",
        "non_dealer",
        "winner",
        "commitment",
        "randomly_dealt",
        "seed",
        "decks",
        "spec_roles",
        "spec_first_dealer",
        "cuts",
        "hands",
        "deck",
        "stock_pos",
        "pile",
        "taken",
        "drawn",
        "passes",
        "turns",
        "known",
        "knock",
        "results",
        "advice",
        "_kd",
    )

    # --- facade attributes returned as fresh lists / dicts so callers cannot alter the state
    @property
    def options(self) -> dict:
        return dict(self._options)

    @property
    def players(self) -> list:
        return list(self._players)

    @property
    def scores(self) -> list:
        return list(self._scores)

    @property
    def roles(self) -> dict | None:
        if self._roles is None:
            return None
        return dict(zip(V.ROLE_NAMES, self._roles))

    # --- conveniences
    @property
    def stock_size(self) -> int:
        return 52 - self.stock_pos if self.deck else 0

    @property
    def stock(self) -> tuple:
        """The stock's cards, top first."""
        return self.deck[self.stock_pos :] if self.deck else ()

    @property
    def active_seats(self) -> tuple:
        """(non-dealer, dealer) of the current hand."""
        return (self.non_dealer, self.dealer)

    def _fields(self) -> tuple:
        return tuple(getattr(self, s) for s in self.__slots__ if s != "_kd")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"GameState(variant={self.variant!r}, status={self.status!r}, version={self.version}, "
            f"hand_no={self.hand_no}, phase={self.phase!r}, to_act={self.to_act}, "
            f"scores={list(self._scores)})"
        )


_new_state = GameState.__new__


def _clone(s: GameState) -> GameState:
    n = _new_state(GameState)
    n.variant = s.variant
    n._options = s._options
    n.rules_version = s.rules_version
    n.nseats = s.nseats
    n.knock_limit = s.knock_limit
    n.max_turns = s.max_turns
    n.big_gin = s.big_gin
    n.status = s.status
    n.version = s.version + 1
    n._players = s._players
    n._scores = s._scores
    n.hand_no = s.hand_no
    n.phase = s.phase
    n.to_act = s.to_act
    n._roles = s._roles
    n.dealer = s.dealer
    n.non_dealer = s.non_dealer
    n.winner = s.winner
    n.commitment = s.commitment
    n.randomly_dealt = s.randomly_dealt
    n.seed = s.seed
    n.decks = s.decks
    n.spec_roles = s.spec_roles
    n.spec_first_dealer = s.spec_first_dealer
    n.cuts = s.cuts
    n.hands = s.hands
    n.deck = s.deck
    n.stock_pos = s.stock_pos
    n.pile = s.pile
    n.taken = s.taken
    n.drawn = s.drawn
    n.passes = s.passes
    n.turns = s.turns
    n.known = s.known
    n.knock = s.knock
    n.results = s.results
    n.advice = s.advice
    n._kd = None
    return n


# ---------------------------------------------------------------------------------------------
# start


def _check_deck(deck: Any, n: int) -> tuple:
    if not isinstance(deck, (list, tuple)) or len(deck) != 52:
        raise invalid("invalid_deck", f"deck {n} must list the 52 card codes, top first")
    try:
        m = C.mask(deck)
    except C.CardError as err:
        raise invalid("invalid_deck", f"deck {n}: {err}") from None
    if m != C.FULL_MASK or not all(isinstance(c, str) for c in deck):
        raise invalid("invalid_deck", f"deck {n} must list the 52 card codes, top first")
    return tuple(deck)


def _check_seat(value: Any, nseats: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < nseats


def start(spec: GameSpec) -> list:
    """The events that create a game: GameCreated, then the start events if no seat is open."""
    variant = V.get_variant(spec.variant)
    options = V.normalise_options(variant.name, spec.options)
    seed = spec.seed
    if not isinstance(seed, (bytes, bytearray)) or not seed:
        raise invalid("invalid_seed", "the seed must be non-empty bytes (32 random bytes are advised)")
    seed = bytes(seed)
    players = spec.players
    if not isinstance(players, (list, tuple)) or len(players) != variant.seats:
        raise invalid("invalid_players", f"{variant.name} needs a list of {variant.seats} players")
    if not all(p is None or isinstance(p, dict) for p in players):
        raise invalid("invalid_players", "each player is an object such as {'name': 'ann'}, or null")
    decks = None
    if spec.decks:
        if not isinstance(spec.decks, (list, tuple)):
            raise invalid("invalid_deck", "decks must be a list of decks")
        decks = tuple(_check_deck(d, i + 1) for i, d in enumerate(spec.decks))
    roles = None
    if spec.roles is not None:
        if variant.name != V.THREE_HAND:
            raise invalid("invalid_roles", "roles are given only in three-hand")
        r = spec.roles
        if (
            not isinstance(r, dict)
            or set(r) != set(V.ROLE_NAMES)
            or not all(_check_seat(r[k], 3) for k in V.ROLE_NAMES)
            or len({r[k] for k in V.ROLE_NAMES}) != 3
        ):
            raise invalid("invalid_roles", "roles must map box, captain and advisor to seats 0, 1, 2")
        roles = {k: r[k] for k in V.ROLE_NAMES}
    first_dealer = spec.first_dealer
    if first_dealer is not None:
        if variant.name != V.GIN_RAMI:
            raise invalid("invalid_first_dealer", "in three-hand the box deals: give roles instead")
        if not _check_seat(first_dealer, 2):
            raise invalid("invalid_first_dealer", "first_dealer must be seat 0 or 1")
    randomly_dealt = decks is None and roles is None and first_dealer is None
    created = GameCreated(
        variant=variant.name,
        options=options,
        rules_version=V.RULES_VERSION,
        commitment=fairness.commitment(seed),
        seed=seed.hex(),
        players=tuple(None if p is None else dict(p) for p in players),
        randomly_dealt=randomly_dealt,
        decks=decks,
        roles=roles,
        first_dealer=first_dealer,
    )
    out: list = [created]
    if all(p is not None for p in players):
        out += _start_events(variant.name, seed, roles, first_dealer, decks)
    return out


def _cut_order(seed: bytes, seats: list, purpose: str, events: list, rounds: list) -> list:
    """Seats from highest cut to lowest, re-cutting ties on rank (§2 Roles [decision])."""
    r = rounds[0]
    rounds[0] += 1
    cut = fairness.cut_cards(seed, r, len(seats))
    events.append(CardsCut(purpose, r, tuple(seats), tuple(cut)))
    rank_of = {s: C.rank(_INDEX[c]) for s, c in zip(seats, cut)}
    order: list = []
    for rank in sorted(set(rank_of.values()), reverse=True):
        group = [s for s in seats if rank_of[s] == rank]
        if len(group) == 1:
            order.append(group[0])
        else:
            order += _cut_order(seed, group, purpose, events, rounds)
    return order


def _start_events(variant: str, seed: bytes, roles: dict | None, first_dealer, decks) -> list:
    out: list = []
    if variant == V.THREE_HAND:
        if roles is not None:
            box, captain, advisor = roles["box"], roles["captain"], roles["advisor"]
            out.append(RolesAssigned(box, captain, advisor, "explicit"))
        else:
            box, captain, advisor = _cut_order(seed, [0, 1, 2], "roles", out, [0])
            out.append(RolesAssigned(box, captain, advisor, "cut"))
        dealer, non_dealer = box, captain
    else:
        if first_dealer is not None:
            dealer = first_dealer
            out.append(DealerChosen(dealer, "explicit"))
        else:
            # the lower card deals (§3 [decision])
            dealer = _cut_order(seed, [0, 1], "first_dealer", out, [0])[-1]
            out.append(DealerChosen(dealer, "cut"))
        non_dealer = 1 - dealer
    out.append(_deal(seed, decks, 1, dealer, non_dealer))
    return out


def _deal(seed: bytes, decks, hand_no: int, dealer: int, non_dealer: int) -> HandDealt:
    if decks and hand_no <= len(decks):
        return HandDealt(hand_no, dealer, non_dealer, tuple(decks[hand_no - 1]), "explicit")
    deck = tuple(fairness.deck_for_hand(seed, hand_no))
    return HandDealt(hand_no, dealer, non_dealer, deck, "seed")


# ---------------------------------------------------------------------------------------------
# decide


def _card(code: Any, what: str = "card") -> int:
    i = _INDEX.get(code) if isinstance(code, str) else None
    if i is None:
        raise invalid("invalid_card", f"{what} {code!r} is not a card code (e.g. 'TD')")
    return i


def _check_actor(state: GameState, actor: Any) -> None:
    if state.status == "waiting":
        raise conflict("game_not_started", "the game starts when every seat is taken")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not _check_seat(actor, state.nseats):
        raise invalid("not_a_player", f"seat {actor!r} does not play in this game")
    if actor not in state.to_act:
        if state._roles is not None and actor == state._roles[2]:
            raise conflict(
                "not_your_turn", "the advisor sits out this hand: only the captain plays"
            )
        raise conflict("not_your_turn", "it is not your turn")


def _other(state: GameState, seat: int) -> int:
    return state.non_dealer if seat == state.dealer else state.dealer


def _decide_take_upcard(state: GameState, actor: int, command) -> list:
    if state.phase != UPCARD:
        raise conflict("wrong_phase", "there is no upcard on offer now")
    return [UpcardTaken(actor, _CODES[state.pile[-1]])]


def _decide_pass_upcard(state: GameState, actor: int, command) -> list:
    if state.phase != UPCARD:
        raise conflict("wrong_phase", "there is no upcard on offer now")
    return [UpcardPassed(actor)]


def _check_draw_phase(state: GameState) -> None:
    if state.phase == DRAW:
        return
    if state.phase == DISCARD:
        raise conflict("already_drawn", "you have drawn: discard or knock")
    if state.phase == UPCARD:
        raise conflict("wrong_phase", "take or pass the upcard first")
    raise conflict("wrong_phase", "no card may be drawn now")


def _decide_draw_stock(state: GameState, actor: int, command) -> list:
    _check_draw_phase(state)
    return [CardDrawn(actor, "stock", _CODES[state.deck[state.stock_pos]])]


def _decide_draw_discard(state: GameState, actor: int, command) -> list:
    _check_draw_phase(state)
    if state.turns == 0 and state.passes == 2:
        raise conflict(
            "upcard_refused",
            "both players passed the upcard: the non-dealer begins by drawing from the stock",
        )
    if not state.pile:
        raise conflict("discard_pile_empty", "the discard pile is empty")
    return [CardDrawn(actor, "discard", _CODES[state.pile[-1]])]


def _check_discard_phase(state: GameState) -> None:
    if state.phase == DISCARD:
        return
    if state.phase == DRAW:
        raise conflict("must_draw_first", "draw a card first")
    if state.phase == UPCARD:
        raise conflict("wrong_phase", "take or pass the upcard first")
    raise conflict("wrong_phase", "no card may be discarded now")


def _check_discard_card(state: GameState, actor: int, code: Any, what: str) -> int:
    card = _card(code, what)
    if not state.hands[actor] >> card & 1:
        raise invalid("card_not_in_hand", f"{_CODES[card]} is not in your hand")
    if card == state.taken:
        raise invalid(
            "cannot_discard_taken_card",
            f"{_CODES[card]} was just taken from the discard pile: it may not be discarded this turn",
        )
    return card


def _decide_discard(state: GameState, actor: int, command: Discard) -> list:
    _check_discard_phase(state)
    card = _check_discard_card(state, actor, command.card, "card")
    out: list = [CardDiscarded(actor, _CODES[card])]
    # §1 Drawn hand: a discard that leaves two cards in the stock ends the hand; so does the
    # turn limit of §4 (the turn counter counts this turn already: it counts draws).
    if 52 - state.stock_pos <= 2:
        reason = "stock_exhausted"
    elif state.turns >= state.max_turns:
        reason = "turn_limit"
    else:
        return out
    out.append(HandDrawn(state.hand_no, reason))
    # the same dealer deals again; roles are unchanged (§1, §2 Rotation)
    out.append(_deal(state.seed, state.decks, state.hand_no + 1, state.dealer, state.non_dealer))
    return out


def _normalise(melds_: Iterable) -> tuple:
    """Melds as a tuple of tuples of card indexes: each meld in index order, melds sorted."""
    return tuple(sorted(tuple(sorted(C.to_index(c) for c in m)) for m in melds_))


def _codes(cards_: Iterable) -> tuple:
    return tuple(_CODES[C.to_index(c)] for c in cards_)


_MELD_CODES = {"invalid_meld": "invalid_melds"}


def _client_melds(hand: int, melds_: Any) -> tuple:
    """(melds, deadwood cards, deadwood) of a client's arrangement of ``hand``."""
    if not isinstance(melds_, (list, tuple)) or not all(
        isinstance(m, (list, tuple)) and all(isinstance(c, str) for c in m) for m in melds_
    ):
        raise invalid("invalid_melds", "melds must be a list of lists of card codes")
    idx = [[_card(c, "meld card") for c in m] for m in melds_]
    try:
        _, dead_cards, dead = M.check_melds(hand, idx)
    except M.MeldError as err:
        raise invalid(_MELD_CODES.get(err.code, err.code), err.message) from None
    return _normalise(idx), tuple(sorted(C.to_index(c) for c in dead_cards)), dead


def _decide_knock(state: GameState, actor: int, command: Knock) -> list:
    _check_discard_phase(state)
    hand = state.hands[actor]
    if command.discard is None:
        # §3 big gin: all eleven cards melded, laid down without a discard
        if not state.big_gin:
            raise invalid("big_gin_not_allowed", "big gin is not played in this game")
        if command.melds is None:
            arr = M.best_arrangement(C.cards_of(hand))
            laid, dead_cards, dead = _normalise(arr.melds), tuple(arr.deadwood_cards), arr.deadwood
        else:
            laid, dead_cards, dead = _client_melds(hand, command.melds)
        if dead != 0:
            raise invalid("not_big_gin", "big gin needs all eleven cards in melds")
        discard = None
        kind = "big_gin"
    else:
        discard = _check_discard_card(state, actor, command.discard, "knock discard")
        hand &= ~(1 << discard)
        if command.melds is None:
            # the engine's canonical arrangement of the knocker's own cards (§1 [decision]):
            # the defender's hand is not looked at
            arr = M.best_arrangement(C.cards_of(hand))
            laid, dead_cards, dead = _normalise(arr.melds), tuple(arr.deadwood_cards), arr.deadwood
        else:
            laid, dead_cards, dead = _client_melds(hand, command.melds)
        if dead > state.knock_limit:
            raise invalid(
                "knock_deadwood_too_high",
                f"knocking needs {state.knock_limit} or less deadwood; these melds leave {dead}",
            )
        kind = "gin" if dead == 0 else "knock"
    dead_cards = tuple(sorted(C.to_index(c) for c in dead_cards))
    knocked = Knocked(
        actor,
        None if discard is None else _CODES[discard],
        tuple(_codes(m) for m in laid),
        _codes(dead_cards),
        dead,
        kind,
    )
    return [knocked] + _score(state, actor, laid, dead, kind)


def _score(state: GameState, knocker: int, laid: tuple, k: int, kind: str) -> list:
    """HandScored and what follows it (§2 Scoring, §3 scoring, §2 Rotation, §3 deal, §1 Game)."""
    opts = state._options
    defender = _other(state, knocker)
    dmask = state.hands[defender]
    if kind == "knock":
        lay = M.resolve_layoffs(dmask, laid)
        d = lay.deadwood
        d_melds, layoffs, d_dead = lay.melds, lay.layoffs, lay.deadwood_cards
        if k < d:
            winner, points, outcome = knocker, d - k, "knock"
        else:
            # K >= D is an undercut, K = D included (§2; §3 [decision])
            winner, points, outcome = defender, opts["undercut_bonus"] + (k - d), "undercut"
    else:
        # no lay-offs against gin or big gin: the defender only forms their own melds
        arr = M.best_arrangement(C.cards_of(dmask))
        d = arr.deadwood
        d_melds, layoffs, d_dead = arr.melds, (), arr.deadwood_cards
        bonus = opts["gin_bonus"] if kind == "gin" else opts["big_gin_bonus"]
        winner, outcome = knocker, kind
        points = bonus + (d if opts["gin_adds_deadwood"] else 0)
    scores = list(state._scores)
    scores[winner] += points
    scored = HandScored(
        hand_no=state.hand_no,
        knocker=knocker,
        defender=defender,
        outcome=outcome,
        knocker_deadwood=k,
        defender_melds=tuple(_codes(m) for m in _normalise(d_melds)),
        layoffs=tuple((_CODES[C.to_index(c)], int(i)) for c, i in layoffs),
        defender_deadwood_cards=_codes(sorted(C.to_index(c) for c in d_dead)),
        defender_deadwood=d,
        winner=winner,
        points=points,
        scores=tuple(scores),
    )
    out: list = [scored]
    if scores[winner] >= opts["target_score"]:
        # only the winner's score moved, so the winner is the only one at the target (§1 Game)
        out.append(GameEnded(winner, tuple(scores), state.seed.hex()))
        return out
    if state._roles is not None:
        box, captain, advisor = state._roles
        if winner == box:
            out.append(RolesAssigned(box, advisor, captain, "box_won"))
        else:
            out.append(RolesAssigned(captain, advisor, box, "box_lost"))
        dealer, non_dealer = out[-1].box, out[-1].captain
    else:
        dealer, non_dealer = state.non_dealer, state.dealer  # the deal alternates (§3)
    out.append(_deal(state.seed, state.decks, state.hand_no + 1, dealer, non_dealer))
    return out


def _decide_claim_seat(state: GameState, actor: Any, command: ClaimSeat) -> list:
    if actor is not None:
        raise invalid("invalid_command", "a seat is claimed for a player, not by a seated player")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not _check_seat(command.seat, state.nseats):
        raise invalid("invalid_seat", f"seat must be one of 0..{state.nseats - 1}")
    if not isinstance(command.player, dict):
        raise invalid("invalid_command", "player must be an object such as {'name': 'ann'}")
    if state._players[command.seat] is not None:
        raise conflict("seat_taken", f"seat {command.seat} is taken")
    out: list = [SeatClaimed(command.seat, dict(command.player))]
    if all(p is not None for i, p in enumerate(state._players) if i != command.seat):
        out += _start_events(
            state.variant, state.seed, state.spec_roles, state.spec_first_dealer, state.decks
        )
    return out


def check_advice(state: GameState, actor: Any, text: Any) -> dict:
    """The advice entry ``actor`` may give now (RULES.md §2); raises RulesError if they may not.

    Advice is not an event of the game's log (it changes nothing in play, and a version moved by
    it would tell the box when it was given): the service records the entry in the advice log.
    """
    if state is None:
        raise conflict("game_not_started", "there is no game")
    if state.variant != V.THREE_HAND:
        raise conflict("not_advisor", "only three-hand has an advisor")
    if state.status == "waiting":
        raise conflict("game_not_started", "the game starts when every seat is taken")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not _check_seat(actor, state.nseats):
        raise invalid("not_a_player", f"seat {actor!r} does not play in this game")
    if actor != state._roles[2]:
        raise conflict("not_advisor", "only the advisor gives advice")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_ADVICE_LENGTH:
        raise invalid("invalid_command", f"advice is a non-empty text of at most {MAX_ADVICE_LENGTH} characters")
    return {"hand_no": state.hand_no, "advisor": actor, "captain": state._roles[1], "text": text}


def _decide_advise(state: GameState, actor: Any, command: Advise) -> list:
    # games recorded before the advice log kept advice as AdviceGiven events: their replay
    # (the audit re-decides every command) still decides it this way
    entry = check_advice(state, actor, command.text)
    return [AdviceGiven(actor, entry["captain"], entry["hand_no"], entry["text"])]


_PLAY_DECIDERS = {
    TakeUpcard: _decide_take_upcard,
    PassUpcard: _decide_pass_upcard,
    DrawStock: _decide_draw_stock,
    DrawDiscard: _decide_draw_discard,
    Discard: _decide_discard,
    Knock: _decide_knock,
}


def decide(state: GameState | None, actor: int | None, command: Command) -> list:
    """The events ``command`` by ``actor`` causes; raises RulesError if it is illegal now."""
    if state is None:
        raise conflict("game_not_started", "there is no game")
    t = type(command)
    play = _PLAY_DECIDERS.get(t)
    if play is not None:
        # to_act is empty unless the game is playing, and holds only seats: the common case
        # needs no other check
        if actor not in state.to_act or type(actor) is not int:
            _check_actor(state, actor)
        return play(state, actor, command)
    if t is ClaimSeat:
        return _decide_claim_seat(state, actor, command)
    if t is Advise:
        return _decide_advise(state, actor, command)
    if t is PlayTimedOutTurn:
        if type(command.move) not in _PLAY_DECIDERS:
            raise invalid("unknown_command", f"{command.move!r} is not a move a turn clock can play")
        # the move is decided as if the seat had sent it; the first event says who really chose it
        return [TurnTimedOut(actor, state.hand_no)] + decide(state, actor, command.move)
    raise invalid("unknown_command", f"{command!r} is not a command")


# ---------------------------------------------------------------------------------------------
# evolve


def _ev_game_created(_: Any, e: GameCreated) -> GameState:
    s = _new_state(GameState)
    opts = dict(e.options)
    nseats = len(e.players)
    s.variant = e.variant
    s._options = opts
    s.rules_version = e.rules_version
    s.nseats = nseats
    s.knock_limit = opts["knock_limit"]
    s.max_turns = opts["max_turns_per_hand"]
    s.big_gin = opts["big_gin_bonus"] is not None
    s.status = "waiting"
    s.version = 1
    s._players = tuple(e.players)
    s._scores = (0,) * nseats
    s.hand_no = 0
    s.phase = WAITING
    s.to_act = ()
    s._roles = None
    s.dealer = None
    s.non_dealer = None
    s.winner = None
    s.commitment = e.commitment
    s.randomly_dealt = e.randomly_dealt
    s.seed = bytes.fromhex(e.seed)
    s.decks = tuple(tuple(d) for d in e.decks) if e.decks else None
    s.spec_roles = dict(e.roles) if e.roles is not None else None
    s.spec_first_dealer = e.first_dealer
    s.cuts = ()
    s.hands = (0,) * nseats
    s.deck = ()
    s.stock_pos = 0
    s.pile = ()
    s.taken = -1
    s.drawn = -1
    s.passes = 0
    s.turns = 0
    s.known = (0,) * nseats
    s.knock = None
    s.results = ()
    s.advice = ()
    s._kd = None
    return s


def _ev_seat_claimed(s: GameState, e: SeatClaimed) -> GameState:
    n = _clone(s)
    players = list(s._players)
    players[e.seat] = dict(e.player)
    n._players = tuple(players)
    return n


def _ev_cards_cut(s: GameState, e: CardsCut) -> GameState:
    n = _clone(s)
    n.cuts = s.cuts + ((e.purpose, e.round, tuple(e.seats), tuple(e.cards)),)
    return n


def _ev_roles_assigned(s: GameState, e: RolesAssigned) -> GameState:
    n = _clone(s)
    n._roles = (e.box, e.captain, e.advisor)
    n.dealer = e.box
    n.non_dealer = e.captain
    return n


def _ev_dealer_chosen(s: GameState, e: DealerChosen) -> GameState:
    n = _clone(s)
    n.dealer = e.dealer
    n.non_dealer = 1 - e.dealer
    return n


def _ev_hand_dealt(s: GameState, e: HandDealt) -> GameState:
    n = _clone(s)
    deck = tuple(_INDEX[c] for c in e.deck)
    nd = dl = 0
    for c in deck[0:20:2]:
        nd |= 1 << c
    for c in deck[1:20:2]:
        dl |= 1 << c
    hands = [0] * s.nseats
    hands[e.non_dealer] = nd
    hands[e.dealer] = dl
    n.status = "playing"
    n.hand_no = e.hand_no
    n.dealer = e.dealer
    n.non_dealer = e.non_dealer
    n.hands = tuple(hands)
    n.deck = deck
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


def _with(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1 :]


def _ev_upcard_taken(s: GameState, e: UpcardTaken) -> GameState:
    n = _clone(s)
    bit = 1 << _INDEX[e.card]
    n.hands = _with(s.hands, e.seat, s.hands[e.seat] | bit)
    n.known = _with(s.known, e.seat, s.known[e.seat] | bit)
    n.pile = s.pile[:-1]
    n.taken = _INDEX[e.card]
    n.turns = s.turns + 1
    n.phase = DISCARD
    n.to_act = (e.seat,)
    return n


def _ev_upcard_passed(s: GameState, e: UpcardPassed) -> GameState:
    n = _clone(s)
    n.passes = s.passes + 1
    if n.passes == 1:
        n.to_act = (s.dealer,)
    else:
        n.phase = DRAW
        n.to_act = (s.non_dealer,)
    return n


def _ev_card_drawn(s: GameState, e: CardDrawn) -> GameState:
    n = _clone(s)
    card = _INDEX[e.card]
    bit = 1 << card
    n.hands = _with(s.hands, e.seat, s.hands[e.seat] | bit)
    if e.source == "stock":
        n.stock_pos = s.stock_pos + 1
        n.drawn = card
        n.taken = -1
    else:
        n.pile = s.pile[:-1]
        n.taken = card
        n.drawn = -1
        n.known = _with(s.known, e.seat, s.known[e.seat] | bit)
    n.turns = s.turns + 1
    n.phase = DISCARD
    return n


def _ev_card_discarded(s: GameState, e: CardDiscarded) -> GameState:
    n = _clone(s)
    card = _INDEX[e.card]
    keep = ~(1 << card)
    n.hands = _with(s.hands, e.seat, s.hands[e.seat] & keep)
    if s.known[e.seat] >> card & 1:
        n.known = _with(s.known, e.seat, s.known[e.seat] & keep)
    n.pile = s.pile + (card,)
    n.taken = -1
    n.drawn = -1
    n.phase = DRAW
    n.to_act = (s.non_dealer if e.seat == s.dealer else s.dealer,)
    return n


def _ev_knocked(s: GameState, e: Knocked) -> GameState:
    n = _clone(s)
    if e.discard is not None:
        card = _INDEX[e.discard]
        n.hands = _with(s.hands, e.seat, s.hands[e.seat] & ~(1 << card))
        n.pile = s.pile + (card,)
    n.taken = -1
    n.drawn = -1
    n.knock = e
    n.phase = HAND_OVER
    n.to_act = ()
    return n


def _ev_hand_scored(s: GameState, e: HandScored) -> GameState:
    n = _clone(s)
    k = s.knock
    n._scores = tuple(e.scores)
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
        "layoffs": [list(x) for x in e.layoffs],
        "defender_deadwood_cards": list(e.defender_deadwood_cards),
        "defender_deadwood": e.defender_deadwood,
        "winner": e.winner,
        "points": e.points,
        "scores": list(e.scores),
    }
    n.results = s.results + (result,)
    return n


def _ev_hand_drawn(s: GameState, e: HandDrawn) -> GameState:
    n = _clone(s)
    n.results = s.results + (
        {"hand_no": e.hand_no, "dealer": s.dealer, "outcome": "drawn", "reason": e.reason},
    )
    n.phase = HAND_OVER
    n.to_act = ()
    return n


def _ev_advice_given(s: GameState, e: AdviceGiven) -> GameState:
    n = _clone(s)
    n.advice = s.advice + (
        {"hand_no": e.hand_no, "advisor": e.seat, "captain": e.captain, "text": e.text},
    )
    return n


def _ev_turn_timed_out(s: GameState, e: TurnTimedOut) -> GameState:
    # a marker in the log: the move that follows was played by the clock; the game is unchanged
    return _clone(s)


def _ev_game_ended(s: GameState, e: GameEnded) -> GameState:
    n = _clone(s)
    n.status = "over"
    n.phase = GAME_OVER
    n.to_act = ()
    n.winner = e.winner
    n._scores = tuple(e.scores)
    return n


_EVOLVERS = {
    GameCreated: _ev_game_created,
    SeatClaimed: _ev_seat_claimed,
    CardsCut: _ev_cards_cut,
    RolesAssigned: _ev_roles_assigned,
    DealerChosen: _ev_dealer_chosen,
    HandDealt: _ev_hand_dealt,
    UpcardTaken: _ev_upcard_taken,
    UpcardPassed: _ev_upcard_passed,
    CardDrawn: _ev_card_drawn,
    CardDiscarded: _ev_card_discarded,
    Knocked: _ev_knocked,
    HandScored: _ev_hand_scored,
    HandDrawn: _ev_hand_drawn,
    AdviceGiven: _ev_advice_given,
    TurnTimedOut: _ev_turn_timed_out,
    GameEnded: _ev_game_ended,
}


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``; never checks and never fails on a log that decide produced."""
    return _EVOLVERS[type(event)](state, event)


def replay(events: Iterable) -> GameState:
    """The state after a whole log (events or their encoded dicts)."""
    state = None
    for e in events:
        if type(e) is dict:
            e = decode(e)
        state = _EVOLVERS[type(e)](state, e)
    return state


def apply(state: GameState | None, actor: int | None, command: Command) -> tuple:
    """(new state, events): decide then evolve."""
    events = decide(state, actor, command)
    for e in events:
        state = _EVOLVERS[type(e)](state, e)
    return state, events


# ---------------------------------------------------------------------------------------------
# legal moves


def knock_options(state: GameState) -> list:
    """[(discard card, deadwood after)] for the player to discard: knocks allowed now (cached)."""
    kd = state._kd
    if kd is None:
        hand = state.hands[state.to_act[0]]
        if M.deadwood_after_discard_mask(hand) > state.knock_limit:
            kd = []
        else:
            kd = [(c, d) for c, d in M.knock_discards(C.cards_of(hand), state.knock_limit)]
        state._kd = kd
    return kd


def legal_moves(state: GameState | None, seat: int | None) -> list:
    """Every legal command of ``seat`` now (empty when the seat is not to act).

    Discards one per card (except the card just taken from the discard pile), one
    ``Knock(discard, None)`` per discard after which a knock is allowed, and ``Knock(None,
    None)`` for big gin where allowed. ClaimSeat and Advise are not listed.
    """
    if state is None or state.status != "playing" or seat not in state.to_act:
        return []
    phase = state.phase
    if phase == DRAW:
        if state.turns == 0 and state.passes == 2:
            return [DRAW_STOCK]
        return [DRAW_STOCK, DRAW_DISCARD]
    if phase == UPCARD:
        return [TAKE_UPCARD, PASS_UPCARD]
    if phase != DISCARD:
        return []
    hand = state.hands[seat]
    taken = state.taken
    h = hand & ~(1 << taken) if taken >= 0 else hand
    d0, d1, d2, d3 = _SUIT_DISCARDS
    moves = [*d0[h & 0x1FFF], *d1[h >> 13 & 0x1FFF], *d2[h >> 26 & 0x1FFF], *d3[h >> 39]]
    kd = knock_options(state)
    if kd:
        moves += [_KNOCK_CMD[C.to_index(c)] for c, _ in kd if C.to_index(c) != taken]
        # eleven cards all in melds always leave 0 after some discard (one meld has 4+ cards)
        if state.big_gin and min(d for _, d in kd) == 0 and M.deadwood_mask(hand) == 0:
            moves.append(_BIG_GIN_CMD)
    return moves


# ---------------------------------------------------------------------------------------------
# snapshots


def state_to_dict(state: GameState) -> dict:
    """A JSON-able snapshot of the whole state (secrets included: it is for storage)."""
    s = state
    return {
        "variant": s.variant,
        "options": dict(s._options),
        "rules_version": s.rules_version,
        "status": s.status,
        "version": s.version,
        "players": [None if p is None else dict(p) for p in s._players],
        "scores": list(s._scores),
        "hand_no": s.hand_no,
        "phase": s.phase,
        "to_act": list(s.to_act),
        "roles": s.roles,
        "dealer": s.dealer,
        "non_dealer": s.non_dealer,
        "winner": s.winner,
        "commitment": s.commitment,
        "randomly_dealt": s.randomly_dealt,
        "seed": s.seed.hex(),
        "decks": [list(d) for d in s.decks] if s.decks else None,
        "spec_roles": dict(s.spec_roles) if s.spec_roles is not None else None,
        "spec_first_dealer": s.spec_first_dealer,
        "cuts": [[p, r, list(seats), list(cs)] for p, r, seats, cs in s.cuts],
        "hands": [C.codes_of(h) for h in s.hands],
        "deck": [_CODES[c] for c in s.deck],
        "stock_pos": s.stock_pos,
        "pile": [_CODES[c] for c in s.pile],
        "taken": _CODES[s.taken] if s.taken >= 0 else None,
        "drawn": _CODES[s.drawn] if s.drawn >= 0 else None,
        "passes": s.passes,
        "turns": s.turns,
        "known": [C.codes_of(m) for m in s.known],
        "knock": None if s.knock is None else encode(s.knock),
        "results": [dict(r) for r in s.results],
        "advice": [dict(a) for a in s.advice],
    }


def state_from_dict(d: dict) -> GameState:
    """The state of a snapshot made by state_to_dict."""
    s = _new_state(GameState)
    opts = dict(d["options"])
    s.variant = d["variant"]
    s._options = opts
    s.rules_version = d["rules_version"]
    s.nseats = len(d["players"])
    s.knock_limit = opts["knock_limit"]
    s.max_turns = opts["max_turns_per_hand"]
    s.big_gin = opts["big_gin_bonus"] is not None
    s.status = d["status"]
    s.version = d["version"]
    s._players = tuple(None if p is None else dict(p) for p in d["players"])
    s._scores = tuple(d["scores"])
    s.hand_no = d["hand_no"]
    s.phase = d["phase"]
    s.to_act = tuple(d["to_act"])
    r = d["roles"]
    s._roles = None if r is None else tuple(r[k] for k in V.ROLE_NAMES)
    s.dealer = d["dealer"]
    s.non_dealer = d["non_dealer"]
    s.winner = d["winner"]
    s.commitment = d["commitment"]
    s.randomly_dealt = d["randomly_dealt"]
    s.seed = bytes.fromhex(d["seed"])
    s.decks = tuple(tuple(x) for x in d["decks"]) if d["decks"] else None
    s.spec_roles = dict(d["spec_roles"]) if d["spec_roles"] is not None else None
    s.spec_first_dealer = d["spec_first_dealer"]
    s.cuts = tuple((p, r_, tuple(seats), tuple(cs)) for p, r_, seats, cs in d["cuts"])
    s.hands = tuple(C.mask(h) for h in d["hands"])
    s.deck = tuple(_INDEX[c] for c in d["deck"])
    s.stock_pos = d["stock_pos"]
    s.pile = tuple(_INDEX[c] for c in d["pile"])
    s.taken = _INDEX[d["taken"]] if d["taken"] is not None else -1
    s.drawn = _INDEX[d["drawn"]] if d["drawn"] is not None else -1
    s.passes = d["passes"]
    s.turns = d["turns"]
    s.known = tuple(C.mask(m) for m in d["known"])
    s.knock = None if d["knock"] is None else decode(d["knock"])
    s.results = tuple(dict(x) for x in d["results"])
    s.advice = tuple(dict(x) for x in d["advice"])
    s._kd = None
    return s
