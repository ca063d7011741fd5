"""Randomness as data: the seed's commitment, the deck of every hand and the cuts.

It implements the shuffle of RULES.md §1 "Deal" and the random cuts of §2 "Roles" / §3 (first dealer).
They are pure functions of a secret seed (bytes), which the caller generates.
The algorithm's steps 1-6 are stated below and in service/docs/FAIRNESS.md.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from typing import Any, Iterator, Sequence

from . import cards
from .errors import RulesError

# The algorithm is stated precisely, so that another language can re-implement it.
# service/docs/FAIRNESS.md says all of it for an auditor in another language, with published test vectors.
# The audit module checks a finished game's log against its revealed seed.
DECK_LABEL = b"ginbox/deck/"
CUT_LABEL = b"ginbox/cut/"
KEY_LABEL_V2 = b"ginbox/deal-key/v2"

#: the derivation of games recorded before client seeds: the server's seed alone
DERIVATION_SERVER_SEED = 1
#: the server's seed and every seat's client seed (step 6)
DERIVATION_CLIENT_SEEDS = 2
#: the derivation new games use
CURRENT_DERIVATION = DERIVATION_CLIENT_SEEDS
DERIVATIONS = (DERIVATION_SERVER_SEED, DERIVATION_CLIENT_SEEDS)

#: the client seed of a seat that sent none
DEFAULT_CLIENT_SEED = ""
#: longest client seed, in characters (at most 256 bytes of UTF-8)
MAX_CLIENT_SEED_LENGTH = 64


def check_client_seed(value: Any) -> str:
    """``value`` if it is a valid client seed; else RulesError ``invalid_client_seed``.

    A client seed is text: a string of 1 to 64 characters, none of them a control character or
    a lone surrogate (it must encode as UTF-8).
    """
    if not isinstance(value, str):
        raise RulesError("invalid_client_seed", "client_seed must be a string")
    if not 1 <= len(value) <= MAX_CLIENT_SEED_LENGTH:
        raise RulesError(
            "invalid_client_seed", f"client_seed must be 1 to {MAX_CLIENT_SEED_LENGTH} characters long"
        )
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise RulesError("invalid_client_seed", "client_seed must be text without control characters")
    return value


def deal_key(derivation: int, seed: bytes, client_seeds: Sequence[str | None]) -> bytes:
    """The HMAC key every deck and cut of a game derives from (step 6).

    Derivation 1: the server's seed itself.
    Derivation 2: the SHA-256 of the server's seed and each seat's client seed (None: the
    default), length-prefixed, in seat order.
    """
    # Step 6, client seeds (derivation version 2).
    # Games record in game_created which derivation they use.
    # Its field fairness absent means 1: steps 1-5 with the server's seed as the key.
    # In version 2 every seat contributes a client seed.
    # A client seed is a text of 1 to 64 characters, sent after the server published its commitment.
    # A seat that sent none has the default, the empty text.
    # The key of steps 1-5 is then, instead of the server's seed:
    #
    #     SHA-256( b"ginbox/deal-key/v2"
    #              + len(seed).to_bytes(4, "big") + seed
    #              + nseats.to_bytes(1, "big")
    #              + for each seat s = 0, 1, ...: len(c_s).to_bytes(2, "big") + c_s )
    #
    # There c_s is seat s's client seed encoded as UTF-8.
    # Nobody can steer the deals alone.
    # The server committed to its seed before any client seed existed.
    # And no player knows the server's seed when sending theirs.
    seed = bytes(seed)
    if derivation == DERIVATION_SERVER_SEED:
        return seed
    if derivation != DERIVATION_CLIENT_SEEDS:
        raise ValueError(f"unknown derivation {derivation!r}")
    h = hashlib.sha256(KEY_LABEL_V2)
    h.update(len(seed).to_bytes(4, "big") + seed)
    h.update(len(client_seeds).to_bytes(1, "big"))
    for c in client_seeds:
        data = (DEFAULT_CLIENT_SEED if c is None else c).encode("utf-8")
        h.update(len(data).to_bytes(2, "big") + data)
    return h.digest()


def commitment(seed: bytes) -> str:
    """The SHA-256 of the seed, as lowercase hex."""
    # The engine publishes commitment(seed) when the game is created, and reveals the seed when it ends.
    # So anyone can check afterwards that every deal and every cut came from the committed seed.
    return hashlib.sha256(bytes(seed)).hexdigest()


def _byte_stream(seed: bytes, label: bytes, number: int) -> Iterator[int]:
    # Step 1, the byte stream.
    # A label is b"ginbox/deck/" for the deck of a hand, b"ginbox/cut/" for a round of cutting.
    # The number is the hand number, 1-based, or the cut round, 0-based.
    # Block k (k = 0, 1, 2, ...) is
    # HMAC-SHA256(key=seed, msg=label + number.to_bytes(8, "big") + k.to_bytes(8, "big")).
    # The stream is block 0, then block 1, ... read one byte at a time, in order.
    prefix = label + number.to_bytes(8, "big")
    k = 0
    while True:
        yield from hmac.new(bytes(seed), prefix + k.to_bytes(8, "big"), hashlib.sha256).digest()
        k += 1


def _shuffle(seed: bytes, label: bytes, number: int) -> list[str]:
    # Step 3, Fisher-Yates.
    # Start from the 52 codes in card-index order, AC 2C .. KC AD .. KD AH .. KH AS .. KS.
    # For i from 51 down to 1: j = uniform integer in [0, i + 1); swap the cards at positions i and j.
    # The resulting list is the deck, top card first.
    stream = _byte_stream(seed, label, number)
    deck = list(cards.DECK)
    for i in range(51, 0, -1):
        # Step 2, a uniform integer in [0, n) for 2 <= n <= 52.
        # Read the next byte b (0..255).
        # If b >= 256 - (256 % n), reject it and read the next byte; otherwise the result is b % n.
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
    # Step 4, the deck of hand n: the shuffle with label b"ginbox/deck/" and number n.
    # It is dealt as RULES.md §1 says.
    # Cards 1-20 go alternately to the non-dealer and the dealer, non-dealer first.
    # Card 21 is the upcard; cards 22-52 are the stock, card 22 on top.
    return _shuffle(seed, DECK_LABEL, hand_no)


def cut_cards(seed: bytes, round_no: int, count: int) -> list[str]:
    """The cards cut in round ``round_no`` (0-based) by ``count`` players, in seat order."""
    # Step 5, cuts.
    # Rounds are numbered 0, 1, 2 ... in the order they happen in a game.
    # Cut round r is the shuffle with label b"ginbox/cut/" and number r.
    # The players cutting in that round, in increasing seat order, cut its cards 1, 2, 3 (top first).
    # Cut cards are compared by rank only, ace low and king high.
    # Round 0 is cut by every seat.
    # When players tie on rank, the tied players cut again in a new round.
    # Tied groups are resolved from the highest rank down, and each new round takes the next number.
    # Three-hand: highest = box, middle = captain, lowest = advisor.
    # Gin-rami: the lower card deals first.
    return _shuffle(seed, CUT_LABEL, round_no)[:count]
