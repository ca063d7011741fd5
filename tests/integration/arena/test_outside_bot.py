"""The bot guide's complete bot (service/docs/BOTS.md): it plays whole games through the public HTTP API only, waits when a
real server (gunicorn) asks it to (429, 503), and stops with its documented exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time

import pytest
from werkzeug.serving import make_server

from service.redis_process import RedisServerProcess
from support.apiclient import ValidatingClient
from support.servers import REPO, ApiServer, HttpClient, service_env
from workers import outside_bot

# Seat 0 (the non-dealer: seat 1 deals) holds AC 2C 3C, 4D 4H 4S, 7S 8S 9S and KD; the upcard
# TS makes 7S-TS a run, so the bot takes it, discards KD and knocks for gin: 20 points in gin
# rami, which ends a game played to 20. Seat 1 never has to move.
_BOT = ["AC", "2C", "3C", "4D", "4H", "4S", "7S", "8S", "9S", "KD"]
_OTHER = ["5C", "6C", "8C", "5D", "6D", "8D", "5H", "6H", "8H", "QH"]
_DECK = [c for pair in zip(_BOT, _OTHER) for c in pair] + ["TS"]
_DECK += [r + s for s in "CDHS" for r in "A23456789TJQK" if r + s not in _DECK]
ONE_HAND_GAME = {"variant": "gin-rami", "options": {"target_score": 20}, "first_dealer": 1, "decks": [_DECK],
                 "seats": [{"name": "bot"}, {"name": "idle"}]}
# the bot's requests in that game: its view, take_upcard (whose answer is its view, with the knock
# to make), the knock (whose answer says the game is over); it works its melds out itself
BOT_REQUESTS = 3

WAIT_LINE = re.compile(r"(\d{3}) (\w+): .*?(?: \(Retry-After: (\d+)\))?; waiting ([\d.]+) s")


def run_bot(base: str, game_id: str, token: str, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.outside_bot", base, game_id, token, "--poll", "0.05", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def create(port: int, body: dict) -> dict:
    reply = HttpClient("127.0.0.1", port).call("POST", "/games", body)
    assert reply.status == 201, reply.body
    return reply.body


def test_two_outside_bots_finish_a_gin_rami_game_over_http(api_app):
    server = make_server("127.0.0.1", 0, api_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        client = ValidatingClient(api_app)
        created = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": 25},
                                              "seats": [{"name": "ann"}, {"name": "bob"}]}).get_json()
        game_id = created["game_id"]
        tokens = [s["token"] for s in created["seats"]]
        finals: dict[int, dict] = {}

        def run(seat):
            finals[seat] = outside_bot.play(base, game_id, tokens[seat], poll_s=0.02, deadline_s=240)

        bots = [threading.Thread(target=run, args=(seat,)) for seat in (0, 1)]
        for b in bots:
            b.start()
        for b in bots:
            b.join(260)
        assert set(finals) == {0, 1}, "a bot did not reach the end of the game"
        final = client.get(f"/games/{game_id}").get_json()
        assert final["status"] == "over"
        assert max(final["scores"]) >= 25
        assert final["scores"][final["winner"]] == max(final["scores"])
        # every move went through the API with If-Match: the log has no gap
        events = client.get(f"/games/{game_id}/events?limit=1000").get_json()["events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    finally:
        server.shutdown()


@pytest.mark.slow
def test_the_bot_waits_out_the_rate_limit_and_finishes_the_game(tmp_path, redis_url, key_prefix):
    # 2 requests a minute per token (the game's creation counts against the address, not the bot's
    # seat token): the bot's first 2 requests fill the window, its 3rd is refused until the minute
    # turns (at most 60 s), then fits in the next
    limit, max_wait = 2, 4.0
    assert BOT_REQUESTS == limit + 1
    env = service_env(redis_url, key_prefix, GINBOX_RATE_LIMIT=limit)
    with ApiServer(env, tmp_path / "gunicorn.log", workers=1) as api:
        left = 60 - time.time() % 60
        if left < 10:  # so that the first 2 requests surely fall in one window
            time.sleep(left + 0.2)
        created = create(api.port, ONE_HAND_GAME)
        started = time.monotonic()
        done = run_bot(f"http://127.0.0.1:{api.port}", created["game_id"], created["seats"][0]["token"],
                       "--max-wait", str(max_wait), "--deadline", "120", timeout=150)
        elapsed = time.monotonic() - started

        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"scores": [20, 0], "winner": 0}
        waits = [m.groups() for m in WAIT_LINE.finditer(done.stderr)]
        assert waits, f"the bot never waited:\n{done.stderr}"
        assert {(status, code) for status, code, _, _ in waits} == {("429", "rate_limited")}
        for _, _, retry_after, seconds in waits:
            # Retry-After honoured up to the cap, plus at most 20% of jitter
            wanted = min(float(retry_after), max_wait)
            assert wanted <= float(seconds) <= wanted * 1.2 + 0.05, (retry_after, seconds)
        # it waited, it did not hammer: about one try per max_wait until the window turned
        assert len(waits) <= 60 / max_wait + 2, done.stderr
        assert elapsed < 75

        reply = HttpClient("127.0.0.1", api.port).call("GET", f"/games/{created['game_id']}")
        assert reply.status == 200 and reply.body["status"] == "over" and reply.body["winner"] == 0


@pytest.mark.slow
def test_the_bot_waits_out_a_redis_outage_and_finishes_the_game(tmp_path, key_prefix):
    redis = RedisServerProcess(tmp_path / "redis").start()
    api = None
    bot = None
    try:
        api = ApiServer(service_env(redis.url, key_prefix), tmp_path / "gunicorn.log", workers=1).start()
        created = create(api.port, ONE_HAND_GAME)
        redis.stop()
        stderr = tmp_path / "bot.err"
        with open(stderr, "w") as err:
            bot = subprocess.Popen([sys.executable, "-m", "workers.outside_bot", f"http://127.0.0.1:{api.port}",
                                    created["game_id"], created["seats"][0]["token"], "--deadline", "60"],
                                   cwd=REPO, stdout=subprocess.PIPE, stderr=err, text=True)
        deadline = time.monotonic() + 20
        while stderr.read_text().count("503 redis_unavailable") < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert stderr.read_text().count("503 redis_unavailable") >= 2, stderr.read_text()
        assert bot.poll() is None, "the bot stopped during the outage"
        redis = RedisServerProcess(redis.data_dir, port=redis.port).start()
        out, _ = bot.communicate(timeout=40)
        assert bot.returncode == 0, stderr.read_text()
        assert json.loads(out) == {"scores": [20, 0], "winner": 0}
        assert "(Retry-After: 1)" in stderr.read_text()
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        if api is not None:
            api.stop()
        redis.stop()


@pytest.fixture(scope="module")
def live_api(tmp_path_factory, redis_url):
    tmp = tmp_path_factory.mktemp("outside-bot")
    env = service_env(redis_url, f"gbt{time.time_ns() % 10**12}")
    with ApiServer(env, tmp / "gunicorn.log", workers=1) as api:
        yield api


def test_an_unknown_game_stops_the_bot_with_exit_code_3(live_api):
    done = run_bot(f"http://127.0.0.1:{live_api.port}", "AAAAAAAAAAAAAAAA", "some-token")
    assert done.returncode == outside_bot.EXIT_NOT_FOUND == 3
    assert "404 game_not_found: there is no game 'AAAAAAAAAAAAAAAA'" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_token_of_no_seat_stops_the_bot_with_exit_code_4(live_api):
    created = create(live_api.port, ONE_HAND_GAME)
    done = run_bot(f"http://127.0.0.1:{live_api.port}", created["game_id"], "not-a-seat-token")
    assert done.returncode == outside_bot.EXIT_REFUSED == 4
    assert "401 unauthorized: " in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_a_server_that_never_answers_makes_the_bot_give_up_with_exit_code_5():
    from service.redis_process import free_port

    port = free_port()  # nothing listens there
    done = run_bot(f"http://127.0.0.1:{port}", "AAAAAAAAAAAAAAAA", "t", "--deadline", "3")
    assert done.returncode == outside_bot.EXIT_GAVE_UP == 5
    assert "no answer" in done.stderr and "gave up" in done.stderr
    assert "Traceback" not in done.stderr


def test_wrong_arguments_exit_with_code_2():
    done = subprocess.run([sys.executable, "-m", "workers.outside_bot", "http://127.0.0.1:1"],
                          cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == outside_bot.EXIT_USAGE == 2
    assert "usage:" in done.stderr


def test_a_game_id_or_token_beginning_with_a_dash_is_taken_as_one():
    # ids and tokens are URL-safe base64: about one in 64 begins with '-'
    done = subprocess.run([sys.executable, "-m", "workers.outside_bot", "http://127.0.0.1:1", "-GsngNFUOHabcdef",
                           "-token", "--deadline", "0.5"], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert done.returncode == outside_bot.EXIT_GAVE_UP, done.stderr
    assert "/games/-GsngNFUOHabcdef" in done.stderr
