"""GET /games tells a lister which seats are by invitation (``private_seats``, as in the view), so
that a lobby need not offer to join a seat that only an invite claims; the invites' secrets stay
out of the listing."""

from __future__ import annotations

import hashlib
import json

from support.gameplay import create_game


def _listed(api) -> tuple[dict[str, dict], str]:
    resp = api.get("/games", query_string={"limit": 100})
    assert resp.status_code == 200
    return {g["game_id"]: g for g in resp.get_json()["games"]}, resp.get_data(as_text=True)


def test_a_listing_marks_the_seats_by_invitation_and_never_shows_their_secrets(api):
    private = create_game(api, "three-hand", [{"name": "ann"}, None, None], private=True)
    invites = [s["invite"] for s in private.created["seats"] if s["kind"] == "open"]
    public = create_game(api, "gin-rami", [{"name": "bob"}, None])
    listed, text = _listed(api)
    assert listed[private.game_id]["private_seats"] == [1, 2]
    assert listed[public.game_id]["private_seats"] == []
    for secret in invites:
        assert secret not in text and hashlib.sha256(secret.encode()).hexdigest() not in text
    # a claimed seat was still made by invitation, as the view says
    claimed = api.post(f"/games/{private.game_id}/seats/2", json={"name": "cat", "invite": invites[1]})
    assert claimed.status_code == 201
    listed, _ = _listed(api)
    assert listed[private.game_id]["players"][2] == {"name": "cat"}
    view = api.get(f"/games/{private.game_id}").get_json()
    assert listed[private.game_id]["private_seats"] == view["private_seats"] == [1, 2]


def test_a_summary_recorded_before_it_named_the_private_seats_is_completed_from_the_log(api, redis_conn, key_prefix):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None], private=True)
    meta = f"{key_prefix}:{{{g.game_id}}}:meta"
    # what an older server left in the game's meta hash: a summary without private_seats
    summary = json.loads(redis_conn.hget(meta, "summary"))
    del summary["private_seats"]
    redis_conn.hset(meta, "summary", json.dumps(summary))
    listed, _ = _listed(api)
    assert listed[g.game_id]["private_seats"] == [1]
    assert listed[g.game_id]["players"] == [{"name": "ann"}, None]
