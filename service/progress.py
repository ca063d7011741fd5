"""Progress on the command line: a bar on stderr when it is a terminal, plain lines in a log."""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Callable, Iterator


@contextlib.contextmanager
def counted(command: str, doing: str, unit: str, total: int | None = None) -> Iterator[Callable[[int, int | None], None]]:
    """A callback ``(done, total)`` showing a count's progress: rich's bar on a terminal, else one
    plain line on stderr at each tenth of ``total`` ("ginbox analyse: 30/112 decisions (4.1 s)")."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not sys.stderr.isatty():
        started, shown, known = time.perf_counter(), [-1], [total]

        def plain(done: int, new_total: int | None = None) -> None:
            known[0] = new_total if new_total is not None else known[0]
            tenth = 10 * done // max(1, known[0] or 1)
            if tenth != shown[0]:
                shown[0] = tenth
                print(f"{command}: {done}/{known[0]} {unit} ({time.perf_counter() - started:.1f} s)",
                      file=sys.stderr, flush=True)

        yield plain
        return
    columns = (TextColumn(doing), BarColumn(), MofNCompleteColumn(), TextColumn(unit), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(doing, total=total)

        def show(done: int, new_total: int | None = None) -> None:
            bar.update(task, completed=done, **({"total": new_total} if new_total is not None else {}))

        yield show


def decisions_progress():
    """The progress of ``ginbox analyse``: decisions rated, of all."""
    return counted("ginbox analyse", "analysing", "decisions")
