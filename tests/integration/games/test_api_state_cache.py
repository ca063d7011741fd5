"""Two API processes over one Redis: what one holds in memory never decides what the log has not.

Each app stands for a server process with its own state cache. The log moves on through one of
them while the other still holds an older state of the game; every answer of the other must be
the one the log's current state gives.
"""

from __future__ import annotations

import pytest
from support.apiclient import ValidatingClient, load_openapi, make_app
from support.gameplay import create_game, etag_version


@pytest.fixture
def two(redis_url, key_prefix):
    """Two clients, each on its own app (process) over the same Redis and key prefix."""
    return (ValidatingClient(make_app(redis_url, key_prefix), load_openapi()),
            ValidatingClient(make_app(redis_url, key_prefix), load_openapi()))


def _game_in_both(two):
    a, b = two
    g = create_game(a, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0)  # a holds it
    assert g.view(1)["to_act"] == [1]  # RULES.md: the non-dealer (seat 1) decides on the upcard first
    other = type(g)(b, g.game_id, g.tokens, g.created)
    return g, other


def test_a_move_the_held_state_refuses_but_the_log_allows_is_played(two):
    through_a, through_b = _game_in_both(two)
    v = through_b.move(1, {"type": "pass_upcard"})["version"]  # the log moves on through b
    # a still holds the state in which seat 1 was to act: seat 0's pass is legal only in the log's
    view = through_a.move(0, {"type": "pass_upcard"})
    assert view["version"] == v + 1 and view["phase"] == "draw"


def test_a_move_the_held_state_allows_but_the_log_refuses_gets_the_logs_refusal(two):
    through_a, through_b = _game_in_both(two)
    v = through_b.move(1, {"type": "pass_upcard"})["version"]
    resp = through_a.post_move(1, {"type": "pass_upcard"})  # legal only in a's older state
    assert resp.status_code == 409 and resp.get_json()["code"] == "not_your_turn"
    assert through_a.version() == v and through_b.version() == v


def test_if_match_is_judged_against_the_log_not_the_held_state(two):
    through_a, through_b = _game_in_both(two)
    before = through_a.version()
    v = through_b.move(1, {"type": "pass_upcard"})["version"]
    stale = through_a.post_move(0, {"type": "pass_upcard"}, if_match=before)
    assert stale.status_code == 412 and stale.get_json()["code"] == "version_mismatch"
    assert etag_version(stale) == v
    assert through_a.post_move(0, {"type": "pass_upcard"}, if_match=v).status_code == 200


def test_a_game_the_log_lost_is_not_found_even_where_its_state_is_held(two, redis_conn, key_prefix):
    through_a, _ = _game_in_both(two)
    through_a.move(1, {"type": "pass_upcard"})
    # a Redis that lost the game's keys (say, restored from an older backup)
    keys = list(redis_conn.scan_iter(match=f"{key_prefix}:{{{through_a.game_id}}}:*"))
    assert keys
    redis_conn.delete(*keys)
    for seat in (1, 0):  # a token a has seen lately, and one it has not
        resp = through_a.post_move(seat, {"type": "pass_upcard"})
        assert resp.status_code == 404 and resp.get_json()["code"] == "game_not_found"
    assert through_a.client.get(f"/games/{through_a.game_id}").status_code == 404
