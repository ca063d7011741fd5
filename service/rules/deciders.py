"""Deciding a command: whether it is legal now, and the events it causes.

It implements RULES.md §1: The first turn (the upcard); A turn (draw, then discard); Knocking;
Gin; A drawn hand (the stock runs down, or the §4 turn limit).
§2: claiming an open seat; who plays each hand; Advice.
§3: Gin and big gin.
Extensions: Resigning; Abandoned games.
"""

from __future__ import annotations

from typing import Any

from . import cards, melds, variants
from .cards import DECK, INDEX_OF
from .commands import (
    AbandonGame,
    ExpireGame,
    Advise,
    ClaimSeat,
    CloseClientSeeds,
    Command,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    PlayTimedOutTurn,
    Resign,
    SendClientSeed,
    TakeUpcard,
)
from .errors import conflict, forbidden, invalid
from .events import (
    AdviceGiven,
    CardDiscarded,
    CardDrawn,
    ClientSeedSent,
    ClientSeedsClosed,
    GameAbandoned,
    GameExpired,
    GameResigned,
    HandDrawn,
    Knocked,
    SeatClaimed,
    TurnTimedOut,
    UpcardPassed,
    UpcardTaken,
)
# Scoring a knock is scoring's.
from .scoring import card_codes, normalise_melds, score_hand
from .setup import deal, is_seat, start_events
from .state import DISCARD, DRAW, UPCARD, GameState
from .evolvers import evolve

#: the engine's code for each MeldError code that differs (a client's melds are "invalid_melds")
MELD_ERROR_CODES = {"invalid_meld": "invalid_melds"}


def _card(code: str, what: str = "card") -> int:
    # a command's card fields are strings (commands check their shape): here, is it a card?
    card = INDEX_OF.get(code)
    if card is None:
        raise invalid("invalid_card", f"{what} {code!r} is not a card code (e.g. 'TD')")
    return card


def _check_seat_in_play(state: GameState, actor: Any) -> None:
    """Raises RulesError unless the game is in play and ``actor`` is one of its seats."""
    if state.status == "waiting":
        raise conflict("game_not_started", "the game starts when every seat is taken")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not is_seat(actor, state.nseats):
        raise invalid("not_a_player", f"seat {actor!r} does not play in this game")


def _check_actor(state: GameState, actor: Any) -> None:
    _check_seat_in_play(state, actor)
    if actor not in state.to_act:
        if state.advisor is not None and actor == state.advisor:
            # RULES.md §2: the advisor plays no moves in the hand (advice and resigning are other commands)
            raise forbidden("forbidden", "the advisor sits out this hand and plays no moves")
        raise conflict("not_your_turn", "it is not your turn")


#: why a move of each phase is refused in a phase that has no refusal of its own (_check_phase)
_NOT_NOW = {
    UPCARD: "there is no upcard on offer now",
    DRAW: "no card may be drawn now",
    DISCARD: "no card may be discarded now",
}


def _check_phase(state: GameState, phase: str) -> None:
    """Raises the conflict of a move of ``phase`` made while the game is in another phase."""
    if state.phase == phase:
        return
    if state.phase == UPCARD:
        raise conflict("wrong_phase", "take or pass the upcard first")
    if state.phase == DISCARD and phase == DRAW:
        raise conflict("already_drawn", "you have drawn: discard or knock")
    if state.phase == DRAW and phase == DISCARD:
        raise conflict("must_draw_first", "draw a card first")
    raise conflict("wrong_phase", _NOT_NOW[phase])


def _decide_take_upcard(state: GameState, actor: int, command: TakeUpcard) -> list:
    _check_phase(state, UPCARD)
    return [UpcardTaken(actor, DECK[state.pile[-1]])]


def _decide_pass_upcard(state: GameState, actor: int, command: PassUpcard) -> list:
    _check_phase(state, UPCARD)
    return [UpcardPassed(actor)]


def _decide_draw_stock(state: GameState, actor: int, command: DrawStock) -> list:
    _check_phase(state, DRAW)
    return [CardDrawn(actor, "stock", DECK[state.deck[state.stock_pos]])]


