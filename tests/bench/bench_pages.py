"""The web pages' weight, and the time from navigation to a playable table in headless Chromium.

    python tests/bench/bench_pages.py [--runs 10]

Starts a private redis-server and the API under gunicorn (no bot worker: the games are between
two people), then prints, for each page, the bytes of its HTML and of every script, style sheet
and image it loads (found by following the page's links and the modules' imports), uncompressed
and gzip-compressed (level 6, as a typical server would); and the median, minimum and maximum,
over --runs navigations, of the time from navigation start to the moment the table first offers
a move (the page's `ginbox-playable` performance mark), each in a new browser tab with the seat
token already in localStorage and a cold HTTP cache.

Targets: under 150 KB gzip for the table page with its scripts, under one second to playable.
The script prints the figures and the verdict; it never fails on them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent), str(HERE.parent / "browser")]

from chromium import open_browser  # noqa: E402
from helpers import Api  # noqa: E402
from support.servers import ApiServer, service_env  # noqa: E402

from service.redis_process import RedisServerProcess  # noqa: E402

PAGES = {"lobby": "/", "table": "/play/{id}", "watch": "/watch/{id}", "replay": "/replay/{id}"}


def page_files(api: Api, path: str) -> dict[str, bytes]:
    """The page and everything it loads from this server: {path: body}."""
    got: dict[str, bytes] = {}
    todo = [path]
    while todo:
        url = todo.pop()
        if url in got:
            continue
        status, body = api.call("GET", url)
        assert status == 200, (url, status)
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        got[url] = data
        text = data.decode(errors="replace")
        todo += re.findall(r'(?:src|href)="(/web/[^"]+)"', text)
        todo += [f"/web/{m}" for m in re.findall(r'from "\./([a-z0-9_-]+\.js)"', text)]
        todo += [f"/web/{m}" for m in re.findall(r'import\("\./([a-z0-9_-]+\.js)"\)', text)]
    return got


def weigh(api: Api, game_id: str) -> dict[str, tuple[int, int]]:
    rows = {}
    for name, path in PAGES.items():
        files = page_files(api, path.format(id=game_id))
        raw = sum(len(b) for b in files.values())
        packed = sum(len(gzip.compress(b, 6)) for b in files.values())
        rows[name] = (raw, packed)
        print(f"{name:7s} {len(files):2d} files  {raw / 1024:7.1f} KB  gzip {packed / 1024:6.1f} KB"
              f"   ({', '.join(sorted(files))})")
    return rows


def time_to_playable(base: str, api: Api, runs: int) -> list[float]:
    times = []
    driver = open_browser()
    try:
        driver.get(base + "/web/icon.svg")  # same origin, so that localStorage can be set
        for _ in range(runs):
            status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                          "first_dealer": 1})
            assert status == 201, created
            game_id, token = created["game_id"], created["seats"][0]["token"]
            driver.execute_cdp_cmd("Network.enable", {})
            driver.execute_cdp_cmd("Network.clearBrowserCache", {})
            driver.execute_script(
                "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
                " variant: 'gin-rami', seats: {0: {token: arguments[1], name: 'ann'}}, created: 1}}))", game_id, token)
            driver.get(f"{base}/play/{game_id}")
            mark = None
            for _ in range(300):  # at most 30 s
                mark = driver.execute_script(
                    "const m = performance.getEntriesByName('ginbox-playable')[0]; return m ? m.startTime : null")
                if mark is not None:
                    break
                time.sleep(0.1)
            assert mark is not None, "the table never offered a move"
            times.append(mark)
    finally:
        driver.quit()
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServerProcess(Path(tmp) / "redis").start()
        env = service_env(redis.url, f"benchpages{uuid.uuid4().hex[:8]}", GINBOX_RATE_LIMIT=100000)
        server = ApiServer(env, Path(tmp) / "api.log").start()
        try:
            base = f"http://{server.host}:{server.port}"
            api = Api(base)
            status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}]})
            assert status == 201
            print("page weight (the page and every file it loads, as served):")
            rows = weigh(api, created["game_id"])
            times = time_to_playable(base, api, args.runs)
        finally:
            server.stop()
            redis.stop()
    median = statistics.median(times)
    print(f"navigation to a playable table, {len(times)} runs: median {median:.0f} ms, "
          f"min {min(times):.0f} ms, max {max(times):.0f} ms")
    table_gzip = rows["table"][1]
    print(f"target: table page under 150 KB gzip: {table_gzip / 1024:.1f} KB, "
          f"{'met' if table_gzip < 150 * 1024 else 'NOT met'}")
    print(f"target: playable under 1000 ms (median): {median:.0f} ms, {'met' if median < 1000 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
