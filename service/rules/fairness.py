"""Randomness as data: the seed's commitment, the deck of every hand and the cuts.

Implements the shuffle of RULES.md §1 "Deal" and the random cuts of §2 "Roles" / §3 (first
dealer) as pure functions of a secret seed (bytes) that the caller generates. The engine
publishes ``commitment(seed)`` when the game is created and reveals the seed when it ends, so
anyone can check afterwards that every deal and every cut came from the committed seed.

The algorithm, precisely (so that another language can re-implement it):

1. **Byte stream.** For a *label* (``b"ginbox/deck/"`` for the deck of a hand,
   ``b"ginbox/cut/"`` for a round of cutting) and a *number* (the hand number, 1-based, or the
   cut round, 0-based), block ``k`` (k = 0, 1, 2, ...) is
   ``HMAC-SHA256(key=seed, msg=label + number.to_bytes(8, "big") + k.to_bytes(8, "big"))``.
   The stream is block 0, then block 1, ... read one byte at a time, in order.
2. **Uniform integer in [0, n)** for 2 <= n <= 52: read the next byte ``b`` (0..255). If
   ``b >= 256 - (256 % n)`` reject it and read the next byte; otherwise the result is ``b % n``.
3. **Fisher-Yates.** Start from the 52 codes in card-index order, ``AC 2C .. KC AD .. KD AH ..
   KH AS .. KS``. For ``i`` from 51 down to 1: ``j`` = uniform integer in [0, i + 1); swap the
   cards at positions ``i`` and ``j``. The resulting list is the deck, **top card first**.
4. **Deck of hand n** = the shuffle with label ``b"ginbox/deck/"`` and number ``n``. It is
   dealt as §1 says: cards 1-20 alternately to the non-dealer and the dealer (non-dealer
   first), card 21 is the upcard, cards 22-52 are the stock, card 22 on top.
5. **Cuts.** Cut round ``r`` (rounds numbered 0, 1, 2 ... in the order they happen in a game)
   is the shuffle with label ``b"ginbox/cut/"`` and number ``r``; the players cutting in that
   round, in increasing seat order, cut its cards 1, 2, 3 (top first). Cut cards are compared
   by rank only, ace low and king high. Round 0 is cut by every seat. When players tie on
   rank, the tied players cut again in a new round, tied groups resolved from the highest rank
   down (each new round takes the next number). Three-hand: highest = box, middle = captain,
   lowest = advisor. Gin-rami: the lower card deals first.

The audit module checks a finished game's log against its revealed seed.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Iterator

from . import cards

DECK_LABEL = b"ginbox/deck/"
CUT_LABEL = b"ginbox/cut/"


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, as lowercase hex."""
    return hashlib.sha256(bytes(seed)).hexdigest()


def _byte_stream(seed: bytes, label: bytes, number: int) -> Iterator[int]:
    prefix = label + number.to_bytes(8, "big")
    k = 0
    while True:
        yield from hmac.new(bytes(seed), prefix + k.to_bytes(8, "big"), hashlib.sha256).digest()
        k += 1


def _shuffle(seed: bytes, label: bytes, number: int) -> list[str]:
    stream = _byte_stream(seed, label, number)
    deck = list(cards.DECK)
    for i in range(51, 0, -1):
        n = i + 1
        limit = 256 - (256 % n)
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deck_for_hand(seed: bytes, hand_no: int) -> list[str]:
    """The 52 codes of hand ``hand_no`` (1-based), top card first, derived from the seed."""
    return _shuffle(seed, DECK_LABEL, hand_no)


def cut_cards(seed: bytes, round_no: int, count: int) -> list[str]:
    """The cards cut in round ``round_no`` (0-based) by ``count`` players, in seat order."""
    return _shuffle(seed, CUT_LABEL, round_no)[:count]
