"""The arena's creations answered 503 (Redis did not answer in time) are made once, and found by
their retry, as a game's creation is (test_creation_outage.py).

The fault is injected without pausing Redis: the app's own write (a Lua script, or the store's
method) runs on the real server, and its reply is then lost (the app sees the ``TimeoutError`` a
slow reply gives). A retry with the same Idempotency-Key must then answer as the first request
would have, marked replayed: one match, one bot account, one challenge, and a token that works;
another body with the key is 422.
"""

from __future__ import annotations

import secrets
import uuid

import pytest
import redis

import service.arena.challenges as arena_module  # the challenge game's seed is drawn there
from service.rules import game
from support.apiclient import ValidatingClient, load_openapi, make_app

MATCH = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2}


def fresh_key() -> str:
    return str(uuid.uuid4())


class LostReplies:
    """Stands in for a script (or a method) of the app on the real Redis, whose next ``lose``
    calls run there (``land``; else the connection failed before they were sent) and then lose
    their reply: the app sees a timeout. ``when`` picks the calls that count (all by default)."""

    def __init__(self, owner, name: str, when=None):
        self.real = getattr(owner, name)
        self.lose = 0
        self.land = True
        self.when = when
        self.lost = 0
        setattr(owner, name, self)

    def __call__(self, *args, **kwargs):
        if self.lose <= 0 or (self.when is not None and not self.when(*args, **kwargs)):
            return self.real(*args, **kwargs)
        self.lose -= 1
        if self.land:
            self.real(*args, **kwargs)
        self.lost += 1
        raise redis.TimeoutError("Timeout reading from socket")


def arena_of(api_app):
    return api_app.extensions["ginbox"].arena


def is_503(resp) -> None:
    assert resp.status_code == 503, resp.get_data(as_text=True)
    assert resp.get_json()["code"] == "redis_unavailable"


def replayed(resp, status: int = 201) -> None:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.headers.get("Idempotent-Replayed") == "true"


def register(api, name: str, **extra) -> str:
    resp = api.post("/bots", json={"name": name, **extra})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def match_ids(api) -> list[str]:
    return [m["match_id"] for m in api.get("/matches").get_json()["matches"]]


# -- POST /matches ------------------------------------------------------------------------------


@pytest.fixture
def match_appends(api_app):
    return LostReplies(arena_of(api_app).matches, "_append_script")


def test_a_match_whose_answer_was_lost_is_found_by_its_retry_not_started_twice(api, match_appends):
    key = fresh_key()
    match_appends.lose = 1
    is_503(api.post("/matches", json=MATCH, headers={"Idempotency-Key": key}))
    assert match_appends.lost == 1
    first = match_ids(api)
    assert len(first) == 1  # the match's log was written, though the answer was 503

    again = api.post("/matches", json=MATCH, headers={"Idempotency-Key": key})
    replayed(again)
    made = again.get_json()
    assert [made["match_id"]] == first == match_ids(api)  # no second match
    assert again.headers["Location"] == f"/matches/{made['match_id']}"
    assert made["status"] == "running" and made["boards"] == 2
    # the match moves on: its first games were started by the retry
    assert made["games"] >= 1 and api.get(f"/matches/{made['match_id']}").status_code == 200

    third = api.post("/matches", json=MATCH, headers={"Idempotency-Key": key})
    replayed(third)
    assert third.get_data() == again.get_data() and match_ids(api) == first


