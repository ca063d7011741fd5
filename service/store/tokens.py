"""Seat tokens: issued once to their holder, stored only as SHA-256 hashes beside each game.

``TokenStore`` keeps them on Redis, ``InMemoryTokenStore`` in a dict (for the use-case tests).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict

#: (game, token) pairs whose seat a TokenStore remembers
KNOWN_TOKENS = 10_000


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

    def __init__(self, redis, prefix: str, known: int = KNOWN_TOKENS):
        self.redis = redis
        self.prefix = prefix
        self.known = known
        # A seat's hash is written once, when the game is created or when the log records the seat's claim.
        # A seat is never vacated: a token that matched a seat matches it for good.
        # So the seats of tokens seen lately are remembered here.
        # A miss is not remembered: a claim may be recorded a moment later.
        self._seats: OrderedDict[tuple[str, str], int] = OrderedDict()
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

    def seat_of(self, game_id: str, token: str) -> int | None:
        """The seat whose token this is, or None."""
        presented = hash_token(token)
        with self._lock:
            # a digest of the presented token is the key: looking it up tells nothing of a stored one
            found = self._seats.get((game_id, presented))
            if found is not None:
                self._seats.move_to_end((game_id, presented))
                return found
        # compare with every seat's hash (at most three) in constant time, without early exit
        for seat, stored in self.redis.hgetall(self.key(game_id)).items():
            stored = stored.decode() if isinstance(stored, bytes) else stored
            if hmac.compare_digest(presented, stored):
                found = int(seat)
        if found is not None:
            with self._lock:
                self._seats[(game_id, presented)] = found
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
