"""Decision analysis: the time to analyse a whole game to 100, and the points each built-in policy gives away.

A gin rami game to 100 is played by built-in bots (basic against expert, seeded), then analysed
with the default samples: wall time, CPU time per decision, and the verdict against the target.
Then a few games of each policy against basic are analysed, and the points the policy gave away
per hand are printed with a 95% interval (mean of the games' figures, Student's t).

Last, the calibration: for two pairs of policies (basic against random, expert against basic) each
seed is played twice with the seats swapped (a duplicate pair, so the luck of the cards cancels).
Side by side it prints, per hand and with 95% intervals over the pairs:
- what the games measured: the first policy's points less the other's;
- what the analysis says: the points the other gave away less those the first gave away.
They should agree in sign and roughly in size.

    python tests/bench/bench_analysis.py
    python tests/bench/bench_analysis.py --games 6 --pairs 6 --samples 24
    python tests/bench/bench_analysis.py --parts calibration --pairs 5
    python tests/bench/bench_analysis.py --parts time --baseline

Target: a whole game in under 30 s on a 2-core machine. The script prints the figures and the
verdict; it never fails on them.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.analysis import DEFAULT_SAMPLES, analyse_log, to_json  # noqa: E402
from service.rules import game as G  # noqa: E402
from service.rules import views  # noqa: E402
from workers.arena import Table  # noqa: E402
from workers.policies import ExpertPolicy, make_policy  # noqa: E402

TARGET_S = 30.0
#: Student's t at 97.5% for 1 to 10 degrees of freedom
_T = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23]


def bot_game(policies: list[str], seed: int, target: int = 100, budget_s: float | None = 0.02) -> list:
    """The log of a gin rami game to ``target`` between built-in policies.

    The expert searches for ``budget_s`` a move; None gives it a fixed effort (its least number of
    playouts), so that the game is the same on every machine.
    """
    spec = G.GameSpec(variant="gin-rami", players=[{"name": f"{p}-{i}", "bot": p} for i, p in enumerate(policies)],
                      options={"target_score": target}, seed=seed.to_bytes(32, "big"))
    table = Table.start(spec)
    bots = [ExpertPolicy(budget_s=None) if p == "expert" and budget_s is None else make_policy(p, budget_s=budget_s)
            for p in policies]
    while table.state.status == "playing":
        seat = table.state.to_act[0]
        view = views.view_state(table.state, seat)
        rng = random.Random(f"{seed}:{table.state.version}:{seat}")
        table.play(seat, bots[seat].choose(view, rng, table.seen[seat]))
    return table.log


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """(mean, half-width of its 95% interval; 0 with one value)."""
    if len(xs) < 2:
        return (xs[0] if xs else 0.0), 0.0
    return statistics.fmean(xs), _T[min(len(xs) - 1, len(_T)) - 1] * statistics.stdev(xs) / math.sqrt(len(xs))


def calibration(first: str, second: str, pairs: int, samples: int) -> tuple[list[float], list[float]]:
    """Per duplicate pair of games (``first`` against ``second``, seats swapped): (points per hand
    ``first`` won over ``second``, the analysis's points per hand ``second`` gave away over ``first``)."""
    measured, analysed = [], []
    for p in range(pairs):
        won = given = hands = 0.0
        for order in ((first, second), (second, first)):
            log = bot_game(list(order), seed=500 + p)
            result = analyse_log(log, samples=samples)
            me = order.index(first)
            scores = result["game"]["scores"]
            won += scores[me] - scores[1 - me]
            lost = [s["points_given_away"] for s in result["seats"]]
            given += lost[1 - me] - lost[me]
            hands += result["game"]["hands"]
        measured.append(won / hands)
        analysed.append(given / hands)
    return measured, analysed


def interval(xs: list[float]) -> str:
    if len(xs) < 2:
        return f"{xs[0]:.2f}" if xs else "-"
    mean = statistics.fmean(xs)
    half = _T[min(len(xs) - 1, len(_T)) - 1] * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{mean:.2f} ± {half:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--games", type=int, default=3, help="games per policy for the points given away (3)")
    ap.add_argument("--pairs", type=int, default=4, help="duplicate pairs of games per pair of policies (4)")
    ap.add_argument("--baseline", action="store_true",
                    help="time: also analyse the game with the playouts in pure Python, for the ratio")
    ap.add_argument("--parts", default="time,policies,calibration",
                    help="what to print, comma-separated: time, policies, calibration (default: all three)")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if "time" in parts:
        print_time(args)
    if "policies" in parts:
        print_policies(args)
    if "calibration" in parts:
        print_calibration(args)


def print_time(args) -> None:
    # the expert at a fixed effort: the same game, whatever the machine's speed
    log = bot_game(["basic", "expert"], seed=1, budget_s=None)
    wall, cpu = time.perf_counter(), time.process_time()
    result = analyse_log(log, samples=args.samples)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = len(result["decisions"])
    print(f"one game to 100 (basic against expert): {result['game']['hands']} hands, {len(log)} events, "
          f"{n} decisions, {args.samples} samples")
    print(f"  one process:  {wall:.1f} s wall, {cpu:.1f} s CPU, {1000 * cpu / max(1, n):.1f} ms CPU per decision")
    procs = os.cpu_count() or 1
    wall_n = time.perf_counter()
    same = to_json(analyse_log(log, samples=args.samples, processes=procs)) == to_json(result)
    wall_n = time.perf_counter() - wall_n
    print(f"  {procs} processes: {wall_n:.1f} s wall ({wall / wall_n:.2f}x), the same result: {same}")
    print(f"  target: under {TARGET_S:.0f} s per game on this machine: {'met' if min(wall, wall_n) < TARGET_S else 'NOT met'}")
    if args.baseline:
        # the same analysis with the playouts in pure Python (workers/policies/_rollout.c not used)
        from workers.policies import rollout
        in_c, rollout._finish_in_c = rollout._finish_in_c, None
        try:
            cpu_py = time.process_time()
            same_py = to_json(analyse_log(log, samples=args.samples)) == to_json(result)
            cpu_py = time.process_time() - cpu_py
        finally:
            rollout._finish_in_c = in_c
        print(f"  one process, pure-Python playouts: {cpu_py:.1f} s CPU, {1000 * cpu_py / max(1, n):.1f} ms per "
              f"decision ({cpu_py / cpu:.2f}x the CPU above), the same result: {same_py}")


def print_policies(args) -> None:
    print(f"points given away per hand against basic, {args.games} games each (mean ± 95% interval):")
    for policy in ("random", "basic", "expert"):
        per_hand, accuracy = [], []
        for g in range(args.games):
            result = analyse_log(bot_game([policy, "basic"], seed=100 + g), samples=args.samples)
            seat = result["seats"][0]
            hands = max(1, result["game"]["hands"])
            per_hand.append(seat["points_given_away"] / hands)
            if seat["accuracy"] is not None:
                accuracy.append(seat["accuracy"])
        print(f"  {policy:<7} {interval(per_hand):>16} points per hand, accuracy {interval(accuracy)}", flush=True)


def print_calibration(args) -> None:
    print(f"calibration: {args.pairs} duplicate pairs of games to 100 per pair of policies, per hand (95% interval)")
    print(f"  {'pair':<16} {'measured by the games':>24} {'said by the analysis':>24}")
    for first, second in (("basic", "random"), ("expert", "basic")):
        measured, analysed = calibration(first, second, args.pairs, args.samples)
        (m, mh), (a, ah) = mean_ci(measured), mean_ci(analysed)
        agree = "same sign" if (m > 0) == (a > 0) else "OPPOSITE SIGNS"
        print(f"  {first + ' v ' + second:<16} {m:>+14.2f} ± {mh:<7.2f} {a:>+14.2f} ± {ah:<7.2f}  {agree}", flush=True)


if __name__ == "__main__":
    main()