def test_after_a_503_a_matchs_key_stands_for_that_request_alone(api, match_appends):
    key = fresh_key()
    match_appends.lose = 1
    is_503(api.post("/matches", json=MATCH, headers={"Idempotency-Key": key}))
    other = {**MATCH, "boards": 3}
    refused = api.post("/matches", json=other, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    assert len(match_ids(api)) == 1


def test_a_matchs_key_whose_mark_ran_out_still_finds_its_match(api, match_appends, redis_conn, key_prefix):
    key = fresh_key()
    match_appends.lose = 1
    is_503(api.post("/matches", json=MATCH, headers={"Idempotency-Key": key}))
    for name in redis_conn.scan_iter(match=f"{key_prefix}:idem:*"):
        redis_conn.delete(name)
    refused = api.post("/matches", json={**MATCH, "boards": 3}, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    again = api.post("/matches", json=MATCH, headers={"Idempotency-Key": key})
    replayed(again)
    assert match_ids(api) == [again.get_json()["match_id"]]


def test_a_match_retried_at_its_callers_cap_is_found_not_refused(redis_url, key_prefix):
    """The match the lost answer started counts against its caller: its retry is still answered."""
    api = ValidatingClient(make_app(redis_url, key_prefix, matches_per_caller=1), load_openapi())
    appends = LostReplies(arena_of(api.app).matches, "_append_script")
    key = fresh_key()
    appends.lose = 1
    is_503(api.post("/matches", json=MATCH, headers={"Idempotency-Key": key}))
    replayed(api.post("/matches", json=MATCH, headers={"Idempotency-Key": key}))
    # it is counted: another match of the caller's is refused
    more = api.post("/matches", json=MATCH, headers={"Idempotency-Key": fresh_key()})
    assert more.status_code == 409 and more.get_json()["code"] == "too_many_matches"
    assert len(match_ids(api)) == 1


def test_a_match_started_by_a_bot_tells_it_once_found(api, api_app, match_appends):
    """A bot's match whose answer was lost: its retry (the bot's token, the same key) finds it,
    and the bot has heard of it on its stream."""
    token = register(api, "alpha")
    body = {"variant": "gin-rami", "participants": ["alpha", "basic"], "boards": 1, "move_time_s": 30}
    key = fresh_key()
    match_appends.lose = 1
    is_503(api.post("/matches", json=body, headers={"Idempotency-Key": key}, token=token))
    again = api.post("/matches", json=body, headers={"Idempotency-Key": key}, token=token)
    replayed(again)
    match_id = again.get_json()["match_id"]
    assert match_ids(api) == [match_id]
    events = arena_of(api_app).store.read_stream("alpha", "0")
    assert {(kind, data.get("match_id")) for _, kind, data in events if kind == "match_started"} == {
        ("match_started", match_id)}


# -- POST /bots -----------------------------------------------------------------------------------


@pytest.fixture
def registrations(api_app):
    return LostReplies(arena_of(api_app).store, "_register")


def test_a_bot_whose_answer_was_lost_gets_its_token_on_retry_not_name_taken(api, api_app, registrations):
    body = {"name": "alpha", "description": "plays gin", "accepts_matches": True}
    key = fresh_key()
    registrations.lose = 1
    is_503(api.post("/bots", json=body, headers={"Idempotency-Key": key}))
    assert registrations.lost == 1
    assert api.get("/bots/alpha").status_code == 200  # registered, though the answer was 503

    again = api.post("/bots", json=body, headers={"Idempotency-Key": key})
    replayed(again)
    bot = again.get_json()
    assert again.headers["Location"] == "/bots/alpha"
    assert bot["name"] == "alpha" and bot["description"] == "plays gin" and bot["accepts_matches"] is True
    assert bot["created"] == api.get("/bots/alpha").get_json()["created"]
    # the token is the account's: it reads the bot's own profile
    me = api.get("/bots/me", token=bot["token"])
    assert me.status_code == 200 and me.get_json()["name"] == "alpha"

    third = api.post("/bots", json=body, headers={"Idempotency-Key": key})
    replayed(third)
    assert third.get_data() == again.get_data()
    # the name is still taken for anyone else
    taken = api.post("/bots", json={"name": "ALPHA"}, headers={"Idempotency-Key": fresh_key()})
    assert taken.status_code == 409 and taken.get_json()["code"] == "bot_name_taken"


def test_after_a_503_a_bots_key_stands_for_that_request_alone(api, registrations, redis_conn, key_prefix):
    key = fresh_key()
    registrations.lose = 1
    is_503(api.post("/bots", json={"name": "alpha"}, headers={"Idempotency-Key": key}))
    refused = api.post("/bots", json={"name": "alpha", "owner": "someone else"}, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    # once the key's mark is gone, another body is not given the account's token either
    for name in redis_conn.scan_iter(match=f"{key_prefix}:idem:*"):
        redis_conn.delete(name)
    taken = api.post("/bots", json={"name": "alpha", "owner": "someone else"}, headers={"Idempotency-Key": key})
    assert taken.status_code == 409 and taken.get_json()["code"] == "bot_name_taken"
    replayed(api.post("/bots", json={"name": "alpha"}, headers={"Idempotency-Key": key}))


# -- POST /challenges ----------------------------------------------------------------------------


@pytest.fixture
def challenge_saves(api_app):
    return LostReplies(arena_of(api_app).store, "_save_challenge")


def pending_to(api_app, bot: str) -> list[str]:
    store = arena_of(api_app).store
    return [m.decode() for m in store.redis.zrange(store._bot(bot, "challenges-pending"), 0, -1)]


def told(api_app, bot: str, kind: str) -> list[str]:
    return [data["challenge_id"] for _, k, data in arena_of(api_app).store.read_stream(bot, "0") if k == kind]


def test_a_persons_challenge_whose_answer_was_lost_is_found_with_its_token(api, api_app, challenge_saves):
    register(api, "alpha")
    body = {"to": "alpha", "variant": "gin-rami", "name": "ann"}
    key = fresh_key()
    challenge_saves.lose = 1
    is_503(api.post("/challenges", json=body, headers={"Idempotency-Key": key}))
    assert challenge_saves.lost == 1
    stored = pending_to(api_app, "alpha")
    assert len(stored) == 1  # the challenge was stored, though the answer was 503
    assert told(api_app, "alpha", "challenge") == []  # and its bot not told

    again = api.post("/challenges", json=body, headers={"Idempotency-Key": key})
    replayed(again)
    made = again.get_json()
    assert [made["challenge_id"]] == stored == pending_to(api_app, "alpha")  # no second challenge
    assert again.headers["Location"] == f"/challenges/{made['challenge_id']}"
    shown = api.get(f"/challenges/{made['challenge_id']}").get_json()
    assert made["status"] == "pending" and made["created"] == shown["created"] and made["expires"] == shown["expires"]
    assert "fingerprint" not in shown
    assert told(api_app, "alpha", "challenge") == stored  # told now, once

    third = api.post("/challenges", json=body, headers={"Idempotency-Key": key})
    replayed(third)
    assert third.get_data() == again.get_data()
    # the token is the challenger's: it withdraws the challenge
    withdrawn = api.post(f"/challenges/{made['challenge_id']}/withdraw", token=made["token"])
    assert withdrawn.status_code == 200 and withdrawn.get_json()["status"] == "withdrawn"


def test_a_bots_challenge_whose_answer_was_lost_is_found_and_accepted(api, api_app, challenge_saves):
    alpha, beta = register(api, "alpha"), register(api, "beta")
    body = {"to": "alpha", "variant": "gin-rami", "boards": 1, "move_time_s": 30}
    key = fresh_key()
    challenge_saves.lose = 1
    is_503(api.post("/challenges", json=body, headers={"Idempotency-Key": key}, token=beta))
    again = api.post("/challenges", json=body, headers={"Idempotency-Key": key}, token=beta)
    replayed(again)
    challenge_id = again.get_json()["challenge_id"]
    assert pending_to(api_app, "alpha") == [challenge_id]
    accepted = api.post(f"/challenges/{challenge_id}/accept", token=alpha)
    assert accepted.status_code == 200 and accepted.get_json()["status"] == "accepted"
    assert match_ids(api) == [accepted.get_json()["match_id"]]


def test_a_challenge_retried_at_the_cap_is_found_not_refused(redis_url, key_prefix):
    api = ValidatingClient(make_app(redis_url, key_prefix, challenges_per_challenger=1), load_openapi())
    saves = LostReplies(arena_of(api.app).store, "_save_challenge")
    register(api, "alpha")
    body = {"to": "alpha", "variant": "gin-rami", "name": "ann"}
    key = fresh_key()
    saves.lose = 1
    is_503(api.post("/challenges", json=body, headers={"Idempotency-Key": key}))
    replayed(api.post("/challenges", json=body, headers={"Idempotency-Key": key}))
    more = api.post("/challenges", json={**body, "name": "bob"}, headers={"Idempotency-Key": fresh_key()})
    assert more.status_code == 409 and more.get_json()["code"] == "too_many_challenges"


def test_after_a_503_a_challenges_key_stands_for_that_request_alone(api, api_app, challenge_saves, redis_conn,
                                                                    key_prefix):
    register(api, "alpha")
    body = {"to": "alpha", "variant": "gin-rami", "name": "ann"}
    key = fresh_key()
    challenge_saves.lose = 1
    is_503(api.post("/challenges", json=body, headers={"Idempotency-Key": key}))
    other = {**body, "name": "bob"}
    refused = api.post("/challenges", json=other, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    for name in redis_conn.scan_iter(match=f"{key_prefix}:idem:*"):
        redis_conn.delete(name)
    refused = api.post("/challenges", json=other, headers={"Idempotency-Key": key})
    assert refused.status_code == 422 and refused.get_json()["code"] == "idempotency_key_reused"
    replayed(api.post("/challenges", json=body, headers={"Idempotency-Key": key}))
    assert len(pending_to(api_app, "alpha")) == 1


# -- a challenge's answers -----------------------------------------------------------------------


def decisions(api_app, status: str) -> LostReplies:
    """The challenge's moves to ``status`` (an accept's last write: the answer recorded)."""
    return LostReplies(arena_of(api_app).store, "decide_challenge", when=lambda cid, to, *a, **k: to == status)


def bots_challenge(api, body: dict | None = None) -> tuple[str, str, str]:
    alpha, beta = register(api, "alpha"), register(api, "beta")
    body = body or {"to": "alpha", "variant": "gin-rami"}
    resp = api.post("/challenges", json=body, token=beta)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return alpha, beta, resp.get_json()["challenge_id"]


def test_an_accept_whose_answer_was_lost_is_found_by_its_retry_not_refused(api, api_app):
    alpha, _, cid = bots_challenge(api)
    lost = decisions(api_app, "accepted")
    key = fresh_key()
    lost.lose = 1
    is_503(api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha))
    shown = api.get(f"/challenges/{cid}").get_json()
    assert shown["status"] == "accepted" and shown["game_id"]  # recorded, though the answer was 503
    assert "answered_with" not in shown and "accepting_with" not in shown

    again = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha)
    replayed(again, 200)
    assert again.get_json()["status"] == "accepted" and again.get_json()["game_id"] == shown["game_id"]
    # the challenger was told by the lost request before its game was recorded (challenge_accepted
    # comes before game_started), and its retry tells it again: twice, with the same id
    assert told(api_app, "beta", "challenge_accepted") == [cid, cid]
    third = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha)
    replayed(third, 200)
    assert third.get_data() == again.get_data()
    # another key is another accept: the challenge was answered already
    other = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": fresh_key()}, token=alpha)
    assert other.status_code == 409 and other.get_json()["code"] == "challenge_not_pending"


def test_an_accept_whose_last_write_never_landed_is_finished_by_its_retry_at_once(api, api_app):
    """The claim stays the lost request's (its process did not die: it answered 503); its retry
    takes its own claim over at once instead of waiting out ACCEPT_STALE_MS as 409."""
    alpha, _, cid = bots_challenge(api, {"to": "alpha", "variant": "gin-rami", "boards": 1})
    lost = decisions(api_app, "accepted")
    key = fresh_key()
    lost.lose, lost.land = 1, False
    is_503(api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha))
    assert api.get(f"/challenges/{cid}").get_json()["status"] == "pending"  # being accepted reads so

    again = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha)
    assert again.status_code == 200, again.get_data(as_text=True)
    accepted = again.get_json()
    assert accepted["status"] == "accepted" and match_ids(api) == [accepted["match_id"]]
    # an accept with another key does not take that live claim over
    gamma = register(api, "gamma")
    second = api.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=gamma).get_json()
    lost.lose = 1
    is_503(api.post(f"/challenges/{second['challenge_id']}/accept", headers={"Idempotency-Key": fresh_key()},
                    token=alpha))
    other = api.post(f"/challenges/{second['challenge_id']}/accept", headers={"Idempotency-Key": fresh_key()},
                     token=alpha)
    assert other.status_code == 409 and other.get_json()["code"] == "challenge_not_pending"


