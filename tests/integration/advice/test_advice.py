"""Advice (RULES.md §2) lives in a log of its own: it never fails a move, never shows to those who may
not see it (not even as a version jump), is bounded, and is all there for the audit and for
everyone once the game is over.
"""

from __future__ import annotations

import json

from support.decks import build_deck
from support.gameplay import create_game, etag_version

# One hand of three-hand, roles given (box 0, captain 1, advisor 2): both pass the upcard 3H,
# the captain draws KS and knocks discarding 4D with deadwood AH = 1 against the box's 31
# (as in test_api_e2e_games): captain scores 30, which ends a game to 1.
CAPTAIN = "5C 6C 7C 9D 9H 9S JS QS AH 4D".split()
BOX = "2D 2H 2S 8C 9C TS KH QD 5H 6D".split()
MELDS = [["5C", "6C", "7C"], ["9D", "9H", "9S"], ["JS", "QS", "KS"]]
DECK = build_deck(CAPTAIN, BOX, "3H", ["KS"])


def _game(api):
    return create_game(api, "three-hand", [{"name": "box"}, {"name": "cap"}, {"name": "adv"}],
                       roles={"box": 0, "captain": 1, "advisor": 2}, options={"target_score": 1}, decks=[DECK])


def _advise(api, g, text, **kw):
    return api.post(f"/games/{g.game_id}/advice", json={"text": text}, token=g.tokens[2], **kw)


def _raw(api, g, path, seat=None):
    resp = api.get(f"/games/{g.game_id}{path}", token=None if seat is None else g.tokens[seat])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.headers.get("ETag"), resp.get_data()


def test_advice_moves_no_version_so_a_players_if_match_move_still_lands(api):
    g = _game(api)
    before = g.view(1)["version"]
    for i in range(3):
        resp = _advise(api, g, f"pass the upcard ({i})")
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert etag_version(resp) == before
    # the captain's move, conditioned on the version it saw before the advice, is accepted
    after = g.move(1, {"type": "pass_upcard"}, if_match=before)
    assert after["version"] == before + 1


def test_those_who_may_not_see_advice_cannot_tell_whether_or_when_it_was_given(api):
    g = _game(api)
    paths = ["", "/events?after=0&limit=100", "/state?version=3"]
    seen_before = {(seat, p): _raw(api, g, p, seat) for seat in (0, None) for p in paths}
    listing_before = api.get("/games?variant=three-hand&limit=100").get_json()
    assert _advise(api, g, "take nothing").status_code == 200
    assert _advise(api, g, "really, nothing").status_code == 200
    # the box and a spectator get byte-identical answers (ETag included), the index too
    for (seat, p), answer in seen_before.items():
        assert _raw(api, g, p, seat) == answer, (seat, p)
    assert api.get("/games?variant=three-hand&limit=100").get_json() == listing_before
    # asking for the advice itself is refused alike whether there is any or not
    other = _game(api)
    for game in (g, other):
        for seat in (0, None):
            resp = api.get(f"/games/{game.game_id}/advice", token=None if seat is None else game.tokens[seat])
            assert resp.status_code == 403 and resp.get_json()["code"] == "forbidden"
    # the box's live stream carries nothing of it; the captain's carries it, with no id
    box_stream = g.stream_once(0)
    assert all(e.event != "advice_given" and "take nothing" not in e.data for e in box_stream)
    captain_advice = [e for e in g.stream_once(1) if e.event == "advice_given"]
    assert [e.json()["data"]["text"] for e in captain_advice] == ["take nothing", "really, nothing"]
    assert all(e.id is None for e in captain_advice)


def test_advice_is_bounded_per_version_and_in_size_and_a_refusal_records_nothing(api):
    g = _game(api)
    for i in range(3):
        assert _advise(api, g, f"piece {i}").status_code == 200
    refused = _advise(api, g, "one too many")
    assert refused.status_code == 409 and refused.get_json()["code"] == "advice_limit_reached"
    too_long = _advise(api, g, "x" * 501)
    assert too_long.status_code == 400 and too_long.get_json()["code"] == "invalid_body"
    texts = [a["text"] for a in api.get(f"/games/{g.game_id}/advice", token=g.tokens[1]).get_json()["advice"]]
    assert texts == ["piece 0", "piece 1", "piece 2"]
    # after a move the advisor may advise again
    g.move(1, {"type": "pass_upcard"})
    assert _advise(api, g, "after the pass").status_code == 200


