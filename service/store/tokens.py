"""Seat tokens: issued once to their holder, stored only as SHA-256 hashes beside each game.

``TokenStore`` keeps them on Redis, ``InMemoryTokenStore`` in a dict (for the use-case tests).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict

#: (game, token) pairs whose seat a TokenStore remembers
KNOWN_TOKENS = 10_000
#: how long (s) a TokenStore trusts a seat it remembers before it reads the game's hashes again
#: (a bot account's token replaced or revoked in another process stops matching within this long)
KNOWN_FOR_S = 2.0


def issue_token() -> str:
    """A fresh seat token (shown to its holder once, stored only as a hash).

    Never one that begins with '-' (one in 64 would): a token is often a word on a command line
    (``python -m workers.arena_bot URL TOKEN``, a shell variable in ``curl``), where a leading '-'
    reads as an option.
    """
    while True:
        token = secrets.token_urlsafe(32)
        if token[0] != "-":
            return token


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenStore:
    """Seat token hashes of each game, in the hash ``{prefix}:{<game_id>}:tokens`` (seat -> sha256).

    The seats of tokens seen lately are remembered in this process: never the tokens themselves,
    and never a miss.
    """

    def __init__(self, redis, prefix: str, known: int = KNOWN_TOKENS, known_for_s: float = KNOWN_FOR_S):
        self.redis = redis
        self.prefix = prefix
        self.known = known
        self.known_for_s = known_for_s
        # A seat's hash is written when the game is created or when the log records the seat's claim.
        # A seat is never vacated, but a bot account's seat changes hash when its token is replaced or revoked.
        # So the seats of tokens seen lately are remembered here, each for known_for_s seconds.
        # A miss is not remembered: a claim may be recorded a moment later.
        self._seats: OrderedDict[tuple[str, str], tuple[int, float]] = OrderedDict()
        self._lock = threading.Lock()

    def key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:tokens"

    def save(self, game_id: str, tokens: dict[int, str]) -> None:
        """Record the tokens of the seats created with the game."""
        if tokens:
            self.redis.hset(self.key(game_id), mapping={str(s): hash_token(t) for s, t in tokens.items()})

    def save_hashes(self, game_id: str, hashes: dict[int, str]) -> None:
        """Record seats whose token hashes are known already (a bot account's, a person's of a match)."""
        if hashes:
            self.redis.hset(self.key(game_id), mapping={str(s): h for s, h in hashes.items()})

    def claim(self, game_id: str, seat: int, token: str) -> None:
        """Record the token of a seat whose claim the log has just recorded (the log decides who sits)."""
        self.redis.hset(self.key(game_id), str(seat), hash_token(token))

    def replace_hash(self, game_id: str, old_hash: str, new_hash: str) -> None:
        """The seats whose hash is ``old_hash`` take ``new_hash`` (a bot account's token replaced or revoked)."""
        key = self.key(game_id)
        for seat, stored in self.redis.hgetall(key).items():
            if hmac.compare_digest(old_hash, stored.decode() if isinstance(stored, bytes) else stored):
                self.redis.hset(key, seat, new_hash)
        with self._lock:
            self._seats.pop((game_id, old_hash), None)

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat whose token this is, or None."""
        presented = hash_token(token)
        with self._lock:
            # a digest of the presented token is the key: looking it up tells nothing of a stored one
            known = self._seats.get((game_id, presented))
            if known is not None and time.monotonic() - known[1] < self.known_for_s:
                self._seats.move_to_end((game_id, presented))
                return known[0]
        # compare with every seat's hash (at most three) in constant time, without early exit
        found = None
        for seat, stored in self.redis.hgetall(self.key(game_id)).items():
            stored = stored.decode() if isinstance(stored, bytes) else stored
            if hmac.compare_digest(presented, stored):
                found = int(seat)
        if found is not None:
            with self._lock:
                self._seats[(game_id, presented)] = (found, time.monotonic())
                self._seats.move_to_end((game_id, presented))
                while len(self._seats) > self.known:
                    self._seats.popitem(last=False)
        return found


class InMemoryTokenStore:
    """The seat token hashes of each game in a dict, with TokenStore's methods and answers."""

    def __init__(self, prefix: str = "ginbox"):
        self.prefix = prefix
        self._hashes: dict[str, dict[str, str]] = {}  # key(game_id) -> seat -> sha256
        self._lock = threading.Lock()

    def key(self, game_id: str) -> str:
        return f"{self.prefix}:{{{game_id}}}:tokens"

    def save(self, game_id: str, tokens: dict[int, str]) -> None:
        """Record the tokens of the seats created with the game."""
        self.save_hashes(game_id, {s: hash_token(t) for s, t in tokens.items()})

    def save_hashes(self, game_id: str, hashes: dict[int, str]) -> None:
        """Record seats whose token hashes are known already (a bot account's, a person's of a match)."""
        if hashes:
            with self._lock:
                self._hashes.setdefault(self.key(game_id), {}).update({str(s): h for s, h in hashes.items()})

    def claim(self, game_id: str, seat: int, token: str) -> None:
        """Record the token of a seat whose claim the log has just recorded."""
        self.save_hashes(game_id, {seat: hash_token(token)})

    def replace_hash(self, game_id: str, old_hash: str, new_hash: str) -> None:
        """The seats whose hash is ``old_hash`` take ``new_hash`` (a bot account's token replaced or revoked)."""
        with self._lock:
            seats = self._hashes.get(self.key(game_id), {})
            for seat, stored in list(seats.items()):
                if hmac.compare_digest(old_hash, stored):
                    seats[seat] = new_hash

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat whose token this is, or None."""
        presented = hash_token(token)
        with self._lock:
            stored = dict(self._hashes.get(self.key(game_id), {}))
        found = None
        # every seat's hash compared in constant time, as TokenStore does
        for seat, digest in stored.items():
            if hmac.compare_digest(presented, digest):
                found = int(seat)
        return found
