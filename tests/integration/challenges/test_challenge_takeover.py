"""An accept that was only slow, not dead, and the accept that took its claim over, on a real Redis.

An accept claims its challenge, makes the game (or match), then records it. A claim older than
ACCEPT_STALE_MS is taken over by the next accept; if the first one was merely slow, both make the
challenge's game or match. Whichever finishes first records it, and the other finds the same one
made and answers with it: one game (or match) exists, started once, and the challenge records it.

The slow accept's remaining work is run with ``ArenaService.finish_accept`` on the claim it held.
"""

from __future__ import annotations

import time

import pytest

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events

from service.arena import ACCEPT_STALE_MS
from service.errors import ChallengeNotPending
from service.rules import duplicate as D
from service.rules import fairness


def _arena(app):
    return app.extensions["ginbox"].arena


def stale_claim(app, cid: str) -> dict:
    """Leave the challenge as an accept that claimed it more than ACCEPT_STALE_MS ago and has not
    finished leaves it; that accept's claim (the challenge as it holds it)."""
    store = _arena(app).store
    claimed = {**store.challenge(cid), "status": "accepting",
               "accepting_since": int(time.time() * 1000) - ACCEPT_STALE_MS - 1000}
    store.save_challenge(cid, claimed)
    return claimed


def person_game_challenge(client) -> tuple[str, str]:
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"})
    assert made.status_code == 201, made.get_data(as_text=True)
    return made.get_json()["challenge_id"], made.get_json()["token"]


def bot_match_challenge(client, beta: str) -> str:
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 2}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    return made.get_json()["challenge_id"]


def kinds(client, token: str, kind: str) -> list[dict]:
    return [data for k, data in stream_events(client, token) if k == kind]


def assert_one_game(client, app, cid: str, game_id: str, alpha: str, ann: str) -> None:
    """The challenge records ``game_id``, the only game there is, started once for the bot."""
    final = client.get(f"/challenges/{cid}").get_json()
    assert final["status"] == "accepted" and final["game_id"] == game_id
    assert "accepting_since" not in _arena(app).store.challenge(cid)
    listed = client.get("/games?limit=50").get_json()["games"]
    assert [g["game_id"] for g in listed] == [game_id]
    assert [d["game_id"] for d in kinds(client, alpha, "game_started")] == [game_id]
    assert client.get("/bots/alpha").get_json()["games"] == 1
    view = client.get(f"/games/{game_id}", token=ann)  # the person's seat plays it
    assert view.status_code == 200 and view.get_json()["status"] == "playing"


def test_a_slow_accept_finishing_after_the_takeover_makes_no_second_game(client, app):
    alpha = register(client, "alpha")
    cid, ann = person_game_challenge(client)
    slow = stale_claim(app, cid)

    taken = client.post(f"/challenges/{cid}/accept", token=alpha)
    assert taken.status_code == 200, taken.get_data(as_text=True)
    game_id = taken.get_json()["game_id"]
    assert game_id

    late = _arena(app).finish_accept(slow)
    assert late["status"] == "accepted" and late["game_id"] == game_id
    assert_one_game(client, app, cid, game_id, alpha, ann)


def test_a_slow_accept_finishing_before_the_takeover_leaves_the_taker_its_game(client, app):
    alpha = register(client, "alpha")
    cid, ann = person_game_challenge(client)
    slow = stale_claim(app, cid)
    arena = _arena(app)
    taker = arena.claim_accept(cid)  # the takeover's claim, its game not made yet
    assert taker is not None and taker["accepting_since"] != slow["accepting_since"]

    first = arena.finish_accept(slow)
    assert first["status"] == "accepted" and first["game_id"]
    second = arena.finish_accept(taker)
    assert second["status"] == "accepted" and second["game_id"] == first["game_id"]
    assert_one_game(client, app, cid, first["game_id"], alpha, ann)


