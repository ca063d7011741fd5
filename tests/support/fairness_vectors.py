"""The published fairness test vectors, computed from the specification with hashlib and hmac alone.

The specification is the algorithm stated in service/rules/fairness.py's comments (steps 1-6)
and service/docs/FAIRNESS.md.
This module does not import that code: it is a second implementation, written from the text,
so that the vectors can check the engine (and the browser auditor) instead of repeating them.

    python tests/support/fairness_vectors.py > service/docs/fairness-vectors.json

writes the file; tests/unit/test_fairness_vectors.py checks that the file is what this prints.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys

DECK_LABEL = "ginbox/deck/"
CUT_LABEL = "ginbox/cut/"
#: the HMAC message prefix of a duplicate match's board seed (bytes: it is no stream label)
BOARD_LABEL = b"board:"
RANKS = "A23456789TJQK"
#: step 3: card-index order, all clubs, then diamonds, hearts, spades
ORDERED = [rank + suit for suit in "CDHS" for rank in RANKS]

#: the seeds: 32 bytes like the server's, one byte, and 100 bytes (longer than HMAC-SHA256's
#: 64-byte block, so HMAC hashes the key first). No empty seed: the server never makes one and
#: WebCrypto refuses an empty HMAC key.
SEEDS = {
    "counting": bytes(range(32)),
    "hashed": hashlib.sha256(b"ginbox fairness vectors").digest(),
    "one_byte": b"\xff",
    "long": bytes((7 * i + 3) % 256 for i in range(100)),
}


KEY_LABEL_V2 = "ginbox/deal-key/v2"

#: client seeds (derivation 2): the defaults alone, one seat's seed on either side (the order
#: matters), three seats, text beyond ASCII (its UTF-8 bytes count), and the longest seed
CLIENT_SEED_CASES = [
    ("counting", ["", ""]),
    ("counting", ["alice", ""]),
    ("counting", ["", "alice"]),
    ("hashed", ["alice", "bob", "carol"]),
    ("hashed", ["", "", ""]),
    ("one_byte", ["trèfle ☘", "🂡"]),
    ("long", ["x" * 64, "0123456789abcdef" * 4, "a"]),
]


def key_input(seed: bytes, client_seeds: list[str]) -> bytes:
    """Step 6: what is hashed into the key: the label, the seed and each client seed, length-prefixed."""
    out = KEY_LABEL_V2.encode("ascii") + len(seed).to_bytes(4, "big") + seed + len(client_seeds).to_bytes(1, "big")
    for text in client_seeds:
        data = text.encode("utf-8")
        out += len(data).to_bytes(2, "big") + data
    return out


class Stream:
    """Step 1: the HMAC-SHA256 counter-mode bytes of (seed, label, number), read one at a time."""

    def __init__(self, seed: bytes, label: str, number: int):
        self.seed, self.label, self.number = seed, label, number
        self.block = -1
        self.buffer = b""
        self.read = 0  # bytes handed out so far

    def message(self, k: int) -> bytes:
        """The HMAC message of block k: label, number as 8 bytes big-endian, k as 8 bytes big-endian."""
        return self.label.encode("ascii") + self.number.to_bytes(8, "big") + k.to_bytes(8, "big")

    def next_byte(self) -> int:
        offset = self.read % 32
        if offset == 0:
            self.block += 1
            self.buffer = hmac.new(self.seed, self.message(self.block), hashlib.sha256).digest()
        self.read += 1
        return self.buffer[offset]


def uniform(stream: Stream, n: int, rejected: list | None = None) -> int:
    """Step 2: a uniform integer in [0, n) by rejection: bytes at or above 256 - 256 % n are read past."""
    assert 2 <= n <= 52
    limit = 256 - 256 % n
    while True:
        b = stream.next_byte()
        if b < limit:
            return b % n
        if rejected is not None:
            rejected.append(b)


def shuffle(seed: bytes, label: str, number: int) -> tuple[list[str], Stream, list[int]]:
    """Step 3: Fisher-Yates from card-index order; (deck top first, the stream, the rejected bytes)."""
    stream = Stream(seed, label, number)
    rejected: list[int] = []
    deck = list(ORDERED)
    for i in range(51, 0, -1):
        j = uniform(stream, i + 1, rejected)
        deck[i], deck[j] = deck[j], deck[i]
    return deck, stream, rejected


def cutting(seed: bytes, seats: list[int]) -> dict:
    """Step 5, a whole cutting: round 0 by every seat; tied players (same rank, ace low) cut again
    in the next round, tied groups from the highest rank down. The rounds, and the seats from the
    highest cut to the lowest."""
    rounds: list[dict] = []

    def order(group: list[int]) -> list[int]:
        number = len(rounds)
        cut = shuffle(seed, CUT_LABEL, number)[0][: len(group)]
        rounds.append({"round": number, "seats": group, "cards": cut})
        rank = {seat: RANKS.index(card[0]) for seat, card in zip(group, cut)}
        ranked: list[int] = []
        for r in sorted(set(rank.values()), reverse=True):
            tied = [seat for seat in group if rank[seat] == r]
            ranked += tied if len(tied) == 1 else order(tied)
        return ranked

    return {"rounds": rounds, "order": order(list(seats))}


def _cutting_seed(seats: list[int], wanted) -> bytes:
    """The first seed sha256("ginbox cut <i>") whose cutting by ``seats`` is one ``wanted`` accepts."""
    i = 0
    while True:
        seed = hashlib.sha256(f"ginbox cut {i}".encode()).digest()
        if wanted(cutting(seed, seats)):
            return seed
        i += 1


def _sizes(result: dict) -> list[int]:
    return [len(r["seats"]) for r in result["rounds"]]


#: the cuttings to publish: three-hand with no tie, two tied above the third and below it, all
#: three tied, a tie that ties again; gin-rami with no tie, one tie, two ties in a row
CUTTINGS = [
    ("cut3_no_tie", [0, 1, 2], lambda c: _sizes(c) == [3]),
    ("cut3_tie_high", [0, 1, 2], lambda c: _sizes(c) == [3, 2] and c["rounds"][1]["seats"] == sorted(c["order"][:2])),
    ("cut3_tie_low", [0, 1, 2], lambda c: _sizes(c) == [3, 2] and c["rounds"][1]["seats"] == sorted(c["order"][1:])),
    ("cut3_all_tied", [0, 1, 2], lambda c: _sizes(c) == [3, 3]),
    ("cut3_tie_twice", [0, 1, 2], lambda c: _sizes(c) == [3, 2, 2]),
    ("cut2_no_tie", [0, 1], lambda c: _sizes(c) == [2]),
    ("cut2_tie", [0, 1], lambda c: _sizes(c) == [2, 2]),
    ("cut2_tie_twice", [0, 1], lambda c: _sizes(c) == [2, 2, 2]),
]


def _first_number(seed: bytes, label: str, n: int, pattern: list[bool]) -> int:
    """The lowest number whose stream starts with bytes rejected (True) or accepted (False) for n, as in pattern."""
    limit = 256 - 256 % n
    number = 0
    while True:
        stream = Stream(seed, label, number)
        if [stream.next_byte() >= limit for _ in pattern] == pattern:
            return number
        number += 1


def vectors() -> dict:
    """Every vector, as the JSON document service/docs/fairness-vectors.json holds."""
    seeds = [{"name": name, "seed": seed.hex(), "commitment": hashlib.sha256(seed).hexdigest()}
             for name, seed in SEEDS.items()]

    streams = []
    for name, label, number in [("counting", DECK_LABEL, 1), ("counting", DECK_LABEL, 256),
                                ("counting", DECK_LABEL, 2**32 + 1), ("hashed", CUT_LABEL, 0),
                                ("long", DECK_LABEL, 1), ("one_byte", CUT_LABEL, 3)]:
        stream = Stream(SEEDS[name], label, number)
        first = bytes(stream.next_byte() for _ in range(80))  # blocks 0, 1 and half of 2
        streams.append({"seed": name, "label": label, "number": number,
                        "block_messages": [stream.message(k).hex() for k in range(3)],
                        "first_bytes": first.hex()})

    draws = []
    # n=52 and n=37 reject bytes from 208 and from 222 up, n=3 only 255, n=32 none: streams
    # chosen to start with two rejected bytes, with an accepted then a rejected one, with a
    # rejected 255, and (n=32) with anything
    cases = [("hashed", DECK_LABEL, 52, [True, True]), ("hashed", DECK_LABEL, 52, [False, True]),
             ("counting", CUT_LABEL, 37, [True]), ("counting", DECK_LABEL, 3, [True]),
             ("long", DECK_LABEL, 32, [False])]
    for name, label, n, pattern in cases:
        number = _first_number(SEEDS[name], label, n, pattern)
        stream = Stream(SEEDS[name], label, number)
        rejected: list[int] = []
        values = [uniform(stream, n, rejected) for _ in range(12)]
        draws.append({"seed": name, "label": label, "number": number, "n": n, "values": values,
                      "bytes_read": stream.read, "rejected_bytes": rejected})

    decks = []
    for name, hand_no in [("counting", 1), ("counting", 2), ("counting", 3), ("counting", 255),
                          ("counting", 256), ("counting", 65536), ("counting", 2**32 + 1),
                          ("hashed", 1), ("hashed", 2), ("one_byte", 1), ("long", 1), ("long", 300)]:
        deck, stream, rejected = shuffle(SEEDS[name], DECK_LABEL, hand_no)
        decks.append({"seed": name, "hand_no": hand_no, "deck": deck,
                      "bytes_read": stream.read, "rejected_bytes": rejected})

    cuts = []
    for name, round_no, count in [("counting", 0, 3), ("counting", 0, 2), ("counting", 1, 2),
                                  ("counting", 2, 3), ("counting", 256, 3), ("hashed", 0, 3),
                                  ("hashed", 1, 2), ("one_byte", 0, 2), ("long", 0, 3)]:
        # step 5: the cutters take cards 1, 2, 3 of the round's shuffle
        cuts.append({"seed": name, "round": round_no, "count": count,
                     "cards": shuffle(SEEDS[name], CUT_LABEL, round_no)[0][:count]})

    cuttings = []
    for name, seats, wanted in CUTTINGS:
        seed = _cutting_seed(seats, wanted)
        seeds.append({"name": name, "seed": seed.hex(), "commitment": hashlib.sha256(seed).hexdigest()})
        cuttings.append({"seed": name, "seats": seats, **cutting(seed, seats)})

    client_seed_keys = []
    for name, texts in CLIENT_SEED_CASES:
        data = key_input(SEEDS[name], texts)
        key = hashlib.sha256(data).digest()
        client_seed_keys.append({"seed": name, "client_seeds": texts, "key_input": data.hex(), "key": key.hex(),
                                 "deck_1": shuffle(key, DECK_LABEL, 1)[0], "deck_2": shuffle(key, DECK_LABEL, 2)[0],
                                 "cut_0": shuffle(key, CUT_LABEL, 0)[0][: len(texts)]})

    # a duplicate match's boards: board b's seed is HMAC-SHA256(match seed, "board:" || uint32(b)),
    # and a board's games are dealt from it as derivation 1 (key = the board's seed)
    board_seeds = []
    for name, board in [("counting", 0), ("counting", 1), ("counting", 255), ("counting", 256),
                        ("hashed", 0), ("long", 2**32 - 1)]:
        seed = hmac.new(SEEDS[name], BOARD_LABEL + board.to_bytes(4, "big"), hashlib.sha256).digest()
        board_seeds.append({"match_seed": name, "board": board, "board_seed": seed.hex(),
                            "commitment": hashlib.sha256(seed).hexdigest(),
                            "deck_1": shuffle(seed, DECK_LABEL, 1)[0]})

    return {
        "description": (
            "Test vectors for ginbox's provably fair dealing: the seed's commitment (SHA-256), "
            "the HMAC-SHA256 byte stream (step 1), uniform integers by rejection (step 2), the "
            "Fisher-Yates deck of a hand (steps 3-4), the cut cards of a round, and whole "
            "cuttings: their rounds, ties cut again, the seats from the highest cut down (step 5), and "
            "(client_seed_keys) the key of derivation 2 from a server seed and every seat's client seed "
            "(step 6: its SHA-256 input, the key, the first two decks and the first cut it gives), and "
            "(board_seeds) a duplicate match's board seeds from the match's seed, their commitments and "
            "the first deck each deals, as "
            "specified in service/rules/fairness.py and service/docs/FAIRNESS.md. Seeds and bytes are "
            "lowercase hex; decks are top card first; labels are ASCII; client seeds are text, "
            "encoded as UTF-8."
        ),
        "seeds": seeds,
        "byte_streams": streams,
        "uniform_draws": draws,
        "decks": decks,
        "cuts": cuts,
        "cuttings": cuttings,
        "client_seed_keys": client_seed_keys,
        "board_seeds": board_seeds,
    }


def render() -> str:
    """The file's exact text: one vector a line."""
    parts = []
    for key, value in vectors().items():
        if isinstance(value, list):
            rows = ",\n".join("  " + json.dumps(item) for item in value)
            parts.append(f" {json.dumps(key)}: [\n{rows}\n ]")
        else:
            parts.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


if __name__ == "__main__":
    sys.stdout.write(render())
