"""What each viewer may see of a state and of an event (hidden information, RULES.md §1-§3).

A seated player sees their own hand and what is public; a spectator (viewer None) only what is public.
The seed, the deck orders and the explicit decks stay hidden until the game is over.
Then everyone sees everything, unless the game is ``sealed``.
"""

from __future__ import annotations

from typing import Any, Iterable

from . import cards, rulesets
from .commands import command_to_dict
from .events import (AdviceGiven, CardDrawn, GameAbandoned, GameCreated, GameEnded, GameExpired, GameResigned,
                     HandDealt, encode)
from .cards import DECK
from .legal import legal_moves
from .state import GameState

#: the newest pieces of advice a view shows
ADVICE_IN_VIEW = 10
#: the latest finished hands' results a view carries: GET /games/{id}/hand-results has them all
HAND_RESULTS_IN_VIEW = 8


def _seat_of_view(state: GameState, viewer: int | None) -> int | None:
    """The seat whose hand ``viewer`` may see: their own, or the captain's for the advisor."""
    if viewer is None or not isinstance(viewer, int) or not 0 <= viewer < state.nseats:
        return None
    if state.advisor is not None and viewer == state.advisor:
        return state.captain
    return viewer


def _role_of(state: GameState, viewer: int | None) -> str:
    if viewer is None or not isinstance(viewer, int) or not 0 <= viewer < state.nseats:
        return "spectator"
    if state.box is None:
        return "player"
    return {state.box: "box", state.captain: "captain", state.advisor: "advisor"}[viewer]


def _sees_advice(state: GameState, viewer: int | None, entry: dict) -> bool:
    return viewer is not None and viewer in (entry["advisor"], entry["captain"])


def sees_advice(state: GameState, viewer: int | None, sealed: bool = False) -> bool:
    """Whether ``viewer`` may see the game's advice now: the captain and the advisor, everyone once it
    is over (and not ``sealed``)."""
    if state.status == "over" and not sealed:
        return True
    return state.box is not None and viewer is not None and viewer in (state.captain, state.advisor)


def view_state(state: GameState, viewer: int | None, advice_log: Iterable[dict] = (), sealed: bool = False,
               results: tuple[int, int] | None = None) -> dict:
    """The JSON-able view of ``state`` for seat ``viewer`` (None = spectator).

    ``advice_log``: the entries of the game's advice log (service.store.advice) up to this state.
    The view shows those its viewer may see.
    ``sealed``: the game is a board of a match in play, so its secrets stay hidden even once it is over.
    ``results``: which finished hands' results ``hand_results`` holds, as (offset, limit).
    By default it holds the latest HAND_RESULTS_IN_VIEW.
    """
    # A sealed game's other tables are dealt from the same seed.
    # So it reads for its seats as if it were not over, until the match ends.
    # They see what the rules show at a hand's end.
    # They never see the seed, the stock, the decks or a hand not laid down.
    over = state.status == "over" and not sealed
    # A seated player sees their own hand.
    # They see the number of cards the opponent holds.
    # They see the cards the opponent is known to hold because they took them from the discard pile.
    # They see the whole discard pile, the stock's size, scores, roles, phase and their legal moves.
    # They see the results of finished hands: cards laid down at a hand's end are public.
    owner = _seat_of_view(state, viewer)
    dealt = state.hand_no > 0
    hand = cards.codes_of(state.hands[owner]) if dealt and owner is not None else None
    drawn = None
    if owner is not None and owner in state.to_act and state.drawn >= 0:
        drawn = DECK[state.drawn]
    # In three-hand (§2) the advisor sees the captain's view plus the advice.
    # The captain sees the advice too.
    advice = [
        dict(a) for a in state.advice if over or _sees_advice(state, viewer, a)
    ]
    # the advice log's entries come after any that older logs kept as events
    for entry in advice_log:
        if over or (entry["hand_no"] == state.hand_no and _sees_advice(state, viewer, entry)):
            advice.append(dict(entry))
    # a view carries the newest few only (of the hand in play, or of the whole game once it is
    # over), so that it stays small however much advice was given: GET /games/{id}/advice has all
    advice = advice[-ADVICE_IN_VIEW:]
    # A view carries the latest few hands' results, so that it stays small however long the game.
    # hand_results_total and hand_results_from say which they are.
    # GET /games/{id}/hand-results pages through them all, cut from this same view.
    total = len(state.results)
    if results is None:
        start = max(0, total - HAND_RESULTS_IN_VIEW)
        stop = total
    else:
        start = min(results[0], total)
        stop = min(start + results[1], total)
    v = {
        "variant": state.variant,
        "options": state.options,
        "rules": state.rules,
        "knock_limit": state.knock_limit,
        "bonuses": state.bonuses,
        "hollywood": hollywood_view(state),
        "rules_version": state.rules_version,
        "status": state.status,
        "version": state.version,
        "players": [None if p is None else dict(p) for p in state.players],
        "scores": state.scores,
        "hand_no": state.hand_no,
        "phase": state.phase,
        "to_act": list(state.to_act),
        "roles": state.roles,
        "dealer": state.dealer,
        "non_dealer": state.non_dealer,
        "winner": state.winner,
        "end": dict(state.end) if state.end is not None else None,
        "commitment": state.commitment,
        "randomly_dealt": state.randomly_dealt,
        # whether the creator gave the decks (who then may know every card), not only roles or a dealer
        "decks_given": state.decks is not None,
        # the program a game imported from its record was dealt and played with; None: this server
        "imported_from": state.imported_from,
        # fairness derivation 2: every seat's client seed (public: the server's seed stays secret)
        "fairness": state.fairness,
        "client_seeds": list(state.client_seeds),
        "awaiting_client_seeds": list(state.awaited_seeds),
        "private_seats": sorted(int(seat) for seat in state.invites) if state.invites else [],
        "viewer": viewer if _role_of(state, viewer) != "spectator" else None,
        "viewer_role": _role_of(state, viewer),
        "hand_owner": owner if hand is not None else None,
        "hand": hand,
        "drawn_card": drawn,
        "hand_sizes": [bin(h).count("1") for h in state.hands] if dealt else None,
        "known_cards": [cards.codes_of(m) for m in state.known] if dealt else None,
        "discard_pile": [DECK[c] for c in state.pile],
        "discard_top": DECK[state.pile[-1]] if state.pile else None,
        "taken_card": DECK[state.taken] if state.taken >= 0 else None,
        "stock_size": state.stock_size,
        "turn": state.turns,
        "upcard_passes": state.passes,
        "cuts": [
            {"purpose": p, "round": r, "seats": list(seats), "cards": list(cs)}
            for p, r, seats, cs in state.cuts
        ],
        "last_hand": dict(state.results[-1]) if state.results else None,
        "hand_results": [dict(r) for r in state.results[start:stop]],
        "hand_results_total": total,
        "hand_results_from": start,
        "advice": advice,
        "legal_moves": [command_to_dict(c) for c in legal_moves(state, viewer)],
        # secrets, revealed once the game is over
        "seed": state.seed.hex() if over else None,
        "all_hands": [cards.codes_of(h) for h in state.hands] if over else None,
        "stock": [DECK[c] for c in state.stock] if over else None,
        "decks": [list(d) for d in state.decks] if over and state.decks else None,
    }
    return v