def _decide_draw_discard(state: GameState, actor: int, command: DrawDiscard) -> list:
    _check_phase(state, DRAW)
    if state.turns == 0 and state.passes == 2:
        raise conflict(
            "upcard_refused",
            "both players passed the upcard: the non-dealer begins by drawing from the stock",
        )
    if not state.pile:
        raise conflict("discard_pile_empty", "the discard pile is empty")
    return [CardDrawn(actor, "discard", DECK[state.pile[-1]])]


def _check_discard_card(state: GameState, actor: int, code: Any, what: str) -> int:
    card = _card(code, what)
    if not state.hands[actor] >> card & 1:
        raise invalid("card_not_in_hand", f"{DECK[card]} is not in your hand")
    if card == state.taken:
        raise invalid(
            "cannot_discard_taken_card",
            f"{DECK[card]} was just taken from the discard pile: it may not be discarded this turn",
        )
    return card


def _decide_discard(state: GameState, actor: int, command: Discard) -> list:
    _check_phase(state, DISCARD)
    card = _check_discard_card(state, actor, command.card, "card")
    out: list = [CardDiscarded(actor, DECK[card])]
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
    out.append(deal(state.deal_seed, state.decks, state.hand_no + 1, state.dealer, state.non_dealer))
    return out


def _client_melds(hand: int, laid, discard: int | None = None) -> tuple:
    """(melds, deadwood cards, deadwood) of a client's arrangement of ``hand`` (lists of card codes),
    the hand a knock leaves after its ``discard``."""
    as_indexes = [[_card(c, "meld card") for c in m] for m in laid]
    try:
        _, dead_cards, dead = melds.check_melds(hand, as_indexes)
    except melds.MeldError as err:
        message = err.message
        if err.code == "meld_card_not_in_hand" and err.card is not None and err.card == discard:
            # the card was held: the knock discards it, and a discarded card is in no meld (§1)
            message = (f"{DECK[discard]} is the knock's discard: it leaves the hand, so no meld may hold it "
                       "(discard another card, or lay the melds without it)")
        raise invalid(MELD_ERROR_CODES.get(err.code, err.code), message) from None
    return normalise_melds(as_indexes), tuple(sorted(cards.to_index(c) for c in dead_cards)), dead


def _best_melds(hand: int) -> tuple:
    """(melds, deadwood cards, deadwood) of the engine's canonical arrangement of ``hand``."""
    best = melds.best_arrangement(cards.cards_of(hand))
    return normalise_melds(best.melds), tuple(best.deadwood_cards), best.deadwood


def _decide_knock(state: GameState, actor: int, command: Knock) -> list:
    _check_phase(state, DISCARD)
    hand = state.hands[actor]
    if command.discard is None:
        # §3 big gin: all eleven cards melded, laid down without a discard
        if not state.big_gin:
            raise invalid("big_gin_not_allowed", "big gin is not played in this game")
        if command.melds is None:
            laid, dead_cards, dead = _best_melds(hand)
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
            laid, dead_cards, dead = _best_melds(hand)
        else:
            laid, dead_cards, dead = _client_melds(hand, command.melds, discard)
        if dead > state.knock_limit:
            raise invalid(
                "knock_deadwood_too_high",
                f"knocking needs {state.knock_limit} or less deadwood; these melds leave {dead}",
            )
        kind = "gin" if dead == 0 else "knock"
    dead_cards = tuple(sorted(cards.to_index(c) for c in dead_cards))
    knocked = Knocked(
        actor,
        None if discard is None else DECK[discard],
        tuple(card_codes(m) for m in laid),
        card_codes(dead_cards),
        dead,
        kind,
    )
    return [knocked] + score_hand(state, actor, laid, dead, kind, knocked)


