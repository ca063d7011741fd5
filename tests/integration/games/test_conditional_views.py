"""Conditional GETs of a game's views: each view has a tag of its own (a seat's and a spectator's of
one version differ, the captain's changes with advice, the box's does not), a poll that sends it in
If-None-Match gets 304 and no body while the view is unchanged, the answers say they vary with the
token, and If-Match on a move takes the view's tag as it takes "<version>"."""

from __future__ import annotations

import re

from support.decks import build_deck
from support.gameplay import create_game

VIEW_TAG = re.compile(r'"([0-9]+)-([0-9a-f]{16})"')

# one hand of three-hand, roles given (box 0, captain 1, advisor 2), as in test_advice
CAPTAIN = "5C 6C 7C 9D 9H 9S JS QS AH 4D".split()
BOX = "2D 2H 2S 8C 9C TS KH QD 5H 6D".split()
DECK = build_deck(CAPTAIN, BOX, "3H", ["KS"])


def _get(api, g, seat=None, path="", etag=None, **query):
    headers = {"If-None-Match": etag} if etag is not None else {}
    return api.get(f"/games/{g.game_id}{path}", token=g.token(seat), headers=headers, query_string=query or None)


def _vary(resp) -> set[str]:
    return {v.strip().lower() for v in resp.headers.get("Vary", "").split(",") if v.strip()}


def test_each_view_has_its_own_tag_from_its_bytes_and_a_poll_holding_it_gets_304(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    seat0, seat1, spectator = _get(api, g, 0), _get(api, g, 1), _get(api, g)
    tags = [r.headers["ETag"] for r in (seat0, seat1, spectator)]
    version = seat0.get_json()["version"]
    for resp, tag in zip((seat0, seat1, spectator), tags):
        assert resp.status_code == 200 and "authorization" in _vary(resp)
        # the version, then 16 hex digits of a keyed digest of the very bytes sent (test_etag_keyed)
        assert VIEW_TAG.fullmatch(tag).group(1) == str(version)
    assert len(set(tags)) == 3  # three views of one version, three tags

    again = _get(api, g, 0, etag=tags[0])
    assert again.status_code == 304 and again.get_data() == b""
    assert again.headers["ETag"] == tags[0] and "authorization" in _vary(again)
    # weakly compared, in a list, or *: the same
    assert _get(api, g, 0, etag=f'"nope", W/{tags[0]}').status_code == 304
    assert _get(api, g, 0, etag="*").status_code == 304
    # another view's tag, an old tag, a malformed header: the view is sent
    assert _get(api, g, 0, etag=tags[2]).status_code == 200
    assert _get(api, g, None, etag=tags[0]).status_code == 200
    assert _get(api, g, 0, etag="not a tag").status_code == 200

    g.move(seat0.get_json()["to_act"][0], {"type": "pass_upcard"})
    moved = _get(api, g, 0, etag=tags[0])
    assert moved.status_code == 200 and moved.get_json()["version"] == version + 1
    assert VIEW_TAG.fullmatch(moved.headers["ETag"]).group(1) == str(version + 1)


def test_a_past_view_has_a_tag_and_answers_304_too(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    first = _get(api, g, 1, "/state", version=2)
    assert first.status_code == 200 and "authorization" in _vary(first)
    assert VIEW_TAG.fullmatch(first.headers["ETag"]).group(1) == "2"
    held = _get(api, g, 1, "/state", etag=first.headers["ETag"], version=2)
    assert held.status_code == 304 and held.get_data() == b"" and held.headers["ETag"] == first.headers["ETag"]
    # the current view and the past one are not the same representation
    assert _get(api, g, 1, "/state", etag=first.headers["ETag"], version=1).status_code == 200


def test_the_captains_tag_changes_with_advice_and_the_boxs_and_a_spectators_do_not(api):
    g = create_game(api, "three-hand", [{"name": "box"}, {"name": "cap"}, {"name": "adv"}],
                    roles={"box": 0, "captain": 1, "advisor": 2}, options={"target_score": 1}, decks=[DECK])
    before = {seat: _get(api, g, seat).headers["ETag"] for seat in (0, 1, None)}
    resp = api.post(f"/games/{g.game_id}/advice", json={"text": "pass the upcard"}, token=g.tokens[2])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    captain = _get(api, g, 1, etag=before[1])
    assert captain.status_code == 200 and captain.get_json()["advice"][-1]["text"] == "pass the upcard"
    assert captain.headers["ETag"] != before[1]
    assert VIEW_TAG.fullmatch(captain.headers["ETag"]).group(1) == VIEW_TAG.fullmatch(before[1]).group(1)
    # those who may not see advice cannot tell it was given, by the tag either
    for seat in (0, None):
        held = _get(api, g, seat, etag=before[seat])
        assert held.status_code == 304 and held.headers["ETag"] == before[seat]


def test_if_match_takes_the_tag_of_a_view_as_the_version_it_names(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=1)
    tag = _get(api, g, 0).headers["ETag"]
    old = _get(api, g, None).headers["ETag"]
    assert g.post_move(0, {"type": "pass_upcard"}).status_code == 200
    resp = api.post(f"/games/{g.game_id}/moves", json={"type": "pass_upcard"}, token=g.tokens[1],
                    headers={"If-Match": tag})
    # the game moved on since ann's view: her view's tag names a stale version
    assert resp.status_code == 412 and resp.get_json()["code"] == "version_mismatch"
    fresh = _get(api, g, 1).headers["ETag"]
    resp = api.post(f"/games/{g.game_id}/moves", json={"type": "pass_upcard"}, token=g.tokens[1],
                    headers={"If-Match": f"{old}, {fresh}"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    # a digest that is no tag's form is still refused as a malformed header
    bad = api.post(f"/games/{g.game_id}/moves", json={"type": "draw_stock"}, token=g.tokens[0],
                   headers={"If-Match": '"5-xyz"'})
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid_header"


def test_events_and_advice_vary_with_the_token(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    for path in ("/events", "/advice"):
        resp = _get(api, g, 0, path)
        assert resp.status_code == 200 and "authorization" in _vary(resp), path
