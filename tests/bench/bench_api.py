"""Throughput and latency of the HTTP API: whole gin-rami games against a one-round-trip ceiling.

Starts its own redis-server (appendfsync always, as ``ginbox serve`` runs it) and the API under
gunicorn on loopback, with the worker class ``ginbox serve`` uses (gevent; ``--worker-class
gthread`` for the other). Client processes, each with a few threads and one keep-alive
connection per thread (http.client), then:

1. ceiling: GET /readyz as fast as they can for ``--seconds`` -- one Redis round trip (PING) per
   request through the same server, app and connection pool;
2. games: create gin-rami games with two human seats (target score 30, so that games end within
   the run and creation and game ends are part of the mix) and play them to the end, one POST
   /games/{id}/moves per move (the client knows the rules: in the upcard phase it takes or
   passes, in the draw phase it draws from the stock, and after a draw it picks from the
   legal_moves its own answer lists: a knock when it can, else the discard that leaves the
   least deadwood), for ``--seconds``.

The two phases take turns in ``--rounds`` bouts (default 4, ``--seconds`` in all for each), so
that a change in what else the machine is doing weighs on both alike; a game still going when its
bout ends is left there. It prints requests or moves per second and p50/p95/p99 latency for both, and their ratio.
Target: moves/s >= 0.5 x the ceiling's requests/s, with no error. With ``--profile N`` it then
plays N moves in-process under cProfile (the WSGI app called directly, same Redis, the access lines
written as the API processes write them) and prints where the server's time goes: a breakdown by
part of a move (the hooks, the body, the decision, the append, the view, the access line, the
metrics), then the functions that take the most. It prints figures only and never fails on them.

    python tests/bench/bench_api.py
    python tests/bench/bench_api.py --seconds 30 --procs 2 --threads 8 --workers 2
    python tests/bench/bench_api.py --worker-class gthread --gthreads 8
    python tests/bench/bench_api.py --profile 2000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.cli import WORKER_CLASSES  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402
# imported here, once: a client's threads importing the engine at the same moment on their first
# discard met a half-initialised module (ImportError), and that thread's games stopped
from service.rules.cards import index, mask  # noqa: E402
from service.rules.melds import deadwood_mask  # noqa: E402
from support.servers import ApiServer, HttpClient, service_env  # noqa: E402

NEW_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}], "options": {"target_score": 30}}


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


# -- clients ---------------------------------------------------------------------------------------

def choose(view: dict, rng: random.Random, same_seat: bool) -> dict:
    """The next move of the seat to act, from the last answer (its own view when ``same_seat``)."""
    phase = view["phase"]
    if phase == "upcard":
        return {"type": rng.choice(["take_upcard", "pass_upcard"])}
    if phase == "draw":
        return {"type": "draw_stock"}
    assert same_seat and phase == "discard", f"no move known for phase {phase!r}"
    moves = view["legal_moves"]
    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks and rng.random() < 0.9:
        return rng.choice(knocks)
    # the discard that leaves the least deadwood (ties at random), so that hands and games end;
    # the hand is made a bit mask once (the client's CPU is the server's machine's too)
    hand = mask(view["hand"])
    scored = [(deadwood_mask(hand & ~(1 << index(m["card"]))), rng.random(), m) for m in moves if m["type"] == "discard"]
    return min(scored, key=lambda t: t[:2])[2]


def play_games(port: int, until: float, seed: int, out: dict) -> None:
    """Play whole games until ``until``; collect move latencies (s), errors and finished games."""
    rng = random.Random(seed)
    http = HttpClient("127.0.0.1", port, timeout=60)
    latencies, errors, games = [], [], 0
    try:
        while time.monotonic() < until:
            created = http.call("POST", "/games", NEW_GAME)
            if created.status != 201:
                errors.append(("create", created.status, created.raw[:200]))
                continue
            game_id = created.body["game_id"]
            tokens = {s["seat"]: s["token"] for s in created.body["seats"]}
            view, mover = created.body["view"], None
            while view["status"] == "playing" and time.monotonic() < until:
                seat = view["to_act"][0]
                move = choose(view, rng, same_seat=(seat == mover))
                reply = http.call("POST", f"/games/{game_id}/moves", move, token=tokens[seat])
                if reply.status != 200:
                    errors.append(("move", reply.status, reply.raw[:200]))
                    resync = http.call("GET", f"/games/{game_id}", token=tokens[seat])
                    view, mover = resync.body, seat
                    continue
                latencies.append(reply.seconds)
                view, mover = reply.body, seat
            if view["status"] == "over":
                games += 1
    finally:
        http.close()
    out.update(latencies=latencies, errors=errors, games=games)


def hit_readyz(port: int, until: float, seed: int, out: dict) -> None:
    http = HttpClient("127.0.0.1", port, timeout=60)
    latencies, errors = [], []
    try:
        while time.monotonic() < until:
            reply = http.call("GET", "/readyz")
            if reply.status != 200:
                errors.append(("readyz", reply.status, reply.raw[:200]))
                continue
            latencies.append(reply.seconds)
    finally:
        http.close()
    out.update(latencies=latencies, errors=errors, games=0)


def client_process(kind: str, port: int, threads: int, start_at: float, seconds: float, seed: int, queue) -> None:
    """One client process: ``threads`` clients from ``start_at`` for ``seconds`` (monotonic clock)."""
    target = play_games if kind == "games" else hit_readyz
    while time.monotonic() < start_at:
        time.sleep(0.001)
    until = start_at + seconds
    cpu0 = time.process_time()
    outs = [{} for _ in range(threads)]
    ts = [threading.Thread(target=target, args=(port, until, seed * 1000 + i, outs[i])) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    queue.put({
        "latencies": [x for o in outs for x in o.get("latencies", [])],
        "errors": [x for o in outs for x in o.get("errors", [])],
        "games": sum(o.get("games", 0) for o in outs),
        "cpu": time.process_time() - cpu0,
    })


def run_phase(kind: str, port: int, procs: int, threads: int, seconds: float, seed: int = 17) -> dict:
    """One bout of ``kind`` for ``seconds``: raw latencies, errors, games, client CPU seconds."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    start_at = time.monotonic() + 1.0  # every process starts together
    ps = [ctx.Process(target=client_process, args=(kind, port, threads, start_at, seconds, seed + i, queue))
          for i in range(procs)]
    for p in ps:
        p.start()
    results = [queue.get() for _ in ps]
    for p in ps:
        p.join()
    return {
        "latencies": [x for r in results for x in r["latencies"]],
        "errors": [e for r in results for e in r["errors"]],
        "games": sum(r["games"] for r in results),
        "client_cpu": sum(r["cpu"] for r in results),
        "seconds": seconds,
    }