def _decide_claim_seat(state: GameState, actor: Any, command: ClaimSeat) -> list:
    if actor is not None:
        raise invalid("invalid_command", "a seat is claimed for a player, not by a seated player")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not is_seat(command.seat, state.nseats):
        raise invalid("invalid_seat", f"seat must be one of 0..{state.nseats - 1}")
    players = state.players
    if players[command.seat] is not None:
        raise conflict("seat_taken", f"seat {command.seat} is taken")
    out: list = [SeatClaimed(command.seat, dict(command.player))]
    if command.client_seed is not None:
        _check_client_seeds_used(state)
        out.append(ClientSeedSent(command.seat, command.client_seed))
    return out + _start_if_ready(state, out)


def _check_client_seeds_used(state: GameState) -> None:
    if state.fairness < 2:
        raise conflict(
            "client_seeds_not_used",
            "this game deals from the server's seed alone (it was recorded before client seeds)",
        )


def _start_if_ready(state: GameState, new_events: list) -> list:
    """The start events (cuts, roles or dealer, deal 1) if the game starts after ``new_events``:
    every seat is taken and no human seat's client seed is still awaited (client_seed_wait_s)."""
    after = state
    for e in new_events:
        after = evolve(after, e)
    if any(p is None for p in after.players) or after.awaited_seeds:
        return []
    return start_events(after.variant, after.deal_seed, after.spec_roles, after.spec_first_dealer, after.decks)


def _decide_send_client_seed(state: GameState, actor: Any, command: SendClientSeed) -> list:
    # a seated player, before the first cut or deal (fairness derivation 2)
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if not is_seat(actor, state.nseats) or state.players[actor] is None:
        raise invalid("not_a_player", f"seat {actor!r} does not play in this game")
    _check_client_seeds_used(state)
    if state.status != "waiting" or state.cuts or state.hand_no:
        raise conflict("client_seed_too_late", "the cards were cut or dealt already: client seeds come before")
    if state.client_seeds[actor] is not None:
        raise conflict("client_seed_already_sent", "this seat sent its client seed already")
    out: list = [ClientSeedSent(actor, command.client_seed)]
    return out + _start_if_ready(state, out)


def _decide_close_client_seeds(state: GameState, actor: Any, command: CloseClientSeeds) -> list:
    if actor is not None:
        raise invalid("invalid_command", "the wait for client seeds is closed by the server, not by a player")
    waited_s = command.waited_s
    if type(waited_s) is not int or waited_s < 0:
        raise invalid("invalid_command", "waited_s must be a whole number of seconds, 0 or more")
    missing = state.awaited_seeds
    if state.status != "waiting" or any(p is None for p in state.players) or not missing:
        raise conflict("client_seeds_not_awaited", "the game waits for no client seed")
    out: list = [ClientSeedsClosed(tuple(missing), waited_s)]
    return out + _start_if_ready(state, out)


def check_advice(state: GameState, actor: Any, advice: Advise) -> dict:
    """The advice entry ``actor`` may give now (RULES.md §2); raises RulesError if they may not.

    Advice is not an event of the game's log (it changes nothing in play, and a version moved by
    it would tell the box when it was given): the service records the entry in the advice log.
    """
    if state is None:
        raise conflict("game_not_started", "there is no game")
    if state.variant != variants.THREE_HAND:
        raise conflict("not_advisor", "only three-hand has an advisor")
    _check_seat_in_play(state, actor)
    if actor != state.advisor:
        raise conflict("not_advisor", "only the advisor gives advice")
    return {"hand_no": state.hand_no, "advisor": actor, "captain": state.captain, "text": advice.text}


def _decide_advise(state: GameState, actor: Any, command: Advise) -> list:
    # games recorded before the advice log kept advice as AdviceGiven events: their replay
    # (the audit re-decides every command) still decides it this way
    entry = check_advice(state, actor, command)
    return [AdviceGiven(actor, entry["captain"], entry["hand_no"], entry["text"])]


def _decide_resign(state: GameState, actor: Any, command: Resign) -> list:
    # any seat of a game in play, on its turn or not, the three-hand advisor included (Extensions)
    _check_seat_in_play(state, actor)
    if state.box is None:
        winner = 1 - actor  # gin rami: the other player
    else:
        # three-hand: the other side of the hand in play; captain and advisor are one side
        winner = state.captain if actor == state.box else state.box
    return [GameResigned(actor, winner, state.hand_no, tuple(state.scores), state.seed.hex())]


