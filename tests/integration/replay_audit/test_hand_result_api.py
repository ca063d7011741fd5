"""Hand results over HTTP: the view's hand results and the hand_scored events (version 2) carry
what a replay page needs, and a game recorded with version 1 events, stored as they were written
then, still loads, shows the same results, exports as stored and passes the audit."""

from __future__ import annotations

import json

import redis

from service.store.redis_store import RedisEventStore
from support.decks import build_deck
from support.gameplay import create_game

from unit.test_hand_result_v2 import STORED_V1_LOG  # noqa: E402 (the recorded version 1 log)

KNOCK_HAND = build_deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H".split(), "2S 3S 4C 7C QD QH QS KH KS 9C".split(),
                        "JD", ["2D"])
KNOCKER = ["AC", "2C", "3C", "2D", "7D", "7H", "4S", "5S", "6S", "7S"]
DEFENDER = ["4C", "7C", "9C", "QD", "QH", "KH", "2S", "3S", "QS", "KS"]


class Verbatim:
    """A codec that stores event dicts exactly as given: to write a log as older code wrote it."""

    @staticmethod
    def encode(event):
        return event

    @staticmethod
    def decode(stored):
        return stored


def test_a_knock_over_http_shows_the_whole_result_in_the_view_and_the_event(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], decks=[KNOCK_HAND], first_dealer=1)
    g.move(0, {"type": "pass_upcard"})
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "draw_stock"})
    view = g.move(0, {"type": "knock", "discard": "9H", "melds": None})
    last = view["last_hand"]
    # K = 2; the defender's 45 before lay-offs become 29 after 4C, 7C, 2S, 3S; 29 - 2 = 27; seat 0 deals next
    assert (last["defender_deadwood_before_layoffs"], last["defender_deadwood"], last["points"]) == (45, 29, 27)
    assert last["hands"] == [KNOCKER, DEFENDER] and last["turns"] == 1 and last["next_dealer"] == 0
    scored = [e for e in g.events(1) if e["type"] == "hand_scored"][0]
    assert scored["v"] == 2
    assert scored["data"]["hands"] == [KNOCKER, DEFENDER] and scored["data"]["next_dealer"] == 0
    assert scored["data"]["knocker_melds"] == [["AC", "2C", "3C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]]


def test_a_game_stored_with_version_1_events_loads_exports_as_stored_and_audits(api, redis_url, key_prefix):
    game_id = "storedV1log-0001"
    old = [json.loads(line) for line in STORED_V1_LOG.splitlines()]
    store = RedisEventStore(redis.Redis.from_url(redis_url), codec=Verbatim(), prefix=key_prefix)
    store.append(game_id, old, 0, meta={"status": "over", "variant": "gin-rami"})

    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "over" and view["scores"] == [54, 27] and view["winner"] == 0
    # what version 1 did not record is worked out again from the log
    results = view["hand_results"]
    assert [r["next_dealer"] for r in results] == [0, 1, None]
    assert [r["hands"] for r in results] == [[KNOCKER, DEFENDER], [DEFENDER, KNOCKER], [KNOCKER, DEFENDER]]
    assert [r["defender_deadwood_before_layoffs"] for r in results] == [45, 45, 45]
    # the events are read in their newest version, the fields version 1 lacks null
    scored = [e for e in api.get(f"/games/{game_id}/events").get_json()["events"] if e["type"] == "hand_scored"]
    assert [e["v"] for e in scored] == [2, 2, 2]
    assert scored[0]["data"]["hands"] is None and scored[0]["data"]["points"] == 27
    # the export is the log as stored: version 1
    lines = [json.loads(x) for x in api.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()]
    assert [x["v"] for x in lines if x["type"] == "hand_scored"] == [1, 1, 1]
    audit = api.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"] and audit["replay_ok"], audit
