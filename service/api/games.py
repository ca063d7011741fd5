"""Games: creation, listing, seats, moves, advice, views, events, time travel, audit, export, OpenSpiel
records, stream."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, request
from werkzeug.routing import BaseConverter

from schemas.common import GAME_ID_PATTERN
from schemas.games import (
    AdviceSchema,
    AuditSchema,
    ClaimSeatSchema,
    CreateGameSchema,
    EventListSchema,
    EventsQuery,
    GameListSchema,
    HandResultsQuery,
    ListGamesQuery,
    MoveSchema,
    StateQuery,
    StreamQuery,
)
from schemas.views import CreatedGameSchema, HandResultsPageSchema, SeatClaimedSchema
from service.api.auth import presented_token
from service.api.http import (
    conditional_view,
    etag,
    idempotency_key,
    if_match_versions,
    json_body,
    json_response,
    load_body,
    load_query,
)
from service.api.idempotent import idempotent_creation, made
from service.api.sse import sse_response
from service.errors import BotTokenRequired, GameNotFound
from service.games import Answer, CommandRequest, GameService, Idempotency
from service.rules import commands

bp = Blueprint("games", __name__)


class _GameSegment(BaseConverter):
    """The segment after /games/ that may name a game: any but ``import``, whose route is POST alone.

    So GET /games/import is 405 with ``Allow: POST``, not a game's read that finds no game.
    """

    regex = r"(?!import$)[^/]+"


# the converter is in the app's map before this blueprint's rules are bound to it
bp.record_once(lambda state: state.app.url_map.converters.setdefault("game", _GameSegment))

_GAME_ID = re.compile(GAME_ID_PATTERN)
_SEAT = re.compile(r"0|[1-9][0-9]{0,2}")

# built once per process: building a schema deep-copies its fields, which cost more than the dump
_CREATE_GAME_SCHEMA = CreateGameSchema()
_GAME_LIST_SCHEMA = GameListSchema()
_LIST_GAMES_QUERY = ListGamesQuery()
_CLAIM_SEAT_SCHEMA = ClaimSeatSchema()
_MOVE_SCHEMA = MoveSchema()
_ADVICE_SCHEMA = AdviceSchema()
_EVENTS_QUERY = EventsQuery()
_EVENT_LIST_SCHEMA = EventListSchema()
_STATE_QUERY = StateQuery()
_AUDIT_SCHEMA = AuditSchema()
_STREAM_QUERY = StreamQuery()
_HAND_RESULTS_QUERY = HandResultsQuery()
_HAND_RESULTS_PAGE_SCHEMA = HandResultsPageSchema()
# A view (service.rules.views) is built in its wire shape: ViewSchema().dump would give it back
# unchanged -- tests/unit/test_view_wire_shape.py checks that on every view of whole games -- so
# the bulk of what the API answers is sent as it is, without a walk through the schema per answer.
_DUMP_CREATED_GAME = CreatedGameSchema().dump
_DUMP_SEAT_CLAIMED = SeatClaimedSchema().dump


def _games() -> GameService:
    return current_app.extensions["ginbox"].games


def _service_for(game_id: str) -> GameService:
    """The service, for an id that may name a game (GameNotFound for one that cannot)."""
    if not _GAME_ID.match(game_id):
        raise GameNotFound(game_id)
    return _games()


def _existing(game_id: str):
    """(the service, the game's current state): GameNotFound if there is no such game."""
    svc = _service_for(game_id)
    return svc, svc.state(game_id)


def _caller(svc: GameService, game_id: str, required: bool, allow_query: bool = False) -> int | None:
    """The caller's seat from their token (None: a spectator)."""
    return svc.seat_for(game_id, presented_token(required=required, allow_query=allow_query))


def _by_token(resp: Response) -> Response:
    """An answer that depends on the token sent: caches keep one per Authorization header."""
    resp.vary.add("Authorization")
    return resp


def _view_answer(answer: Answer, status: int = 200, headers: dict | None = None) -> Response:
    return json_response(answer.view, status, {"ETag": etag(answer.version), **(headers or {})})


@bp.post("/games")
@idempotent_creation
def create_game():
    """Create a game; human seats get their tokens in this answer only (a bot account's token: the
    bot sends it, and may seat itself)."""
    body, _ = load_body(_CREATE_GAME_SCHEMA)
    # the token is read only when a seat names a bot account: its consent (a game without one reads none)
    seats_account = any(isinstance(seat, dict) and "account" in seat for seat in body["seats"])
    # a game of built-in bots alone counts against its caller (GINBOX_BOT_GAMES_PER_CALLER)
    bots_alone = all(isinstance(seat, dict) and "bot" in seat for seat in body["seats"])
    created = _games().create_game(body, presented_token(required=False, wants="bot") if seats_account else None,
                                   _bot_games_caller() if bots_alone else None, made=made())
    return json_response(_DUMP_CREATED_GAME(created), 201,
                         {"Location": f"/games/{created['game_id']}", "ETag": etag(created["view"]["version"])})


@bp.post("/games/import")
@idempotent_creation
def import_game():
    """Store an OpenSpiel record (as ``ginbox convert`` writes it, or GET /games/{id}/openspiel answers)
    as a new finished game: 422 with the conversion's code when it does not convert, nothing stored."""
    imported = _games().import_record(json_body(), made=made())
    return json_response(imported, 201, {"Location": f"/games/{imported['game_id']}",
                                         "ETag": etag(imported["view"]["version"])})


def _bot_games_caller() -> str | tuple[str, str]:
    """Whom a game of built-in bots alone counts against, as a match of POST /matches does.

    The client address, an IPv6 one by its network, as the rate limit counts it (``addr:<address>``),
    and before it the bot account whose token the request presents (``bot:<name>``): an address
    counts the games of every account that sends from it.
    Any other token (a seat's, none that the server knows, a malformed header) counts as none.
    """
    # an unknown token never lets a caller out of its address's count
    from service.ratelimit import address_identity

    ext = current_app.extensions["ginbox"]
    address = f"addr:{address_identity(request.remote_addr or 'unknown', ext.limiter.ipv6_prefix)}"
    token = presented_token(required=False, strict=False)
    if token and ext.arena is not None:
        try:
            return f"bot:{ext.arena.bot_of(token)}", address
        except BotTokenRequired:
            pass  # no bot account's token: the address counts
    return address


@bp.get("/games")
def list_games():
    """Games newest first, filtered by status and variant, a page at a time."""
    q = load_query(_LIST_GAMES_QUERY)
    games, next_cursor = _games().list_games(q.get("status"), q.get("variant"), q.get("cursor"), q["limit"])
    headers = {}
    if next_cursor:
        params = {k: q[k] for k in ("status", "variant") if q.get(k)}
        params.update(cursor=next_cursor, limit=q["limit"])
        headers["Link"] = f'</games?{urlencode(params)}>; rel="next"'
    payload = {"games": games, "next_cursor": next_cursor}
    return json_response(_GAME_LIST_SCHEMA.dump(payload), 200, headers)


@bp.get("/games/<game:game_id>")
def get_game(game_id: str):
    """The caller's view of the game (a spectator's without a token)."""
    svc, state = _existing(game_id)
    seat = _caller(svc, game_id, required=False)
    answer = svc.view(game_id, seat, state)
    # a view of its own tag (a seat's and a spectator's differ), 304 to a poll that holds it already
    return conditional_view(answer.view, answer.version)


@bp.post("/games/<game_id>/seats/<seat>")
@idempotent_creation
def claim_seat(game_id: str, seat: str):
    """Sit at an open seat; the token is in this answer only."""
    # any segment that is no seat number of the game (-1, abc, 1.0, 7) is 404 seat_not_found
    seat = int(seat) if _SEAT.fullmatch(seat) else -1
    token, answer = _service_for(game_id).claim_seat(game_id, seat, lambda: load_body(_CLAIM_SEAT_SCHEMA)[0],
                                                     made())
    payload = {"seat": seat, "token": token, "view": answer.view}
    return json_response(_DUMP_SEAT_CLAIMED(payload), 201,
                         {"ETag": etag(answer.version), "Location": f"/games/{game_id}"})


class _Incoming:
    """A command of this request, read as the service asks: the token, then body and headers."""

    def __init__(self, schema, to_command):
        self.schema = schema
        self.to_command = to_command

    def token(self) -> str:
        return presented_token(required=True)

    def request(self) -> CommandRequest:
        body, raw = load_body(self.schema)
        key = idempotency_key()
        return CommandRequest(
            command=self.to_command(body),
            expected_versions=if_match_versions(),
            idempotency=Idempotency(key, request.method, request.path, raw) if key is not None else None,
        )


@bp.post("/games/<game_id>/moves")
def post_move(game_id: str):
    """Play one move for the token's seat."""
    return _view_answer(_service_for(game_id).play(game_id, _Incoming(_MOVE_SCHEMA, commands.command_from_dict)))


@bp.post("/games/<game_id>/advice")
def post_advice(game_id: str):
    """The advisor's message to the captain (three-hand); the game's version does not move."""
    incoming = _Incoming(_ADVICE_SCHEMA, lambda body: commands.Advise(body["text"]))
    return _view_answer(_service_for(game_id).give_advice(game_id, incoming))


@bp.get("/games/<game_id>/advice")
def list_advice(game_id: str):
    """Every piece of advice the caller may see (captain and advisor; everyone once the game is over)."""
    svc, _ = _existing(game_id)
    seat = _caller(svc, game_id, required=False)
    return _by_token(json_response(svc.advice_list(game_id, seat)))


@bp.get("/games/<game_id>/events")
def list_events(game_id: str):
    """The game's events after a version, each redacted for the caller."""
    svc, _ = _existing(game_id)
    seat = _caller(svc, game_id, required=False)
    q = load_query(_EVENTS_QUERY)
    return _by_token(json_response(_EVENT_LIST_SCHEMA.dump(svc.events(game_id, seat, q["after"], q["limit"]))))


@bp.get("/games/<game_id>/state")
def state_at(game_id: str):
    """The caller's view as the game stood at a past version."""
    svc, _ = _existing(game_id)
    seat = _caller(svc, game_id, required=False)
    q = load_query(_STATE_QUERY)
    answer = svc.state_at(game_id, seat, q["version"])
    return conditional_view(answer.view, answer.version)


@bp.get("/games/<game_id>/hand-results")
def hand_results(game_id: str):
    """A page of the finished hands' results, as the caller's view shows them (the view holds the latest few)."""
    svc, state = _existing(game_id)
    seat = _caller(svc, game_id, required=False)
    q = load_query(_HAND_RESULTS_QUERY)
    answer = svc.hand_results(game_id, seat, q["offset"], q["limit"], state)
    resp = conditional_view(_HAND_RESULTS_PAGE_SCHEMA.dump(answer.view), answer.version)
    following = q["offset"] + q["limit"]
    if following < answer.view["total"]:
        params = urlencode({"offset": following, "limit": q["limit"]})
        resp.headers["Link"] = f'</games/{game_id}/hand-results?{params}>; rel="next"'
    return resp


@bp.get("/games/<game_id>/audit")
def audit(game_id: str):
    """The fairness audit of a finished game."""
    svc, _ = _existing(game_id)
    return json_response(_AUDIT_SCHEMA.dump(svc.audit(game_id)))


@bp.get("/games/<game_id>/export")
def export(game_id: str):
    """The finished game's event log as NDJSON."""
    svc, _ = _existing(game_id)
    lines = svc.export(game_id)
    resp = Response("".join(lines), mimetype="application/x-ndjson")
    resp.headers["Content-Disposition"] = f'attachment; filename="{game_id}.ndjson"'
    return resp


@bp.get("/games/<game_id>/openspiel")
def openspiel(game_id: str):
    """The finished gin-rami game as OpenSpiel gin_rummy records, one per hand."""
    svc, _ = _existing(game_id)
    return json_response(svc.openspiel(game_id))


@bp.get("/games/<game_id>/stream")
def stream(game_id: str):
    """Server-sent events: the caller's redacted events, live."""
    svc, _ = _existing(game_id)
    seat = _caller(svc, game_id, required=False, allow_query=True)
    q = load_query(_STREAM_QUERY)
    after = q.get("after")
    if after is None:
        last = request.headers.get("Last-Event-ID", "").strip()
        after = int(last) if last.isascii() and last.isdigit() and len(last) <= 15 else 0
    events = svc.stream(game_id, seat, after, once=q["once"] in ("1", "true"))
    # in a place of the caller's (429 beyond GINBOX_MAX_STREAMS_PER_CLIENT), given back when it ends
    return _by_token(sse_response(events))
