"""How long a bot takes to answer a human's move, end to end, with one ``ginbox worker`` process.

Starts its own redis-server and one worker process, creates gin-rami games of a human (played by
this script through the HTTP API, with the basic policy choosing its moves) against a bot, and
after each human move that hands the turn to the bot measures:

* answer: from sending the human's move to the bot's first event appearing in the log (read
  with the store's blocking stream read, as the API's event stream does);
* turn: until the bot's whole turn is in the log and the human is to act again;
* log ts: the same first delay measured on the timestamps the store recorded for the two events.

    python tests/bench/bench_bot_latency.py --moves 200 --bots basic,expert
    python tests/bench/bench_bot_latency.py --moves 100 --bots basic --match-boards 200

With ``--match-boards N`` a duplicate match of ``basic`` against ``basic`` (N boards, started again
whenever it ends) keeps the board queue full while the bots answer, and the workers are the ones
``ginbox serve`` starts by default (one on the turn queue alone, one on both, turns first).

The expert thinks for the worker's budget per move (workers.jobs.DEFAULT_BUDGET_S).

It prints median, p90, p99 and max per bot; it never fails on a figure.
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

from service.composition import make_bot_scheduler  # noqa: E402
from service.config import Settings  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402
from service.rules.commands import command_to_dict  # noqa: E402
from workers.jobs import DEFAULT_BUDGET_S  # noqa: E402
from workers.policies import basic_move, read  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def show(label: str, xs: list[float]) -> str:
    if not xs:
        return f"  {label:8s} no samples"
    return (f"  {label:8s} median {1000 * statistics.median(xs):7.1f} ms   p90 {1000 * pct(xs, 0.9):7.1f} ms   "
            f"p99 {1000 * pct(xs, 0.99):7.1f} ms   max {1000 * max(xs):7.1f} ms   (n={len(xs)})")


def measure(client, store, bot: str, moves: int, between=lambda: None) -> dict:
    answer, turn, log_ts = [], [], []
    seat_bot = {"bot": bot, "name": f"{bot}-bot"}
    games = 0
    while len(answer) < moves:
        resp = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "human"}, seat_bot],
                                           "options": {"target_score": 100}})
        assert resp.status_code == 201, resp.get_data(as_text=True)
        body = resp.get_json()
        game_id = body["game_id"]
        token = next(s["token"] for s in body["seats"] if s["seat"] == 0)
        auth = {"Authorization": f"Bearer {token}"}
        games += 1
        while len(answer) < moves:
            between()
            view = client.get(f"/games/{game_id}", headers=auth).get_json()
            if view["status"] != "playing":
                break
            if 0 not in view["to_act"]:
                # the bot's turn (say, at a deal): wait for the log to move on
                store.wait_for_events(game_id, view["version"], 5.0)
                continue
            move = command_to_dict(basic_move(read(view)))
            t0 = time.perf_counter()
            resp = client.post(f"/games/{game_id}/moves", json=move, headers={**auth, "If-Match": f'"{view["version"]}"'})
            assert resp.status_code == 200, resp.get_data(as_text=True)
            mine = resp.get_json()
            if mine["status"] != "playing" or 1 not in mine["to_act"]:
                continue
            after = mine["version"]
            human_ts = store.load(game_id, after=after - 1, upto=after)[0].ts
            first = None
            while True:
                records = store.wait_for_events(game_id, after, 10.0)
                if not records:
                    raise RuntimeError(f"the bot did not answer in game {game_id} at version {after}")
                now = time.perf_counter()
                for r in records:
                    if first is None:
                        first = now
                        answer.append(now - t0)
                        log_ts.append((r.ts - human_ts) / 1000)
                after = records[-1].version
                view = client.get(f"/games/{game_id}", headers=auth).get_json()
                if view["status"] != "playing" or 0 in view["to_act"]:
                    turn.append(time.perf_counter() - t0)
                    break
    return {"answer": answer, "turn": turn, "log_ts": log_ts, "games": games}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moves", type=int, default=200, help="human moves answered by each bot (default 200)")
    ap.add_argument("--bots", default="basic,expert", help="comma-separated bot policies")
    ap.add_argument("--match-boards", type=int, default=0,
                    help="keep a policy-only match of this many boards in play meanwhile, with the workers of "
                         "ginbox serve (default 0: no match, one worker)")
    args = ap.parse_args(argv)

    from service.app import create_app

    data = tempfile.mkdtemp(prefix="ginbox-latency-")
    redis = RedisServerProcess(Path(data) / "redis").start()
    workers: list[subprocess.Popen] = []
    try:
        settings = Settings(redis_url=redis.url, key_prefix="latency", queue_name="latency-bots",
                            rate_limit_per_minute=10**9)
        app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
        client = app.test_client()
        store = app.extensions["ginbox"].store
        env = dict(os.environ, REDIS_URL=redis.url, GINBOX_KEY_PREFIX="latency", GINBOX_QUEUE="latency-bots")
        if args.match_boards:
            from service.cli import serve_workers

            # ginbox serve's default: --workers-turns 1 --workers-bots 1
            commands = [cmd for _, cmd in serve_workers(argparse.Namespace(workers_turns=1, workers_bots=1))]
        else:
            commands = [["worker"]]
        for i, command in enumerate(commands):
            workers.append(subprocess.Popen([sys.executable, "-m", "service.cli", *command], cwd=REPO, env=env,
                                            stdout=open(Path(data) / f"worker{i}.log", "wb"),
                                            stderr=subprocess.STDOUT, start_new_session=True))
        time.sleep(1.0)
        matches: list[str] = []

        def keep_a_match_going() -> None:
            if args.match_boards and (not matches or client.get(f"/matches/{matches[-1]}").get_json()["status"] == "over"):
                created = client.post("/matches", json={"variant": "gin-rami", "participants": ["basic", "basic"],
                                                        "boards": args.match_boards, "rated": False})
                assert created.status_code == 201, created.get_data(as_text=True)
                matches.append(created.get_json()["match_id"])

        keep_a_match_going()
        setup = (f"workers: {', '.join(' '.join(c) for c in commands)}"
                 + (f"; a {args.match_boards}-board basic-vs-basic match in play throughout" if args.match_boards else ""))
        print(f"{setup}; redis {redis.url}; {args.moves} human moves per bot")
        for bot in args.bots.split(","):
            got = measure(client, store, bot, args.moves, between=keep_a_match_going)
            note = f" (budget {1000 * DEFAULT_BUDGET_S:g} ms/move)" if bot == "expert" else ""
            print(f"\n{bot}{note}: {got['games']} games")
            print(show("answer", got["answer"]))
            print(show("turn", got["turn"]))
            print(show("log ts", got["log_ts"]))
        if matches:
            done = sum(client.get(f"/matches/{m}").get_json()["boards_done"] for m in matches)
            print(f"\nmeanwhile: {len(matches)} match(es), {done} boards played")
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                try:
                    worker.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(worker.pid, signal.SIGKILL)
        redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
