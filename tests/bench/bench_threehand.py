"""Whole three-hand (box gin) games to 100, one policy against two others, in-process (no Redis).

The roles rotate as the rules make them (the cut, then the box staying in or going out after
each hand), and the tested policy sits in each of the three seats in turn, so it plays box,
captain and advisor. Prints its share of games won with a 95% confidence interval (a third is
what an equal player wins), its points per game, and its CPU time per move.

    python tests/bench/bench_threehand.py --games 300
    python tests/bench/bench_threehand.py --games 300 --policy basic     # the control: ~1/3

The script prints figures and never fails on them.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.rules import game as G  # noqa: E402
from service.rules import views  # noqa: E402
from workers.arena import Table  # noqa: E402
from workers.policies import make_policy  # noqa: E402


def play_game(job: tuple) -> tuple[int, int, int, list[float], int]:
    """(did the tested seat win, its points, hands played, its move times, hands it played as captain or box)."""
    index, seed, policy, other, budget_s = job
    seat = index % 3
    policies = [make_policy(policy if s == seat else other, budget_s=budget_s) for s in range(3)]
    spec = G.GameSpec(variant="three-hand", players=[{"name": f"p{s}", "bot": p.name} for s, p in enumerate(policies)],
                      seed=f"{seed}:{index}".encode())
    table = Table.start(spec)
    rng = random.Random(f"{seed}:{index}:moves")
    times: list[float] = []
    played = 0
    last_hand = 0
    while table.state.status == "playing":
        state = table.state
        if state.hand_no != last_hand:
            last_hand = state.hand_no
            roles = state.roles or {}
            if roles.get("box") == seat or roles.get("captain") == seat:
                played += 1
        actor = state.to_act[0]
        view = views.view_state(state, actor)
        t0 = time.process_time()
        command = policies[actor].choose(view, rng, table.seen[actor])
        if actor == seat:
            times.append(time.process_time() - t0)
        table.play(actor, command)
        if table.state.hand_no > 400:
            break
    state = table.state
    return (1 if state.winner == seat else 0), state.scores[seat], state.hand_no, times, played


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--policy", default="expert", help="the policy tested (one seat)")
    ap.add_argument("--other", default="basic", help="the policy of the two other seats")
    ap.add_argument("--budget-ms", type=float, default=200.0, help="expert time budget per move (the worker's)")
    ap.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", default="ginbox-threehand")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    jobs = [(i, args.seed, args.policy, args.other, args.budget_ms / 1000) for i in range(args.games)]
    with multiprocessing.Pool(args.processes) as pool:
        results = pool.map(play_game, jobs, chunksize=4)
    wins = [r[0] for r in results]
    share = statistics.fmean(wins)
    half = 1.96 * math.sqrt(share * (1 - share) / len(wins))
    points = statistics.fmean(r[1] for r in results)
    hands = statistics.fmean(r[2] for r in results)
    times = sorted(t for r in results for t in r[3])
    print(f"three-hand games to 100: {args.policy} in one seat (rotating), {args.other} in the two others; "
          f"{len(results)} games in {time.perf_counter() - t0:.0f}s, {hands:.1f} hands a game")
    print(f"  {args.policy} game wins {100 * share:.1f}% +- {100 * half:.1f}  "
          f"[{100 * (share - half):.1f}, {100 * (share + half):.1f}]  (an equal player: 33.3%)")
    print(f"  {args.policy} points per game {points:.1f}; played (box or captain) "
          f"{statistics.fmean(r[4] for r in results):.1f} hands a game")
    if times:
        print(f"  {args.policy} CPU per move median {1000 * times[len(times) // 2]:.2f} ms, "
              f"p99 {1000 * times[min(len(times) - 1, int(0.99 * len(times)))]:.2f} ms ({len(times)} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
