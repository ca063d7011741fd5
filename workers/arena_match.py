"""``ginbox match``: a duplicate match run on the configured server, or in this process (``--local``).

Against a server it sends ``POST /matches`` and follows ``GET /matches/{id}`` with a progress bar
until the match is over. With ``--local`` it needs neither server nor Redis: the same boards
(service.rules.duplicate: a seed per board, the same seating, the same scoring) are played here,
one game after another, by the built-in policies alone, each move chosen as a worker would
(the policy's own view and events, its random generator seeded by game, version and seat).
Both print the same table: per participant the total, the mean per board and its 95% interval.
"""

from __future__ import annotations

import json
import random
import secrets
import sys
import time
import urllib.error
import urllib.request
from typing import Callable

from service.rules import duplicate as D
from service.rules import game as G
from service.rules import views
from service.rules.names import BOT_POLICY_NAMES

from workers.arena import Table
from workers.policies import make_policy

#: seconds between two looks at a match on the server
POLL_S = 0.5


# -- in this process -----------------------------------------------------------------------------


def play_game(game_id: str, spec: G.GameSpec, policies: list) -> G.GameState:
    """Play a board's game to its end with one policy per seat; its final state."""
    table = Table.start(spec)
    while table.state.status == "playing":
        seat = table.state.to_act[0]
        view = views.view_state(table.state, seat)
        rng = random.Random(f"{game_id}:{table.state.version}:{seat}")
        table.play(seat, policies[seat].choose(view, rng, table.seen[seat]))
    return table.state


def run_local(variant: str, participants: list[str], boards: int, options: dict | None = None,
              progress: Callable[[D.MatchState], None] | None = None, seed: bytes | None = None,
              match_id: str = "local") -> D.MatchState:
    """Play a whole duplicate match of built-in policies here; the match's final state."""
    unknown = [p for p in participants if p not in BOT_POLICY_NAMES]
    if unknown:
        raise ValueError(f"--local plays built-in policies only ({', '.join(BOT_POLICY_NAMES)}), not {unknown}")
    seed = seed or secrets.token_bytes(32)
    named = []
    for i, p in enumerate(participants):
        label = p if participants.index(p) == i else f"{p}-{participants[:i + 1].count(p)}"
        named.append({"name": label, "kind": "policy", "policy": p, "rating_name": p})
    state = D.evolve(None, D.create(variant, options or {}, named, boards, None, seed, window=boards * 3))
    state = D.evolve(state, D.decide_start(state))
    for board in range(boards):
        for table in range(state.tables):
            seating = D.seating(variant, table)
            players = [{"name": named[i]["name"], "bot": named[i]["policy"]} for i in seating]
            spec = G.GameSpec(variant=variant, players=players, options={**(options or {}), **D.BOARD_OPTIONS},
                              seed=D.board_seed(seed, board),
                              first_dealer=D.FIRST_DEALER if variant == D.GIN_RAMI else None,
                              roles=dict(D.ROLES) if variant == D.THREE_HAND else None)
            game_id = D.game_id_for(match_id, board, table)
            final = play_game(game_id, spec, [make_policy(named[i]["policy"]) for i in seating])
            points = D.seat_points(final.results, len(players))
            state = D.evolve(state, D.decide_played(state, board, table, game_id, points))
        if progress is not None:
            progress(state)
    return D.evolve(state, D.decide_finish(state, seed))


# -- against a server ------------------------------------------------------------------------------


def _call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())
    except urllib.error.HTTPError as err:
        try:
            doc = json.loads(err.read())
        except ValueError:
            doc = {}
        raise SystemExit(f"ginbox match: {method} {url}: {err.code} {doc.get('code', '')}: {doc.get('detail', '')}")


def run_remote(base: str, body: dict, progress: Callable[[dict], None] | None = None) -> dict:
    """Start the match on the server and follow it to its end; its final view."""
    base = base.rstrip("/")
    match = _call(f"{base}/matches", "POST", body)
    while True:
        if progress is not None:
            progress(match)
        if match["status"] == "over":
            return match
        time.sleep(POLL_S)
        match = _call(f"{base}/matches/{match['match_id']}")


# -- the command -----------------------------------------------------------------------------------


def standings_table(rows: list[dict]) -> str:
    """The result table: one line per participant."""
    lines = [f"{'participant':<16} {'boards':>6} {'total':>10} {'mean/board':>11} {'95% interval':>22}"]
    for r in rows:
        mean = "-" if r["mean_per_board"] is None else f"{r['mean_per_board']:.2f}"
        ci = "-" if r["ci95"] is None else f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"
        lines.append(f"{r['name']:<16} {r['boards']:>6} {r['total']:>10.1f} {mean:>11} {ci:>22}")
    return "\n".join(lines)


def main(args) -> int:
    """Run ``ginbox match`` with parsed arguments; 0 when the match ended."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    participants = [p.strip() for p in args.participants.split(",") if p.strip()]
    columns = (TextColumn("boards"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    started = time.perf_counter()
    # the bar goes to stderr, the result table to stdout
    with Progress(*columns, console=Console(stderr=True), transient=not sys.stderr.isatty()) as bar:
        task = bar.add_task("boards", total=args.boards)
        if args.local:
            try:
                state = run_local(args.variant, participants, args.boards,
                                  progress=lambda s: bar.update(task, completed=len(D.board_scores(s))))
            except ValueError as err:
                print(f"ginbox match: {err}", file=sys.stderr)
                return 2
            rows, seed, where = D.standings(state), state.seed, "in this process"
        else:
            body = {"variant": args.variant, "participants": participants, "boards": args.boards}
            final = run_remote(args.server, body, progress=lambda m: bar.update(task, completed=m["boards_done"]))
            rows, seed, where = final["standings"], final["seed"], f"match {final['match_id']} on {args.server}"
    elapsed = time.perf_counter() - started
    print(f"{args.variant}, {args.boards} boards, {where}, {elapsed:.1f} s (seed {seed})")
    print(standings_table(rows))
    return 0
