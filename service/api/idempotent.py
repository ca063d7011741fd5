"""Idempotency-Key on the routes that create things and on a challenge's answers: the HTTP half.

The creations are a game, a seat's claim, a bot, a challenge and a match.
A challenge's answers are accept, decline and withdraw.
This module reads the key, the body and the token, and builds the answer or its replay.
service.idempotency decides the rest.
"""

# A challenge's accept starts its game or match.
# Their answers hold tokens shown once.
# An answer lost on the way (a timeout, a dropped connection) would leave a game, a seat or an
# account whose token nobody has.
# A plain retry would create a second one (or, for a seat, be refused as taken).
# A challenge's answer, sent again, would be refused as answered already (409 challenge_not_pending),
# the game or match it started not named.
# The answer or its replay here is its status, Location, ETag and Idempotent-Replayed.
# What a key stands for, whom it belongs to, what holds it and how its claim ends is decided by
# service.idempotency, through the app's ``creations`` (built by service.composition).

from __future__ import annotations

import functools

from flask import Response, current_app, g, request

from service.api.auth import presented_token
from service.api.http import json_body, request_body
from service.api.problems import ApiError
from service.idempotency import (
    CREATION_KEY,
    CREATION_KEY_RULE,
    CreationIdempotency,
    Made,
    RecordedAnswer,
    bodiless_fingerprint,
    body_fingerprint,
    key_scope,
)

#: the headers of a creation's answer that its replay repeats
RECORDED_HEADERS = ("Location", "ETag")
REPLAYED_HEADER = "Idempotent-Replayed"


def _creations() -> CreationIdempotency:
    return current_app.extensions["ginbox"].creations


def made() -> Made | None:
    """What the creation being answered makes, derived from its Idempotency-Key (None: it sent none)."""
    return g.get("ginbox_made")


def _replay(answer: RecordedAnswer) -> Response:
    headers = {**answer.headers, REPLAYED_HEADER: "true"}
    return Response(answer.body, answer.status, headers, mimetype="application/json")


def idempotent_creation(view=None, *, body: bool = True):
    """Honour an optional Idempotency-Key on a creation route's view.

    ``body=False`` for a route that reads no body (a challenge's answer): its key stands for the
    method and path (and any bytes sent with them) instead of a JSON body, which it does not require.
    """
    if view is None:
        return functools.partial(idempotent_creation, body=body)

    @functools.wraps(view)
    def answer(*args, **kwargs):
        # The key must be 22 to 200 letters, digits, '-' or '_' (CREATION_KEY), else 400 invalid_header saying so.
        # It is stricter than a move's: a short key could be guessed, from a copy of Redis, and open its record.
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
        fingerprint = (body_fingerprint(request.method, request.path, json_body()) if body
                       else bodiless_fingerprint(request.method, request.path, request_body()))
        # A key is scoped by the method and the route's template, and by the SHA-256 of the token the
        # request presents, if any (a bot's, on POST /challenges).
        # Two bots that choose the same key never meet.
        # A caller without a token (who creates a game, registers a bot) is scoped by the route alone.
        # So keys have to be unguessable (a random UUID).
        scope = key_scope(request.method, request.url_rule.rule, presented_token(required=False, strict=False))
        # The same key for another request (method, path or body) is 422 idempotency_key_reused.
        # While the first request with a key is being answered, another one with it is
        # 409 idempotency_key_in_use with Retry-After.
        creation = _creations().begin(scope, key, fingerprint)
        # a retry of the same request gets the first successful answer again, marked
        # Idempotent-Replayed: true, creating nothing
        if isinstance(creation, RecordedAnswer):
            return _replay(creation)
        g.ginbox_made = creation.made
        # A request that fails on Redis itself (a timeout, a lost connection: 503 redis_unavailable)
        # has an unknown outcome: the write may have landed after the answer gave up on it.
        # Its key is then neither recorded nor freed but marked unsettled with the request's
        # fingerprint (service.store.creations).
        # The same request again is answered afresh, and another one with the key is 422.
        with creation:  # a failure gives the key up, or leaves it unsettled when its outcome is unknown
            response = current_app.make_response(view(*args, **kwargs))
        # Answered afresh, a creation makes the very same ids and tokens (made(), derived from the key).
        # It finds its first write if it landed: a game's creation and a seat's claim in the game's log,
        # a match's in its log, a bot account by its token's hash, a challenge by its id,
        # a challenge's answer by the key recorded with it.
        # So the retry answers as the first request would have (Idempotent-Replayed: true).
        # It never answers with a second game, match, account or challenge,
        # nor 409 seat_taken, bot_name_taken or challenge_not_pending.
        if creation.made.found:
            # the view found this creation made by the request before with the key (whose answer
            # was lost) and answered as it did: a replay, though the record had none to give
            response.headers[REPLAYED_HEADER] = "true"
        # The first successful answer is recorded (service.store.creations).
        # It is encrypted with a key derived from the Idempotency-Key, never in the clear.
        # The records are sealed under the server's secret too (GINBOX_SECRET, see service.store.creations).
        if 200 <= response.status_code < 300:
            creation.record(response.status_code,
                            {h: response.headers[h] for h in RECORDED_HEADERS if h in response.headers},
                            response.get_data())
        else:
            # refused requests are not recorded: their key stays free, and a retry is decided afresh
            creation.release()
        return response

    return answer
