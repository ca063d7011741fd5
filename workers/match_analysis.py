"""``ginbox match --analyse``: a finished match's games analysed in this process, summed per participant."""

from __future__ import annotations

import sys
import time
from typing import Callable

from service.analysis import analyse_log, read_export
from service.analysis.by_kind import by_kind_table, given_away_by_kind


def remote_exports(base: str, match: dict, report: Callable[[str], None]) -> list[tuple[str, list]]:
    """(game id, (log, advice)) of every game of the finished ``match`` (GET /matches/{id}), read from
    the server's exports."""
    from workers.arena_match import Remote

    remote = Remote(base, report)
    out = []
    for board in match["board_results"]:
        for table in board["tables"]:
            if table["game_id"] is not None and table["over"]:
                lines = remote.text(f"/games/{table['game_id']}/export").splitlines()
                out.append((table["game_id"], read_export(lines)))
    return out


def analyse_games(games: list[tuple[str, object]], samples: int, plain: bool, seed: int = 0) -> str:
    """The per-participant table of points given away per hand by kind, over ``games``: (id, log) or
    (id, (log, advice)) pairs, analysed one after another with a bar (plain lines when ``plain``)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    results = []
    started = time.perf_counter()
    columns = (TextColumn("games analysed"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True, disable=plain) as bar:
        task = bar.add_task("analysed", total=len(games))
        for n, (game_id, source) in enumerate(games, start=1):
            log, advice = source if isinstance(source, tuple) else (source, ())
            results.append(analyse_log(log, samples=samples, seed=seed, advice=advice))
            bar.update(task, completed=n)
            if plain:
                print(f"ginbox match: games analysed {n}/{len(games)} ({time.perf_counter() - started:.1f} s)",
                      file=sys.stderr, flush=True)
    return by_kind_table(given_away_by_kind(results))