def hollywood_view(state: GameState) -> dict | None:
    """The three games of a Hollywood match (§5) as a view shows them; None without Hollywood.

    Each game: its number, hand points, hands entered, scores (its totals once over), whether it is
    over, its winner and its bonus sheet. Beside them: every hand each seat won, and the games each
    seat's next win would go into.
    """
    sheet = state.hollywood
    if sheet is None:
        return None
    games = [
        {"game": number, "hand_points": list(g["hand_points"]), "hands_won": list(g["hands_won"]),
         "scores": list(g["scores"]), "over": g["winner"] is not None, "winner": g["winner"],
         "bonuses": dict(g["bonuses"]) if g["bonuses"] is not None else None}
        for number, g in enumerate(sheet["games"], start=1)
    ]
    return {
        "games": games,
        "hands_won": list(sheet["hands_won"]),
        "next_win_enters": [rulesets.games_entered(wins, sheet["games"]) for wins in sheet["hands_won"]],
    }


def view_event(event: Any, viewer: int | None, state_before: GameState | None, reveal: bool = False,
               sealed: bool = False) -> dict | None:
    """The event's encode() form redacted for ``viewer``, or None if they may see nothing of it.

    ``state_before`` is the state the event applies to (None for GameCreated).
    ``reveal`` True shows everything, for a log read after the game is over.
    ``sealed`` True (a board of a match in play) hides every secret, even the seed a game's end reveals.
    """
    enc = encode(event)
    if not sealed and (reveal or (state_before is not None and state_before.status == "over")):
        return enc
    t = type(event)
    if t in (GameEnded, GameResigned, GameAbandoned, GameExpired):
        if not sealed:
            return enc  # the game's end reveals its seed
        data = dict(enc["data"])
        data["seed"] = None
        return {**enc, "data": data}
    if t is GameCreated:
        data = dict(enc["data"])
        data["seed"] = None
        data["decks"] = None
        if data.get("invites"):
            # which seats are by invitation is public; the hashes of their secrets are not
            data["invites"] = {seat: None for seat in data["invites"]}
        return {**enc, "data": data}
    if t is HandDealt:
        data = dict(enc["data"])
        deck = data.pop("deck")
        hands = {event.non_dealer: deck[0:20:2], event.dealer: deck[1:20:2]}
        owner = _seat_of_view(state_before, viewer) if state_before is not None else None
        # before the deal the roles are already set: the advisor's team captain is the non-dealer
        data["deck"] = None
        data["hand_owner"] = owner if owner in hands else None
        data["hand"] = cards.sort_codes(hands[owner]) if owner in hands else None
        data["upcard"] = deck[20]
        data["stock_size"] = 52 - 21
        return {**enc, "data": data}
    if t is CardDrawn and event.source == "stock":
        owner = _seat_of_view(state_before, viewer) if state_before is not None else None
        if owner != event.seat:
            data = dict(enc["data"])
            data["card"] = None
            return {**enc, "data": data}
        return enc
    if t is AdviceGiven:
        if viewer is not None and viewer in (event.seat, event.captain):
            return enc
        return None
    return enc


def summary_of(state: GameState) -> dict:
    """What a list of games shows of a game beside its status: who sits where, the score, whose move.

    Everything in it is in the spectator's view too (``view_state(state, None)``).
    """
    return {
        "players": [None if p is None else dict(p) for p in state.players],
        "scores": list(state.scores),
        "hand_no": state.hand_no,
        "to_act": list(state.to_act),
        "winner": state.winner,
        # how it ended (the target reached, a resignation, abandonment): null until it is over
        "end": dict(state.end) if state.end is not None else None,
        # which seats only an invited player may claim (never the invites' secrets or their hashes)
        "private_seats": sorted(int(seat) for seat in state.invites) if state.invites else [],
        # false: dealt from decks (or roles, or a first dealer) the creator chose, who may know every card
        "randomly_dealt": state.randomly_dealt,
        # the program that dealt and played an imported game (POST /games/import); null: this server
        "imported_from": state.imported_from,
    }
