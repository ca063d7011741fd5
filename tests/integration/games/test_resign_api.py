"""POST /games/{id}/moves {"type": "resign"} over HTTP (RULES.md Extensions, Resigning): the game
ends, the other side wins, live streams end, the audit and the export understand it."""

from __future__ import annotations

import threading
import time

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.decks import build_deck
from support.gameplay import SseReader, create_game

# RULES.md worked example "A knock, with lay-offs": seat 0 knocks with K = 2 against D = 29 and
# scores 29 - 2 = 27 in hand 1 (seat 1 deals it).
KNOCK_HAND = build_deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H".split(), "2S 3S 4C 7C QD QH QS KH KS 9C".split(),
                        "JD", ["2D"])


@pytest.fixture
def sse_api(redis_url, key_prefix) -> ValidatingClient:
    app = make_app(redis_url, key_prefix, extra={"stream_keepalive_s": 0.2, "stream_max_s": 20.0})
    return ValidatingClient(app, load_openapi())


def gin_rami_after_one_hand(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], decks=[KNOCK_HAND], first_dealer=1)
    g.move(0, {"type": "pass_upcard"})
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "draw_stock"})
    view = g.move(0, {"type": "knock", "discard": "9H", "melds": None})
    assert view["scores"] == [27, 0] and view["hand_no"] == 2 and view["to_act"] == [1]
    return g


def test_a_player_who_is_not_to_act_resigns_and_the_opponent_wins_with_the_scores_as_they_stand(api):
    g = gin_rami_after_one_hand(api)
    before = g.version()
    view = g.move(0, {"type": "resign"}, if_match=before)
    assert view["version"] == before + 1
    assert view["status"] == "over" and view["phase"] == "game_over" and view["to_act"] == []
    assert view["winner"] == 1 and view["scores"] == [27, 0]
    assert view["end"] == {"reason": "resigned", "resigned": 0, "idle_s": None}
    assert view["legal_moves"] == [] and view["seed"] is not None
    assert g.view(None)["end"] == view["end"]
    last = g.events(None)[-1]
    assert last["type"] == "game_resigned" and last["v"] == 1
    assert {k: last["data"][k] for k in ("seat", "winner", "hand_no", "scores")} == \
        {"seat": 0, "winner": 1, "hand_no": 2, "scores": [27, 0]}


def test_a_resigned_game_audits_and_exports(api):
    g = gin_rami_after_one_hand(api)
    g.move(1, {"type": "resign"})
    audit = api.get(f"/games/{g.game_id}/audit")
    assert audit.status_code == 200 and audit.get_json()["ok"], audit.get_json()
    export = api.get(f"/games/{g.game_id}/export").get_data(as_text=True).splitlines()
    assert '"type":"game_resigned"' in export[-1]


def test_after_the_game_is_over_a_resignation_is_refused_and_changes_nothing(api):
    g = gin_rami_after_one_hand(api)
    g.move(1, {"type": "resign"})
    version = g.version()
    for seat in (0, 1):
        resp = g.post_move(seat, {"type": "resign"})
        assert resp.status_code == 409 and resp.get_json()["code"] == "game_over"
    assert g.version() == version and g.view(None)["winner"] == 0


def test_a_resignation_with_fields_or_without_a_token_is_refused(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    version = g.version()
    resp = g.post_move(0, {"type": "resign", "seat": 1})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_body"
    resp = api.post(f"/games/{g.game_id}/moves", json={"type": "resign"})
    assert resp.status_code == 401 and resp.get_json()["code"] == "unauthorized"
    assert g.version() == version and g.view(None)["status"] == "playing"


def test_a_game_waiting_for_players_cannot_be_resigned(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    resp = g.post_move(0, {"type": "resign"})
    assert resp.status_code == 409 and resp.get_json()["code"] == "game_not_started"
    assert g.view(None)["status"] == "waiting"


@pytest.mark.parametrize("resigner, winner", [(0, 1), (2, 0)])
def test_in_three_hand_the_box_resigning_gives_the_game_to_the_captain_and_the_advisor_to_the_box(
        api, resigner, winner):
    g = create_game(api, "three-hand", [{"name": "ann"}, {"name": "bob"}, {"name": "cat"}],
                    roles={"box": 0, "captain": 1, "advisor": 2})
    # the advisor plays no moves (403 for them) but may resign
    assert g.post_move(2, {"type": "draw_stock"}).status_code == 403
    view = g.move(resigner, {"type": "resign"})
    assert view["winner"] == winner and view["end"]["resigned"] == resigner


def test_a_live_stream_ends_after_the_resignation(sse_api):
    g = create_game(sse_api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    start = g.version()
    failure: list = []

    def resign_later():
        try:
            time.sleep(0.3)  # let the stream block in the server's wait for new events
            g.move(1, {"type": "resign"})
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            failure.append(exc)

    resp = sse_api.get(f"/games/{g.game_id}/stream", token=g.tokens[0], headers={"Last-Event-ID": str(start)},
                       buffered=False)
    assert resp.status_code == 200
    reader = SseReader(resp)
    t = threading.Thread(target=resign_later)
    t.start()
    got = reader.next_event()
    t.join(timeout=20)
    assert not t.is_alive() and not failure, failure
    assert got.event == "game_resigned" and int(got.id) == start + 1
    with pytest.raises(StopIteration):
        reader.next_event()  # the server's generator returned: the stream is over
    reader.close()