def test_a_view_shows_the_newest_ten_pieces_of_the_hand_and_the_list_has_them_all(api):
    g = _game(api)
    v0 = g.view(1)["version"]
    given = []
    for move in ({"type": "pass_upcard"}, {"type": "pass_upcard"}, {"type": "draw_stock"}):
        for i in range(3):
            text = f"piece {len(given)}"
            assert _advise(api, g, text).status_code == 200
            given.append(text)
        seat = g.view(1)["to_act"][0]
        g.move(seat, move)
    for i in range(3):
        text = f"piece {len(given)}"
        assert _advise(api, g, text).status_code == 200
        given.append(text)
    assert len(given) == 12
    assert [a["text"] for a in g.view(1)["advice"]] == given[-10:]
    assert [a["text"] for a in g.view(2)["advice"]] == given[-10:]
    listed = api.get(f"/games/{g.game_id}/advice", token=g.tokens[1]).get_json()["advice"]
    assert [a["text"] for a in listed] == given
    assert [(a["version"], a["seq"]) for a in listed][:4] == [(v0, 0), (v0, 1), (v0, 2), (v0 + 1, 0)]


def test_after_the_game_everyone_sees_the_advice_in_the_list_the_export_and_the_audit(api):
    g = _game(api)
    v0 = g.view(1)["version"]
    assert _advise(api, g, "knock when you can").status_code == 200
    key = {"Idempotency-Key": "adv-1"}
    first = _advise(api, g, "lay JS QS KS", headers=key)
    again = _advise(api, g, "lay JS QS KS", headers=key)
    assert first.status_code == again.status_code == 200
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "pass_upcard"})
    g.move(1, {"type": "draw_stock"})
    end = g.move(1, {"type": "knock", "discard": "4D", "melds": MELDS})
    assert end["status"] == "over"
    spectator = api.get(f"/games/{g.game_id}/advice").get_json()["advice"]
    assert [a["text"] for a in spectator] == ["knock when you can", "lay JS QS KS"]  # the retry added none
    assert [a["text"] for a in g.view(None)["advice"]] == ["knock when you can", "lay JS QS KS"]
    lines = [json.loads(x) for x in api.get(f"/games/{g.game_id}/export").get_data(as_text=True).splitlines()]
    advice_lines = [x for x in lines if x["type"] == "advice_given"]
    assert [(x["at_version"], x["seq"], x["data"]["text"], x["data"]["seat"]) for x in advice_lines] == [
        (v0, 0, "knock when you can", 2), (v0, 1, "lay JS QS KS", 2)]
    assert all("version" not in x for x in advice_lines)
    audit = api.get(f"/games/{g.game_id}/audit").get_json()
    check = next(c for c in audit["checks"] if c["name"] == "advice")
    assert audit["ok"] and check["ok"] and check["detail"].startswith("2 piece(s)")


def test_the_audit_catches_advice_the_engine_would_not_have_allowed(api, api_app):
    g = _game(api)
    v0 = g.view(1)["version"]
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "pass_upcard"})
    g.move(1, {"type": "draw_stock"})
    g.move(1, {"type": "knock", "discard": "4D", "melds": MELDS})
    # written around the service: advice "from" the box (seat 0) at the captain's first decision
    ext = api_app.extensions["ginbox"]
    forged = {"hand_no": 1, "advisor": 0, "captain": 1, "text": "forged"}
    ext.redis.xadd(f"{ext.settings.key_prefix}:{{{g.game_id}}}:advice", {"a": json.dumps(forged), "ts": 1},
                   id=f"{v0}-0")
    audit = api.get(f"/games/{g.game_id}/audit").get_json()
    check = next(c for c in audit["checks"] if c["name"] == "advice")
    assert not check["ok"] and not audit["ok"]
    assert f"{v0}-0" in check["detail"] and "not_advisor" in check["detail"]
