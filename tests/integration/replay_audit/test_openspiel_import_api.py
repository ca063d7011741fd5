"""POST /games/import: an OpenSpiel record stored as a finished game, then read, replayed and analysed
as any game the server holds (OPENSPIEL.md, "An imported game").

The record is a real game's: two built-in bots play it on real RQ workers, and GET /games/{id}/openspiel
gives it. Every answer is checked against openapi.yaml by the validating client.
"""

from __future__ import annotations

import json
import uuid

import pytest

from service.analysis import analyse_log, read_export, to_json
from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from service.games.archive import GameArchives
from support.apiclient import NO_WINDOW_BUDGETS, ValidatingClient, load_openapi
from support.problems import problem
from workers.runner import parse_queues, run_worker

#: determinizations per decision in the analysis: small, so that the analysis takes seconds
SAMPLES = 2


@pytest.fixture
def settings(redis_url, key_prefix) -> Settings:
    return Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                    rate_limit_per_minute=1_000_000, analysis_samples=SAMPLES, **NO_WINDOW_BUDGETS)


@pytest.fixture
def api(settings) -> ValidatingClient:
    return ValidatingClient(create_app(settings, bot_scheduler=make_bot_scheduler(settings)), load_openapi())


def bots_game(api, settings) -> str:
    """A finished game of two built-in bots under the openspiel rules, played by a real worker."""
    made = api.post("/games", json={"variant": "gin-rami", "rules": "openspiel", "options": {"target_score": 40},
                                    "seats": [{"bot": "basic"}, {"bot": "simple", "name": "sim"}]})
    assert made.status_code == 201, made.get_json()
    game_id = made.get_json()["game_id"]
    for _ in range(50):
        if api.get(f"/games/{game_id}").get_json()["status"] == "over":
            return game_id
        run_worker(settings, burst=True, queues=parse_queues("turns,boards"))
    raise AssertionError("the bots' game did not end")


def _keys(redis_conn, prefix: str) -> set[bytes]:
    """The keys under the test's prefix, but for the rate limiter's counters (every request has them)
    and the locks of the workers' sweeps (an earlier worker's, which expire when they will)."""
    transient = (f"{prefix}:rl:".encode(), f"{prefix}:{{#bots}}:lock:".encode())
    return {k for k in redis_conn.keys(f"{prefix}:*") if not k.startswith(transient)}


@pytest.fixture
def record(api, settings) -> dict:
    """The record of a game of several hands (the first hand alone reaches 40 now and then: another game)."""
    for _ in range(10):
        resp = api.get(f"/games/{bots_game(api, settings)}/openspiel")
        assert resp.status_code == 200
        if len(resp.get_json()["hands"]) >= 2:
            return resp.get_json()
    raise AssertionError("ten games of the bots each ended with their first hand")


def test_an_imported_record_reads_replays_and_converts_back_as_any_finished_game(api, record):
    assert len(record["hands"]) >= 2  # several hands: the import does not end with the first one
    resp = api.post("/games/import", json=record)
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    game_id = body["game_id"]
    assert game_id != record["game_id"]
    assert resp.headers["Location"] == f"/games/{game_id}"
    view = body["view"]
    assert resp.headers["ETag"] == f'"{view["version"]}"'
    assert isinstance(body["notes"], list)
    assert (view["status"], view["imported_from"], view["viewer"]) == ("over", "openspiel", None)
    assert view["scores"] == record["ginbox"]["scores"] and view["winner"] == record["ginbox"]["winner"]
    assert [p["name"] for p in view["players"]] == ["basic-bot-0", "sim"]
    # the spectator's view, as GET answers it
    got = api.get(f"/games/{game_id}")
    assert got.status_code == 200 and got.get_json() == view
    # the log: every event, the first saying where the game was dealt
    events = api.get(f"/games/{game_id}/events", query_string={"limit": 1000}).get_json()["events"]
    assert len(events) == view["version"]
    assert events[0]["type"] == "game_created" and events[0]["data"]["imported_from"] == "openspiel"
    assert events[-1]["type"] == "game_ended"
    # time travel: the first hand's deal, before anyone moved
    dealt = next(e["version"] for e in events if e["type"] == "hand_dealt")
    then = api.get(f"/games/{game_id}/state", query_string={"version": dealt})
    assert then.status_code == 200
    then = then.get_json()
    assert (then["version"], then["status"], then["hand_no"], then["imported_from"]) == \
        (dealt, "playing", 1, "openspiel")
    export = api.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()
    assert len(export) == view["version"]
    assert json.loads(export[0])["data"]["imported_from"] == "openspiel"
    # back to OpenSpiel: the record imported, under the new game's id
    back = api.get(f"/games/{game_id}/openspiel").get_json()
    assert back.pop("game_id") == game_id
    assert back == {k: v for k, v in record.items() if k != "game_id"}
    # the audit checks its moves and scores, and says its deals came from elsewhere
    audit = api.get(f"/games/{game_id}/audit").get_json()
    assert {c["name"]: c["ok"] for c in audit["checks"]}["origin"] is True
    # listed with the finished games
    listed = api.get("/games", query_string={"status": "over"}).get_json()["games"]
    assert game_id in [g["game_id"] for g in listed]


