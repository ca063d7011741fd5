"""OpenSpiel replays ginbox's games: every hand of every game, converted, played through pyspiel.

Needs OpenSpiel (``.venv/bin/pip install -e '.[native-bench]'``); without it, it says so and exits 0.
For each game it converts the log (``service.rules.openspiel.to_record``) and applies every
hand's actions to ``pyspiel.load_game("gin_rummy", parameters)``, each one checked against the
state's legal actions (chance outcomes included). It compares the terminal state with ginbox's:
both hands as they ended, the knocker's melds, the returns. It also converts each record back
(``from_record``) and checks that every decision and every hand's result are kept.

    .venv/bin/python tests/bench/bench_openspiel_replay.py [--games 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.rules import events, openspiel  # noqa: E402
from service.rules.openspiel_codes import to_int  # noqa: E402
from support.openspiel_play import decisions, play_game  # noqa: E402


def final_hands(log: list) -> dict[int, list]:
    """Each knocked hand's two hands at its end as ginbox records them, by hand number (seat order)."""
    return {e.hand_no: e.hands for e in log if type(e) is events.HandScored}


def replay_hand(pyspiel, params: dict, hand: dict) -> tuple[object, int]:
    """The state OpenSpiel reaches on the hand's actions, each checked legal; and the actions applied."""
    game = pyspiel.load_game("gin_rummy", params)
    state = game.new_initial_state()
    for n, action in enumerate(hand["actions"]):
        legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        if action not in legal:
            raise AssertionError(f"hand {hand['hand_no']}, action {n} ({action}) is not legal in OpenSpiel: {legal}")
        state.apply_action(action)
    return state, len(hand["actions"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel is not installed (pip install -e '.[native-bench]'): nothing to replay")
        return 0
    presets = [("openspiel", None), ("openspiel", {"oklahoma": True, "knock_limit": None}),
               ("openspiel", {"knock_limit": 5, "undercut_bonus": 10})]
    counts = dict(games=0, hands=0, knocked=0, drawn=0, ties=0, actions=0, round_trips=0)
    failures: list[str] = []
    t_convert = t_replay = t_back = 0.0
    for g in range(args.games):
        rules, options = presets[g % len(presets)]
        seed = args.seed * 1_000_003 + g
        log = play_game(seed, rules=rules, options=options, resign_at=60 if g % 10 == 9 else None)
        t0 = time.perf_counter()
        record = openspiel.to_record(log)
        t1 = time.perf_counter()
        ended = final_hands(log)
        scored = {e.hand_no: e for e in log if type(e) is events.HandScored}
        for hand in record["hands"]:
            try:
                state, n = replay_hand(pyspiel, record["parameters"], hand)
            except AssertionError as err:
                failures.append(f"game {seed}: {err}")
                continue
            counts["actions"] += n
            counts["hands"] += 1
            if not hand["terminal"]:
                if state.is_terminal():
                    failures.append(f"game {seed} hand {hand['hand_no']}: OpenSpiel ended a hand ginbox left in play")
                continue
            if not state.is_terminal():
                failures.append(f"game {seed} hand {hand['hand_no']}: OpenSpiel's hand is not over")
                continue
            got = [int(r) for r in state.returns()]
            if got != hand["returns"]:
                failures.append(f"game {seed} hand {hand['hand_no']}: OpenSpiel returns {got}, record {hand['returns']}")
            e = scored.get(hand["hand_no"])
            if e is None:
                counts["drawn"] += 1
                continue
            counts["knocked"] += 1
            # the hands as they ended: OpenSpiel's hands hold what no meld took; ginbox's, the ten cards kept
            seats = hand["players"]
            knocker = seats.index(e.knocker)
            melded = {c for meld in state.layed_melds()[knocker] for c in _meld_cards(state, meld)}
            left = set(state.hands()[knocker])
            if melded | left != {to_int(c) for c in ended[hand["hand_no"]][e.knocker]}:
                failures.append(f"game {seed} hand {hand['hand_no']}: the knocker's cards differ")
            winner = seats.index(e.winner)
            if e.knocker_deadwood == e.defender_deadwood and e.outcome == "undercut":
                counts["ties"] += 1  # OpenSpiel scores a tie 0, ginbox gives the defender the undercut bonus
                if got != [0, 0]:
                    failures.append(f"game {seed} hand {hand['hand_no']}: a tie OpenSpiel scored {got}")
            elif got[winner] != e.points:
                failures.append(f"game {seed} hand {hand['hand_no']}: OpenSpiel gives {got}, ginbox {e.points} "
                                f"to seat {e.winner}")
        t2 = time.perf_counter()
        back = openspiel.from_record(record)
        t3 = time.perf_counter()
        if decisions(back) != decisions(log):
            failures.append(f"game {seed}: the round trip lost a decision")
        else:
            counts["round_trips"] += 1
        counts["games"] += 1
        t_convert += t1 - t0
        t_replay += t2 - t1
        t_back += t3 - t2
    print(f"OpenSpiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''} gin_rummy: "
          f"{counts['games']} games, {counts['hands']} hands ({counts['knocked']} knocked, {counts['drawn']} drawn, "
          f"{counts['ties']} ties), {counts['actions']} actions replayed")
    print(f"same final hands and score in OpenSpiel: {counts['hands'] - len(failures)} of {counts['hands']} hands "
          f"(ties: OpenSpiel 0, as documented)")
    print(f"round trips keeping every decision: {counts['round_trips']} of {counts['games']} games")
    print(f"time per game: convert {1000 * t_convert / max(1, counts['games']):.2f} ms, "
          f"OpenSpiel replay {1000 * t_replay / max(1, counts['games']):.2f} ms, "
          f"back to ginbox {1000 * t_back / max(1, counts['games']):.2f} ms")
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


def _meld_cards(state, meld_id: int) -> list[int]:
    from service.rules.openspiel_codes import MELDS

    return list(MELDS[meld_id])


if __name__ == "__main__":
    sys.exit(main())
