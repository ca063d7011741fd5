"""The arena: bot accounts and their stream, duplicate matches, ratings, challenges, tournaments."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request

from schemas.arena import (
    BotGamesQuery,
    BotListQuery,
    BotStreamQuery,
    ChallengeSchema,
    CreateMatchSchema,
    CreateTournamentSchema,
    DeclineSchema,
    RatingsQuery,
    RegisterBotSchema,
    UpdateBotSchema,
)
from service.api.auth import presented_token
from service.api.http import json_response, load_body, load_query, request_body, takes_no_body
from service.api.idempotent import idempotent_creation, made
from service.api.sse import sse_response
from service.arena import STREAM_ID

bp = Blueprint("arena", __name__)

_REGISTER = RegisterBotSchema()
_UPDATE_BOT = UpdateBotSchema()
_CREATE_MATCH = CreateMatchSchema()
_CREATE_TOURNAMENT = CreateTournamentSchema()
_CHALLENGE = ChallengeSchema()
_RATINGS_QUERY = RatingsQuery()
_STREAM_QUERY = BotStreamQuery()
_GAMES_QUERY = BotGamesQuery()
_LIST_QUERY = BotListQuery()
_DECLINE = DeclineSchema()


def _arena():
    return current_app.extensions["ginbox"].arena


def _client() -> str:
    """Whom an anonymous request's matches and challenges count against: its address, an IPv6
    one by its network, as the rate limit counts it."""
    from service.ratelimit import address_identity

    return address_identity(request.remote_addr or "unknown", current_app.extensions["ginbox"].limiter.ipv6_prefix)


def _sse(events) -> Response:
    # in a place of the caller's (429 beyond GINBOX_MAX_STREAMS_PER_CLIENT), given back when it ends
    return sse_response(events)


@bp.post("/bots")
@idempotent_creation
def register_bot():
    """Register a bot account; its token is in this answer only."""
    body, _ = load_body(_REGISTER)
    bot = _arena().register_bot(body, made())
    return json_response(bot, 201, {"Location": f"/bots/{bot['name']}"})


@bp.get("/bots/me/stream")
def bot_stream():
    """Server-sent events of the bot whose token is presented: its games, turns, ends, challenges."""
    arena = _arena()
    name = arena.bot_of(presented_token(required=False, allow_query=True, wants="bot"))
    q = load_query(_STREAM_QUERY)
    after = q.get("after")
    if after is None:
        # as on a game's stream: a Last-Event-ID that is no id of this stream is ignored (from the start)
        last = request.headers.get("Last-Event-ID", "").strip()
        after = last if STREAM_ID.match(last) else None
    return _sse(arena.stream(name, after, once=q["once"] in ("1", "true")))


@bp.get("/bots/me/games")
def own_games():
    """The games in play where the bot whose token is presented holds a seat: whose turn, its deadline, its match."""
    arena = _arena()
    name = arena.bot_of(presented_token(required=False, wants="bot"))
    q = load_query(_GAMES_QUERY)
    return json_response(arena.bot_games(name, q.get("cursor"), q["limit"]))


@bp.get("/bots/me/challenges")
def own_challenges():
    """The challenges pending to the bot whose token is presented, and those it sent."""
    arena = _arena()
    return json_response(arena.bot_challenges(arena.bot_of(presented_token(required=False, wants="bot"))))


@bp.get("/bots")
def list_bots():
    """The bot accounts, in name order: each may be challenged."""
    q = load_query(_LIST_QUERY)
    return json_response(_arena().bot_list(q.get("cursor"), q["limit"]))


@bp.get("/bots/me")
def own_bot_profile():
    """The public profile of the bot whose token is presented (what PATCH /bots/me changes)."""
    arena = _arena()
    return json_response(arena.profile(arena.bot_of(presented_token(required=False, wants="bot"))))


@bp.patch("/bots/me")
def update_bot():
    """The bot whose token is presented changes its settings (whether it accepts matches)."""
    arena = _arena()
    token = presented_token(required=False, wants="bot")
    arena.bot_of(token)  # a token first: then the body
    body, _ = load_body(_UPDATE_BOT)
    return json_response(arena.update_bot(token, body))


@bp.post("/bots/me/token")
@takes_no_body
@idempotent_creation(body=False)
def replace_bot_token():
    """A new token for the bot whose token is presented; the presented one stops working."""
    return json_response(_arena().replace_token(presented_token(required=False, wants="bot"), made()))


@bp.delete("/bots/me/token")
@takes_no_body
def revoke_bot_token():
    """The bot whose token is presented revokes it: the account has no working token any more."""
    _arena().revoke_token(presented_token(required=False, wants="bot"))
    return Response(status=204)


@bp.get("/bots/<name>")
def bot_profile(name: str):
    """A bot's public profile."""
    return json_response(_arena().profile(name))