def summarize(bouts: list[dict]) -> dict:
    """The figures of a phase from its bouts."""
    lat = sorted(x for b in bouts for x in b["latencies"])
    return {
        "count": len(lat),
        "rate": len(lat) / sum(b["seconds"] for b in bouts),
        "p50": percentile(lat, 0.50) * 1000,
        "p95": percentile(lat, 0.95) * 1000,
        "p99": percentile(lat, 0.99) * 1000,
        "mean": (statistics.fmean(lat) * 1000) if lat else float("nan"),
        "errors": [e for b in bouts for e in b["errors"]],
        "games": sum(b["games"] for b in bouts),
        "client_cpu_ms": sum(b["client_cpu"] for b in bouts) / max(1, len(lat)) * 1000,
        "api_cpu_ms": sum(b["api_cpu"] for b in bouts) / max(1, len(lat)) * 1000,
        "redis_cpu_ms": sum(b["redis_cpu"] for b in bouts) / max(1, len(lat)) * 1000,
    }


# -- CPU accounting ------------------------------------------------------------------------------

def _cpu_seconds(pid: int) -> float:
    """utime + stime of one process, in seconds (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


def cpu_snapshot(api_pid: int, redis_pid: int) -> dict:
    """CPU seconds used so far by the gunicorn processes (master and workers) and by redis-server."""
    return {"api": sum(_cpu_seconds(p) for p in [api_pid, *_children(api_pid)]), "redis": _cpu_seconds(redis_pid)}


# -- profile ---------------------------------------------------------------------------------------

def profile_moves(redis_url: str, key_prefix: str, n_moves: int, top: int = 30) -> None:
    """Play ``n_moves`` in-process under cProfile and print the functions that take the time."""
    import cProfile
    import io
    import pstats

    from werkzeug.test import EnvironBuilder

    from service.app import create_app
    from service.config import Settings

    from service.logging import configure_logging

    # the access lines are written as the API processes write them (JSON on a stream), to nowhere
    devnull = open(os.devnull, "w")
    configure_logging(stream=devnull)
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix, rate_limit_per_minute=10**9))
    client = app.test_client()
    rng = random.Random(5)
    # CPU time, not wall time: what the request costs the server, whatever else runs on the machine
    prof = cProfile.Profile(time.process_time)
    done = 0
    t0 = time.perf_counter()
    while done < n_moves:
        created = client.post("/games", json=NEW_GAME).get_json()
        game_id = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        view, mover = created["view"], None
        while view["status"] == "playing" and done < n_moves:
            seat = view["to_act"][0]
            move = choose(view, rng, seat == mover)
            # the request is built outside the profile: only the server's own work is measured
            environ = EnvironBuilder(path=f"/games/{game_id}/moves", method="POST", json=move,
                                     headers={"Authorization": f"Bearer {tokens[seat]}"},
                                     environ_base={"REMOTE_ADDR": "127.0.0.1"}).get_environ()
            status = []
            prof.enable()
            body = b"".join(app.wsgi_app(environ, lambda st, hd, exc=None: status.append(st)))
            prof.disable()
            assert status[0].startswith("200"), body
            view, mover = json.loads(body), seat
            done += 1
    wall = time.perf_counter() - t0
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    total = sum(v[2] for v in stats.stats.values())
    print(f"\nprofile: {n_moves} moves in-process (the WSGI app called directly, no HTTP server), "
          f"{total / n_moves * 1000:.2f} ms of CPU per move in this process, Redis's own time excluded "
          f"({wall:.1f}s wall incl. creation)")
    print_breakdown(stats, total, n_moves)
    stats.sort_stats("tottime").print_stats(top)
    print("\n".join(out.getvalue().splitlines()[:top + 12]))
    out.seek(0)
    out.truncate()
    stats.sort_stats("cumulative").print_stats(top)
    print("\n".join(out.getvalue().splitlines()[:top + 12]))


#: the parts of a move's server CPU the breakdown names: (label, file's ending, function), each the
#: cumulative time of that function; nested parts are indented under the part that holds them
BREAKDOWN = [
    ("Flask's hooks before the view", "flask/app.py", "preprocess_request", 0),
    ("rate limit and body size (_guard)", "service/app.py", "_guard", 1),
    ("request's log context", "service/logging.py", "start", 1),
    ("the view (POST /games/{id}/moves)", "service/api/games.py", "post_move", 0),
    ("body: JSON and schema", "service/api/http.py", "load_body", 1),
    ("the use case (play)", "service/games/commands.py", "play", 1),
    ("the rules' decision", "service/rules/deciders.py", "decide", 2),
    ("the append (redis-py, Lua, fsync wait)", "service/store/redis_store.py", "append_outcome", 2),
    ("the view of the new state", "service/games/core.py", "render", 2),
    ("Flask's hooks after the view", "flask/app.py", "process_response", 0),
    ("JSON access log line", "service/logging.py", "finish", 1),
    ("metrics", "service/metrics.py", "_record", 1),
    ("Flask's teardown", "flask/app.py", "do_teardown_request", 0),
]


def print_breakdown(stats, total: float, n_moves: int) -> None:
    """Where a move's CPU in the app goes, as cumulative times of the functions BREAKDOWN names."""
    found = {}
    for (filename, _line, name), row in stats.stats.items():
        for label, ending, func, _depth in BREAKDOWN:
            if name == func and filename.replace(os.sep, "/").endswith(ending):
                found[label] = found.get(label, 0.0) + row[3]
    print("\nbreakdown of a move's CPU in the app (cumulative, under cProfile: read the shares, not the ms)")
    for label, _ending, _func, depth in BREAKDOWN:
        seconds = found.get(label, 0.0)
        print(f"  {'  ' * depth}{label:<{44 - 2 * depth}} {seconds / n_moves * 1000:7.3f} ms  {seconds / total:6.1%}")
    covered = sum(found.get(label, 0.0) for label, _e, _f, depth in BREAKDOWN if depth == 0)
    print(f"  {'the rest of Flask and werkzeug':<44} {(total - covered) / n_moves * 1000:7.3f} ms  "
          f"{(total - covered) / total:6.1%}")


