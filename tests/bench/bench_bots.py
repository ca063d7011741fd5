"""Bot policies against each other: gin-rami hands in duplicate format, in-process (no Redis).

By default each level plays the next one up (random < basic < advanced < expert), and the
expert also plays basic and random. Each deal is played twice with the seats swapped (same
deck, same dealer seat), so luck of the cards cancels out. For each pair of policies it prints
the first policy's share of hands won, its share of hands in which it could knock before the
other could (who built a knockable hand first: the race that hand wins mostly follow), the share
of hands it wins when it was first able to knock and when the other was (hands won are the race
share times the first, plus the rest times the second: what the knock rule and undercuts add to
the race), its share of whole games to 100 (the hands chained in deal order, once per seating), and net
points per hand (its points minus the other's)
with 95% confidence intervals computed over deals (the two hands of a deal are one observation,
since they share the cards), a breakdown of how hands ended, and each policy's CPU time per
move (median, p99), overall and per decision kind (upcard, draw, discard, knock). ``--scoring``
runs the pairs under the standard scoring of the gin AI literature (gin 25 plus the defender's
deadwood, undercut 25, no big gin) and/or under the gin-rami defaults.

``--rules NAME`` (a gin-rami preset of RULES.md §5, e.g. ``eaai``) plays whole games through the
engine under that preset instead: ``--games`` games per pair, half in each seating. The two
seatings of a game share its seed, so the same decks come hand by hand; the first policy deals
first in one, second in the other. It prints the first policy's share of games won, its net points per hand, both
with 95% intervals over those pairs of games, and each policy's CPU time per move. Without
``--pairs`` it pits ``expert`` against ``simple``, the challenge's reference player.

    python tests/bench/bench_bots.py --hands 4000
    python tests/bench/bench_bots.py --rules eaai --games 100
    python tests/bench/bench_bots.py --pairs expert:basic --hands 400 --scoring standard --param danger_weight=3
    python tests/bench/bench_bots.py --pairs advanced:basic --hands 800 --scoring standard

Targets (standard scoring, the worker's 200 ms budget): expert against basic at least +4 points
a hand with the 95% interval's lower end above +2.5 and at least 56% of hands won; expert's
median CPU per move at most 50 ms and its p99 within the budget; basic wins >= 95% of hands
against random. The script prints figures and never fails on them.
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
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.progress import counted  # noqa: E402
from service.rules import cards as C  # noqa: E402
from service.rules import game as G  # noqa: E402
from service.rules import views  # noqa: E402
from service.rules.presets import PRESETS  # noqa: E402
from workers.arena import Table  # noqa: E402
from workers.arena import play_hand  # noqa: E402
from workers.policies import ExpertParams, ExpertPolicy, make_policy  # noqa: E402

#: each level against the next (random < basic < advanced < expert), and the expert against basic and random
DEFAULT_PAIRS = ("basic:random", "advanced:basic", "expert:advanced", "expert:basic", "expert:random")


def deck_for(seed: str, deal: int) -> list[str]:
    deck = list(C.DECK)
    random.Random(f"{seed}:{deal}").shuffle(deck)
    return deck


#: the pairs of ``--rules`` without ``--pairs``: the expert against the challenge's reference player
RULES_PAIRS = ("expert:simple",)


#: the scoring of the gin AI literature (and of most published bot matches)
STANDARD_SCORING = {"gin_bonus": 25, "gin_adds_deadwood": True, "undercut_bonus": 25, "big_gin_bonus": None}
SCORINGS = {"standard": STANDARD_SCORING, "default": {}}


class Timed:
    """A policy that records its thinking time per decision kind (upcard, draw, discard, knock),
    and the move of the hand at which it could first knock (``first_knock``; ``clock`` counts
    the hand's moves and is shared by both seats)."""

    def __init__(self, policy):
        self.policy = policy
        self.name = policy.name
        self.times: dict = {}
        self.clock = [0]
        self.first_knock: int | None = None

    def choose(self, view, rng, events=None):
        self.clock[0] += 1
        if self.first_knock is None and any(m.get("type") == "knock" for m in view.get("legal_moves") or ()):
            self.first_knock = self.clock[0]
        t0 = time.process_time()
        command = self.policy.choose(view, rng, events)
        spent = time.process_time() - t0
        kind = view["phase"] if view["phase"] in ("upcard", "draw") else command.TYPE
        kind = "knock" if kind == "knock" else kind
        self.times.setdefault(kind, []).append(spent)
        return command


def build(name: str, budget_s: float, params: dict):
    if name == "expert":
        return Timed(ExpertPolicy(ExpertParams(**{**ExpertParams().__dict__, **params, "budget_s": budget_s})))
    return Timed(make_policy(name))


def play_deals(job: tuple) -> tuple[list, dict, Counter]:
    """Play deals ``lo..hi`` for pair (a, b); return per-deal results, timings, outcomes."""
    a, b, lo, hi, seed, budget_s, params, options = job
    pa, pb = build(a, budget_s, params), build(b, budget_s, params)
    # the same name on both sides (a policy against itself) must still be told apart
    timings: dict = {}
    outcomes: Counter = Counter()
    per_deal = []
    for deal in range(lo, hi):
        deck = deck_for(seed, deal)
        dealer = deal % 2
        rng = random.Random(f"{seed}:{deal}:moves")
        nets, wins, firsts = [], [], []
        for a_seat in (0, 1):
            seats = [pa, pb] if a_seat == 0 else [pb, pa]
            pa.clock = pb.clock = [0]
            pa.first_knock = pb.first_knock = None
            r = play_hand(deck, dealer, seats, rng, options=options)
            fa, fb = pa.first_knock or math.inf, pb.first_knock or math.inf
            firsts.append(0.5 if fa == fb else float(fa < fb))
            if r["outcome"] == "drawn":
                net, won = 0, 0
                outcomes["drawn"] += 1
            else:
                a_won = r["winner"] == a_seat
                net = r["points"] if a_won else -r["points"]
                won = 1 if a_won else 0
                who = a if a_won else b
                if a == b:
                    who = "first" if a_won else "second"
                outcomes[f"{who} {r['outcome']}"] += 1
                outcomes[f"{who} {r['outcome']} points"] += r["points"]
            nets.append(net)
            wins.append(won)
        per_deal.append((sum(nets) / 2, sum(wins) / 2, sum(firsts) / 2, deal, tuple(nets), tuple(zip(firsts, wins))))
    for side, policy in (("", pa), ("2", pb)):
        label = policy.name + (side if a == b else "")
        for kind, xs in policy.times.items():
            timings.setdefault((label, kind), []).extend(xs)
    return per_deal, timings, outcomes


def interval(xs: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% confidence interval (normal approximation)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan")
    return m, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def ms(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


#: the score that ends a game (the ``target_score`` default of both variants)
TARGET_SCORE = 100


def games_to(target: int, streams: list[list[float]]) -> tuple[int, int]:
    """Whole games to ``target`` made of hands in order: (games finished, games the first policy won).

    Each stream is one seating's run of hands, as the first policy's net points (the winner of a
    hand scores its points; a drawn hand is 0); a game ends when either side reaches ``target``,
    and the next begins from 0. Unfinished games at a stream's end are not counted.
    """
    games = wins = 0
    for nets in streams:
        ours = theirs = 0.0
        for net in nets:
            if net > 0:
                ours += net
            else:
                theirs -= net
            if ours >= target or theirs >= target:
                games += 1
                wins += ours >= target
                ours = theirs = 0.0
    return games, wins


def run_pair(pool, a: str, b: str, deals: int, args, budget_s: float, params: dict, options: dict) -> dict:
    """Play and print one pair under one scoring; return its figures."""
    t0 = time.perf_counter()
    chunk = max(1, min(50, deals // (4 * args.processes) or 1))
    jobs = [(a, b, lo, min(deals, lo + chunk), args.seed, budget_s, params, options) for lo in range(0, deals, chunk)]
    per_deal, timings, outcomes = [], {}, Counter()
    for d, t, o in pool.imap_unordered(play_deals, jobs):
        per_deal += d
        for key, xs in t.items():
            timings.setdefault(key, []).extend(xs)
        outcomes += o
    per_deal.sort(key=lambda d: d[3])
    pts, pts_hw = interval([d[0] for d in per_deal])
    win, win_hw = interval([d[1] for d in per_deal])
    first, first_hw = interval([d[2] for d in per_deal])
    print(f"\n{a} vs {b}: {2 * len(per_deal)} hands in {time.perf_counter() - t0:.0f}s")
    print(f"  {a} hand wins     {100 * win:6.2f}% +- {100 * win_hw:.2f}  "
          f"[{100 * (win - win_hw):.2f}, {100 * (win + win_hw):.2f}]")
    print(f"  {a} first able to knock {100 * first:6.2f}% +- {100 * first_hw:.2f}  (of hands; neither: half each)")
    # Each deal is played twice with the seats swapped: when the same cards reach a knockable hand
    # first whoever plays them, the deal decided the race; when one policy is first both times, the play did.
    both_a = sum(d[2] == 1 for d in per_deal) / len(per_deal)
    both_b = sum(d[2] == 0 for d in per_deal) / len(per_deal)
    print(f"  race by deal: {a} first in both seatings {100 * both_a:.1f}% of deals, {b} first in both "
          f"{100 * both_b:.1f}%, the cards' (each first once, or a tie) {100 * (1 - both_a - both_b):.1f}%")
    # hands won = (share first able) x (wins when first) + (share the other was first) x (wins then):
    # how far the knock rule and the undercuts carry beyond the race
    for label, side in ((f"{a} was", 1.0), (f"{b} was", 0.0)):
        won = [w for d in per_deal for f, w in d[5] if f == side]
        if won:
            print(f"  {a} wins {100 * statistics.fmean(won):5.1f}% of the {len(won)} hands {label} first able to knock in")
    print(f"  {a} points/hand   {pts:+7.2f}  +- {pts_hw:.2f}  [{pts - pts_hw:+.2f}, {pts + pts_hw:+.2f}]")
    games, game_wins = games_to(TARGET_SCORE, [[d[4][seating] for d in per_deal] for seating in (0, 1)])
    if games:
        share = game_wins / games
        hw = 1.96 * math.sqrt(share * (1 - share) / games)
        print(f"  {a} games to {TARGET_SCORE} won {100 * share:6.2f}% +- {100 * hw:.2f}  ({games} games: the hands "
              f"chained in deal order, once per seating; a game's bonuses never change who reached {TARGET_SCORE} first)")
    counts = {k: v for k, v in outcomes.items() if not k.endswith(" points")}
    print("  outcomes (count, mean points): " + ", ".join(
        f"{k} {v}" + (f" ({outcomes[k + ' points'] / v:.1f})" if k != "drawn" else "")
        for k, v in sorted(counts.items())))
    print_cpu(timings)
    return {"points": pts, "half_width": pts_hw, "wins": win, "first_knock": first}


def play_games(job: tuple) -> tuple[list, dict]:
    """Play games ``lo..hi`` of pair (a, b) under preset ``rules``, each in both seatings; return per
    game pair (a's games won of 2, a's net points, hands played) and the timings."""
    a, b, lo, hi, seed, budget_s, params, rules = job
    pa, pb = build(a, budget_s, params), build(b, budget_s, params)
    per_pair = []
    for g in range(lo, hi):
        won = net = hands = 0
        for a_seat in (0, 1):
            seats = [pa, pb] if a_seat == 0 else [pb, pa]
            spec = G.GameSpec(variant="gin-rami", rules=rules, seed=f"{seed}:{g}".encode(), first_dealer=0,
                              players=[{"name": f"p{i}", "bot": p.name} for i, p in enumerate(seats)])
            t = Table.start(spec)
            rng = random.Random(f"{seed}:{g}:{a_seat}:moves")
            while t.state.status == "playing":
                seat = t.state.to_act[0]
                t.play(seat, seats[seat].choose(views.view_state(t.state, seat), rng, t.seen[seat]))
            won += t.state.winner == a_seat
            for r in t.state.results:
                if r["outcome"] != "drawn":
                    net += r["points"] if r["winner"] == a_seat else -r["points"]
            hands += len(t.state.results)
        per_pair.append((won / 2, net, hands))
    timings: dict = {}
    for side, policy in (("", pa), ("2", pb)):
        label = policy.name + (side if a == b else "")
        for kind, xs in policy.times.items():
            timings.setdefault((label, kind), []).extend(xs)
    return per_pair, timings


def run_games(pool, a: str, b: str, games: int, args, budget_s: float, params: dict) -> dict:
    """Play and print whole games of one pair under ``args.rules``; return its figures."""
    t0 = time.perf_counter()
    chunk = max(1, min(10, games // (4 * args.processes) or 1))
    jobs = [(a, b, lo, min(games, lo + chunk), args.seed, budget_s, params, args.rules)
            for lo in range(0, games, chunk)]
    per_pair, timings = [], {}
    with counted("bench_bots", f"{a} vs {b}", "games", total=2 * games) as shown:
        for d, t in pool.imap_unordered(play_games, jobs):
            per_pair += d
            shown(2 * len(per_pair))
            for key, xs in t.items():
                timings.setdefault(key, []).extend(xs)
    win, win_hw = interval([d[0] for d in per_pair])
    hands = sum(d[2] for d in per_pair)
    pts = sum(d[1] for d in per_pair) / hands
    # per-hand points as a ratio over the pairs of games: the interval of the mean of net - pts * hands
    _, resid_hw = interval([d[1] - pts * d[2] for d in per_pair])
    pts_hw = resid_hw * len(per_pair) / hands
    target = PRESETS[args.rules].options.get("target_score", TARGET_SCORE)
    print(f"\n{a} vs {b} ({args.rules}): {2 * len(per_pair)} games to {target} ({hands} hands, "
          f"{hands / (2 * len(per_pair)):.1f} a game) in {time.perf_counter() - t0:.0f}s")
    print(f"  {a} games won     {100 * win:6.2f}% +- {100 * win_hw:.2f}  "
          f"[{100 * max(0.0, win - win_hw):.2f}, {100 * min(1.0, win + win_hw):.2f}]  (95%, over pairs of games)")
    print(f"  {a} points/hand   {pts:+7.2f}  +- {pts_hw:.2f}  [{pts - pts_hw:+.2f}, {pts + pts_hw:+.2f}]")
    print_cpu(timings)
    return {"games_won": win, "half_width": win_hw, "points": pts}


def print_cpu(timings: dict) -> None:
    """Each policy's CPU time per move: median and p99, overall and by decision kind."""
    by_policy: dict = {}
    for (name, kind), xs in timings.items():
        by_policy.setdefault(name, []).extend(xs)
    for name in sorted(by_policy):
        xs = by_policy[name]
        kinds = "; ".join(f"{kind} {ms(timings[(name, kind)], 0.5):.2f}/{ms(timings[(name, kind)], 0.99):.1f}"
                          for kind in ("upcard", "draw", "discard", "knock") if (name, kind) in timings)
        print(f"  {name:9s} CPU per move median {ms(xs, 0.5):7.2f} ms  p99 {ms(xs, 0.99):7.2f} ms  ({len(xs)} moves; "
              f"median/p99 ms by kind: {kinds})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hands", type=int, default=2000, help="hands per pair (two per deal; default 2000)")
    ap.add_argument("--budget-ms", type=float, default=200.0,
                    help="expert time budget per move (ms; default 200, the worker's)")
    ap.add_argument("--pairs", help=f"comma-separated a:b pairs (default {','.join(DEFAULT_PAIRS)}; "
                                    f"with --rules {','.join(RULES_PAIRS)})")
    ap.add_argument("--rules", choices=[n for n, p in PRESETS.items() if p.variant == "gin-rami"],
                    help="play whole games under this preset (RULES.md §5) instead of duplicate hands")
    ap.add_argument("--games", type=int, default=100,
                    help="with --rules: games per pair, half in each seating (default 100)")
    ap.add_argument("--scoring", default="standard,default",
                    help="comma-separated: standard (gin 25 + deadwood, undercut 25, no big gin) and/or "
                         "default (the gin-rami defaults)")
    ap.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", default="ginbox-bench")
    ap.add_argument("--param", action="append", default=[], help="expert parameter name=value")
    args = ap.parse_args(argv)
    params = {}
    for item in args.param:
        name, _, value = item.partition("=")
        default = getattr(ExpertParams(), name)
        if isinstance(default, bool):
            params[name] = value.lower() in ("1", "true", "yes", "on")
        elif default is None or isinstance(default, float):
            params[name] = float(value)
        else:
            params[name] = type(default)(value)
    deals = max(1, args.hands // 2)
    budget_s = args.budget_ms / 1000
    if args.rules:
        pairs = args.pairs or ",".join(RULES_PAIRS)
        print(f"{2 * max(1, args.games // 2)} games per pair (half in each seating) under the preset {args.rules} "
              f"{dict(PRESETS[args.rules].options) or '(gin-rami defaults)'}; expert budget {args.budget_ms:g} "
              f"ms/move; {args.processes} processes; params {params or 'default'}; CPU time per move (process time)")
        with multiprocessing.Pool(args.processes) as pool:
            for pair in pairs.split(","):
                a, b = pair.split(":")
                run_games(pool, a, b, max(1, args.games // 2), args, budget_s, params)
        return 0
    print(f"{deals} deals = {2 * deals} hands per pair, duplicate; expert budget {args.budget_ms:g} ms/move; "
          f"{args.processes} processes; params {params or 'default'}; CPU time per move (process time)")
    with multiprocessing.Pool(args.processes) as pool:
        for scoring in args.scoring.split(","):
            options = SCORINGS[scoring]
            print(f"\n=== scoring: {scoring} {options or '(gin-rami defaults)'}")
            for pair in (args.pairs or ",".join(DEFAULT_PAIRS)).split(","):
                a, b = pair.split(":")
                run_pair(pool, a, b, deals, args, budget_s, params, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