def _decide_abandon(state: GameState, actor: Any, command: AbandonGame) -> list:
    if actor is not None:
        raise invalid("invalid_command", "a game is abandoned by the server, not by a player")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    idle_s = command.idle_s
    if type(idle_s) is not int or idle_s < 0:
        raise invalid("invalid_command", "idle_s must be a whole number of seconds, 0 or more")
    drawn = command.drawn_hands
    if drawn is not None:
        # a game of built-in bots alone that keeps redealing: the claim is the state's to confirm
        if type(drawn) is not int or drawn < 1:
            raise invalid("invalid_command", "drawn_hands must be a whole number, 1 or more")
        if state.status != "playing" or not all(isinstance(p, dict) and p.get("bot") for p in state.players):
            raise invalid("invalid_command", "only a game in play of built-in bots alone ends for its drawn hands")
        if drawn_hands_in_a_row(state) != drawn:
            raise invalid("invalid_command", f"the game's results do not end with {drawn} drawn hands in a row")
    # waiting or playing: a game whose seats never filled is abandoned too
    return [GameAbandoned(idle_s, state.hand_no, tuple(state.scores), state.seed.hex(), drawn)]


def _decide_expire(state: GameState, actor: Any, command: ExpireGame) -> list:
    if actor is not None:
        raise invalid("invalid_command", "a game expires by the server, not by a player")
    if state.status == "over":
        raise conflict("game_over", "the game is over")
    if all(p is not None for p in state.players):
        raise invalid("invalid_command", "only a game whose seats were never all taken expires")
    waited_s = command.waited_s
    if type(waited_s) is not int or waited_s < 0:
        raise invalid("invalid_command", "waited_s must be a whole number of seconds, 0 or more")
    return [GameExpired(waited_s, state.hand_no, tuple(state.scores), state.seed.hex())]


def drawn_hands_in_a_row(state: GameState) -> int:
    """How many hands in a row the game's results end with that were drawn (0 after a scored one)."""
    count = 0
    for result in reversed(state.results):
        if result.get("outcome") != "drawn":
            break
        count += 1
    return count


#: the deciders of the moves of a seat whose turn it is (decide checks the actor first)
_PLAY_DECIDERS = {
    TakeUpcard: _decide_take_upcard,
    PassUpcard: _decide_pass_upcard,
    DrawStock: _decide_draw_stock,
    DrawDiscard: _decide_draw_discard,
    Discard: _decide_discard,
    Knock: _decide_knock,
}


def _decide_timed_out_turn(state: GameState, actor: Any, command: PlayTimedOutTurn) -> list:
    if type(command.move) not in _PLAY_DECIDERS:
        raise invalid("unknown_command", f"{command.move!r} is not a move a turn clock can play")
    # the move is decided as if the seat had sent it; the first event says who really chose it
    return [TurnTimedOut(actor, state.hand_no)] + decide(state, actor, command.move)


#: the deciders of every other command, each of which checks its own actor
_OTHER_DECIDERS = {
    ClaimSeat: _decide_claim_seat,
    SendClientSeed: _decide_send_client_seed,
    CloseClientSeeds: _decide_close_client_seeds,
    Resign: _decide_resign,
    AbandonGame: _decide_abandon,
    ExpireGame: _decide_expire,
    Advise: _decide_advise,
    PlayTimedOutTurn: _decide_timed_out_turn,
}


def decide(state: GameState | None, actor: int | None, command: Command) -> list:
    """The events ``command`` by ``actor`` causes; raises RulesError if it is illegal now.

    It never changes the state.
    A hand that ends is followed, in the same list of events, by the next deal (or by GameEnded).
    """
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
    other = _OTHER_DECIDERS.get(t)
    if other is None:
        raise invalid("unknown_command", f"{command!r} is not a command")
    return other(state, actor, command)
