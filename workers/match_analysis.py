"""``ginbox match --analyse``: a finished match's games analysed in this process, summed per participant."""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Callable

from service.analysis import analyse_log, read_export
from service.analysis.by_kind import by_kind_table, given_away_by_kind


def remote_exports(fetch_text: Callable[[str], str], match: dict) -> list[tuple[str, tuple]]:
    """(game id, (log, advice)) of every game of the finished ``match`` (GET /matches/{id}), from the
    exports ``fetch_text(path)`` reads off the server."""
    out = []
    for board in match["board_results"]:
        for table in board["tables"]:
            if table["game_id"] is not None and table["over"]:
                lines = fetch_text(f"/games/{table['game_id']}/export").splitlines()
                out.append((table["game_id"], read_export(lines)))
    return out


def _analyse(job: tuple) -> dict:
    source, samples, seed = job
    log, advice = source if isinstance(source, tuple) else (source, ())
    return analyse_log(log, samples=samples, seed=seed, advice=advice)


def analyse_games(games: list[tuple[str, object]], samples: int, plain: bool, seed: int = 0,
                  processes: int | None = None) -> str:
    """The per-participant table of points given away per hand by kind, over ``games``: (id, log) or
    (id, (log, advice)) pairs, analysed in ``processes`` processes (one per CPU by default) with a
    bar (plain lines when ``plain``)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    processes = processes or os.cpu_count() or 1
    jobs = [(source, samples, seed) for _, source in games]
    started = time.perf_counter()
    columns = (TextColumn("games analysed"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    results = []
    # spawned processes, one game each at a time (a fork would copy the locks of this process's threads)
    with Progress(*columns, console=Console(stderr=True), transient=True, disable=plain) as bar, \
            ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        task = bar.add_task("analysed", total=len(jobs))
        for n, result in enumerate(pool.map(_analyse, jobs), start=1):
            results.append(result)
            bar.update(task, completed=n)
            if plain:
                print(f"ginbox match: games analysed {n}/{len(jobs)} ({time.perf_counter() - started:.1f} s)",
                      file=sys.stderr, flush=True)
    return by_kind_table(given_away_by_kind(results))
