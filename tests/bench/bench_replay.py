"""Loading a game's state from Redis: 100, 1,000 and 10,000 events, with and without snapshots.

Long games come from the engine itself: gin-rami with a target score no one reaches, played by
random legal moves (a seeded RNG), so every event is one the engine decided. Each game is stored
twice on a private redis-server: once appended in batches through GameRepository.save (which
leaves a snapshot whenever a batch crosses a multiple of ``--snapshot-every``), once appended
straight to the store with no snapshot. Then GameRepository.load_state is timed on each
(the repository for the second one never writes a snapshot, so every load replays the whole log).

    python tests/bench/bench_replay.py
    python tests/bench/bench_replay.py --sizes 100,1000,10000,50000 --repeat 30

Target: with snapshots, the 10,000-event load takes at most 1.5x the 100-event one. The script
prints the figures and the verdict; it never fails on them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.connections import redis_client  # noqa: E402
from service.redis_process import RedisServerProcess  # noqa: E402
from service.rules import game as G  # noqa: E402
from service.store.redis_snapshots import RedisSnapshotStore  # noqa: E402
from service.store.redis_store import RedisEventStore  # noqa: E402
from service.store.repository import GameRepository  # noqa: E402

NO_SNAPSHOTS = 10**12  # a snapshot_every no replay reaches: the repository never writes one


def long_game(n_events: int, seed: int) -> list[list]:
    """Groups of events (creation, then one group per command) of a random legal gin-rami game."""
    rng = random.Random(seed)
    spec = G.GameSpec(variant="gin-rami", players=[{"name": "ann"}, {"name": "bob"}],
                      options={"target_score": 100_000}, seed=f"bench-{seed}".encode())
    created = G.start(spec)
    groups = [created]
    state = G.replay(created)
    total = len(created)
    while total < n_events:
        assert state.status == "playing", "the game ended before it was long enough"
        seat = state.to_act[0]
        moves = G.legal_moves(state, seat)
        knocks = [m for m in moves if type(m).__name__ == "Knock"]
        # knock now and then, so that hands end and new ones are dealt (new hands, new deals)
        move = rng.choice(knocks) if knocks and rng.random() < 0.3 else rng.choice(moves)
        state, events = G.apply(state, seat, move)
        groups.append(events)
        total += len(events)
    return groups


def batches_of(groups: list[list], size: int) -> list[list]:
    """Whole groups packed into appends of about ``size`` events."""
    out, current = [], []
    for g in groups:
        current.extend(g)
        if len(current) >= size:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def store_game(store, repo_with_snapshots, game_id: str, groups: list[list], batch: int, snapshots: bool) -> int:
    state = None
    for events in batches_of(groups, batch):
        if snapshots:
            state = repo_with_snapshots.save(game_id, state, events).state
        else:
            version = state.version if state is not None else 0
            store.append(game_id, events, version, meta={"status": "playing", "variant": "gin-rami"})
            for e in events:
                state = G.evolve(state, e)
    return state.version


def timed_load(repo: GameRepository, game_id: str, upto: int | None = None) -> float:
    """Milliseconds of one load_state call."""
    t0 = time.perf_counter()
    repo.load_state(game_id, upto=upto)
    return (time.perf_counter() - t0) * 1000


def summary(times: list[float]) -> tuple[float, float]:
    """(median, best) in ms."""
    return statistics.median(times), min(times)


class NoStateCache:
    """A GameRepository cache that never holds anything, so every load goes to Redis."""

    def get(self, game_id, upto=None):
        return None

    def put(self, game_id, state):
        pass

    def forget(self, game_id):
        pass


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000", help="event counts, comma-separated")
    parser.add_argument("--snapshot-every", type=int, default=50)
    parser.add_argument("--batch", type=int, default=1,
                        help="events per append, in whole commands (1: one command per append, as the API does)")
    parser.add_argument("--repeat", type=int, default=20, help="timed loads per game")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]

    with tempfile.TemporaryDirectory(prefix="ginbox-bench-replay-") as tmp:
        # appendfsync everysec: this measures reads; the writes only prepare the games
        server = RedisServerProcess(Path(tmp) / "redis", appendfsync="everysec").start()
        conn = redis_client(server.url, timeout_s=30)
        try:
            store = RedisEventStore(conn, prefix="bench")
            snapshots = RedisSnapshotStore(conn, "bench")
            # no in-process state cache: this measures loading from Redis, snapshot + log tail
            with_snapshots = GameRepository(store, snapshots, args.snapshot_every, cache=NoStateCache())
            without = GameRepository(store, snapshots, NO_SNAPSHOTS, cache=NoStateCache())
            games = []
            for n in sizes:
                t0 = time.perf_counter()
                groups = long_game(n, args.seed + n)
                gen_s = time.perf_counter() - t0
                snap_id, plain_id = f"snap-{n}", f"plain-{n}"
                version = store_game(store, with_snapshots, snap_id, groups, args.batch, snapshots=True)
                store_game(store, with_snapshots, plain_id, groups, args.batch, snapshots=False)
                assert snapshots.latest(plain_id) is None, "the plain game got a snapshot"
                games.append((n, version, snap_id, plain_id))
                print(f"  generated and stored {version} events in {gen_s:.1f}s (engine) ...", file=sys.stderr)
                for repo, gid in ((without, plain_id), (with_snapshots, snap_id)):
                    repo.load_state(gid)  # warm-up

            # Rounds interleave the games, so that a busy machine slows every size alike.
            # 'any' asks for each of the last snapshot_every versions in turn (upto=v): every
            # distance from the newest snapshot (0 .. snapshot_every - 1 events to replay) is
            # measured, not only the one the game happens to end at.
            plain_t = {n: [] for n in sizes}
            newest_t = {n: [] for n in sizes}
            any_t = {n: [] for n in sizes}
            for r in range(args.repeat):
                for n, version, snap_id, plain_id in games:
                    if n <= 2000 or r % 4 == 0:  # the long replays are few: they take seconds
                        plain_t[n].append(timed_load(without, plain_id))
                    newest_t[n].append(timed_load(with_snapshots, snap_id))
                    spread = min(args.snapshot_every, version - 1)
                    for k in range(spread):
                        any_t[n].append(timed_load(with_snapshots, snap_id, upto=version - k))
            rows = []
            for n, version, snap_id, _ in games:
                latest = snapshots.latest(snap_id)
                rows.append((n, version, latest[0] if latest else 0, *summary(plain_t[n]), *summary(newest_t[n]),
                             *summary(any_t[n])))
        finally:
            conn.close()
            server.stop()

    print(f"\nGameRepository.load_state on Redis (snapshot every {args.snapshot_every} events, one command "
          f"per append; {args.repeat} rounds; median ms, best in brackets)\n"
          f"  'newest': the current state; 'any of last {args.snapshot_every}': load_state(upto=v) for each of "
          f"the last {args.snapshot_every} versions,\n  so every tail length behind a snapshot is included\n")
    print(f"{'events':>8} {'snap at':>8} {'no snapshots ms':>18} {'snapshots, newest':>19} "
          f"{'snapshots, any of last':>23} {'vs 100':>7}")
    base = rows[0][7]
    for n, version, snap_at, pm, pb, sm, sb, am, ab in rows:
        print(f"{version:>8} {snap_at:>8} {pm:>9.2f} ({pb:6.2f}) {sm:>10.2f} ({sb:5.2f}) {am:>14.2f} ({ab:5.2f}) "
              f"{am / base:>6.2f}x")
    largest = rows[-1]
    ratio, best_ratio = largest[7] / base, largest[8] / rows[0][8]
    verdict = "met" if ratio <= 1.5 else "MISSED"
    print(f"\ntarget: with snapshots, {largest[1]} events <= 1.5x {rows[0][1]} events (any of the last "
          f"{args.snapshot_every} versions, medians): {ratio:.2f}x -> {verdict} (best times: {best_ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
