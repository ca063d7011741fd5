"""Idempotency-Key on the routes that create things (a game, a seat's claim, a bot, a challenge, a
match) and on a challenge's answers (accept, which starts its game or match; decline; withdraw).

Their answers hold tokens shown once: an answer lost on the way (a timeout, a dropped
connection) would leave a game, a seat or an account whose token nobody has, and a plain retry
would create a second one (or, for a seat, be refused as taken). A challenge's answer, sent
again, would be refused as answered already (409 ``challenge_not_pending``), the game or match
it started not named. With an ``Idempotency-Key``,
the first successful answer is recorded (service.store.creations: encrypted with a key derived
from the Idempotency-Key, never in the clear) and a retry of the same request gets it again,
marked ``Idempotent-Replayed: true``, creating nothing. The key must be 22 to 200 letters,
digits, '-' or '_' (``CREATION_KEY``, stricter than a move's: a short key could be guessed, from a
copy of Redis, and open its record), else 400 ``invalid_header`` saying so; the same key for another request (method, path or body) is 422
``idempotency_key_reused``; while the first request with a key is being answered, another one
with it is 409 ``idempotency_key_in_use`` with Retry-After. Refused requests are not recorded:
their key stays free, and a retry is decided afresh.

A request that fails on Redis itself (a timeout, a lost connection: 503 ``redis_unavailable``)
has an unknown outcome: the write may have landed after the answer gave up on it. Its key is
then neither recorded nor freed but marked unsettled with the request's fingerprint
(service.store.creations): the same request again is answered afresh, and another one with the
key is 422. Answered afresh, a creation makes the very same ids and tokens (``made()``, derived
from the key) and finds its first write if it landed (a game's creation and a seat's claim in the
game's log, a match's in its log, a bot account by its token's hash, a challenge by its id, a
challenge's answer by the key recorded with it), so the retry answers as the first request would
have (``Idempotent-Replayed: true``), never with a second game, match, account or challenge, nor
409 ``seat_taken``, ``bot_name_taken`` or ``challenge_not_pending``.

A key is scoped by the method and the route's template, and by the SHA-256 of the token the
request presents, if any (a bot's, on ``POST /challenges``): two bots that choose the same key
never meet, and a caller without a token (who creates a game, registers a bot) is scoped by the
route alone, so keys have to be unguessable (a random UUID). The records are sealed under the
server's secret too (``GINBOX_SECRET``, see service.store.creations).
"""

from __future__ import annotations

import functools
import hashlib
import logging

import redis
from flask import Response, current_app, g, request

from service.api.auth import presented_token
from service.api.http import json_body, request_body
from service.api.problems import ApiError
from service.errors import IdempotencyKeyReused
from service.store.base import canonical_json
from service.store.creations import (
    CREATION_KEY,
    CREATION_KEY_RULE,
    IN_USE_RETRY_AFTER_S,
    CreationRecords,
    InUse,
    Made,
    RecordedAnswer,
    Undecipherable,
    Unsettled,
    request_fingerprint,
)
from service.store.tokens import hash_token

log = logging.getLogger(__name__)

#: the headers of a creation's answer that its replay repeats
RECORDED_HEADERS = ("Location", "ETag")
REPLAYED_HEADER = "Idempotent-Replayed"


def _records() -> CreationRecords:
    records = current_app.extensions.get("ginbox.creations")
    if records is None:
        ext = current_app.extensions["ginbox"]
        records = current_app.extensions["ginbox.creations"] = CreationRecords(
            ext.redis, ext.settings.key_prefix, secret=ext.settings.secret)
    return records


#: the errors after which a request's outcome is unknown: Redis did not answer (its writes may land)
OUTCOME_UNKNOWN = (redis.RedisError, OSError)


def made() -> Made | None:
    """What the creation being answered makes, derived from its Idempotency-Key (None: it sent none)."""
    return g.get("ginbox_made")


def _scope() -> str:
    scope = f"{request.method} {request.url_rule.rule}"
    token = presented_token(required=False, strict=False)
    return f"{scope} token:{hash_token(token)}" if token else scope


def _replay(answer: RecordedAnswer) -> Response:
    headers = {**answer.headers, REPLAYED_HEADER: "true"}
    return Response(answer.body, answer.status, headers, mimetype="application/json")


def _bodiless_fingerprint() -> str:
    """What the key of a route that reads no body stands for: its method and path (such a route
    refuses a body, service.api.http.refuse_body, before its key is looked at; a body's bytes, if
    one got this far, would still make the same key with it another request)."""
    raw = request_body()
    return request_fingerprint(request.method, request.path, f"sha256:{hashlib.sha256(raw).hexdigest()}" if raw else "")


def idempotent_creation(view=None, *, body: bool = True):
    """Honour an optional Idempotency-Key on a creation route's view (see the module's doc).

    ``body=False`` for a route that reads no body (a challenge's answer): its key stands for the
    method and path (and any bytes sent with them) instead of a JSON body, which it does not require.
    """
    if view is None:
        return functools.partial(idempotent_creation, body=body)

    @functools.wraps(view)
    def answer(*args, **kwargs):
        # the creation rule alone is checked (it is stricter than a move's, idempotency_key), so
        # that the refusal states the rule that applies here, whatever is wrong with the key
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(*args, **kwargs)
        if not CREATION_KEY.fullmatch(key):
            raise ApiError(400, "invalid_header",
                           f"the Idempotency-Key of an operation whose answer holds what it made or decided is "
                           f"{CREATION_KEY_RULE}: whoever guesses it gets that answer",
                           extra={"errors": {"Idempotency-Key": ["Invalid value."]}})
        # the body the key stands for (a body that is no JSON is refused here, and recorded nowhere)
        fingerprint = (request_fingerprint(request.method, request.path, canonical_json(json_body())) if body
                       else _bodiless_fingerprint())
        slot = _records().slot(_scope(), key)
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
            raise ApiError(409, "idempotency_key_in_use",
                           "a request with this Idempotency-Key is being answered; retry after Retry-After",
                           headers={"Retry-After": str(IN_USE_RETRY_AFTER_S)})
        if isinstance(held, RecordedAnswer):
            if held.fingerprint != fingerprint:
                raise IdempotencyKeyReused()
            return _replay(held)
        g.ginbox_made = Made(slot, fingerprint)
        try:
            response = current_app.make_response(view(*args, **kwargs))
        except OUTCOME_UNKNOWN:
            # whether its writes landed is unknown: the key stays this request's, for a retry to learn
            _settle(slot.unsettle, held, fingerprint)
            raise
        except BaseException:
            _settle(slot.release, held)
            raise
        if g.ginbox_made.found:
            # the view found this creation made by the request before with the key (whose answer
            # was lost) and answered as it did: a replay, though the record had none to give
            response.headers[REPLAYED_HEADER] = "true"
        if 200 <= response.status_code < 300:
            recorded = RecordedAnswer(fingerprint, response.status_code,
                                      {h: response.headers[h] for h in RECORDED_HEADERS if h in response.headers},
                                      response.get_data())
            _settle(slot.record, held, recorded)
        else:
            _settle(slot.release, held)
        return response

    return answer


def _settle(step, *args) -> None:
    """Record the answer or give the claim up; a failure is logged, never put in the answer's place
    (the creation is made: its answer, with its tokens, goes out whatever happens to the record)."""
    try:
        if not step(*args):
            log.warning("an idempotency claim ran out before its request was answered")
    except Exception:
        log.exception("an idempotency claim could not be settled")
