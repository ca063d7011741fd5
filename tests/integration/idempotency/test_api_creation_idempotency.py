"""Idempotency-Key on the operations that create something and hand out its token.

A lost answer to POST /games, a seat's claim, POST /bots, /challenges or /matches leaves a token
nobody has; a retry with the same key must get that answer again (the same token) and create
nothing, and the server must keep the answer only sealed with the key (no token in Redis).
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from service.store.creations import RECORD_TTL_S, CreationRecords

GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
OPEN_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, None]}
MATCH = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 2}


def fresh_key() -> str:
    return str(uuid.uuid4())


def game_ids(api) -> set[str]:
    resp = api.get("/games", query_string={"limit": 100})
    assert resp.status_code == 200
    return {g["game_id"] for g in resp.get_json()["games"]}


def match_ids(api) -> set[str]:
    return {m["match_id"] for m in api.get("/matches").get_json()["matches"]}


def register(api, name: str) -> str:
    resp = api.post("/bots", json={"name": name})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def slots(redis_conn, key_prefix) -> list[bytes]:
    return sorted(redis_conn.scan_iter(match=f"{key_prefix}:idem:*"))


def every_stored_byte(redis_conn) -> list[bytes]:
    """Every key and every value held in the database, whatever its type."""
    out = []
    for name in redis_conn.scan_iter(count=1000):
        out.append(name)
        kind = redis_conn.type(name)
        if kind == b"string":
            out.append(redis_conn.get(name) or b"")
        elif kind == b"hash":
            for k, v in redis_conn.hgetall(name).items():
                out += [k, v]
        elif kind == b"list":
            out += redis_conn.lrange(name, 0, -1)
        elif kind == b"set":
            out += list(redis_conn.smembers(name))
        elif kind == b"zset":
            out += [m for m, _ in redis_conn.zrange(name, 0, -1, withscores=True)]
        elif kind == b"stream":
            for _, fields in redis_conn.xrange(name):
                for k, v in fields.items():
                    out += [k, v]
    return out


def test_a_retried_game_creation_gets_the_same_answer_and_tokens_and_creates_nothing(api):
    key = fresh_key()
    before = game_ids(api)
    first = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    assert "Idempotent-Replayed" not in first.headers
    assert game_ids(api) == before | {first.get_json()["game_id"]}

    again = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()  # the same game id, commitment and both tokens
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["ETag"] == first.headers["ETag"]
    assert game_ids(api) == before | {first.get_json()["game_id"]}
    # the replayed token is the seat's: it plays
    game_id = first.get_json()["game_id"]
    token = again.get_json()["seats"][0]["token"]
    assert api.get(f"/games/{game_id}", token=token).get_json()["viewer"] == 0


def test_without_a_key_two_creations_make_two_games(api):
    before = game_ids(api)
    a, b = api.post("/games", json=GAME), api.post("/games", json=GAME)
    assert a.status_code == b.status_code == 201
    assert len(game_ids(api) - before) == 2


def test_the_same_key_for_another_body_is_422_and_creates_nothing(api):
    key = fresh_key()
    first = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    before = game_ids(api)
    other = api.post("/games", json={**GAME, "seats": [{"name": "cat"}, {"name": "dan"}]},
                     headers={"Idempotency-Key": key})
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"
    assert game_ids(api) == before
    # the key still answers its own request
    assert api.post("/games", json=GAME, headers={"Idempotency-Key": key}).get_json() == first.get_json()


def test_keys_belong_to_the_operation_a_key_of_post_games_does_not_answer_post_bots(api):
    key = fresh_key()
    assert api.post("/games", json=GAME, headers={"Idempotency-Key": key}).status_code == 201
    bot = api.post("/bots", json={"name": "keyed"}, headers={"Idempotency-Key": key})
    assert bot.status_code == 201 and bot.get_json()["name"] == "keyed"
    assert "Idempotent-Replayed" not in bot.headers


def test_a_malformed_key_is_400_invalid_header_and_creates_nothing(api):
    before = game_ids(api)
    resp = api.post("/games", json=GAME, headers={"Idempotency-Key": "has space"})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_header"
    assert resp.get_json()["errors"] == {"Idempotency-Key": ["Invalid value."]}
    resp = api.post("/games", json=GAME, headers={"Idempotency-Key": "k" * 201})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_header"
    assert game_ids(api) == before


def test_a_retried_seat_claim_gets_the_same_token_instead_of_seat_taken(api):
    game = api.post("/games", json=OPEN_GAME).get_json()
    path = f"/games/{game['game_id']}/seats/1"
    key = fresh_key()
    first = api.post(path, json={"name": "bob"}, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    version = first.get_json()["view"]["version"]
    again = api.post(path, json={"name": "bob"}, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"] == f'"{version}"'
    token = again.get_json()["token"]
    assert api.get(f"/games/{game['game_id']}", token=token).get_json()["viewer"] == 1
    # nothing was recorded twice: the game stands at the claim's version
    assert api.get(f"/games/{game['game_id']}").get_json()["version"] == version
    # without the key, the same retry finds the seat taken (the token would be lost)
    taken = api.post(path, json={"name": "bob"})
    assert taken.status_code == 409 and taken.get_json()["code"] == "seat_taken"
    # the key names this claim: a claim of another game's seat with it is another request
    other = api.post("/games", json=OPEN_GAME).get_json()
    reused = api.post(f"/games/{other['game_id']}/seats/1", json={"name": "bob"}, headers={"Idempotency-Key": key})
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency_key_reused"


def test_a_refused_request_is_not_recorded_and_its_key_stays_free(api, redis_conn, key_prefix):
    key = fresh_key()
    bad = api.post("/bots", json={"name": "basic"}, headers={"Idempotency-Key": key})
    assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_bot_name"
    assert slots(redis_conn, key_prefix) == []
    # a corrected request with the same key is decided afresh, not refused as another request
    good = api.post("/bots", json={"name": "fixed"}, headers={"Idempotency-Key": key})
    assert good.status_code == 201 and "Idempotent-Replayed" not in good.headers
    # a claim of a game that does not exist is refused and leaves nothing either
    missing = api.post("/games/AAAAAAAAAAAAAAAA/seats/1", json={"name": "x"}, headers={"Idempotency-Key": fresh_key()})
    assert missing.status_code == 404
    assert len(slots(redis_conn, key_prefix)) == 1


def test_a_retried_bot_registration_gets_the_same_token(api):
    key = fresh_key()
    first = api.post("/bots", json={"name": "retry-bot"}, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    again = api.post("/bots", json={"name": "retry-bot"}, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"] == "/bots/retry-bot"
    # without the key the name is taken: the first registration is the only one
    taken = api.post("/bots", json={"name": "retry-bot"})
    assert taken.status_code == 409 and taken.get_json()["code"] == "bot_name_taken"


def test_a_retried_match_creation_starts_one_match(api):
    key = fresh_key()
    before = match_ids(api)
    first = api.post("/matches", json=MATCH, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    again = api.post("/matches", json=MATCH, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert match_ids(api) == before | {first.get_json()["match_id"]}
    other = api.post("/matches", json={**MATCH, "boards": 3}, headers={"Idempotency-Key": key})
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency_key_reused"
    assert match_ids(api) == before | {first.get_json()["match_id"]}


def test_a_persons_retried_challenge_gets_the_same_token_and_challenges_once(api):
    register(api, "alpha")
    body = {"to": "alpha", "variant": "gin-rami", "name": "carol"}
    key = fresh_key()
    first = api.post("/challenges", json=body, headers={"Idempotency-Key": key})
    assert first.status_code == 201 and first.get_json()["token"]
    again = api.post("/challenges", json=body, headers={"Idempotency-Key": key})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()


def test_two_bots_that_choose_the_same_key_make_two_challenges(api):
    register(api, "alpha")
    beta, gamma = register(api, "beta"), register(api, "gamma")
    body = {"to": "alpha", "variant": "gin-rami"}
    key = fresh_key()
    by_beta = api.post("/challenges", json=body, headers={"Idempotency-Key": key}, token=beta)
    by_gamma = api.post("/challenges", json=body, headers={"Idempotency-Key": key}, token=gamma)
    assert by_beta.status_code == by_gamma.status_code == 201
    assert "Idempotent-Replayed" not in by_gamma.headers
    assert by_beta.get_json()["from"] == "beta" and by_gamma.get_json()["from"] == "gamma"
    assert by_beta.get_json()["challenge_id"] != by_gamma.get_json()["challenge_id"]
    # each bot's retry gets its own challenge back
    retry = api.post("/challenges", json=body, headers={"Idempotency-Key": key}, token=beta)
    assert retry.headers["Idempotent-Replayed"] == "true" and retry.get_json() == by_beta.get_json()


def test_a_request_while_another_with_the_key_is_answered_is_409_in_use(api, api_app, redis_conn, key_prefix):
    key = fresh_key()
    ext = api_app.extensions["ginbox"]
    # the slot the server uses for POST /games without a token, claimed as a request in flight would
    slot = CreationRecords(ext.redis, key_prefix).slot("POST /games", key)
    claimed = slot.claim()
    before = game_ids(api)
    busy = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert busy.status_code == 409 and busy.get_json()["code"] == "idempotency_key_in_use"
    assert int(busy.headers["Retry-After"]) >= 1
    assert game_ids(api) == before
    # the request in flight was refused: its claim is given up, and the retry is decided afresh
    assert slot.release(claimed)
    done = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert done.status_code == 201 and "Idempotent-Replayed" not in done.headers
    assert len(game_ids(api) - before) == 1


def test_concurrent_requests_with_the_same_key_create_one_game(api):
    key = fresh_key()
    before = game_ids(api)
    n = 8
    barrier = threading.Barrier(n)
    answers: list = [None] * n
    errors: list = []

    def send(i: int) -> None:
        try:
            barrier.wait()
            for _ in range(200):
                resp = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
                if resp.status_code != 409:
                    break
                assert resp.get_json()["code"] == "idempotency_key_in_use"
                time.sleep(0.02)
            answers[i] = (resp.status_code, resp.headers.get("Idempotent-Replayed"), resp.get_json())
        except BaseException as exc:  # noqa: BLE001 -- reported by the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(a[0] == 201 for a in answers)
    assert [a[1] for a in answers].count(None) == 1  # one created, the others were replays of it
    assert len({a[2]["game_id"] for a in answers}) == 1
    assert all(a[2] == answers[0][2] for a in answers)
    assert game_ids(api) == before | {answers[0][2]["game_id"]}


def test_redis_holds_no_token_and_no_key_in_the_clear_and_the_record_expires(api, redis_conn, key_prefix):
    game_key, seat_key, bot_key, person_key = fresh_key(), fresh_key(), fresh_key(), fresh_key()
    created = api.post("/games", json=OPEN_GAME, headers={"Idempotency-Key": game_key}).get_json()
    claimed = api.post(f"/games/{created['game_id']}/seats/1", json={"name": "bob"},
                       headers={"Idempotency-Key": seat_key}).get_json()
    bot = api.post("/bots", json={"name": "sealed"}, headers={"Idempotency-Key": bot_key}).get_json()
    person = api.post("/challenges", json={"to": "sealed", "variant": "gin-rami", "name": "carol"},
                      headers={"Idempotency-Key": person_key}).get_json()
    secrets = [created["seats"][0]["token"], claimed["token"], bot["token"], person["token"],
               game_key, seat_key, bot_key, person_key]
    assert all(secrets)
    stored = every_stored_byte(redis_conn)
    leaked = [s for s in secrets if any(s.encode() in blob for blob in stored)]
    assert leaked == []
    # four records, each kept for at most a day
    names = slots(redis_conn, key_prefix)
    assert len(names) == 4
    for name in names:
        ttl = redis_conn.ttl(name)
        assert 0 < ttl <= RECORD_TTL_S == 24 * 3600
        assert not redis_conn.get(name).startswith(b"{")  # sealed, not JSON


def test_a_record_that_does_not_open_with_its_key_is_refused_not_replayed(api, redis_conn, key_prefix):
    key = fresh_key()
    assert api.post("/games", json=GAME, headers={"Idempotency-Key": key}).status_code == 201
    [name] = slots(redis_conn, key_prefix)
    sealed = bytearray(redis_conn.get(name))
    sealed[-1] ^= 1
    redis_conn.set(name, bytes(sealed), keepttl=True)
    before = game_ids(api)
    resp = api.post("/games", json=GAME, headers={"Idempotency-Key": key})
    assert resp.status_code == 422 and resp.get_json()["code"] == "idempotency_key_reused"
    assert game_ids(api) == before


@pytest.mark.parametrize("path", ["/games", "/bots", "/matches", "/challenges"])
def test_the_creation_operations_document_the_key(path):
    import yaml

    from support.apiclient import SPEC_PATH

    op = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["paths"][path]["post"]
    refs = [p.get("$ref") for p in op.get("parameters", [])]
    assert "#/components/parameters/CreationIdempotencyKey" in refs
    assert "Idempotent-Replayed" in op["responses"]["201"]["headers"]


def test_under_the_recommended_acl_a_refused_request_frees_its_key_and_a_retry_is_replayed(
        redis_conn, redis_server, redis_url, key_prefix):
    """The security guide's ACL grants no DEL: a claim is still given up, and a record still kept."""
    if redis_server[1] is None:
        pytest.fail("this test creates an ACL user, so it needs the Redis server the tests start themselves")
    from service.app import create_app
    from service.config import Settings
    from support.apiclient import ValidatingClient

    name, password = f"ginbox-{key_prefix}", uuid.uuid4().hex
    rules = (f"on >{password} resetkeys ~{key_prefix}:* resetchannels +@all -xdel -xtrim -del -unlink -rename "
             "-renamenx -restore -migrate -copy -move -swapdb -flushdb -flushall -config -shutdown -debug -acl "
             "-module -keys").split()
    redis_conn.execute_command("ACL", "SETUSER", name, *rules)
    try:
        host, port = redis_server[1].host, redis_server[1].port
        api = ValidatingClient(create_app(Settings(redis_url=f"redis://{name}:{password}@{host}:{port}/0",
                                                   rq_redis_url=redis_url, key_prefix=key_prefix,
                                                   rate_limit_per_minute=1000)))
        key = fresh_key()
        bad = api.post("/bots", json={"name": "me"}, headers={"Idempotency-Key": key})
        assert bad.status_code == 422 and bad.get_json()["code"] == "invalid_bot_name"
        assert slots(redis_conn, key_prefix) == []
        first = api.post("/bots", json={"name": "acl-bot"}, headers={"Idempotency-Key": key})
        assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
        again = api.post("/bots", json={"name": "acl-bot"}, headers={"Idempotency-Key": key})
        assert again.headers["Idempotent-Replayed"] == "true" and again.get_json() == first.get_json()
    finally:
        redis_conn.execute_command("ACL", "DELUSER", name)


