"""``ginbox match``: a duplicate match run on the configured server, or in this process (``--local``).

Against a server it follows the match with a progress bar until it is over.
``--local`` needs neither server nor Redis: the built-in policies alone play the same boards here.
Both print the same table: each participant's total, mean per board and its 95% interval.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import secrets
import signal
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Callable

from service.rules import duplicate as D
from service.rules import game as G
from service.rules import views
from service.rules.names import BOT_POLICY_NAMES

from service.rules.errors import RulesError

from workers.arena import Table
from workers.outside_bot import RETRY_STATUSES, problem_text, retry_delay, url_problem
from workers.policies import make_policy

#: seconds between two looks at a match on the server
POLL_S = 0.5


# -- in this process -----------------------------------------------------------------------------


def play_game(game_id: str, spec: G.GameSpec, policies: list, logs: dict | None = None) -> G.GameState:
    """Play a board's game to its end with one policy per seat; its final state (its log put in
    ``logs`` under its id, when given)."""
    # Each move is chosen as a worker would: the policy's own view and events,
    # its random generator seeded by game, version and seat.
    table = Table.start(spec)
    while table.state.status == "playing":
        seat = table.state.to_act[0]
        view = views.view_state(table.state, seat)
        rng = random.Random(f"{game_id}:{table.state.version}:{seat}")
        table.play(seat, policies[seat].choose(view, rng, table.seen[seat]))
    if logs is not None:
        logs[game_id] = table.log
    return table.state


def check_local(variant: str, participants: list[str], boards: int) -> None:
    """ValueError or RulesError when run_local would refuse these arguments (before anything is played)."""
    unknown = [p for p in participants if p not in BOT_POLICY_NAMES]
    if unknown:
        raise ValueError(f"--local plays built-in policies only ({', '.join(BOT_POLICY_NAMES)}), not {unknown}")
    named = [{"name": f"{p}-{i}", "kind": "policy", "policy": p, "rating_name": p} for i, p in enumerate(participants)]
    D.create(variant, {}, named, boards, None, bytes(32), window=1)


def run_local(variant: str, participants: list[str], boards: int, options: dict | None = None,
              progress: Callable[[D.MatchState], None] | None = None, seed: bytes | None = None,
              match_id: str = "local", logs: dict | None = None) -> D.MatchState:
    """Play a whole duplicate match of built-in policies here; the match's final state (each game's
    log put in ``logs`` under its id, when given)."""
    # The same boards as on a server (service.rules.duplicate: a seed per board, the same seating,
    # the same scoring), played one game after another.
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
            final = play_game(game_id, spec, [make_policy(named[i]["policy"]) for i in seating], logs)
            points = D.seat_points(final.results, len(players))
            state = D.evolve(state, D.decide_played(state, board, table, game_id, points))
        if progress is not None:
            progress(state)
    return D.evolve(state, D.decide_finish(state, seed))


# -- against a server ------------------------------------------------------------------------------

#: seconds without any answer from the server (refused or dropped connections) before giving up on it
GIVE_UP_S = 15.0
#: the tries of a GET of an export before giving up on the server
TEXT_TRIES = 8
#: the longest single wait when the server asks for time (429, 503)
MAX_WAIT_S = 30.0
#: exit codes: the match is over; the server refused the match or could not be reached; wrong
#: arguments (here or in the server's 400/422); stopped following (Ctrl-C; SIGTERM: 128 + 15) while
#: the match goes on
EXIT_OVER, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143
#: seconds without a board game ended (nor any other step of the match) before saying once that a
#: bot worker must be running
IDLE_HINT_S = 60.0


class MatchError(Exception):
    """``ginbox match`` cannot go on: the process prints the message and exits with ``code``.
    ``lost``: the server no longer has the match (no "the match goes on" then)."""

    def __init__(self, code: int, message: str, lost: bool = False):
        super().__init__(message)
        self.code = code
        self.lost = lost


def problem_line(status: int, doc) -> str:
    """'400 invalid_body: the request body does not match its schema (boards: ...)': a problem's
    status, code and detail, and its field ``errors`` when it has them."""
    text = problem_text(status, doc)
    errors = doc.get("errors") if isinstance(doc, dict) else None
    if isinstance(errors, dict) and errors:
        fields = "; ".join(f"{field}: {' '.join(map(str, msgs)) if isinstance(msgs, list) else msgs}"
                           for field, msgs in errors.items())
        text += f" ({fields})"
    return text


class Remote:
    """The two calls of ``ginbox match`` with the waits a shared server asks for: a 429 or 503 is
    waited out as its ``Retry-After`` asks (workers.outside_bot.retry_delay), as is a server that
    does not answer, for at most ``give_up_s`` seconds in a row."""

    def __init__(self, base: str, report: Callable[[str], None], max_wait_s: float = MAX_WAIT_S,
                 give_up_s: float = GIVE_UP_S):
        self.base = base.rstrip("/")
        self.report = report
        self.max_wait_s = max_wait_s
        self.give_up_s = give_up_s

    def _once(self, method: str, path: str, data: bytes | None, headers: dict | None = None):
        """(status, Retry-After or None, parsed body); status None and the reason when no answer came."""
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, None, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            try:
                raw = err.read()
                doc = json.loads(raw) if raw else None
            except (ValueError, OSError, http.client.HTTPException):
                doc = None
            return err.code, err.headers.get("Retry-After"), doc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            return None, None, getattr(err, "reason", err)

    def text(self, path: str) -> str:
        """The body of ``GET path`` as text (an export's lines), with the same waits as ``call``."""
        failures = 0
        while True:
            req = urllib.request.Request(self.base + path, method="GET")
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    return resp.read().decode("utf-8")
            except urllib.error.HTTPError as err:
                status, retry_after = err.code, err.headers.get("Retry-After")
                try:
                    raw = err.read()
                    doc = json.loads(raw) if raw else None
                except (ValueError, OSError, http.client.HTTPException):
                    doc = None
                if status not in (429, 503):
                    raise MatchError(EXIT_FAILED, f"GET {path}: {problem_text(status, doc)}") from None
                what = problem_text(status, doc)
            except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
                retry_after, what = None, f"no answer ({getattr(err, 'reason', err)})"
            failures += 1
            if failures > TEXT_TRIES:
                raise MatchError(EXIT_FAILED, f"GET {path}: {what}; gave up after {TEXT_TRIES} tries")
            delay = retry_delay(retry_after, failures, self.max_wait_s)
            self.report(f"GET {path}: {what}; waiting {delay:.1f} s")
            time.sleep(delay)

    def call(self, method: str, path: str, body: dict | None = None, *, safe_to_repeat: bool = True,
             headers: dict | None = None):
        """(status, body) of the first answer not worth waiting for. A request that may have been
        taken (no answer after it was sent) is sent again only when ``safe_to_repeat``; a 409
        ``idempotency_key_in_use`` (the same request, with its Idempotency-Key, still being
        answered) is waited out like a 429."""
        data = None if body is None else json.dumps(body).encode()
        failures, silent_since = 0, None
        while True:
            status, retry_after, doc = self._once(method, path, data, headers)
            in_use = status == 409 and isinstance(doc, dict) and doc.get("code") == "idempotency_key_in_use"
            if status is not None and not in_use and (status not in RETRY_STATUSES
                                                      or not safe_to_repeat and status not in (429, 503)):
                return status, doc
            failures += 1
            if status is None:
                refused = isinstance(doc, ConnectionRefusedError)
                if not (safe_to_repeat or refused):
                    raise MatchError(EXIT_FAILED, f"{method} {path}: no answer ({doc})")
                silent_since = silent_since or time.monotonic()
                if time.monotonic() - silent_since >= self.give_up_s:
                    raise MatchError(EXIT_FAILED, f"{method} {path}: no answer from {self.base} "
                                                  f"for {self.give_up_s:g} s ({doc})")
                what = f"no answer ({doc})"
            else:
                silent_since = None
                what = problem_text(status, doc) + (f" (Retry-After: {retry_after})" if retry_after else "")
            delay = retry_delay(retry_after if status is not None else None, failures, self.max_wait_s)
            self.report(f"{method} {path}: {what}; waiting {delay:.1f} s")
            time.sleep(delay)


def run_remote(base: str, body: dict, progress: Callable[[dict], None] | None = None,
               started: Callable[[str], None] | None = None, report: Callable[[str], None] | None = None,
               give_up_s: float = GIVE_UP_S, idle_hint_s: float = IDLE_HINT_S, token: str | None = None) -> dict:
    """Start the match on the server and follow it to its end; its final view. ``started`` is told
    the match's id as soon as the server gave it; MatchError when it cannot go on."""
    # It sends POST /matches, and follows GET /matches/{id} until the match is over.
    # A 429 or 503 is waited out as its Retry-After asks, a silent server for a while (Remote).
    remote = Remote(base, report or (lambda line: print(f"ginbox match: {line}", file=sys.stderr)),
                    give_up_s=give_up_s)
    # one Idempotency-Key for every sending of the POST: a retry after an answer that was lost (no
    # answer, a proxy's 502) gets the match the first sending started, never a second match
    # a bot account's token sends the match as that bot (its consent, its count)
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    status, match = remote.call("POST", "/matches", body, headers={"Idempotency-Key": str(uuid.uuid4()), **auth})
    if status == 401:
        raise MatchError(EXIT_USAGE, f"the server refused the token: {problem_line(status, match)}")
    if status in (400, 422):
        raise MatchError(EXIT_USAGE, f"the server refused the match: {problem_line(status, match)}")
    if status != 201:
        raise MatchError(EXIT_FAILED, f"POST {remote.base}/matches: {problem_line(status, match)}")
    match_id = match["match_id"]
    if started is not None:
        started(match_id)
    moved, moved_at, hinted = None, time.monotonic(), False
    while True:
        if progress is not None:
            progress(match)
        if match["status"] == "over":
            return match
        if (match["games_done"], match["version"]) != moved:
            moved, moved_at = (match["games_done"], match["version"]), time.monotonic()
        elif not hinted and time.monotonic() - moved_at >= idle_hint_s:
            hinted = True
            remote.report(idle_hint(idle_hint_s))
        time.sleep(POLL_S)
        status, answer = remote.call("GET", f"/matches/{match_id}")
        if status == 404:
            raise MatchError(EXIT_FAILED, f"GET {remote.base}/matches/{match_id}: {problem_line(status, answer)}; "
                                          "the server no longer has this match", lost=True)
        if status != 200:
            raise MatchError(EXIT_FAILED, f"GET {remote.base}/matches/{match_id}: {problem_line(status, answer)}")
        match = answer


def idle_hint(seconds: float) -> str:
    """What to say of a match in which no board game has ended for ``seconds``."""
    return (f"no board game has ended for {seconds:g} s: built-in policies' boards are played by bot "
            "workers, so one must be running beside the server (ginbox worker; ginbox serve starts them); "
            "a bot account's boards wait for its own program")


def follow_hint(base: str, match_id: str) -> str:
    """How to follow a match that goes on at the server without this process."""
    base = base.rstrip("/")
    return f"the match goes on at the server: follow it at {base}/match/{match_id} (or GET {base}/matches/{match_id})"


# -- the command -----------------------------------------------------------------------------------


def standings_table(rows: list[dict]) -> str:
    """The result table: one line per participant."""
    lines = [f"{'participant':<16} {'boards':>6} {'total':>10} {'mean/board':>11} {'95% interval':>22}"]
    for r in rows:
        mean = "-" if r["mean_per_board"] is None else f"{r['mean_per_board']:.2f}"
        ci = "-" if r["ci95"] is None else f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]"
        lines.append(f"{r['name']:<16} {r['boards']:>6} {r['total']:>10.1f} {mean:>11} {ci:>22}")
    return "\n".join(lines)


