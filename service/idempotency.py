"""Idempotent creations: a request under an Idempotency-Key is made once.

Every retry of the request is given its first successful answer again.
The routes that create (a game, a seat's claim, a bot, a challenge, a match) and a challenge's
answers (accept, decline, withdraw) come here through ``service.api.idempotent``.
The records themselves are kept by the store (service.store.creations.CreationRecords).
"""

# service.api.idempotent keeps only what is HTTP: the headers read, the answer built.
# What is decided here:
# - what a key stands for (request_fingerprint): the method, the path and the body;
# - whom a key belongs to (key_scope): the route, and the hash of the token the request presents;
# - what holds the key (CreationIdempotency.begin): nothing (the request claims it and goes on,
#   a Creation), a recorded answer (replayed), another request being answered
#   (IdempotencyKeyInUse), or another request altogether (IdempotencyKeyReused);
# - how a claim ends (Creation): recorded, given up when refused, or marked unsettled when the
#   store failed and the outcome is unknown.
# The records are sealed under a key derived from the Idempotency-Key.
# Their store is built once, by service.composition.

from __future__ import annotations

import hashlib
import logging
from typing import Any, Callable

import redis

from service.errors import IdempotencyKeyInUse, IdempotencyKeyReused
from service.store.base import canonical_json
from service.store.creations import (
    IN_USE_RETRY_AFTER_S,
    Claimed,
    CreationRecords,
    InUse,
    RecordedAnswer,
    Slot,
    Undecipherable,
    Unsettled,
)
from service.store.tokens import hash_token

# named from here for the API, which imports no store: the rule of a creation's key, and what a
# creation makes
from service.store.creations import CREATION_KEY as CREATION_KEY
from service.store.creations import CREATION_KEY_RULE as CREATION_KEY_RULE
from service.store.creations import Made as Made

log = logging.getLogger(__name__)

#: the errors after which a request's outcome is unknown: Redis did not answer (its writes may land)
OUTCOME_UNKNOWN = (redis.RedisError, OSError)


def request_fingerprint(method: str, path: str, *lines: str) -> str:
    """sha256 of the method and path, then each of ``lines`` on a line of its own: what a key stands for.

    A creation's lines are the canonical JSON of its body (or the digest of a bodiless route's
    bytes); a move's (service.games) are the caller's seat and the canonical JSON of its body.
    """
    text = "\n".join((f"{method.upper()} {path}", *lines))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def body_fingerprint(method: str, path: str, body: Any) -> str:
    """What the key of a creation stands for: its method, path and the canonical JSON of its body."""
    return request_fingerprint(method, path, canonical_json(body))


def bodiless_fingerprint(method: str, path: str, raw: bytes) -> str:
    """What the key of a route that reads no body stands for: its method and path (such a route
    refuses a body, service.api.http.refuse_body, before its key is looked at; a body's bytes, if
    one got this far, would still make the same key with it another request)."""
    return request_fingerprint(method, path, f"sha256:{hashlib.sha256(raw).hexdigest()}" if raw else "")


def key_scope(method: str, route: str, token: str | None) -> str:
    """Whose keys a request's key is among: its method and route template, and the SHA-256 of the
    token it presents, if any (two bots that choose one key never meet)."""
    scoped = f"{method} {route}"
    return f"{scoped} token:{hash_token(token)}" if token else scoped


class Creation:
    """A creation that holds its key while it is answered: what it makes (``made``), and how its
    claim ends. Used as a context manager around the answer's making: a failure gives the claim
    up, or marks it unsettled when the outcome is unknown (OUTCOME_UNKNOWN), then goes on."""

    def __init__(self, slot: Slot, claimed: Claimed, fingerprint: str):
        self._slot = slot
        self._claimed = claimed
        self.made = Made(slot, fingerprint)

    def __enter__(self) -> Creation:
        return self

    def __exit__(self, kind, exc, traceback) -> bool:
        if exc is None:
            return False
        if isinstance(exc, OUTCOME_UNKNOWN):
            # whether its writes landed is unknown: the key stays this request's, for a retry to learn
            _settle(self._slot.unsettle, self._claimed, self.made.fingerprint)
        else:
            _settle(self._slot.release, self._claimed)
        return False

    def record(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """Keep the creation's successful answer, for the retries of its request to be given."""
        _settle(self._slot.record, self._claimed, RecordedAnswer(self.made.fingerprint, status, headers, body))

    def release(self) -> None:
        """Give the key up: the request was refused, and nothing of a refusal is kept."""
        _settle(self._slot.release, self._claimed)


class CreationIdempotency:
    """The creations under an Idempotency-Key, kept in ``records``."""

    def __init__(self, records: CreationRecords):
        self.records = records

    def begin(self, scope: str, key: str, fingerprint: str) -> Creation | RecordedAnswer:
        """The recorded answer of the request with ``key`` in ``scope`` (to replay), else the claim
        of this request (to answer).

        IdempotencyKeyReused if the key stands for another request (another fingerprint, or a
        record that does not open); IdempotencyKeyInUse while a request with it is being answered.
        """
        slot = self.records.slot(scope, key)
        try:
            held = slot.claim()
        except Undecipherable:
            log.warning("idempotency record %s does not open with its key", slot.name)
            raise IdempotencyKeyReused() from None
        if isinstance(held, Unsettled):
            # the request before with this key failed on Redis: only the same request may find out
            if held.fingerprint != fingerprint:
                raise IdempotencyKeyReused()
            held = slot.take_over(held)
        if isinstance(held, InUse):
            raise IdempotencyKeyInUse(IN_USE_RETRY_AFTER_S)
        if isinstance(held, RecordedAnswer):
            if held.fingerprint != fingerprint:
                raise IdempotencyKeyReused()
            return held
        return Creation(slot, held, fingerprint)


def _settle(step: Callable[..., bool], *args) -> None:
    """Record the answer or give the claim up; a failure is logged, never put in the answer's place
    (the creation is made: its answer, with its tokens, goes out whatever happens to the record)."""
    try:
        if not step(*args):
            log.warning("an idempotency claim ran out before its request was answered")
    except Exception:
        log.exception("an idempotency claim could not be settled")