def test_a_decline_whose_answer_was_lost_is_found_by_its_retry(api, api_app):
    alpha, _, cid = bots_challenge(api)
    lost = decisions(api_app, "declined")
    key = fresh_key()
    lost.lose = 1
    is_503(api.post(f"/challenges/{cid}/decline", headers={"Idempotency-Key": key}, token=alpha))
    assert api.get(f"/challenges/{cid}").get_json()["status"] == "declined"
    again = api.post(f"/challenges/{cid}/decline", headers={"Idempotency-Key": key}, token=alpha)
    replayed(again, 200)
    assert again.get_json()["status"] == "declined"
    assert told(api_app, "beta", "challenge_declined") == [cid]


def test_a_withdrawal_whose_answer_was_lost_is_found_by_its_retry(api, api_app):
    _, beta, cid = bots_challenge(api)
    lost = decisions(api_app, "withdrawn")
    key = fresh_key()
    lost.lose = 1
    is_503(api.post(f"/challenges/{cid}/withdraw", headers={"Idempotency-Key": key}, token=beta))
    assert api.get(f"/challenges/{cid}").get_json()["status"] == "withdrawn"
    again = api.post(f"/challenges/{cid}/withdraw", headers={"Idempotency-Key": key}, token=beta)
    replayed(again, 200)
    assert again.get_json()["status"] == "withdrawn"
    assert told(api_app, "alpha", "challenge_withdrawn") == [cid]


