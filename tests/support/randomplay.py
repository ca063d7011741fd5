"""Clients that play legal moves (from the view's legal_moves) chosen by a seeded RNG."""

from __future__ import annotations

import random

from support.cardmath import min_deadwood


def least_deadwood_keeping(cards: list[str], kept: str) -> int:
    """Least deadwood after discarding one card other than ``kept`` (the card just taken)."""
    return min(min_deadwood([c for c in cards if c != discard]) for discard in cards if discard != kept)


def choose_move(view: dict, rng: random.Random) -> dict:
    """A legal move of ``view["legal_moves"]``, biased so that hands end: knock when allowed,
    otherwise usually the discard that keeps the least deadwood."""
    moves = view["legal_moves"]
    assert moves, "choose_move needs a seat that is to act"
    by_type: dict[str, list[dict]] = {}
    for move in moves:
        by_type.setdefault(move["type"], []).append(move)
    if "knock" in by_type and rng.random() < 0.9:
        return rng.choice(by_type["knock"])
    if "take_upcard" in by_type:
        return rng.choice(by_type["take_upcard"] + by_type.get("pass_upcard", []))
    if "draw_stock" in by_type:
        top = view.get("discard_top")
        if "draw_discard" in by_type and top and view.get("hand"):
            # take the discard when it would lower the deadwood; sometimes at random anyway
            hand = view["hand"]
            if least_deadwood_keeping(hand + [top], kept=top) < min_deadwood(hand) or rng.random() < 0.1:
                return by_type["draw_discard"][0]
        return by_type["draw_stock"][0]
    discards = by_type.get("discard", [])
    if discards and rng.random() < 0.9:
        hand = view["hand"]
        scored = [(min_deadwood([c for c in hand if c != move["card"]]), i) for i, move in enumerate(discards)]
        best = min(deadwood for deadwood, _ in scored)
        return discards[rng.choice([i for deadwood, i in scored if deadwood == best])]
    return rng.choice(moves)


def shuffled_deck(rng: random.Random) -> list[str]:
    """A deck in an order drawn from the test's own RNG (for explicit-deck games)."""
    from support.decks import ALL_CODES

    deck = list(ALL_CODES)
    rng.shuffle(deck)
    return deck
