"""Idempotency-Key on a challenge's answers (accept, decline, withdraw), on a real Redis.

Accepting a challenge starts its game or match, and the answer names it: an answer lost on the
way, sent again without a key, is refused 409 ``challenge_not_pending`` (the challenge was
answered: by the lost request). With an ``Idempotency-Key`` the retry gets the first answer
again, marked ``Idempotent-Replayed: true``, and starts nothing more; the same key for another
request is 422 ``idempotency_key_reused``, as on every creation route, and changes nothing. The
bundled bot (workers/arena_bot.py) sends one key with every sending of its accept.
"""

from __future__ import annotations

import threading
import uuid

import pytest
from werkzeug.serving import make_server

from service.arena import made_id


def fresh_key() -> str:
    return str(uuid.uuid4())


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def challenge(api, to: str, *, boards: int | None = None, token: str | None = None) -> dict:
    body = {"to": to, "variant": "gin-rami", **({"boards": boards} if boards else {}),
            **({} if token else {"name": "carol"})}
    resp = api.post("/challenges", json=body, token=token)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def answer(api, challenge_id: str, how: str, token: str, key: str | None = None, **kw):
    headers = {"Idempotency-Key": key} if key else {}
    return api.post(f"/challenges/{challenge_id}/{how}", token=token, headers=headers, **kw)


def match_ids(api) -> set[str]:
    return {m["match_id"] for m in api.get("/matches").get_json()["matches"]}


def test_a_retried_accept_gets_the_same_answer_and_starts_one_game(api):
    alpha = register(api, "alpha")
    c = challenge(api, "alpha")
    key = fresh_key()
    first = answer(api, c["challenge_id"], "accept", alpha, key)
    assert first.status_code == 200, first.get_data(as_text=True)
    assert "Idempotent-Replayed" not in first.headers
    game_id = first.get_json()["game_id"]
    assert game_id == made_id("game", c["challenge_id"]) and first.get_json()["status"] == "accepted"
    version = api.get(f"/games/{game_id}", token=alpha).get_json()["version"]

    again = answer(api, c["challenge_id"], "accept", alpha, key)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    # nothing more happened: the game is where the first accept left it
    assert api.get(f"/games/{game_id}", token=alpha).get_json()["version"] == version
    # without the key, the same retry is refused: the challenge was answered
    plain = answer(api, c["challenge_id"], "accept", alpha)
    assert plain.status_code == 409 and plain.get_json()["code"] == "challenge_not_pending"


def test_a_retried_accept_of_a_match_challenge_starts_one_match(api):
    alpha = register(api, "alpha")
    beta = register(api, "beta")
    c = challenge(api, "alpha", boards=1, token=beta)
    key = fresh_key()
    first = answer(api, c["challenge_id"], "accept", alpha, key)
    assert first.status_code == 200, first.get_data(as_text=True)
    again = answer(api, c["challenge_id"], "accept", alpha, key)
    assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()
    assert match_ids(api) == {first.get_json()["match_id"]}


def test_the_same_key_for_another_accept_is_422_and_a_body_400_and_neither_changes_anything(api):
    alpha = register(api, "alpha")
    one, other = challenge(api, "alpha"), challenge(api, "alpha")
    key = fresh_key()
    assert answer(api, one["challenge_id"], "accept", alpha, key).status_code == 200

    reused = answer(api, other["challenge_id"], "accept", alpha, key)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"
    assert reused.headers["Content-Type"].startswith("application/problem+json")
    # an answer takes no body: one sent with it is refused before its key is looked at
    with_body = answer(api, one["challenge_id"], "accept", alpha, key, json={"boards": 2})
    assert with_body.status_code == 400 and with_body.get_json()["code"] == "invalid_body"
    assert api.get(f"/challenges/{other['challenge_id']}").get_json()["status"] == "pending"
    assert api.get(f"/challenges/{one['challenge_id']}").get_json()["status"] == "accepted"