def test_an_imported_game_is_analysed_by_an_analysis_worker(api, settings, record):
    game_id = api.post("/games/import", json=record).get_json()["game_id"]
    asked = api.post(f"/games/{game_id}/analysis")
    assert (asked.status_code, asked.get_json()["status"]) == (202, "queued")
    assert run_worker(settings, burst=True, queues=parse_queues("analysis")) == 0
    done = api.get(f"/games/{game_id}/analysis").get_json()
    assert done["status"] == "done"
    log, advice = read_export(api.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines())
    assert done["result"] == json.loads(to_json(analyse_log(log, samples=SAMPLES, seed=0, advice=advice)))
    assert done["result"]["decisions"]


def test_a_retry_under_the_same_idempotency_key_imports_once(api, record):
    key = str(uuid.uuid4())
    first = api.post("/games/import", json=record, headers={"Idempotency-Key": key})
    again = api.post("/games/import", json=record, headers={"Idempotency-Key": key})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    other = api.post("/games/import", json={**record, "ginbox": {**record["ginbox"], "scores": [0, 0]}},
                     headers={"Idempotency-Key": key})
    problem(other, 422, "idempotency_key_reused")
    listed = api.get("/games", query_string={"status": "over"}).get_json()["games"]
    assert sum(1 for g in listed if g["game_id"] == first.get_json()["game_id"]) == 1
    assert len(listed) == 2  # the bots' game and one import


#: a bare action list OpenSpiel plays: player 0 is dealt KS KC QS QC JS JC TS TC KD KH, takes the upcard,
#: knocks discarding KS and lays no meld, with 82 points of deadwood, which ginbox's rules refuse
_P0 = [12, 25, 11, 24, 10, 23, 9, 22, 38, 51]
HEAVY_KNOCK = _P0 + [c for c in range(52) if c not in _P0][:11] + [52, 55, 12, 54]
#: a deal of 21 different cards, as a hand's actions begin
DEAL_21 = list(range(21))


@pytest.mark.parametrize("change, code", [
    (lambda r: {**r, "game": "chess"}, "openspiel_record_invalid"),
    (lambda r: {k: v for k, v in r.items() if k != "hands"}, "openspiel_record_invalid"),
    (lambda r: {**r, "parameters": {**r["parameters"], "num_ranks": 12}}, "openspiel_rules_differ"),
    (lambda r: {**r, "ginbox": {**r["ginbox"], "players": [{"name": ""}, {"name": "bob"}]}},
     "openspiel_record_invalid"),
    (lambda r: {**r, "ginbox": {**r["ginbox"], "players": [{"name": "a\u200bb"}, {"name": "bob"}]}},
     "openspiel_record_invalid"),
    (lambda r: [54, 54, 3], "openspiel_record_invalid"),
    (lambda r: "a string", "openspiel_record_invalid"),
    (lambda r: HEAVY_KNOCK, "openspiel_move_not_in_ginbox"),
])
def test_a_record_that_does_not_convert_is_refused_and_stores_nothing(api, settings, redis_conn, record, change,
                                                                      code):
    before = _keys(redis_conn, settings.key_prefix)
    problem(api.post("/games/import", json=change(record)), 422, code)
    assert _keys(redis_conn, settings.key_prefix) == before


