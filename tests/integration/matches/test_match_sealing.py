"""The games of a duplicate match are sealed while the match is in play, on a real Redis with real
``ginbox worker`` processes and a real outside bot (workers/arena_bot.py, HTTP only).

Every table of a board is dealt the same cards, so a reader of one table's game would learn the
deal of the others: until the match is over only a game's seats read it; a spectator and a bot
that holds no seat of it are refused every read route with 403 ``match_game_sealed``, and the
game is left out of ``GET /games``. Once the match is over its games read like any finished game.
"""

from __future__ import annotations

import json

import pytest
from support.arena_fixtures import app, arena_settings, base, client, workers  # noqa: F401 (fixtures)
from test_arena_outside_bots import bot_process
from test_matches import wait_over

from service.rules import duplicate as D

#: every read route of a game (the stream answers once it has caught up)
READ_ROUTES = ("", "/events", "/state?version=1", "/stream?once=1", "/advice", "/audit", "/export")


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix, extra={"stream_keepalive_s": 1.0, "stream_max_s": 20.0})






def register(client, name: str) -> str:
    resp = client.post("/bots", json={"name": name, "description": "plays", "owner": "tests"})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def listed(client) -> set[str]:
    """Every game id GET /games lists, page after page."""
    ids, url = set(), "/games?limit=100"
    while url:
        resp = client.get(url)
        assert resp.status_code == 200
        body = resp.get_json()
        ids |= {g["game_id"] for g in body["games"]}
        url = f"/games?limit=100&cursor={body['next_cursor']}" if body["next_cursor"] else None
    return ids


def sealed_for(client, game_id: str, token: str | None) -> None:
    """Every read route of the game refuses this caller with match_game_sealed."""
    for route in READ_ROUTES:
        resp = client.get(f"/games/{game_id}{route}", token=token)
        assert resp.status_code == 403, (route, resp.status_code, resp.get_data(as_text=True))
        assert resp.get_json()["code"] == "match_game_sealed", route
        assert resp.headers["Content-Type"].startswith("application/problem+json")


@pytest.mark.timeout(600)
def test_a_match_in_play_reads_only_for_its_seats_and_everyone_reads_it_once_it_is_over(app, client, base,
                                                                                       workers, tmp_path):
    alpha = register(client, "alpha")
    gamma = register(client, "gamma")  # a bot account that plays no game of this match
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "basic"], "boards": 1},
                       token=alpha)  # alpha's consent: it sends the match itself
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    game_ids = [D.game_id_for(match_id, 0, table) for table in range(2)]
    # an ordinary game beside the match: it stays open to everyone
    other = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert other.status_code == 201, other.get_data(as_text=True)
    other_id = other.get_json()["game_id"]
    seat_token = other.get_json()["seats"][0]["token"]

    # the match is in play as long as alpha (no process plays it yet) does not move
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "running"
    shown = listed(client)
    assert other_id in shown and not shown & set(game_ids)
    for game_id in game_ids:
        sealed_for(client, game_id, None)  # a spectator
        sealed_for(client, game_id, gamma)  # a bot of no seat of it
        sealed_for(client, game_id, seat_token)  # a seat token of another game
        # the seat's bot reads its game as before (its hand is in its view)
        view = client.get(f"/games/{game_id}", token=alpha)
        assert view.status_code == 200 and view.get_json()["hand"]
        for route in ("/events", "/state?version=1", "/stream?once=1"):
            assert client.get(f"/games/{game_id}{route}", token=alpha).status_code == 200, route
        # the seed deals the other table too: no audit or export, not even for a seat
        for route in ("/audit", "/export"):
            resp = client.get(f"/games/{game_id}{route}", token=alpha)
            assert resp.status_code == 403 and resp.get_json()["code"] == "match_game_sealed", route
    # the ordinary game reads for a spectator as ever
    assert client.get(f"/games/{other_id}").status_code == 200
    assert client.get(f"/games/{other_id}/events").status_code == 200

    # alpha's own process plays the match to its end
    workers.start()
    bot = bot_process(base, alpha, tmp_path, "alpha", "--exit-after-matches", "1")
    try:
        final = wait_over(client, match_id, deadline_s=400)
        out, _ = bot.communicate(timeout=120)
        assert bot.returncode == 0, (tmp_path / "alpha.log").read_text()
        assert json.loads(out.strip().splitlines()[-1])
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)
    assert final["games_done"] == 2

    # over: every game of the match reads, replays and audits for everyone
    assert set(game_ids) <= listed(client)
    for game_id in game_ids:
        game = client.get(f"/games/{game_id}")
        assert game.status_code == 200 and game.get_json()["status"] == "over"
        version = game.get_json()["version"]
        events = client.get(f"/games/{game_id}/events?limit=1000").get_json()
        assert [e["version"] for e in events["events"]] == list(range(1, version + 1))
        first = client.get(f"/games/{game_id}/state?version=1")
        assert first.status_code == 200 and first.get_json()["version"] == 1
        stream = client.get(f"/games/{game_id}/stream?once=1")
        assert stream.status_code == 200 and "event: game_created" in stream.get_data(as_text=True)
        audit = client.get(f"/games/{game_id}/audit")
        assert audit.status_code == 200 and audit.get_json()["ok"] is True
        export = client.get(f"/games/{game_id}/export")
        assert export.status_code == 200
        assert len(export.get_data(as_text=True).splitlines()) == version  # gin-rami: no advice lines
        # a bot's token that holds no seat of a finished, unsealed game is refused as before
        assert client.get(f"/games/{game_id}", token=gamma).get_json()["code"] == "unauthorized"
