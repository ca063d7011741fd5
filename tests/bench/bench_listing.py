"""The game listing, ``GET /games``, with few games and with many: time, Redis commands and memory.

Starts its own redis-server and builds the API in this process (its test client sends the
requests). It creates games of two human seats through the service layer (as ``POST /games``
does), 10 at first, then up to ``--games`` in all. At each size it asks for the first page
(``GET /games?limit=LIMIT``, a page as full at 10 games as at many, and ``GET /games``,
its default page of 20) ``--repeat`` times and prints:

* the median time of a request, through the whole app;
* the Redis commands one request sends (INFO commandstats before and after);
* the peak of Python memory one request allocates (tracemalloc).

Target: the first page of ``LIMIT`` games at ``--games`` games within 2x of the same page at 10 games.
It prints figures only and never fails on them.

    python tests/bench/bench_listing.py
    python tests/bench/bench_listing.py --games 10000 --repeat 200 --limit 10
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.config import Settings  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402

NEW_GAME = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}


def commands_sent(redis) -> int:
    """Every command Redis has run so far (INFO commandstats)."""
    return sum(row["calls"] for row in redis.info("commandstats").values())


def measure(client, redis, path: str, repeat: int) -> dict:
    """Median ms, Redis commands and Python memory peak of ``GET path``."""
    client.get(path)  # warm-up
    before = commands_sent(redis)
    reply = client.get(path)
    # the INFO call itself counts once
    per_request = commands_sent(redis) - before - 1
    assert reply.status_code == 200, reply.get_data(as_text=True)
    games = len(reply.get_json()["games"])
    tracemalloc.start()
    client.get(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        client.get(path)
        times.append((time.perf_counter() - t0) * 1000)
    return {"ms": statistics.median(times), "commands": per_request, "peak_kb": peak / 1024, "games": games}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games in the index at the second size")
    parser.add_argument("--repeat", type=int, default=100, help="timed requests at each size")
    parser.add_argument("--limit", type=int, default=10, help="the page size of the first request")
    args = parser.parse_args(argv)

    from service.app import create_app

    with tempfile.TemporaryDirectory(prefix="ginbox-bench-listing-") as tmp:
        server = RedisServerProcess(Path(tmp) / "redis", appendfsync="no").start()
        try:
            app = create_app(Settings(redis_url=server.url, key_prefix="list", rate_limit_per_minute=10**9))
            client = app.test_client()
            ext = app.extensions["ginbox"]
            redis = ext.redis
            paths = [f"/games?limit={args.limit}", "/games"]
            rows = []
            created = 0
            for size in (10, args.games):
                t0 = time.perf_counter()
                while created < size:
                    ext.games.create_game(NEW_GAME)
                    created += 1
                print(f"{size} games in the index ({time.perf_counter() - t0:.0f} s to create)", file=sys.stderr)
                rows.append((size, [measure(client, redis, p, args.repeat) for p in paths]))
        finally:
            server.stop()

    print(f"{'games':>7}  {'request':<22} {'listed':>6} {'median ms':>10} {'Redis commands':>15} {'peak KB':>8}")
    for size, results in rows:
        for path, r in zip(paths, results):
            print(f"{size:>7}  GET {path:<18} {r['games']:>6} {r['ms']:>10.2f} {r['commands']:>15} {r['peak_kb']:>8.0f}")
    for i, path in enumerate(paths):
        few, many = rows[0][1][i], rows[1][1][i]
        ratio = many["ms"] / few["ms"]
        print(f"GET {path}: {rows[1][0]} games against 10: {ratio:.2f}x the time "
              f"(target <= 2: {'met' if ratio <= 2 else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
