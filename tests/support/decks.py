"""Build explicit 52-card decks (RULES.md §1 "Deal", the explicit-deck [decision])."""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)


def build_deck(non_dealer: list[str], dealer: list[str], upcard: str,
               stock_top: list[str] | None = None) -> list[str]:
    """A deck (top first) dealing these hands, this upcard and this top of the stock.

    Per RULES.md §1: cards 1-20 go alternately to the non-dealer and the dealer,
    non-dealer first; card 21 is the upcard; the stock is cards 22-52, card 22 on top.
    The rest of the stock is every unused card in a fixed (suit, rank) order.
    """
    if len(non_dealer) != 10 or len(dealer) != 10:
        raise ValueError("each player is dealt exactly 10 cards")
    stock_top = list(stock_top or [])
    head: list[str] = []
    for a, b in zip(non_dealer, dealer):
        head += [a, b]
    head.append(upcard)
    head += stock_top
    unknown = [c for c in head if c not in ALL_CODES]
    if unknown:
        raise ValueError(f"not card codes: {unknown}")
    if len(set(head)) != len(head):
        raise ValueError("a card appears twice in the deck")
    rest = [c for c in ALL_CODES if c not in set(head)]
    deck = head + rest
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


#: a deck whose non-dealer knocks on the first draw (the 2D) discarding the 9H, and wins 27 (K = 2,
#: the defender's 29 after lay-offs): dealt over and over, the seats take turns at winning
QUICK_KNOCK = build_deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H".split(), "2S 3S 4C 7C QD QH QS KH KS 9C".split(),
                         "JD", ["2D"])


def quick_knock_moves(hand_no: int, first_dealer: int = 1) -> list[tuple[int, dict]]:
    """The moves of hand ``hand_no`` of a two-seat game dealt QUICK_KNOCK every hand, as (seat, move).

    The non-dealer passes the upcard, so does the dealer, then the non-dealer draws the 2D and
    knocks. The winner deals the next hand, so the knocker is the first dealer's opponent in the
    odd hands and the first dealer in the even ones.
    """
    knocker = 1 - first_dealer if hand_no % 2 else first_dealer
    return [(knocker, {"type": "pass_upcard"}), (1 - knocker, {"type": "pass_upcard"}),
            (knocker, {"type": "draw_stock"}), (knocker, {"type": "knock", "discard": "9H", "melds": None})]
