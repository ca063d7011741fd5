"""Throughput of the rules engine, single process; prints figures, asserts nothing.

Run from the repository root: ``python tests/bench/bench_rules.py``.
Targets: 100,000 ten-card ``deadwood_mask`` hands/s and 50,000 eleven-card
``deadwood_after_discard_mask`` hands/s; 260 whole gin-rami hands/s of random self-play; the
same functions on card codes within 1.5x of the mask path (the codes/masks ratio is printed, and
which path turned the codes into masks: the optional "C speed-up" of service/rules/_speedups.c, or
"pure Python" where it is not built; ``--pure-python`` takes that path even where it is built).

Where OpenSpiel is installed (``pip install -e '.[native-bench]'``, optional), its C++ gin rummy
``min_deadwood`` runs on the same hands in the same run, and the two are checked to agree.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.rules import cards, melds  # noqa: E402
from service.rules import game  # noqa: E402

N_HANDS = 20_000
SEED = 1


def _hands(n_cards: int, seed: int) -> tuple[list[int], list[list[str]]]:
    """N_HANDS random hands, as masks and as code lists, built before any timing."""
    rng = random.Random(seed)
    deck = list(range(52))
    masks, codes = [], []
    for _ in range(N_HANDS):
        hand = rng.sample(deck, n_cards)
        masks.append(cards.mask(hand))
        codes.append([cards.code(c) for c in hand])
    return masks, codes


def _rate(fn, items) -> float:
    """Items per second for fn over items (best of three passes)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return len(items) / best


def codes_path() -> str:
    """Which path turns card codes into masks in this run."""
    return "C speed-up" if melds._codes_mask is not None else "pure Python"


def bench_deadwood() -> None:
    masks, codes = _hands(10, SEED)
    on_masks = _rate(melds.deadwood_mask, masks)
    on_codes = _rate(melds.deadwood, codes)
    print(
        f"deadwood (10 cards, {N_HANDS} hands): deadwood_mask {on_masks:,.0f} hands/s (target 100,000); "
        f"deadwood(codes) {on_codes:,.0f} hands/s; codes/masks time ratio {on_masks / on_codes:.2f} (target <= 1.5)"
    )
    bench_native(codes)


def bench_native(codes: list[list[str]]) -> None:
    """OpenSpiel's C++ ``min_deadwood`` on the same hands (its card ints, converted before timing)."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        print("  native: OpenSpiel not installed (pip install -e '.[native-bench]' to compare)")
        return
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    hands = [utils.card_strings_to_card_ints([c[0] + c[1].lower() for c in hand]) for hand in codes]
    agree = sum(utils.min_deadwood(h) == melds.deadwood(c) for h, c in zip(hands, codes))
    rate = _rate(utils.min_deadwood, hands)
    print(f"  native: OpenSpiel gin_rummy min_deadwood (C++, through pybind11) {rate:,.0f} hands/s "
          f"on the same hands; agrees on {agree} of {len(hands)}")


def bench_deadwood_after_discard() -> None:
    masks, codes = _hands(11, SEED + 1)
    on_masks = _rate(melds.deadwood_after_discard_mask, masks)
    on_codes = _rate(melds.deadwood_after_discard, codes)
    print(
        f"deadwood_after_discard (11 cards, {N_HANDS} hands): deadwood_after_discard_mask {on_masks:,.0f} hands/s "
        f"(target 50,000); deadwood_after_discard(codes) {on_codes:,.0f} hands/s; "
        f"codes/masks time ratio {on_masks / on_codes:.2f} (target <= 1.5)"
    )


SELFPLAY_HANDS = 1_000


def _selfplay(n_hands: int, seed: int) -> tuple[int, int, int, float]:
    """Random self-play of gin-rami: (hands, knocked hands, commands, seconds).

    Two players choose uniformly among legal_moves; every command goes through decide and
    evolve, as in a served game. The target score is out of reach so that hands keep coming.
    """
    rng = random.Random(seed)
    spec = game.GameSpec("gin-rami", [{"name": "a"}, {"name": "b"}], {"target_score": 100_000},
                         seed=b"bench-selfplay-%d" % seed)
    state = game.replay(game.start(spec))
    hands = knocked = commands = 0
    start = time.perf_counter()
    while hands < n_hands:
        seat = state.to_act[0]
        command = rng.choice(game.legal_moves(state, seat))
        for event in game.decide(state, seat, command):
            state = game.evolve(state, event)
            if event.TYPE in ("hand_scored", "hand_drawn"):
                hands += 1
                knocked += event.TYPE == "hand_scored"
        commands += 1
        if state.status != "playing":  # cannot happen below the target; restart to be safe
            state = game.replay(game.start(spec))
    return hands, knocked, commands, time.perf_counter() - start


def bench_selfplay() -> None:
    best = None
    for attempt in range(3):
        hands, knocked, commands, seconds = _selfplay(SELFPLAY_HANDS, SEED + attempt)
        if best is None or hands / seconds > best[0] / best[3]:
            best = (hands, knocked, commands, seconds)
    hands, knocked, commands, seconds = best
    print(
        f"random self-play (gin-rami, {hands} whole hands, {knocked} knocked, {commands} commands): "
        f"{hands / seconds:,.0f} hands/s (target 260); {commands / seconds:,.0f} commands/s "
        f"(legal_moves + decide + evolve)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pure-python", action="store_true",
                        help="time the pure-Python codes path even where the C speed-up is built")
    if parser.parse_args().pure_python:
        cards._codes_mask = melds._codes_mask = None
    print(f"card codes to masks: {codes_path()}")
    bench_deadwood()
    bench_deadwood_after_discard()
    bench_selfplay()


if __name__ == "__main__":
    main()