def test_a_refused_accept_records_nothing_and_its_key_stays_free(api):
    alpha = register(api, "alpha")
    beta = register(api, "beta")
    c = challenge(api, "alpha")
    key = fresh_key()
    refused = answer(api, c["challenge_id"], "accept", beta, key)  # not beta's to answer
    assert refused.status_code == 403 and refused.get_json()["code"] == "not_challenged"
    assert api.get(f"/challenges/{c['challenge_id']}").get_json()["status"] == "pending"
    # keys belong to the token presented: alpha's own accept with the same key is decided afresh
    accepted = answer(api, c["challenge_id"], "accept", alpha, key)
    assert accepted.status_code == 200 and "Idempotent-Replayed" not in accepted.headers


@pytest.mark.parametrize("how", ["decline", "withdraw"])
def test_a_retried_decline_or_withdrawal_gets_the_same_answer(api, how):
    alpha = register(api, "alpha")
    beta = register(api, "beta")
    c = challenge(api, "alpha", token=beta)
    token = alpha if how == "decline" else beta
    key = fresh_key()
    first = answer(api, c["challenge_id"], how, token, key)
    assert first.status_code == 200, first.get_data(as_text=True)
    again = answer(api, c["challenge_id"], how, token, key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()


@pytest.mark.parametrize("how", ["accept", "decline", "withdraw"])
def test_the_answers_document_the_key(how):
    import yaml

    from support.apiclient import SPEC_PATH

    op = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["paths"][f"/challenges/{{challenge_id}}/{how}"]["post"]
    refs = [p.get("$ref") for p in op.get("parameters", [])]
    assert "#/components/parameters/CreationIdempotencyKey" in refs
    assert "Idempotent-Replayed" in op["responses"]["200"]["headers"]


class _LoseTheFirstAcceptAnswer:
    """A proxy in front of the app that loses the answer of the first accept (502), after the app
    has accepted, and notes the Idempotency-Key of every accept."""

    def __init__(self, app):
        self.app = app
        self.keys: list[str | None] = []
        self.statuses: list[str] = []

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ["PATH_INFO"].endswith("/accept"):
            self.keys.append(environ.get("HTTP_IDEMPOTENCY_KEY"))
            if len(self.keys) == 1:
                answer = self.app(environ, lambda status, headers, exc_info=None: self.statuses.append(status))
                try:
                    b"".join(answer)
                finally:
                    getattr(answer, "close", lambda: None)()
                start_response("502 Bad Gateway", [("Content-Type", "text/plain")])
                return [b"the answer was lost on the way"]

            def noting(status, headers, exc_info=None):
                self.statuses.append(status)
                return start_response(status, headers, exc_info)

            return self.app(environ, noting)
        return self.app(environ, start_response)


def test_the_bundled_bot_sends_its_accept_again_with_one_key_after_a_lost_answer(api, api_app, capsys):
    from workers.arena_bot import ArenaBot

    alpha = register(api, "alpha")
    c = challenge(api, "alpha")
    proxy = _LoseTheFirstAcceptAnswer(api_app)
    server = make_server("127.0.0.1", 0, proxy, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        bot = ArenaBot(f"http://127.0.0.1:{server.server_port}", alpha, accept_challenges=True, deadline_s=60.0,
                       max_wait_s=0.5)
        bot._accept(c["challenge_id"])
    finally:
        server.shutdown()
        server.server_close()
    assert len(proxy.keys) == 2 and proxy.keys[0] and proxy.keys[0] == proxy.keys[1]
    # the first sending accepted, the second got that answer again: no complaint of the bot's
    assert [s.split()[0] for s in proxy.statuses] == ["200", "200"]
    assert f"challenge {c['challenge_id']}" not in capsys.readouterr().err
    assert api.get(f"/challenges/{c['challenge_id']}").get_json()["game_id"] == made_id("game", c["challenge_id"])
