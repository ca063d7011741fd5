"""A finished game's decision analysis: asked for (queued for a worker), then read with its progress."""

from __future__ import annotations

from flask import Blueprint, current_app

from service.api.games import _bot_games_caller, _service_for
from service.api.http import json_response
from service.api.sse import sse_response
from service.api.stopping import stopping

bp = Blueprint("game_analysis", __name__)


def _analyses():
    return current_app.extensions["ginbox"].analyses


def _location(game_id: str) -> dict:
    return {"Location": f"/games/{game_id}/analysis"}


@bp.post("/games/<game_id>/analysis")
def request_analysis(game_id: str):
    """Ask for the finished game's analysis: 202 when queued (or still queued or running), 200 when done."""
    _service_for(game_id)
    answer, _ = _analyses().request(game_id, _bot_games_caller())
    status = 200 if answer["status"] in ("done", "failed") else 202
    return json_response(answer, status, _location(game_id))


@bp.get("/games/<game_id>/analysis")
def read_analysis(game_id: str):
    """The game's analysis: its progress while it runs, then the result."""
    _service_for(game_id)
    return json_response(_analyses().read(game_id))


@bp.get("/games/<game_id>/analysis/stream")
def stream_analysis(game_id: str):
    """Server-sent progress of the game's analysis, until it is done or failed."""
    _service_for(game_id)
    return sse_response(_analyses().stream(game_id, stop=stopping))