class _LoseTheFirstMatchAnswer:
    """A proxy in front of the app that loses the answer of the first POST /matches (502), after
    the app has started the match, and notes the Idempotency-Key of every POST /matches."""

    def __init__(self, app):
        self.app = app
        self.keys: list[str | None] = []

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] == "POST" and environ["PATH_INFO"] == "/matches":
            self.keys.append(environ.get("HTTP_IDEMPOTENCY_KEY"))
            if len(self.keys) == 1:
                answer = self.app(environ, lambda status, headers, exc_info=None: None)
                try:
                    b"".join(answer)
                finally:
                    getattr(answer, "close", lambda: None)()
                start_response("502 Bad Gateway", [("Content-Type", "text/plain")])
                return [b"the answer was lost on the way"]
        return self.app(environ, start_response)


class _Started(Exception):
    pass


def test_ginbox_match_sends_its_post_again_with_one_key_after_a_lost_answer_and_starts_one_match(api, api_app):
    from werkzeug.serving import make_server

    from workers import arena_match

    proxy = _LoseTheFirstMatchAnswer(api_app)
    server = make_server("127.0.0.1", 0, proxy, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    reports: list[str] = []

    def started(match_id: str) -> None:
        raise _Started(match_id)  # stop following: the match is the server's

    try:
        with pytest.raises(_Started) as stopped:
            arena_match.run_remote(f"http://127.0.0.1:{server.server_port}", MATCH, started=started,
                                   report=reports.append)
    finally:
        server.shutdown()
        server.server_close()
    assert len(proxy.keys) == 2 and proxy.keys[0] and proxy.keys[0] == proxy.keys[1]
    assert any("POST /matches: 502" in line for line in reports), reports
    assert match_ids(api) == {stopped.value.args[0]}
