"""What one seat knows about the hand in play, read from its view (and the events it was shown).

A policy never sees the hidden state: everything here comes from ``views.view_state`` for the seat.
The seat's redacted events of the hand (``views.view_event``), if given, add what the opponent
discarded, and the pile cards it saw and left there.
"""

# The view gives the seat's hand, the discard pile, the cards the opponent is known to hold,
# the stock's size and its legal moves.
# The advisor's view is the captain's view,
# so the same reading serves an advisor working out what the captain should play.

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from service.rules import cards
from service.rules.commands import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS_UPCARD,
    TAKE_UPCARD,
    Command,
    Discard,
    Knock,
    command_from_dict,
)
from service.rules.melds import deadwood_mask


def bit(card: int) -> int:
    return 1 << card


def mask_of(codes: Iterable[str] | None) -> int:
    m = 0
    for code in codes or ():
        m |= 1 << cards.INDEX_OF[code]
    return m


@dataclass
class Knowledge:
    """The decision a seat faces and what it may use to take it (cards as ints, hands as masks)."""

    seat: int                 # the seat whose hand is played (the captain's, for an advisor)
    opponent: int
    phase: str                # "upcard", "draw" or "discard"
    hand: int
    moves: list[Command]
    top: int                  # top card of the discard pile, -1 if empty
    taken: int                # card taken from the pile this turn (may not be discarded), -1
    pile: int                 # every card in the discard pile
    opp_known: int            # cards the opponent holds for sure (taken from the pile)
    opp_size: int             # how many cards the opponent holds
    stock_size: int
    turn: int
    options: dict
    variant: str
    # from the seat's events of this hand (empty masks when no events were given)
    opp_discarded: int = 0    # cards the opponent threw this hand
    opp_declined: int = 0     # cards the opponent saw on top of the pile and left there
    my_discarded: int = 0
    knock_limit: int = 10
    pile_order: list = field(default_factory=list)  # the discard pile, top card last
    # the same evidence in the order it came, for the opponent model: (card, the opponent's
    # turn number in this hand when it happened)
    opp_discards: list = field(default_factory=list)  # cards the opponent threw
    opp_declines: list = field(default_factory=list)  # pile cards it saw and left
    opp_takes: list = field(default_factory=list)     # pile cards it took

    @property
    def unseen(self) -> int:
        """Cards in the stock or the opponent's unknown cards: the ones this seat has not seen."""
        return cards.FULL_MASK & ~(self.hand | self.pile | self.opp_known)

    def move_types(self) -> set[str]:
        return {m.TYPE for m in self.moves}


def owner_moves(view: dict) -> list[Command]:
    """Legal moves of the seat whose hand the view shows.

    For a seat to act this is the view's own ``legal_moves``.
    For an advisor's view (the captain's hand, no moves) they are worked out from the view with the engine's own rules.
    """
    if view.get("legal_moves"):
        return [command_from_dict(d) for d in view["legal_moves"]]
    # An advisor's view shows no moves because the advisor never plays.
    # The moves are the upcard choice, the two draws (only the stock after both passed the upcard),
    # or every discard but the card just taken plus the knocks that leave at most the knock limit
    # (and big gin where the options give it a score).
    owner = view.get("hand_owner")
    if owner is None or owner not in (view.get("to_act") or []) or view.get("status") != "playing":
        return []
    phase = view["phase"]
    if phase == "upcard":
        return [TAKE_UPCARD, PASS_UPCARD]
    if phase == "draw":
        if view.get("turn", 0) == 0 and view.get("upcard_passes", 0) == 2:
            return [DRAW_STOCK]
        return [DRAW_STOCK, DRAW_DISCARD]
    if phase != "discard":
        return []
    hand = mask_of(view["hand"])
    taken = cards.INDEX_OF[view["taken_card"]] if view.get("taken_card") else -1
    limit = hand_limit(view)
    moves: list[Command] = [Discard(cards.code(c)) for c in cards.cards_of(hand) if c != taken]
    for c in cards.cards_of(hand):
        if c != taken and deadwood_mask(hand & ~bit(c)) <= limit:
            moves.append(Knock(cards.code(c), None))
    if view["options"].get("big_gin_bonus") is not None and deadwood_mask(hand) == 0:
        moves.append(Knock(None, None))
    return moves


