"""``ginbox tournament``: a round-robin or Swiss tournament run on the configured server, followed to its end.

It sends ``POST /tournaments`` and follows ``GET /tournaments/{id}`` with a progress bar over the
pairings played (plain lines when stdout is not a terminal), then prints the standings.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
import uuid

from workers.arena_match import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OVER, EXIT_TERMINATED, EXIT_USAGE, POLL_S,
                                 MatchError, Remote, problem_line)
from workers.outside_bot import url_problem

#: seconds without any pairing played before saying once that a bot worker must be running
IDLE_HINT_S = 60.0


def pairings_in_all(system: str, entries: int, rounds: int) -> int:
    """Pairings the whole tournament plays: half the entries (rounded down) a round."""
    return rounds * (entries // 2)


def pairings_done(view: dict) -> int:
    return sum(p["status"] == "over" for r in view["schedule"] for p in r["pairings"])


def standings_table(view: dict) -> str:
    """The result table: one line per entry, first place first, with its tie-breaks."""
    breaks = view["tie_breaks"]
    head = f"{'#':>2} {'entry':<16} {'points':>6} {'W-D-L':>7} " + " ".join(f"{b:>16}" for b in breaks)
    lines = [head]
    for r in view["standings"]:
        wdl = f"{r['wins']}-{r['draws']}-{r['losses']}"
        lines.append(f"{r['rank']:>2} {r['name']:<16} {r['points']:>6g} {wdl:>7} "
                     + " ".join(f"{r[b]:>16g}" for b in breaks))
    return "\n".join(lines)


def run_remote(base: str, body: dict, progress, started, report, token: str | None = None) -> dict:
    """Start the tournament and follow it to its end; its final view (MatchError when it cannot go on)."""
    remote = Remote(base, report)
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    # one Idempotency-Key for every sending: a retry after a lost answer finds the first tournament
    status, view = remote.call("POST", "/tournaments", body, headers={"Idempotency-Key": str(uuid.uuid4()), **auth})
    if status in (400, 401, 403, 422):
        raise MatchError(EXIT_USAGE, f"the server refused the tournament: {problem_line(status, view)}")
    if status != 201:
        raise MatchError(EXIT_FAILED, f"POST {remote.base}/tournaments: {problem_line(status, view)}")
    started(view["tournament_id"])
    moved, moved_at, hinted = None, time.monotonic(), False
    while True:
        progress(view)
        if view["status"] == "over":
            return view
        if view["version"] != moved:
            moved, moved_at = view["version"], time.monotonic()
        elif not hinted and time.monotonic() - moved_at >= IDLE_HINT_S:
            hinted = True
            report(f"no pairing has ended for {IDLE_HINT_S:g} s: built-in policies' games are played by bot "
                   "workers, so one must be running beside the server (ginbox worker; ginbox serve starts them)")
        time.sleep(POLL_S)
        status, answer = remote.call("GET", f"/tournaments/{view['tournament_id']}")
        if status != 200:
            raise MatchError(EXIT_FAILED, f"GET {remote.base}/tournaments/{view['tournament_id']}: "
                                          f"{problem_line(status, answer)}", lost=status == 404)
        view = answer


def body_of(args) -> dict:
    body = {"system": args.system, "entries": [e.strip() for e in args.entries.split(",") if e.strip()],
            "boards": args.boards}
    if args.rounds is not None:
        body["rounds"] = args.rounds
    if args.rated is not None:
        body["rated"] = args.rated
    if args.move_time_s is not None:
        body["move_time_s"] = args.move_time_s
    return body


def main(args) -> int:
    """Run ``ginbox tournament`` with parsed arguments; the exit codes of ``ginbox match``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    def fail(code: int, message: str) -> int:
        print(f"ginbox tournament: {message}", file=sys.stderr, flush=True)
        return code

    if (problem := url_problem(args.server)) is not None:
        return fail(EXIT_USAGE, problem)
    body = body_of(args)
    base = args.server.rstrip("/")
    plain = not sys.stdout.isatty()  # plain lines for a log, a pipe, a CI job; a bar on a terminal
    started_at, tournament_id, last = time.perf_counter(), None, None
    stopped_by = None

    def note(line: str) -> None:
        if plain:
            print(f"ginbox tournament: {line}", file=sys.stderr, flush=True)
        else:
            bar.console.print(f"ginbox tournament: {line}", markup=False, highlight=False, soft_wrap=True)

    def progress(view: dict) -> None:
        nonlocal last
        done, total = pairings_done(view), pairings_in_all(view["system"], len(view["entries"]), view["rounds"])
        if plain:
            if done != last:
                last = done
                print(f"ginbox tournament: pairings {done}/{total}, round {len(view['schedule'])} of {view['rounds']} "
                      f"({time.perf_counter() - started_at:.1f} s)", file=sys.stderr, flush=True)
        else:
            bar.update(task, completed=done, total=total)

    def announce(new_id: str) -> None:
        nonlocal tournament_id
        tournament_id = new_id
        note(f"tournament {new_id} started: {base}/tournament/{new_id}")

    def terminated(signum, frame):
        nonlocal stopped_by
        stopped_by = signum
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminated)
    follow = "the tournament goes on at the server: follow it at {base}/tournament/{id}"
    try:
        columns = (TextColumn("pairings"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with (contextlib.nullcontext() if plain else
              Progress(*columns, console=Console(stderr=True), transient=not sys.stderr.isatty())) as bar:
            task = None if plain else bar.add_task("pairings", total=None)
            final = run_remote(args.server, body, progress, announce, note,
                               token=args.token or os.environ.get("GINBOX_BOT_TOKEN"))
    except KeyboardInterrupt:
        code, what = ((EXIT_TERMINATED, "stopped (SIGTERM)") if stopped_by == signal.SIGTERM
                      else (EXIT_INTERRUPTED, "interrupted"))
        return fail(code, what if tournament_id is None else f"{what}; {follow.format(base=base, id=tournament_id)}")
    except MatchError as err:
        if tournament_id is None or err.lost:
            return fail(err.code, str(err))
        return fail(err.code, f"{err}; {follow.format(base=base, id=tournament_id)}")
    finally:
        signal.signal(signal.SIGTERM, previous)
    elapsed = time.perf_counter() - started_at
    print(f"{final['system']}, {len(final['entries'])} entries, {final['rounds']} rounds of {final['boards']} boards a "
          f"pairing, tournament {final['tournament_id']} on {args.server}, {elapsed:.1f} s")
    print(standings_table(final))
    return EXIT_OVER