class _Seeds:
    """Stands in for the arena's ``secrets`` module: ``token_bytes`` gives the seeds given, in turn."""

    def __init__(self, *seeds: bytes):
        self.seeds = list(seeds)

    def token_bytes(self, n: int) -> bytes:
        return self.seeds.pop(0)

    def __getattr__(self, name: str):
        return getattr(secrets, name)


def _seed_cutting(times: int) -> bytes:
    """A seed whose gin-rami game cuts ``times`` for its first dealer (a tie is cut again, RULES.md
    §1), so that its start writes that many CardsCut events."""
    for i in range(2000):
        seed = i.to_bytes(32, "big")
        spec = game.GameSpec(variant="gin-rami", players=[{"name": "beta", "account": "beta"},
                                                          {"name": "alpha", "account": "alpha"}], seed=seed)
        if sum(type(e).__name__ == "CardsCut" for e in game.start(spec)) == times:
            return seed
    raise AssertionError(f"no seed cuts {times} times")


@pytest.mark.parametrize("cuts", [None, (2, 1), (1, 2)], ids=["any-deal", "stored-tie", "retry-tie"])
def test_an_accept_whose_games_write_was_lost_starts_that_game_on_retry_and_tells_its_bots(api, api_app, monkeypatch,
                                                                                           cuts):
    """The challenge's game was written, its answer lost: the claim goes back to pending, and the
    retry finds the same game (its id is the challenge's) and tells its bots, whom the lost
    request never told, so that the one to act learns it is its turn. The retry builds a start of
    its own, with a seed of its own: its cut for the deal may tie where the stored game's did not,
    or the other way round (``cuts``: the stored game's cuts and the retry's), and the bots are
    told all the same."""
    if cuts is not None:
        monkeypatch.setattr(arena_module, "secrets", _Seeds(*(_seed_cutting(n) for n in cuts)))
    alpha, _, cid = bots_challenge(api)
    game_appends = LostReplies(api_app.extensions["ginbox"].store, "_append_script")
    key = fresh_key()
    game_appends.lose = 1
    is_503(api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha))
    assert game_appends.lost == 1
    streams = arena_of(api_app).store
    assert [k for _, k, _ in streams.read_stream("alpha", "0") if k in ("game_started", "your_turn")] == []

    again = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha)
    assert again.status_code == 200, again.get_data(as_text=True)
    game_id = again.get_json()["game_id"]
    view = api.get(f"/games/{game_id}").get_json()
    heard = {bot: [(k, d["game_id"]) for _, k, d in streams.read_stream(bot, "0") if k in ("game_started", "your_turn")]
             for bot in ("alpha", "beta")}
    assert heard["alpha"].count(("game_started", game_id)) == 1 and heard["beta"].count(("game_started", game_id)) == 1
    to_act = {p["name"] for seat, p in enumerate(view["players"]) if seat in view["to_act"]}
    assert to_act and all(("your_turn", game_id) in heard[bot] for bot in to_act)
    if cuts is not None:  # the game is the stored one, whose cuts the retry's start did not repeat
        assert len(api_app.extensions["ginbox"].games.state(game_id).cuts) == cuts[0]


def test_an_accept_whose_matchs_write_was_lost_tells_the_bots_of_that_match_on_retry(api, api_app, match_appends):
    alpha, _, cid = bots_challenge(api, {"to": "alpha", "variant": "gin-rami", "boards": 1})
    key = fresh_key()
    match_appends.lose = 1
    is_503(api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha))
    assert len(match_ids(api)) == 1
    again = api.post(f"/challenges/{cid}/accept", headers={"Idempotency-Key": key}, token=alpha)
    assert again.status_code == 200, again.get_data(as_text=True)
    match_id = again.get_json()["match_id"]
    assert match_ids(api) == [match_id]
    streams = arena_of(api_app).store
    for bot in ("alpha", "beta"):
        started = [d["match_id"] for _, k, d in streams.read_stream(bot, "0") if k == "match_started"]
        assert started == [match_id], bot
