"""A game of built-in bots alone under options where hands are almost always drawn (random against
random, ``max_turns_per_hand`` 1) would redeal for ever, its bots moving all the time so that the
idle abandon never comes: a real ``ginbox worker`` ends it as abandoned after
GINBOX_ABANDON_DRAWN_HANDS drawn hands in a row (3 here), the event and the view's ``end`` saying so,
and the game still passes its audit. A match's board game ended that way is nobody's forfeit."""

from __future__ import annotations


import pytest

from support.arena_fixtures import app, client, settings, worker_pool  # noqa: F401 (fixtures)
from support import waiting

DEADLINE_S = 180
LIMIT = 3


@pytest.fixture
def workers(settings, tmp_path):
    pool = worker_pool(settings, tmp_path)
    pool.env["GINBOX_ABANDON_DRAWN_HANDS"] = str(LIMIT)
    yield pool
    pool.stop_all()


def wait_for(pred, what: str):
    return waiting.wait_for(pred, what, DEADLINE_S, every_s=0.2)


@pytest.mark.slow
def test_a_game_of_random_bots_that_keeps_redealing_ends_abandoned_after_the_drawn_hands_limit(client, workers):
    created = client.post("/games", json={"variant": "gin-rami", "options": {"max_turns_per_hand": 1},
                                          "seats": [{"bot": "random"}, {"bot": "random"}]})
    assert created.status_code == 201, created.get_data(as_text=True)
    game_id = created.get_json()["game_id"]
    workers.start()

    view = wait_for(lambda: (v := client.get(f"/games/{game_id}").get_json())["status"] == "over" and v,
                    "the game to end")
    assert view["end"]["reason"] == "abandoned"
    assert view["end"]["drawn_hands"] == LIMIT
    assert view["winner"] is None
    results = view["hand_results"]
    assert len(results) >= LIMIT
    assert [r["outcome"] for r in results[-LIMIT:]] == ["drawn"] * LIMIT
    events = client.get(f"/games/{game_id}/events", query_string={"limit": 1000}).get_json()["events"]
    last = events[-1]
    assert last["type"] == "game_abandoned" and last["data"]["drawn_hands"] == LIMIT
    assert last["data"]["scores"] == view["scores"]  # the scores stand
    audit = client.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"], audit


@pytest.mark.slow
def test_a_board_game_that_keeps_redealing_ends_the_same_way_and_nobody_forfeits(client, workers):
    match = client.post("/matches", json={"variant": "gin-rami", "participants": ["random", "random"], "boards": 1,
                                          "options": {"max_turns_per_hand": 1}})
    assert match.status_code == 201, match.get_data(as_text=True)
    match_id = match.get_json()["match_id"]
    workers.start()

    final = wait_for(lambda: (m := client.get(f"/matches/{match_id}").get_json())["status"] == "over" and m,
                     "the match to end")
    drawn_out = 0
    for table in final["board_results"][0]["tables"]:
        view = client.get(f"/games/{table['game_id']}").get_json()
        if view["end"].get("drawn_hands") is not None:
            drawn_out += 1
            assert view["end"]["reason"] == "abandoned"
            # nobody kept the other waiting: no forfeit, the table's points are its hands' (none)
            assert table["points"] == [0, 0]
    # a hand of one turn a player is almost never scored: at least one table kept redealing
    assert drawn_out >= 1
