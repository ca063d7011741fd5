"""Consent and bounds of the arena: a match seats a bot account only if it sends the request or
accepts matches, with at least 5 s a move; matches in play are capped per caller and server-wide;
challenges expire after 24 hours and are capped per challenged bot and per challenger; a bot's
stream keeps its last entries only, and a reader resuming from a trimmed id reads on from the
oldest kept."""

from __future__ import annotations

from service.arena import CHALLENGE_TTL_MS
import pytest

from support.arena_fixtures import app, arena_settings, client  # noqa: F401 (fixtures)
from support.arena_http import register


@pytest.fixture
def settings(redis_url, key_prefix):
    # one proxy in front: the client address is the one X-Forwarded-For names
    return arena_settings(redis_url, key_prefix, proxy_hops=1)


def _arena(app):  # noqa: F811
    return app.extensions["ginbox"].arena


def match(client, participants, token=None, addr="10.0.0.1", **extra):  # noqa: F811
    body = {"variant": "gin-rami", "participants": participants, "boards": 1, **extra}
    return client.post("/matches", json=body, token=token, headers={"X-Forwarded-For": addr})


def problem(resp) -> tuple[int, str]:
    return resp.status_code, resp.get_json().get("code")


def test_a_match_seats_a_bot_account_only_with_its_consent(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    assert client.get("/bots/alpha").get_json()["accepts_matches"] is False
    # anyone naming alpha, which neither sends it nor accepts matches: refused, nothing made
    assert problem(match(client, ["alpha", "basic"])) == (403, "match_not_consented")
    assert problem(match(client, ["alpha", "beta"], token=beta)) == (403, "match_not_consented")
    assert client.get("/matches").get_json()["matches"] == []
    # a token that is no bot's is refused, not taken for no token
    assert problem(match(client, ["basic", "random"], token="not-a-token")) == (401, "bot_token_required")
    # alpha sends it itself: it plays in the match it made
    mine = match(client, ["alpha", "basic"], token=alpha)
    assert mine.status_code == 201 and [p["name"] for p in mine.get_json()["participants"]] == ["alpha", "basic"]
    # alpha opts in with its own token: then beta (or anyone) may seat it
    assert client.patch("/bots/me", json={"accepts_matches": True}).status_code == 401
    changed = client.patch("/bots/me", json={"accepts_matches": True}, token=alpha)
    assert changed.status_code == 200 and changed.get_json()["accepts_matches"] is True
    assert client.get("/bots/alpha").get_json()["accepts_matches"] is True
    assert client.get("/bots/me", token=alpha).get_json() == client.get("/bots/alpha").get_json()
    assert match(client, ["alpha", "beta"], token=beta).status_code == 201
    assert match(client, ["basic", "alpha"], addr="10.0.0.2").status_code == 201
    # beta still has not: an anonymous match naming it is refused
    assert problem(match(client, ["alpha", "beta"], addr="10.0.0.2")) == (403, "match_not_consented")
    # and alpha can withdraw its consent
    client.patch("/bots/me", json={"accepts_matches": False}, token=alpha)
    assert problem(match(client, ["basic", "alpha"], addr="10.0.0.2")) == (403, "match_not_consented")
    # at registration too
    created = client.post("/bots", json={"name": "gamma", "accepts_matches": True}).get_json()
    assert created["accepts_matches"] is True
    assert match(client, ["gamma", "random"], addr="10.0.0.3").status_code == 201


def test_a_match_seating_a_bot_account_gives_it_five_seconds_a_move(client):  # noqa: F811
    alpha = register(client, "alpha")
    assert problem(match(client, ["alpha", "basic"], token=alpha, move_time_s=4)) == (422, "invalid_match")
    assert client.get("/matches").get_json()["matches"] == []
    assert match(client, ["alpha", "basic"], token=alpha, move_time_s=5).get_json()["move_time_s"] == 5
    # built-in policies alone have no network to wait for
    assert match(client, ["basic", "random"], move_time_s=1).status_code == 201


def test_matches_in_play_are_capped_per_caller_and_server_wide_until_one_is_over(client, app):  # noqa: F811
    arena = _arena(app)
    assert (arena.matches_per_caller, arena.matches_in_play) == (4, 32)  # the settings' defaults
    arena.matches_per_caller, arena.matches_in_play = 2, 3
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    client.patch("/bots/me", json={"accepts_matches": True}, token=beta)
    # no worker runs: matches of policies stay in play
    assert match(client, ["basic", "random"], addr="10.0.0.1").status_code == 201
    assert match(client, ["basic", "random"], addr="10.0.0.1").status_code == 201
    assert problem(match(client, ["basic", "random"], addr="10.0.0.1")) == (409, "too_many_matches")
    # a bot's match counts against its address too: alpha's address is full
    assert problem(match(client, ["alpha", "beta"], token=alpha, addr="10.0.0.1")) == (409, "too_many_matches")
    # another address has a count of its own; the server's 3 are then all in play
    ours = match(client, ["alpha", "beta"], token=alpha, addr="10.0.0.3").get_json()
    full = match(client, ["basic", "random"], addr="10.0.0.2")
    assert problem(full) == (409, "too_many_matches") and "server" in full.get_json()["detail"]
    assert len(client.get("/matches").get_json()["matches"]) == 3
    # alpha's match ends (both bots resign their game at each table): a place is free again
    for result in ours["board_results"]:
        for table in result["tables"]:
            for token in (alpha, beta):
                resp = client.post(f"/games/{table['game_id']}/moves", json={"type": "resign"}, token=token)
                if resp.status_code == 200:
                    break
    assert client.get(f"/matches/{ours['match_id']}").get_json()["status"] == "over"
    assert match(client, ["basic", "random"], addr="10.0.0.2").status_code == 201


def challenge(client, to="alpha", addr="10.0.0.1", name="ann"):  # noqa: F811
    return client.post("/challenges", json={"to": to, "variant": "gin-rami", "name": name},
                       headers={"X-Forwarded-For": addr})


def test_a_pending_challenge_expires_after_a_day(client, app):  # noqa: F811
    alpha = register(client, "alpha")
    made = challenge(client).get_json()
    assert made["expires"] == made["created"] + 86_400_000
    cid, ann = made["challenge_id"], made["token"]
    arena = _arena(app)
    arena.clock_ms = lambda: made["created"] + 86_400_000 - 1
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "pending"
    arena.clock_ms = lambda: made["created"] + 86_400_000
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "expired"
    assert problem(client.post(f"/challenges/{cid}/accept", token=alpha)) == (409, "challenge_not_pending")
    assert problem(client.post(f"/challenges/{cid}/decline", token=alpha)) == (409, "challenge_not_pending")
    assert problem(client.post(f"/challenges/{cid}/withdraw", token=ann)) == (409, "challenge_not_pending")
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "expired"
    assert client.get("/bots/alpha").get_json()["games"] == 0


def test_pending_challenges_are_capped_per_challenger_and_per_challenged_bot(client, app):  # noqa: F811
    register(client, "alpha")
    register(client, "beta")
    bob = register(client, "bob")
    made = [challenge(client, addr="10.0.0.1", name=f"p{i}").get_json() for i in range(5)]
    assert all(m["status"] == "pending" for m in made)
    over = challenge(client, addr="10.0.0.1")
    assert problem(over) == (409, "too_many_challenges") and "address" in over.get_json()["detail"]
    # so is a bot challenging, by its name whatever its address
    for i in range(5):
        resp = client.post("/challenges", json={"to": "beta", "variant": "gin-rami"}, token=bob,
                           headers={"X-Forwarded-For": f"10.1.0.{i}"})
        assert resp.status_code == 201
    assert problem(client.post("/challenges", json={"to": "beta", "variant": "gin-rami"}, token=bob,
                               headers={"X-Forwarded-For": "10.1.0.9"})) == (409, "too_many_challenges")
    # alpha: 5 from 10.0.0.1, and 5 each from three more addresses make its 20
    for addr in ("10.0.0.2", "10.0.0.3", "10.0.0.4"):
        for i in range(5):
            assert challenge(client, addr=addr, name=f"p{i}").status_code == 201
    full = challenge(client, addr="10.0.0.5")
    assert problem(full) == (409, "too_many_challenges") and "alpha" in full.get_json()["detail"]
    # a withdrawn one frees a place, of the bot and of its challenger
    withdrawn = client.post(f"/challenges/{made[0]['challenge_id']}/withdraw", token=made[0]["token"])
    assert withdrawn.get_json()["status"] == "withdrawn"
    assert challenge(client, addr="10.0.0.1").status_code == 201
    assert problem(challenge(client, addr="10.0.0.5")) == (409, "too_many_challenges")
    # a day on, every one of them has expired: the places are free again
    now = made[-1]["created"] + CHALLENGE_TTL_MS + 3_600_000
    _arena(app).clock_ms = lambda: now
    assert challenge(client, addr="10.0.0.5").status_code == 201


def test_a_person_challenging_from_ipv6_counts_by_the_addresses_network(client):  # noqa: F811
    register(client, "alpha")
    # five addresses of one /64 are one challenger
    for host in range(1, 6):
        assert challenge(client, addr=f"2001:db8::{host}").status_code == 201
    assert problem(challenge(client, addr="2001:db8::ff")) == (409, "too_many_challenges")
    # the next /64 is another
    assert challenge(client, addr="2001:db8:0:1::1").status_code == 201


def test_a_bots_stream_keeps_its_last_entries_and_a_trimmed_id_reads_on_from_the_oldest(client, app,  # noqa: F811
                                                                                          redis_conn):
    token = register(client, "alpha")
    store = _arena(app).store
    node = int(redis_conn.config_get("stream-node-max-entries")["stream-node-max-entries"])
    store.stream_max_len = 10
    ids = [store.notify("alpha", "match_over", {"match_id": f"match{n:011d}"}) for n in range(3 * node)]
    key = store._bot("alpha", "stream")
    kept = redis_conn.xlen(key)
    # trimmed by whole blocks: never below the 10 asked, never a whole block more
    assert 10 <= kept <= 10 + node
    oldest = redis_conn.xrange(key, count=1)[0][0].decode()
    assert oldest == ids[-kept]
    # resuming after the first id, long trimmed: the stream goes on from the oldest entry kept
    text = client.get("/bots/me/stream?once=1", token=token,
                      headers={"Last-Event-ID": ids[0]}).get_data(as_text=True)
    read = [line[4:] for line in text.splitlines() if line.startswith("id: ")]
    assert read == ids[-kept:]