def hand_limit(view: dict) -> int:
    """The knock limit of the hand in play: the view's (Oklahoma sets it by the upcard), else the option."""
    limit = view.get("knock_limit")
    if limit is None:
        limit = (view.get("options") or {}).get("knock_limit")
    return 10 if limit is None else limit


def read(view: dict, events: list[dict] | None = None) -> Knowledge:
    """The Knowledge of the seat whose hand ``view`` shows; ``events`` are that seat's events."""
    seat = view["hand_owner"]
    opponent = view["non_dealer"] if seat == view["dealer"] else view["dealer"]
    pile_codes = view.get("discard_pile") or []
    known = view.get("known_cards") or []
    sizes = view.get("hand_sizes") or []
    k = Knowledge(
        seat=seat,
        opponent=opponent,
        phase=view["phase"],
        hand=mask_of(view["hand"]),
        moves=owner_moves(view),
        top=cards.INDEX_OF[pile_codes[-1]] if pile_codes else -1,
        taken=cards.INDEX_OF[view["taken_card"]] if view.get("taken_card") else -1,
        pile=mask_of(pile_codes),
        opp_known=mask_of(known[opponent]) if opponent < len(known) else 0,
        opp_size=sizes[opponent] if opponent < len(sizes) else 10,
        stock_size=view.get("stock_size", 0),
        turn=view.get("turn", 0),
        # the hand's knock limit stands in the options too (Oklahoma's is null there): the playouts read it
        options={**(view.get("options") or {}), "knock_limit": hand_limit(view)},
        variant=view.get("variant", "gin-rami"),
        knock_limit=hand_limit(view),
        pile_order=[cards.INDEX_OF[c] for c in pile_codes],
    )
    if events:
        remember(k, events)
    return k


def remember(k: Knowledge, events: list[dict]) -> None:
    """Fill in what the opponent discarded and left on the pile, from the seat's events of the hand.

    Only the events after the last deal count. The pile is followed card by card so that each
    time the opponent drew from the stock (or passed the upcard) the card it left on top is known.
    """
    start = 0
    for i, e in enumerate(events):
        if e.get("type") == "hand_dealt":
            start = i
    pile: list[int] = []
    opp = k.opponent
    opp_turn = 0
    for e in events[start:]:
        t = e.get("type")
        d = e.get("data") or {}
        if t == "hand_dealt":
            up = d.get("upcard")
            pile = [cards.INDEX_OF[up]] if up else []
        elif t == "upcard_passed":
            if d.get("seat") == opp and pile:
                k.opp_declined |= bit(pile[-1])
                k.opp_declines.append((pile[-1], opp_turn))
        elif t == "upcard_taken":
            if pile:
                card = pile.pop()
                if d.get("seat") == opp:
                    k.opp_takes.append((card, opp_turn))
        elif t == "card_drawn":
            if d.get("source") == "discard":
                if pile:
                    card = pile.pop()
                    if d.get("seat") == opp:
                        k.opp_takes.append((card, opp_turn))
            elif d.get("seat") == opp and pile:
                k.opp_declined |= bit(pile[-1])
                k.opp_declines.append((pile[-1], opp_turn))
        elif t in ("card_discarded", "knocked"):
            code = d.get("card") if t == "card_discarded" else d.get("discard")
            if code:
                card = cards.INDEX_OF[code]
                pile.append(card)
                if d.get("seat") == opp:
                    k.opp_discarded |= bit(card)
                    k.opp_discards.append((card, opp_turn))
                    opp_turn += 1
                elif d.get("seat") == k.seat:
                    k.my_discarded |= bit(card)
