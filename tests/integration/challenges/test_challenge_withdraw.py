"""The challenger withdraws a pending challenge, on a real Redis.

Only the challenger may (a bot with its token, a person with the token its challenge gave), only
while the challenge is pending; the challenged bot's stream is told, and an answer after it is
refused. A refused withdrawal changes nothing.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

from support.arena_fixtures import app, base, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events


def person_challenge(client, to: str = "alpha", name: str = "ann", **extra) -> tuple[str, str]:
    """(challenge id, the person's token) of a new person's challenge to a game of gin rami."""
    made = client.post("/challenges", json={"to": to, "variant": "gin-rami", "name": name, **extra})
    assert made.status_code == 201, made.get_data(as_text=True)
    return made.get_json()["challenge_id"], made.get_json()["token"]


def refused(resp, status: int, code: str) -> None:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.get_json()["code"] == code


def test_a_person_withdraws_its_pending_challenge_and_the_bot_is_told(client):
    alpha = register(client, "alpha")
    cid, ann = person_challenge(client)

    resp = client.post(f"/challenges/{cid}/withdraw", token=ann)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["status"] == "withdrawn" and body["challenge_id"] == cid
    assert body["game_id"] is None and body["match_id"] is None
    assert "token" not in body and "person_token_hash" not in body

    view = client.get(f"/challenges/{cid}").get_json()
    assert view["status"] == "withdrawn" and view["from"] == "ann" and view["from_kind"] == "person"

    # the bot's stream: the challenge, then its withdrawal, in that order, with nothing of the token
    events = [(kind, data) for kind, data in stream_events(client, alpha) if kind.startswith("challenge")]
    assert [kind for kind, _ in events] == ["challenge", "challenge_withdrawn"]
    assert events[1][1]["challenge_id"] == cid and events[1][1]["status"] == "withdrawn"
    assert ann not in json.dumps(events) and "token_hash" not in json.dumps(events)

    # the bot can no longer answer it, and it cannot be withdrawn twice
    refused(client.post(f"/challenges/{cid}/accept", token=alpha), 409, "challenge_not_pending")
    refused(client.post(f"/challenges/{cid}/decline", token=alpha), 409, "challenge_not_pending")
    refused(client.post(f"/challenges/{cid}/withdraw", token=ann), 409, "challenge_not_pending")
    assert client.get(f"/challenges/{cid}").get_json() == view
    assert client.get("/bots/alpha").get_json()["games"] == 0
    assert [k for k, _ in stream_events(client, alpha) if k.startswith("challenge")] == \
        ["challenge", "challenge_withdrawn"]


def test_a_bot_withdraws_its_own_challenge_with_its_token(client):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "boards": 3}, token=beta)
    assert made.status_code == 201, made.get_data(as_text=True)
    cid = made.get_json()["challenge_id"]
    assert made.get_json()["from"] == "beta" and made.get_json()["from_kind"] == "bot"

    resp = client.post(f"/challenges/{cid}/withdraw", token=beta)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["status"] == "withdrawn" and resp.get_json()["kind"] == "match"
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "withdrawn"

    told = [data for kind, data in stream_events(client, alpha) if kind == "challenge_withdrawn"]
    assert [d["challenge_id"] for d in told] == [cid] and told[0]["from"] == "beta"
    # the challenger withdrew it itself: its own stream is not told
    assert not [k for k, _ in stream_events(client, beta) if k.startswith("challenge")]
    refused(client.post(f"/challenges/{cid}/accept", token=alpha), 409, "challenge_not_pending")
    assert client.get("/matches").get_json()["matches"] == []


def test_an_answered_challenge_cannot_be_withdrawn_and_nothing_changes(client):
    alpha = register(client, "alpha")
    accepted_id, ann = person_challenge(client)
    accepted = client.post(f"/challenges/{accepted_id}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    game_id = accepted.get_json()["game_id"]
    assert game_id and accepted.get_json()["status"] == "accepted"
    declined_id, bob = person_challenge(client, name="bob")
    assert client.post(f"/challenges/{declined_id}/decline", token=alpha).status_code == 200
    before = {cid: client.get(f"/challenges/{cid}").get_json() for cid in (accepted_id, declined_id)}
    game_before = client.get(f"/games/{game_id}", token=ann).get_json()

    refused(client.post(f"/challenges/{accepted_id}/withdraw", token=ann), 409, "challenge_not_pending")
    refused(client.post(f"/challenges/{declined_id}/withdraw", token=bob), 409, "challenge_not_pending")

    assert {cid: client.get(f"/challenges/{cid}").get_json() for cid in before} == before
    assert before[accepted_id]["game_id"] == game_id and before[declined_id]["status"] == "declined"
    game_after = client.get(f"/games/{game_id}", token=ann).get_json()
    assert game_after["status"] == "playing" and game_after["version"] == game_before["version"]
    assert not [k for k, _ in stream_events(client, alpha) if k == "challenge_withdrawn"]


def test_only_the_challenger_s_token_withdraws_and_a_refusal_changes_nothing(client):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    gamma = register(client, "gamma")
    person_id, ann = person_challenge(client)
    _, bob = person_challenge(client, name="bob")
    bot_made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta)
    assert bot_made.status_code == 201, bot_made.get_data(as_text=True)
    bot_id = bot_made.get_json()["challenge_id"]
    before = {cid: client.get(f"/challenges/{cid}").get_json() for cid in (person_id, bot_id)}
    assert all(c["status"] == "pending" for c in before.values())

    # a person's challenge: no token, a malformed header, the challenged bot's token, another
    # bot's, another challenge's person token, a made-up token
    refused(client.post(f"/challenges/{person_id}/withdraw"), 401, "challenge_token_required")
    refused(client.post(f"/challenges/{person_id}/withdraw", headers={"Authorization": "Basic abc"}),
            401, "challenge_token_required")
    for token in (alpha, gamma, bob, "not-anybodys-token"):
        refused(client.post(f"/challenges/{person_id}/withdraw", token=token), 403, "not_challenger")
    # a bot's challenge: no token or one of no bot is 401, the challenged bot's or a third bot's 403,
    # and a person's token is no bot's
    refused(client.post(f"/challenges/{bot_id}/withdraw"), 401, "bot_token_required")
    refused(client.post(f"/challenges/{bot_id}/withdraw", token="not-anybodys-token"), 401, "bot_token_required")
    refused(client.post(f"/challenges/{bot_id}/withdraw", token=ann), 401, "bot_token_required")
    for token in (alpha, gamma):
        refused(client.post(f"/challenges/{bot_id}/withdraw", token=token), 403, "not_challenger")
    # an unknown challenge
    refused(client.post("/challenges/no-such-challenge/withdraw", token=ann), 404, "challenge_not_found")

    assert {cid: client.get(f"/challenges/{cid}").get_json() for cid in before} == before
    assert not [k for k, _ in stream_events(client, alpha) if k == "challenge_withdrawn"]
    # still pending: the challenged bot can accept them
    assert client.post(f"/challenges/{person_id}/accept", token=alpha).get_json()["status"] == "accepted"
    assert client.post(f"/challenges/{bot_id}/accept", token=alpha).get_json()["status"] == "accepted"


def _post(url: str, token: str, out: list, barrier: threading.Barrier) -> None:
    req = urllib.request.Request(url, method="POST", headers={"Authorization": f"Bearer {token}"})
    barrier.wait()
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            out.append((resp.status, json.load(resp)))
    except urllib.error.HTTPError as err:
        out.append((err.code, json.load(err)))


def at_once(base: str, cid: str, first: tuple[str, str], second: tuple[str, str]) -> tuple[tuple, tuple]:
    """Two answers to challenge ``cid`` sent at the same moment over HTTP, each (action, token):
    their (status, body)."""
    results: tuple[list, list] = ([], [])
    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=_post, args=(f"{base}/challenges/{cid}/{action}", token, out, barrier))
               for (action, token), out in zip((first, second), results)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results[0][0], results[1][0]


def test_a_withdrawal_and_a_decline_at_once_leave_one_of_them(client, base):
    alpha = register(client, "alpha")
    for i in range(8):
        cid, ann = person_challenge(client, name=f"ann{i}")
        withdrawn, declined = at_once(base, cid, ("withdraw", ann), ("decline", alpha))
        assert sorted([withdrawn[0], declined[0]]) == [200, 409], (withdrawn, declined)
        winner = "withdrawn" if withdrawn[0] == 200 else "declined"
        loser = declined if winner == "withdrawn" else withdrawn
        assert loser[1]["code"] == "challenge_not_pending"
        assert client.get(f"/challenges/{cid}").get_json()["status"] == winner
    kinds = [k for k, _ in stream_events(client, alpha)]
    assert kinds.count("challenge") == 8


def _claimed(app, cid: str, since_ms: int) -> None:
    """Leave the challenge as an accept leaves it between its claim and its game (or as one whose process died)."""
    store = app.extensions["ginbox"].arena.store
    store.save_challenge(cid, {**store.challenge(cid), "status": "accepting", "accepting_since": since_ms})


def test_an_accept_under_way_refuses_a_withdrawal_and_every_other_answer(client, app):
    alpha = register(client, "alpha")
    cid, ann = person_challenge(client)
    _claimed(app, cid, int(time.time() * 1000))
    # on the wire it is still pending: the accept is a moment inside one request
    seen = client.get(f"/challenges/{cid}").get_json()
    assert seen["status"] == "pending" and "accepting_since" not in seen
    refused(client.post(f"/challenges/{cid}/withdraw", token=ann), 409, "challenge_not_pending")
    refused(client.post(f"/challenges/{cid}/decline", token=alpha), 409, "challenge_not_pending")
    refused(client.post(f"/challenges/{cid}/accept", token=alpha), 409, "challenge_not_pending")
    assert app.extensions["ginbox"].arena.store.challenge(cid)["status"] == "accepting"
    assert client.get("/games").get_json()["games"] == []  # no game was made by the refused accept
    assert not [k for k, _ in stream_events(client, alpha) if k == "challenge_withdrawn"]


def test_a_claim_whose_accept_never_finished_is_taken_over_by_the_next_accept(client, app):
    from service.arena import ACCEPT_STALE_MS

    alpha = register(client, "alpha")
    cid, ann = person_challenge(client)
    _claimed(app, cid, int(time.time() * 1000) - ACCEPT_STALE_MS - 1000)
    accepted = client.post(f"/challenges/{cid}/accept", token=alpha)
    assert accepted.status_code == 200, accepted.get_data(as_text=True)
    body = accepted.get_json()
    assert body["status"] == "accepted" and body["game_id"] and "accepting_since" not in body
    assert "accepting_since" not in app.extensions["ginbox"].arena.store.challenge(cid)
    assert client.get(f"/games/{body['game_id']}", token=ann).status_code == 200  # the person's seat plays it


def test_an_accept_and_a_withdrawal_at_once_leave_one_of_them_and_no_game_unrecorded(client, base):
    alpha = register(client, "alpha")
    accepted_games = []
    for i in range(8):
        cid, ann = person_challenge(client, name=f"ann{i}")
        withdrawn, accepted = at_once(base, cid, ("withdraw", ann), ("accept", alpha))
        assert sorted([withdrawn[0], accepted[0]]) == [200, 409], (withdrawn, accepted)
        final = client.get(f"/challenges/{cid}").get_json()
        if accepted[0] == 200:
            assert final["status"] == "accepted" and final["game_id"] == accepted[1]["game_id"]
            accepted_games.append(final["game_id"])
        else:
            assert final["status"] == "withdrawn" and final["game_id"] is None
    # every game made is the game of an accepted challenge: a withdrawal never leaves one behind
    listed = client.get("/games?limit=50").get_json()["games"]
    assert sorted(g["game_id"] for g in listed) == sorted(accepted_games)