@bp.post("/matches")
@idempotent_creation
def create_match():
    """Start a duplicate match (a bot account's token: the bot sends it, and plays in it)."""
    token = presented_token(required=False, wants="bot")
    body, _ = load_body(_CREATE_MATCH)
    match = _arena().create_match(body, token, _client(), made())
    return json_response(match, 201, {"Location": f"/matches/{match['match_id']}"})


@bp.get("/matches")
def list_matches():
    """The latest matches, newest first."""
    return json_response({"matches": _arena().match_list()})


@bp.get("/matches/<match_id>")
def get_match(match_id: str):
    """A match's progress, standings and boards."""
    return json_response(_arena().match_view(match_id))


@bp.get("/matches/<match_id>/turns")
def match_turns(match_id: str):
    """The games of the match in play where the person whose token is presented is to act."""
    return json_response(_arena().match_turns(match_id, presented_token(required=True)))


@bp.get("/matches/<match_id>/stream")
def match_stream(match_id: str):
    """Server-sent progress of a match until it is over."""
    return _sse(_arena().match_stream(match_id))


@bp.get("/matches/<match_id>/audit")
def match_audit(match_id: str):
    """The finished match's audit: the seed revealed, every board's commitment and game checked."""
    return json_response(_arena().audit(match_id))


@bp.get("/ratings")
def ratings():
    """The leaderboard of one variant."""
    q = load_query(_RATINGS_QUERY)
    return json_response(_arena().leaderboard(q["variant"]))


@bp.post("/challenges")
@idempotent_creation
def create_challenge():
    """Challenge a bot account (a bot presents its token; a person gives a name and gets a seat token)."""
    token = presented_token(required=False, wants="bot")
    body, _ = load_body(_CHALLENGE)
    challenge = _arena().challenge(body, token, _client(), made())
    return json_response(challenge, 201, {"Location": f"/challenges/{challenge['challenge_id']}"})


@bp.get("/challenges/<challenge_id>")
def get_challenge(challenge_id: str):
    """A challenge and what came of it."""
    return json_response(_arena().challenge_view(challenge_id))


@bp.post("/challenges/<challenge_id>/accept")
@takes_no_body
@idempotent_creation(body=False)
def accept_challenge(challenge_id: str):
    """The challenged bot accepts: the game or match starts."""
    return json_response(_arena().answer_challenge(challenge_id, presented_token(required=False, wants="bot"), True,
                                                    made()))


@bp.post("/challenges/<challenge_id>/decline")
@idempotent_creation(body=False)
def decline_challenge(challenge_id: str):
    """The challenged bot declines, with a reason and a text if it likes."""
    token = presented_token(required=False, wants="bot")
    # no body, or an empty one, declines for no reason given (generic)
    body = load_body(_DECLINE)[0] if request_body() else {}
    return json_response(_arena().answer_challenge(challenge_id, token, False, made(),
                                                    reason=body.get("reason"), text=body.get("text")))


@bp.post("/challenges/<challenge_id>/withdraw")
@takes_no_body
@idempotent_creation(body=False)
def withdraw_challenge(challenge_id: str):
    """The challenger withdraws its pending challenge (a bot's with its token, a person's with the challenge's)."""
    arena = _arena()
    wants = "bot" if arena.challenge_view(challenge_id).get("from_kind") == "bot" else "challenge"
    return json_response(arena.withdraw_challenge(challenge_id, presented_token(required=False, wants=wants), made()))


@bp.post("/tournaments")
@idempotent_creation
def create_tournament():
    """Start a round-robin or Swiss tournament (a bot account's token: the bot sends it, and may enter itself)."""
    token = presented_token(required=False, wants="bot")
    body, _ = load_body(_CREATE_TOURNAMENT)
    tournament = _arena().create_tournament(body, token, made())
    return json_response(tournament, 201, {"Location": f"/tournaments/{tournament['tournament_id']}"})


@bp.get("/tournaments")
def list_tournaments():
    """The latest tournaments, newest first."""
    return json_response({"tournaments": _arena().tournament_list()})


@bp.get("/tournaments/<tournament_id>")
def get_tournament(tournament_id: str):
    """A tournament's standings, rounds and pairings."""
    return json_response(_arena().tournament_view(tournament_id))


@bp.get("/tournaments/<tournament_id>/stream")
def tournament_stream(tournament_id: str):
    """Server-sent standings of a tournament until it is over."""
    return _sse(_arena().tournament_stream(tournament_id))