class PlainProgress:
    """The progress as plain lines on stderr, one per board done, for a log rather than a terminal."""

    def __init__(self, total: int):
        self.total, self.done, self.started = total, None, time.perf_counter()

    def update(self, done: int) -> None:
        if done != self.done:
            self.done = done
            print(f"ginbox match: boards {done}/{self.total} ({time.perf_counter() - self.started:.1f} s)",
                  file=sys.stderr, flush=True)

    @staticmethod
    def note(line: str) -> None:
        print(f"ginbox match: {line}", file=sys.stderr, flush=True)


def remote_body(args, participants: list[str]) -> dict:
    """The POST /matches body of ``ginbox match``'s arguments (--rated and --move-time-s only when given)."""
    body = {"variant": args.variant, "participants": participants, "boards": args.boards}
    if getattr(args, "rated", None) is not None:
        body["rated"] = args.rated
    if getattr(args, "move_time_s", None) is not None:
        body["move_time_s"] = args.move_time_s
    return body


def main(args) -> int:
    """Run ``ginbox match`` with parsed arguments; 0 when the match ended, else one line on stderr and
    EXIT_FAILED, EXIT_USAGE (wrong arguments), EXIT_INTERRUPTED (Ctrl-C) or EXIT_TERMINATED (SIGTERM)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    def fail(code: int, message: str) -> int:
        print(f"ginbox match: {message}", file=sys.stderr, flush=True)
        return code

    participants = [p.strip() for p in args.participants.split(",") if p.strip()]
    if not args.local and (problem := url_problem(args.server)) is not None:
        return fail(EXIT_USAGE, problem)
    if args.local:
        server_only = [flag for flag, value in (("--token", getattr(args, "token", None)),
                                                ("--rated/--no-rated", getattr(args, "rated", None)),
                                                ("--move-time-s", getattr(args, "move_time_s", None)))
                       if value is not None]
        if server_only:
            return fail(EXIT_USAGE, f"--local plays built-in policies here, unrated and unclocked: "
                                    f"{', '.join(server_only)} is for a match on a server")
        try:
            check_local(args.variant, participants, args.boards)
        except (ValueError, RulesError) as err:
            return fail(EXIT_USAGE, str(err))
    columns = (TextColumn("boards"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    started = time.perf_counter()
    match_id = None

    # a bar on a terminal; plain lines when stdout is not one (a log, a pipe, a CI job)
    plain = PlainProgress(max(args.boards, 0)) if not sys.stdout.isatty() else None

    def note(line: str) -> None:
        if plain is not None:
            plain.note(line)
        else:
            bar.console.print(f"ginbox match: {line}", markup=False, highlight=False, soft_wrap=True)

    def done(count: int) -> None:
        if plain is not None:
            plain.update(count)
        else:
            bar.update(task, completed=count)

    def terminated(signum, frame):
        # SIGTERM (a service manager's, kill's) ends the follow as a Ctrl-C does, with its line
        nonlocal stopped_by
        stopped_by = signum
        raise KeyboardInterrupt

    stopped_by = None
    previous_handler = signal.signal(signal.SIGTERM, terminated)
    # the games' logs, kept for --analyse when they are played here
    logs: dict | None = {} if getattr(args, "analyse", False) else None
    final: dict | None = None

    # it prints the match's id and page as soon as it has them
    def announce(new_id: str) -> None:
        nonlocal match_id
        match_id = new_id
        base = args.server.rstrip("/")
        note(f"match {new_id} started: {base}/match/{new_id}")

    # The match is the server's.
    # When the command stops following it (Ctrl-C, a server gone), it says where to follow it.
    try:
        # the bar goes to stderr, the result table to stdout
        with (contextlib.nullcontext() if plain is not None else
              Progress(*columns, console=Console(stderr=True), transient=not sys.stderr.isatty())) as bar:
            task = bar.add_task("boards", total=max(args.boards, 0)) if plain is None else None
            if args.local:
                state = run_local(args.variant, participants, args.boards,
                                  progress=lambda s: done(len(D.board_scores(s))), logs=logs)
                rows, seed, where = D.standings(state), state.seed, "in this process"
            else:
                final = run_remote(args.server, remote_body(args, participants),
                                   progress=lambda m: done(m["boards_done"]), started=announce, report=note,
                                   token=getattr(args, "token", None) or os.environ.get("GINBOX_BOT_TOKEN"))
                rows, seed, where = final["standings"], final["seed"], f"match {final['match_id']} on {args.server}"
    except KeyboardInterrupt:
        code, what = ((EXIT_TERMINATED, "stopped (SIGTERM)") if stopped_by == signal.SIGTERM
                      else (EXIT_INTERRUPTED, "interrupted"))
        if match_id is None:
            return fail(code, what + ("" if args.local else "; no match was started (or its id never came back)"))
        return fail(code, f"{what}; {follow_hint(args.server, match_id)}")
    except MatchError as err:
        if match_id is None or err.lost:
            return fail(err.code, str(err))
        return fail(err.code, f"{err}; {follow_hint(args.server, match_id)}")
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
    elapsed = time.perf_counter() - started
    print(f"{args.variant}, {args.boards} boards, {where}, {elapsed:.1f} s (seed {seed})")
    print(standings_table(rows))
    if logs is not None:
        return analyse_after(args, logs, final, plain is not None)
    return EXIT_OVER


def analyse_after(args, logs: dict, final: dict | None, plain: bool) -> int:
    """``--analyse``: every game of the finished match analysed here (their exports read from the
    server when it played them), then the points each participant gave away per hand, by kind."""
    from service.analysis import DEFAULT_SAMPLES
    from workers.match_analysis import analyse_games, remote_exports

    try:
        games = (list(logs.items()) if final is None
                 else remote_exports(Remote(args.server, PlainProgress.note).text, final))
        table = analyse_games(games, samples=getattr(args, "samples", None) or DEFAULT_SAMPLES, plain=plain)
    except MatchError as err:
        print(f"ginbox match: --analyse: {err}", file=sys.stderr, flush=True)
        return err.code
    except KeyboardInterrupt:
        print("ginbox match: --analyse interrupted; the match itself is over", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    print(table)
    return EXIT_OVER