def test_a_slow_accept_whose_taker_failed_records_its_game_from_pending(client, app):
    """The taker's failure put the challenge back to pending (its claim was the current one); the
    slow accept then makes the game and records it, rather than leaving it unrecorded."""
    alpha = register(client, "alpha")
    cid, ann = person_game_challenge(client)
    slow = stale_claim(app, cid)
    store = _arena(app).store
    store.save_challenge(cid, {**store.challenge(cid), "status": "pending"})  # as a failed taker leaves it
    store.save_challenge(cid, {k: v for k, v in store.challenge(cid).items() if k != "accepting_since"})

    late = _arena(app).finish_accept(slow)
    assert late["status"] == "accepted" and late["game_id"]
    assert_one_game(client, app, cid, late["game_id"], alpha, ann)


def test_a_slow_accept_whose_challenge_was_withdrawn_meanwhile_is_refused(client, app):
    """Withdrawn after the taker's failure: the slow accept is refused and records nothing."""
    register(client, "alpha")
    cid, ann = person_game_challenge(client)
    slow = stale_claim(app, cid)
    store = _arena(app).store
    store.save_challenge(cid, {k: v for k, v in store.challenge(cid).items() if k != "accepting_since"}
                         | {"status": "pending"})
    assert client.post(f"/challenges/{cid}/withdraw", token=ann).status_code == 200
    with pytest.raises(ChallengeNotPending):
        _arena(app).finish_accept(slow)
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "withdrawn"
    assert client.get("/games?limit=50").get_json()["games"] == []  # and nothing was made


def assert_one_match(client, app, cid: str, match_id: str, seed: bytes, alpha: str, beta: str) -> None:
    """The challenge records ``match_id``, the only match there is, started once, from ``seed``."""
    arena = _arena(app)
    final = client.get(f"/challenges/{cid}").get_json()
    assert final["status"] == "accepted" and final["match_id"] == match_id
    assert [m["match_id"] for m in client.get("/matches").get_json()["matches"]] == [match_id]
    assert arena.store.matches() == [match_id]
    for token, name in ((alpha, "alpha"), (beta, "beta")):
        assert [d["match_id"] for d in kinds(client, token, "match_started")] == [match_id]
        assert client.get(f"/bots/{name}").get_json()["matches"] == 1
    # the challenger is told of the accept once
    assert [d["challenge_id"] for d in kinds(client, beta, "challenge_accepted")] == [cid]
    # the seed kept is the one the match committed to, and its boards' games were dealt from it
    assert arena.store.match_seed(match_id) == seed
    match = client.get(f"/matches/{match_id}").get_json()
    assert match["commitment"] == fairness.commitment(seed)
    boards = match["board_results"]
    assert [b["commitment"] for b in boards] == D.board_commitments(seed, 2)
    started = [(b["commitment"], t["game_id"]) for b in boards for t in b["tables"] if t["game_id"]]
    assert started
    for commitment, game_id in started:
        view = client.get(f"/games/{game_id}", token=alpha)
        assert view.status_code == 200 and view.get_json()["commitment"] == commitment
    # the bots were told of these games alone, each once (a match's games are not listed while it runs)
    for token in (alpha, beta):
        assert sorted(d["game_id"] for d in kinds(client, token, "game_started")) == sorted(g for _, g in started)


def test_a_slow_accept_finishing_after_the_takeover_makes_no_second_match(client, app):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    cid = bot_match_challenge(client, beta)
    slow = stale_claim(app, cid)

    taken = client.post(f"/challenges/{cid}/accept", token=alpha)
    assert taken.status_code == 200, taken.get_data(as_text=True)
    match_id = taken.get_json()["match_id"]
    seed = _arena(app).store.match_seed(match_id)
    assert match_id and seed

    late = _arena(app).finish_accept(slow)
    assert late["status"] == "accepted" and late["match_id"] == match_id
    assert_one_match(client, app, cid, match_id, seed, alpha, beta)


def test_a_slow_accept_finishing_before_the_takeover_leaves_the_taker_its_match(client, app):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    cid = bot_match_challenge(client, beta)
    slow = stale_claim(app, cid)
    arena = _arena(app)
    taker = arena.claim_accept(cid)
    assert taker is not None and taker["accepting_since"] != slow["accepting_since"]

    first = arena.finish_accept(slow)
    assert first["status"] == "accepted" and first["match_id"]
    seed = arena.store.match_seed(first["match_id"])
    second = arena.finish_accept(taker)
    assert second["status"] == "accepted" and second["match_id"] == first["match_id"]
    assert_one_match(client, app, cid, first["match_id"], seed, alpha, beta)