# -- main ------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=4, help="bouts each phase is split into, taking turns")
    parser.add_argument("--procs", type=int, default=2, help="client processes")
    parser.add_argument("--threads", type=int, default=8, help="client threads (connections) per process")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--worker-class", choices=WORKER_CLASSES, default="gevent", help="gunicorn worker class")
    parser.add_argument("--gthreads", type=int, default=8, help="threads per gunicorn worker (gthread)")
    parser.add_argument("--appendfsync", default="always", choices=["always", "everysec", "no"])
    parser.add_argument("--no-rate-limit", action="store_true", help="switch the per-request limiter off")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="then profile N moves in-process")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ginbox-bench-api-") as tmp:
        redis = RedisServerProcess(Path(tmp) / "redis", appendfsync=args.appendfsync).start()
        prefix = f"bench{uuid.uuid4().hex[:8]}"
        env = service_env(redis.url, prefix, GINBOX_RATE_LIMIT=0 if args.no_rate_limit else 10**9)
        api = ApiServer(env, Path(tmp) / "gunicorn.log", workers=args.workers, threads=args.gthreads,
                        worker_class=args.worker_class).start()
        try:
            per_worker = f"{args.gthreads} gthread threads" if args.worker_class == "gthread" else "gevent"
            print(f"API: gunicorn {args.workers} x {per_worker} on 127.0.0.1:{api.port}; Redis "
                  f"appendfsync {args.appendfsync}; rate limiter {'off' if args.no_rate_limit else 'on'}; "
                  f"clients {args.procs} x {args.threads}; {args.seconds:.0f}s per phase in {args.rounds} bouts; "
                  f"{os.cpu_count()} CPUs", flush=True)
            # the phases take turns in short bouts, so that a change in what else the machine is
            # doing weighs on both alike
            bouts = {"readyz": [], "games": []}
            for r in range(args.rounds):
                for kind in ("readyz", "games"):
                    before = cpu_snapshot(api.proc.pid, redis.proc.pid)
                    bout = run_phase(kind, api.port, args.procs, args.threads, args.seconds / args.rounds,
                                     seed=17 + 100 * r)
                    after = cpu_snapshot(api.proc.pid, redis.proc.pid)
                    bout["count_in_bout"] = len(bout["latencies"])
                    bout["api_cpu"] = after["api"] - before["api"]
                    bout["redis_cpu"] = after["redis"] - before["redis"]
                    bouts[kind].append(bout)
            ceiling, games = summarize(bouts["readyz"]), summarize(bouts["games"])
        finally:
            api.stop()
        if args.profile:
            try:
                profile_moves(redis.url, prefix + "p", args.profile)
            finally:
                redis.stop()
        else:
            redis.stop()

    print(f"\n{'':24} {'count':>8} {'per s':>9} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7} "
          f"{'API CPU ms':>11} {'Redis CPU ms':>13} {'client CPU ms':>14}")
    for name, r in (("GET /readyz (ceiling)", ceiling), ("POST moves (games)", games)):
        print(f"{name:24} {r['count']:>8} {r['rate']:>9.1f} {r['p50']:>8.2f} {r['p95']:>8.2f} {r['p99']:>8.2f} "
              f"{len(r['errors']):>7} {r['api_cpu_ms']:>11.2f} {r['redis_cpu_ms']:>13.3f} {r['client_cpu_ms']:>14.2f}")
    print("(CPU ms: CPU time the gunicorn processes / redis-server / the client processes used in the phase,"
          " per request or move; game creations are counted in the moves' share. All of them share the"
          " machine's CPUs, so the client's share weighs on both rates)")
    ratio = games["rate"] / ceiling["rate"] if ceiling["rate"] else float("nan")
    print(f"\nwhole games finished: {games['games']}")
    # the bouts of one round ran back to back: their ratios show how much the machine's noise moves it
    per_bout = [g["count_in_bout"] / c["count_in_bout"] for c, g in zip(bouts["readyz"], bouts["games"])
                if c["count_in_bout"]]
    print("ratio per round of bouts: " + " ".join(f"{x:.2f}" for x in per_bout))
    print(f"moves/s / ceiling requests/s = {ratio:.2f} (target >= 0.50: {'met' if ratio >= 0.5 else 'MISSED'}); "
          f"errors: {len(ceiling['errors']) + len(games['errors'])}")
    for e in (ceiling["errors"] + games["errors"])[:5]:
        print("  error:", e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