def test_a_record_longer_than_an_import_takes_is_refused_by_its_bound(api, settings, redis_conn, record):
    before = _keys(redis_conn, settings.key_prefix)
    body = problem(api.post("/games/import", json={**record, "hands": [record["hands"][0]] * 41}), 422,
                   "openspiel_record_invalid")
    assert "at most 40 hands" in body["detail"]
    long_hand = DEAL_21 + [54] * 280
    assert len(long_hand) == 301
    body = problem(api.post("/games/import", json=long_hand), 422, "openspiel_record_invalid")
    assert "at most 300 actions" in body["detail"]
    assert _keys(redis_conn, settings.key_prefix) == before


def test_a_body_that_is_no_json_is_the_usual_400_and_stores_nothing(api, settings, redis_conn):
    before = _keys(redis_conn, settings.key_prefix)
    problem(api.post("/games/import", data='{"hands": [', content_type="application/json"), 400, "invalid_json")
    problem(api.post("/games/import", data="x" * 70_000, content_type="application/json"), 413, "body_too_large")
    assert _keys(redis_conn, settings.key_prefix) == before


def test_a_bot_account_named_by_the_record_is_not_kept_and_names_are_kept_as_post_games_keeps_them(api, record):
    # the names as POST /games keeps them, without the spaces around; no bot that is not a built-in one
    players = [{"name": " ada ", "account": "ada"}, {"name": "bob", "bot": "nobody's", "budget_ms": 5}]
    resp = api.post("/games/import", json={**record, "ginbox": {**record["ginbox"], "players": players}})
    assert resp.status_code == 201, resp.get_json()
    body = resp.get_json()
    assert body["view"]["players"] == [{"name": "ada"}, {"name": "bob"}]
    assert any("'ada'" in note for note in body["notes"])


def test_imports_count_as_game_creations_of_the_address(redis_url, key_prefix, record):
    limited = ValidatingClient(create_app(Settings(redis_url=redis_url, key_prefix=key_prefix,
                                                   rate_limit_per_minute=1_000_000, creations_per_hour=2,
                                                   creations_per_day=0)), load_openapi())
    made = limited.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert made.status_code == 201
    assert limited.post("/games/import", json=record).status_code == 201
    refused = limited.post("/games/import", json=record)
    body = problem(refused, 429, "rate_limited")
    assert "game creations" in body["detail"] and "this hour (at most 2)" in body["detail"]
    assert '"creations-hour";r=0' in refused.headers["RateLimit"]
    # and an import counts against POST /games the same way
    assert limited.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}]}).status_code \
        == 429


def test_the_import_route_is_post_alone_and_no_game_is_named_import(api):
    # a method the spec does not list, answered as any route answers one (the plain client: no spec to check)
    refused = api.app.test_client().get("/games/import")
    assert refused.status_code == 405 and refused.headers["Allow"] == "POST"
    assert refused.get_json()["code"] == "method_not_allowed"
    problem(api.get("/games/imports"), 404, "game_not_found")
    problem(api.get("/games/AAAAAAAAAAAAAAAA"), 404, "game_not_found")


def test_an_imported_game_archives_and_reads_the_same_after(api, record):
    """An imported game ends as it is stored, so the archive queue takes it: its archived record
    (service/rules/archive.py) gives back its every read byte for byte."""
    made = api.post("/games/import", json=record)
    assert made.status_code == 201, made.get_json()
    game_id = made.get_json()["game_id"]
    reads = [f"/games/{game_id}/export", f"/games/{game_id}/openspiel", f"/games/{game_id}",
             f"/games/{game_id}/events?after=0&limit=1000", f"/games/{game_id}/state?version=5"]
    before = [api.get(path).get_data() for path in reads]
    ext = api.app.extensions["ginbox"]
    assert GameArchives(ext.store, ext.index).archive(game_id) == "archived"
    assert ext.store.is_archived(game_id)
    assert [api.get(path).get_data() for path in reads] == before
