"""Redis killed with kill -9 while people play over HTTP, then started again on its data.

The API runs under a real gunicorn (one gevent process) on a private redis-server with
``appendfsync always``. Client threads play gin-rami games to the end, one game per thread at a
time, each move sent with its own Idempotency-Key and retried with the same key and body until
it is answered 2xx. In the middle Redis is killed -9 for a few seconds and restarted on the same
port and directory. Then every game's log is read back and checked:

* every acknowledged (2xx) move is in the log at the version its ETag named, as the command of
  the seat that sent it;
* the log holds nothing else: one command per acknowledged move (a retry of a move whose
  first answer was lost is answered from its key, never appended twice);
* while Redis was down every answer was a 503 problem+json ``redis_unavailable``, in bounded
  time; the same gunicorn worker answered 2xx again once Redis was back, without a restart.

A second test holds a live stream open while Redis is killed: the stream ends in bounded time
(no reader hangs on a dead Redis), and once Redis is back a stream opened with Last-Event-ID
delivers what was recorded since, from the same worker.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field

import pytest
from support.logcheck import commands_in_log
from support.servers import ApiServer, HttpClient, open_stream, read_event_ids, service_env

from service.connections import redis_client
from service.redis_process import RedisServerProcess
from service.store.redis_store import RedisEventStore

PLAYERS = 6
MOVES_BEFORE_KILL = 120      # acknowledged moves (all players) before Redis is killed
OUTAGE_S = 2.5               # how long Redis stays down
MOVES_AFTER_RESTART = 15     # acknowledged moves per player after the restart
RUN_DEADLINE_S = 60.0        # the whole exchange; a player still retrying then is a failure
REDIS_TIMEOUT_S = 0.5        # the API's Redis socket timeouts
# A request while Redis is down must fail fast instead of hanging: a few socket timeouts at most.
# (A bound on hanging, generous on a loaded CI machine; not a performance figure.)
OUTAGE_ANSWER_BOUND_S = 4 * REDIS_TIMEOUT_S + 3.0


@dataclass
class Ack:
    game_id: str
    version: int
    seat: int
    move: dict


@dataclass
class PlayerLog:
    acks: list = field(default_factory=list)         # Ack of every 2xx move
    games: dict = field(default_factory=dict)        # game id -> version of its creation
    outage: list = field(default_factory=list)       # (status, code, seconds) of each 503
    unexpected: list = field(default_factory=list)   # anything else that was not 2xx
    unresolved: list = field(default_factory=list)   # moves never answered 2xx
    acks_after_restart: int = 0


class Player(threading.Thread):
    """Plays gin-rami games over HTTP, both seats, random legal moves, retrying through outages."""

    def __init__(self, n: int, port: int, restarted: threading.Event, stop: threading.Event, deadline: float):
        super().__init__(name=f"player-{n}", daemon=True)
        self.rng = random.Random(1000 + n)
        self.http = HttpClient("127.0.0.1", port, timeout=30)
        self.restarted = restarted
        self.stop = stop
        self.deadline = deadline
        self.log = PlayerLog()

    def call(self, method, path, body=None, token=None, headers=None):
        """One exchange, repeated while the answer is 503 (until the deadline); None if never 2xx."""
        while time.monotonic() < self.deadline:
            try:
                reply = self.http.call(method, path, body, token=token, headers=headers)
            except OSError as exc:  # the API itself must stay up: a dropped connection is a failure
                self.log.unexpected.append((method, path, f"connection error {exc!r}"))
                self.http.close()
                time.sleep(0.05)
                continue
            if reply.status == 503:
                code = reply.body.get("code") if isinstance(reply.body, dict) else None
                self.log.outage.append((reply.status, reply.headers.get("content-type"), code, reply.seconds))
                time.sleep(0.05)
                continue
            if 200 <= reply.status < 300:
                return reply
            self.log.unexpected.append((method, path, reply.status, reply.raw[:300]))
            return None
        return None

    def run(self) -> None:
        try:
            while not self.stop.is_set() and time.monotonic() < self.deadline:
                self.play_one_game()
        finally:
            self.http.close()

    def play_one_game(self) -> None:
        created = self.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        if created is None:
            return
        game_id = created.body["game_id"]
        tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
        self.log.games[game_id] = created.version
        view = created.body["view"]
        while view["status"] == "playing" and not self.stop.is_set():
            seat = view["to_act"][0]
            mine = self.call("GET", f"/games/{game_id}", token=tokens[seat])
            if mine is None:
                return
            moves = mine.body["legal_moves"]
            knocks = [m for m in moves if m["type"] == "knock"]
            move = self.rng.choice(knocks) if knocks and self.rng.random() < 0.8 else self.rng.choice(moves)
            key = uuid.uuid4().hex
            answered = self.call("POST", f"/games/{game_id}/moves", move, token=tokens[seat],
                                 headers={"Idempotency-Key": key})
            if answered is None:
                self.log.unresolved.append((game_id, seat, move))
                return
            self.log.acks.append(Ack(game_id, answered.version, seat, move))
            if self.restarted.is_set():
                self.log.acks_after_restart += 1
            view = answered.body


@pytest.fixture
def redis(tmp_path):
    server = RedisServerProcess(tmp_path / "redis", appendfsync="always").start()
    holder = {"server": server}
    yield holder
    holder["server"].kill()


@pytest.mark.slow
def test_no_acknowledged_move_is_lost_or_doubled_when_redis_is_killed_and_restarted(redis, tmp_path, key_prefix):
    server: RedisServerProcess = redis["server"]
    env = service_env(server.url, key_prefix, GINBOX_REDIS_TIMEOUT=REDIS_TIMEOUT_S, GINBOX_RATE_LIMIT=10**9)
    api = ApiServer(env, tmp_path / "gunicorn.log", workers=1, threads=8).start()
    restarted, stop = threading.Event(), threading.Event()
    deadline = time.monotonic() + RUN_DEADLINE_S
    players = [Player(n, api.port, restarted, stop, deadline) for n in range(PLAYERS)]
    probe = HttpClient("127.0.0.1", api.port, timeout=30)
    try:
        for p in players:
            p.start()
        while sum(len(p.log.acks) for p in players) < MOVES_BEFORE_KILL and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sum(len(p.log.acks) for p in players) >= MOVES_BEFORE_KILL, "the players did not get going"

        server.kill()  # kill -9, in the middle of the players' requests
        time.sleep(OUTAGE_S / 2)
        down = probe.call("GET", "/readyz")
        assert down.status == 503 and down.body["code"] == "redis_unavailable"
        time.sleep(OUTAGE_S / 2)

        server = redis["server"] = RedisServerProcess(server.data_dir, port=server.port, appendfsync="always").start()
        restarted.set()
        while time.monotonic() < deadline and any(p.log.acks_after_restart < MOVES_AFTER_RESTART for p in players):
            time.sleep(0.05)
        assert probe.call("GET", "/readyz").status == 200
    finally:
        stop.set()
        for p in players:
            p.join(RUN_DEADLINE_S + 10)
        probe.close()
        api.stop()

    logs = [p.log for p in players]
    assert [x for log in logs for x in log.unexpected] == []
    assert [x for log in logs for x in log.unresolved] == []
    assert all(log.acks_after_restart >= MOVES_AFTER_RESTART for log in logs), "the API did not recover by itself"
    assert api.booted_workers() == 1, "the gunicorn worker was restarted"

    outage = [x for log in logs for x in log.outage]
    assert outage, "no request met the outage"
    for status, ctype, code, seconds in outage:
        assert (status, ctype, code) == (503, "application/problem+json", "redis_unavailable")
        assert seconds <= OUTAGE_ANSWER_BOUND_S, f"a 503 took {seconds:.2f}s"

    conn = redis_client(server.url)
    store = RedisEventStore(conn, prefix=key_prefix)
    try:
        for log in logs:
            acks_by_game: dict[str, list[Ack]] = {}
            for ack in log.acks:
                acks_by_game.setdefault(ack.game_id, []).append(ack)
            for game_id, created_version in log.games.items():
                records = store.load(game_id)
                created_at, groups = commands_in_log(records)
                assert created_at == created_version
                acks = acks_by_game.get(game_id, [])
                # every acknowledged move is the command recorded at the version it was told
                for ack in acks:
                    assert ack.version in groups, f"acknowledged move {ack} is not in the log"
                    seat, possible = groups[ack.version]
                    assert seat == ack.seat and ack.move in possible, f"{ack} differs from the log's {groups[ack.version]}"
                # and the log holds nothing else: no move appended twice, none without its answer
                assert sorted(groups) == sorted(a.version for a in acks)
    finally:
        conn.close()


@pytest.mark.slow
def test_a_live_stream_ends_when_redis_dies_and_resumes_from_last_event_id_once_it_is_back(redis, tmp_path,
                                                                                             key_prefix):
    """No stream hangs on a dead Redis, and a client that reconnects with Last-Event-ID misses nothing."""
    server: RedisServerProcess = redis["server"]
    env = service_env(server.url, key_prefix, GINBOX_REDIS_TIMEOUT=REDIS_TIMEOUT_S, GINBOX_RATE_LIMIT=10**9)
    api = ApiServer(env, tmp_path / "gunicorn.log", workers=1).start()
    http_ = HttpClient("127.0.0.1", api.port, timeout=30)
    try:
        created = http_.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        game_id = created.body["game_id"]
        tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
        seen = created.body["view"]["version"]
        # a live stream sends a keep-alive every 5 s: a read waiting 15 s is a hung stream
        live = open_stream(api.port, game_id, tokens[0], timeout=15)
        assert live.status == 200
        ids, ended = read_event_ids(live, time.monotonic() + 2, stop_at=seen)
        assert ids[-1] == seen and not ended

        server.kill()
        ids, ended = read_event_ids(live, time.monotonic() + 15)
        assert ended, "the stream still hung 15 s after Redis died"
        live.close()
        assert http_.call("GET", "/readyz").status == 503

        server = redis["server"] = RedisServerProcess(server.data_dir, port=server.port, appendfsync="always").start()
        back_by = time.monotonic() + 10
        while (mine := http_.call("GET", f"/games/{game_id}", token=tokens[0])).status == 503:
            assert time.monotonic() < back_by, "the API did not reach Redis again"
            time.sleep(0.1)
        seat = mine.body["to_act"][0]
        moved = http_.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=tokens[seat])
        assert moved.status == 200
        resumed = open_stream(api.port, game_id, tokens[0], last_event_id=seen)
        assert resumed.status == 200
        ids, _ = read_event_ids(resumed, time.monotonic() + 10, stop_at=moved.body["version"])
        resumed.close()
        assert ids[0] == seen + 1 and ids[-1] == moved.body["version"]
    finally:
        http_.close()
        api.stop()
    assert api.booted_workers() == 1, "the gunicorn worker was restarted"
