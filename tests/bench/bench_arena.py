"""How fast duplicate matches run: bot turns and whole boards per second with 1 and 2 workers, the
queue's latency, and one match in this process against the same match through the server.

Starts its own redis-server (the events and the job queue on one server, as `ginbox serve` does),
builds the API in this process (its test client creates and reads the matches) and starts
``ginbox worker`` processes. For each worker count it plays a match of ``basic`` against
``basic`` and prints:

* bot turns per second: the commands recorded in the match's games (each an RQ job) over the
  time from the match's creation to its end;
* boards per second: boards complete over the same time;
* queue latency: for each finished job, RQ's ``started_at - enqueued_at`` (median and p99);
* Redis commands per bot turn: every command Redis ran during the match (INFO commandstats), over
  the bot turns.

Then, for each worker count, a round-robin tournament of ``--tournament-entries`` built-in
policies (``basic``, ``basic-2``, ...) of ``--tournament-boards`` boards a pairing, from its creation
to its end: whole pairings per second (the figure for 2 workers against the 1 worker's in the same run).

Then the time of one match of ``--compare-boards`` boards played in this process (``ginbox match
--local``: the same boards, seating and scoring, no Redis) and through the server with the
largest worker count, and their ratio. Target: the served match within 5x of the one in this process.

    python tests/bench/bench_arena.py --boards 40 --workers 1,2 --compare-boards 200 --tournament-entries 6
    python tests/bench/bench_arena.py --appendfsync no

It prints figures; it never fails on one.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from rq.job import Job  # noqa: E402
from rq.registry import FinishedJobRegistry  # noqa: E402

from service.bots import bot_queue  # noqa: E402
from service.composition import make_bot_scheduler, queue_connection  # noqa: E402
from service.config import Settings  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402
from service.rules import duplicate as D  # noqa: E402
from workers.arena_match import run_local  # noqa: E402

#: the events that open a command's group in a game's log: one per bot turn
COMMAND_EVENTS = {"upcard_passed", "upcard_taken", "card_drawn", "card_discarded", "knocked", "big_gin_declared"}


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Workers:
    def __init__(self, env: dict, data: Path):
        self.env, self.data, self.procs = env, data, []

    def start(self, n: int) -> None:
        for _ in range(n):
            log = open(self.data / f"worker{len(self.procs)}.log", "wb")
            self.procs.append(subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], cwd=REPO,
                                               env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                               start_new_session=True))
        time.sleep(1.5)  # let them connect before the clock starts

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
        self.procs = []


def play_on_server(client, boards: int) -> tuple[str, float]:
    t0 = time.perf_counter()
    match_id = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                             "boards": boards, "rated": False}).get_json()["match_id"]
    while client.get(f"/matches/{match_id}").get_json()["status"] != "over":
        time.sleep(0.1)
    return match_id, time.perf_counter() - t0


def tournament_on_server(client, entries: int, boards: int) -> tuple[int, float]:
    """(pairings, seconds) of a round-robin of ``entries`` basic policies, from its creation to its end."""
    t0 = time.perf_counter()
    made = client.post("/tournaments", json={"system": "round_robin", "entries": ["basic"] * entries,
                                             "boards": boards, "rated": False}).get_json()
    while True:
        view = client.get(f"/tournaments/{made['tournament_id']}").get_json()
        if view["status"] == "over":
            return sum(len(r["pairings"]) for r in view["schedule"]), time.perf_counter() - t0
        time.sleep(0.1)


def commands_sent(redis) -> int:
    """Every command Redis has run so far, for every client (INFO commandstats)."""
    return sum(row["calls"] for row in redis.info("commandstats").values())


def turns_of(store, match_id: str, boards: int) -> int:
    count = 0
    for board in range(boards):
        for table in range(2):
            count += sum(1 for r in store.load(D.game_id_for(match_id, board, table))
                         if type(r.event).TYPE in COMMAND_EVENTS)
    return count


def queue_latencies(settings: Settings) -> list[float]:
    conn = queue_connection(settings)
    queue = bot_queue(conn, settings.board_queue)  # the board games' jobs: the match's only jobs
    registry = FinishedJobRegistry(queue=queue)
    ids = registry.get_job_ids()
    out = []
    for job in Job.fetch_many(ids, connection=conn, serializer=queue.serializer):
        if job is not None and job.enqueued_at and job.started_at:
            out.append((job.started_at - job.enqueued_at).total_seconds())
    for job_id in ids:  # the next run measures its own jobs only
        registry.remove(job_id, delete_job=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=40, help="boards of each measured match (default 40)")
    ap.add_argument("--workers", default="1,2", help="worker counts to measure (default 1,2)")
    ap.add_argument("--compare-boards", type=int, default=200,
                    help="boards of the match played in-process and through the server (default 200; 0: skip)")
    ap.add_argument("--tournament-entries", type=int, default=6,
                    help="entries of the measured round-robin (default 6: 15 pairings; 0: skip)")
    ap.add_argument("--tournament-boards", type=int, default=2, help="boards of each pairing (default 2)")
    ap.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"],
                    help="Redis's appendfsync (default always, as ginbox serve runs it; 'no' shows what the "
                         "disk's fsync of each append costs)")
    args = ap.parse_args(argv)

    from service.app import create_app

    data = Path(tempfile.mkdtemp(prefix="ginbox-arena-"))
    redis = RedisServerProcess(data / "redis", appendfsync=args.appendfsync).start()
    settings = Settings(redis_url=redis.url, key_prefix="arena", queue_name="arena-bots", rate_limit_per_minute=10**9)
    workers = Workers(dict(os.environ, REDIS_URL=redis.url, GINBOX_KEY_PREFIX="arena", GINBOX_QUEUE="arena-bots"),
                      data)
    try:
        app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
        client = app.test_client()
        store = app.extensions["ginbox"].store
        counts = [int(n) for n in args.workers.split(",")]
        print(f"basic against basic, gin-rami, {args.boards} boards (x2 tables); redis {redis.url}, appendfsync "
              f"{args.appendfsync}; {os.cpu_count()} CPUs")
        redis_conn = app.extensions["ginbox"].redis
        for n in counts:
            workers.start(n)
            sent = commands_sent(redis_conn)
            match_id, elapsed = play_on_server(client, args.boards)
            sent = commands_sent(redis_conn) - sent
            turns = turns_of(store, match_id, args.boards)
            lat = queue_latencies(settings)
            workers.stop()
            print(f"\n{n} worker(s): {elapsed:.1f} s, {turns} bot turns")
            print(f"  bot turns/s  {turns / elapsed:8.1f}")
            print(f"  Redis commands per bot turn  {sent / turns:6.1f}  (every client: the workers, RQ, the "
                  f"match's creation and this script's reads of it)")
            print(f"  boards/s     {args.boards / elapsed:8.2f}")
            if lat:
                print(f"  queue latency (enqueue to start)  median {1000 * statistics.median(lat):.1f} ms   "
                      f"p99 {1000 * pct(lat, 0.99):.1f} ms   (n={len(lat)})")
        if args.tournament_entries:
            print(f"\nround-robin of {args.tournament_entries} basic policies, {args.tournament_boards} boards a pairing")
            rates = {}
            for n in counts:
                workers.start(n)
                pairings, elapsed = tournament_on_server(client, args.tournament_entries, args.tournament_boards)
                workers.stop()
                rates[n] = pairings / elapsed
                ratio = f"   ({rates[n] / rates[counts[0]]:.2f}x {counts[0]} worker(s))" if n != counts[0] else ""
                print(f"  {n} worker(s): {pairings} pairings in {elapsed:.1f} s, pairings/s {rates[n]:6.2f}{ratio}")
        if args.compare_boards:
            t0 = time.perf_counter()
            run_local("gin-rami", ["basic", "basic"], args.compare_boards)
            local = time.perf_counter() - t0
            workers.start(max(counts))
            _, served = play_on_server(client, args.compare_boards)
            workers.stop()
            ratio = served / local
            print(f"\n{args.compare_boards}-board match: in this process (--local) {local:.1f} s; "
                  f"through the server with {max(counts)} worker(s) {served:.1f} s")
            print(f"served / in-process = {ratio:.1f}x (target <= 5: {'met' if ratio <= 5 else 'MISSED'})")
    finally:
        workers.stop()
        redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
