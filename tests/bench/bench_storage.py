"""Redis memory per game: whole basic-against-basic gin-rami games to 100, kept as ginbox keeps them.

Starts its own redis-server, creates ``--games`` games with two ``basic`` bot seats through the
service layer (as ``POST /games`` does), and lets an in-process bot worker play them to the end
through the same code path the ``ginbox worker`` jobs take (``workers.jobs.play_bot_turn``: the
policy's move, appended by ``GameService`` with its snapshots, index and bookkeeping). Before the
last move of each game, and again once every game is over, it asks Redis ``MEMORY USAGE`` of
every key of the game (stream, meta, idempotency records, snapshots, advice) and prints bytes per
game and per event, the stream and the snapshots apart; then the time to load a finished game's
state with no state cache (the newest snapshot plus the log after it).
Then it archives every game (``ginbox archive``'s use case) and asks again: bytes per finished game
archived, beside the information the record must hold (the sum over decisions of log2 of the legal
moves there were, plus the 32 bytes of the seed), and the time to load an archived game (its record
decoded, the first time in a process, then replayed).

Targets: at most 25 KB of Redis memory per finished game of this size kept as a log, at most 2 KB
archived, averaged over the games.
It prints the figures and never fails on them.

    python tests/bench/bench_storage.py
    python tests/bench/bench_storage.py --games 100
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service import composition  # noqa: E402
from service.config import Settings  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402
from service.store.repository import GameRepository, StateCache  # noqa: E402
from service.rules import archive as archive_format  # noqa: E402
from workers import jobs  # noqa: E402

KINDS = ("stream", "meta", "idem", "snap", "advice", "tokens", "archive")


class NoStateCache(StateCache):
    """A cache that never holds anything: each load reads Redis."""

    def get(self, game_id, upto=None):
        return None

    def put(self, game_id, state):
        return None


def key_sizes(redis, prefix: str, game_id: str) -> dict[str, int]:
    """``MEMORY USAGE`` of every key of one game, by kind (the part after the game's hash tag)."""
    sizes = dict.fromkeys(KINDS, 0)
    for key in redis.scan_iter(match=f"{prefix}:{{{game_id}}}:*", count=1000):
        kind = key.decode().rsplit(":", 1)[1]
        sizes[kind] = sizes.get(kind, 0) + (redis.memory_usage(key, samples=0) or 0)
    return sizes


def play_to_the_end(ctx, redis, prefix: str, game_ids: list[str]) -> dict[str, dict[str, int]]:
    """Play bot turns round-robin until every game is over; each game's key sizes just before its last move."""
    before_end: dict[str, dict[str, int]] = {}
    live = list(game_ids)
    while live:
        still = []
        for game_id in live:
            state = ctx.repository.load_state(game_id)
            if state.status == "over":
                continue
            sizes = key_sizes(redis, prefix, game_id)
            jobs.play_bot_turn(game_id, state.version)
            if ctx.repository.load_state(game_id).status == "over":
                before_end[game_id] = sizes
            else:
                still.append(game_id)
        live = still
    return before_end


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--loads", type=int, default=50, help="timed loads of each finished game")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ginbox-bench-storage-") as tmp:
        server = RedisServerProcess(Path(tmp) / "redis", appendfsync="everysec").start()
        try:
            settings = Settings(redis_url=server.url, key_prefix="bench")
            built = ctx = composition.build_worker(settings)
            jobs.set_context(ctx)
            t0 = time.perf_counter()
            body = {"variant": "gin-rami", "seats": [{"bot": "basic"}, {"bot": "basic"}],
                    "options": {"target_score": 100}}
            game_ids = [built.games.create_game(body)["game_id"] for _ in range(args.games)]
            print(f"playing {args.games} games ...", file=sys.stderr)
            redis = built.redis
            before_end = play_to_the_end(ctx, redis, settings.key_prefix, game_ids)
            play_s = time.perf_counter() - t0

            events = [built.store.version(g) for g in game_ids]
            finished = [key_sizes(redis, settings.key_prefix, g) for g in game_ids]
            totals = [sum(s.values()) for s in finished]
            per_kind = {k: statistics.mean(s[k] for s in finished) for k in KINDS}
            playing = [before_end[g] for g in game_ids]
            per_kind_playing = {k: statistics.mean(s[k] for s in playing) for k in KINDS}

            cold = GameRepository(built.store, built.repository.snapshots, settings.snapshot_every,
                                  cache=NoStateCache())
            load_ms = []
            for g in game_ids:
                cold.load_state(g)  # warm-up
                for _ in range(args.loads):
                    t = time.perf_counter()
                    cold.load_state(g)
                    load_ms.append((time.perf_counter() - t) * 1000)
            # every game archived, as the archive queue's job does when a game ends
            t0 = time.perf_counter()
            outcomes = built.archives.archive_finished()
            archive_s = time.perf_counter() - t0
            archived = [key_sizes(redis, settings.key_prefix, g) for g in game_ids]
            records = [redis.get(f"{settings.key_prefix}:{{{g}}}:archive") for g in game_ids]
            stats = [archive_format.encode(archive_format.decode(r).events)[1] for r in records]
            # the same records with every event at one time: what is left is the timestamps' share
            timeless = [archive_format.encode([(0, e.payload) for e in archive_format.decode(r).events])[1].size
                        for r in records]
            fresh_ms, warm_ms = [], []
            for g in game_ids:
                built.store.archives.__init__()  # nothing decoded: as a process reads the game first
                t = time.perf_counter()
                cold.load_state(g)
                fresh_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                cold.load_state(g)
                warm_ms.append((time.perf_counter() - t) * 1000)
        finally:
            server.stop()

    mean_events = statistics.mean(events)
    mean_total = statistics.mean(totals)
    print(f"\n{args.games} finished basic-v-basic gin-rami games to 100 ({play_s:.0f} s to play), "
          f"{mean_events:.0f} events a game on average ({min(events)}-{max(events)})")
    print(f"Redis MEMORY USAGE per finished game: {mean_total / 1024:.1f} KB on average "
          f"(min {min(totals) / 1024:.1f}, max {max(totals) / 1024:.1f}); {mean_total / mean_events:.0f} bytes an event")
    print(f"  {'key':>7}  {'in play, before the last move':>30}  {'finished':>22}")
    for kind in KINDS:
        if per_kind[kind] or per_kind_playing[kind]:
            print(f"  {kind:>7}  {per_kind_playing[kind] / 1024:27.1f} KB  {per_kind[kind] / 1024:13.1f} KB "
                  f"({per_kind[kind] / mean_events:4.0f} B/event)")
    print(f"  {'all':>7}  {sum(per_kind_playing.values()) / 1024:27.1f} KB  {mean_total / 1024:13.1f} KB")
    million_gb = mean_total * 1_000_000 / 1024**3
    print(f"a million such games: about {million_gb:.0f} GiB of Redis memory")
    print(f"load of a finished game's state (snapshot + log, no cache): median {statistics.median(load_ms):.2f} ms, "
          f"p99 {sorted(load_ms)[int(len(load_ms) * 0.99)]:.2f} ms")
    verdict = "met" if mean_total <= 25 * 1024 else "not met"
    print(f"target: at most 25 KB per finished game -> {mean_total / 1024:.1f} KB: {verdict}")

    archived_totals = [sum(s.values()) for s in archived]
    mean_archived = statistics.mean(archived_totals)
    record_bytes = statistics.mean(len(r) for r in records)
    info_bytes = statistics.mean(st.move_bits / 8 + 32 for st in stats)
    move_bytes = statistics.mean(st.move_bits / 8 for st in stats)
    print(f"\narchived ({archive_s:.1f} s for {args.games} games; {outcomes}):")
    print(f"  Redis MEMORY USAGE per finished game archived: {mean_archived:.0f} bytes on average "
          f"(min {min(archived_totals)}, max {max(archived_totals)}); not archived {mean_total:.0f} bytes "
          f"({mean_total / mean_archived:.1f} times as much)")
    for kind in KINDS:
        mean_kind = statistics.mean(s[kind] for s in archived)
        if mean_kind:
            print(f"  {kind:>7}  {mean_kind:6.0f} bytes")
    print(f"  the record itself: {record_bytes:.0f} bytes; the information it must hold: {info_bytes:.0f} bytes "
          f"({move_bytes:.0f} of moves, {statistics.mean(st.moves for st in stats):.0f} decisions, + 32 of seed): "
          f"{record_bytes / info_bytes:.1f} times the limit")
    ts_bytes = record_bytes - statistics.mean(timeless)
    print(f"  of the record, the timestamps (one an append, to the millisecond, which no rule derives): "
          f"{ts_bytes:.0f} bytes; without them the record is {record_bytes - ts_bytes:.0f} bytes, "
          f"{(record_bytes - ts_bytes) / info_bytes:.1f} times the limit")
    print(f"  a million finished games archived: about {mean_archived * 1_000_000 / 1024**3:.1f} GiB; "
          f"100 million: about {mean_archived * 100_000_000 / 1024**3:.0f} GiB")
    print(f"  load of an archived game's state (no state cache): first read in a process median "
          f"{statistics.median(fresh_ms):.1f} ms, then {statistics.median(warm_ms):.2f} ms")
    verdict = "met" if mean_archived <= 2 * 1024 else "not met"
    print(f"target: at most 2 KB per finished game archived -> {mean_archived:.0f} bytes: {verdict}")


if __name__ == "__main__":
    main()
