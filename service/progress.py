"""Progress on the command line: a bar on a terminal, plain lines in a log."""

from __future__ import annotations

import contextlib
import sys
import time


@contextlib.contextmanager
def decisions_progress():
    """A progress callback (done, total) for an analysis: a bar on stderr when it is a terminal, else a
    plain line at each tenth of the decisions."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not sys.stderr.isatty():
        started, shown = time.perf_counter(), [-1]

        def plain(done: int, total: int) -> None:
            tenth = 10 * done // max(1, total)
            if tenth != shown[0]:
                shown[0] = tenth
                print(f"ginbox analyse: {done}/{total} decisions ({time.perf_counter() - started:.1f} s)",
                      file=sys.stderr, flush=True)

        yield plain
        return
    columns = (TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("decisions"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("analysing", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
