"""The ``ginbox`` command: ``serve``, ``worker``, ``match``, ``audit``, ``analyse`` and ``archive``.

``serve`` runs the API, its bot workers and an embedded Redis.
``match`` plays a duplicate match on a server, or here.
``audit`` checks offline a finished game's export, or a finished match with its games' exports.
``analyse`` rates offline every decision of a finished game's export.
``archive`` archives the finished games whose logs are not archived yet.
This module reads the command line and holds each command's front.
Running the server is ``service.serve``'s.
"""

# A command's front: its options, the command lines of the children ``ginbox serve`` starts
# (gunicorn's for the API, the bot workers'), and the smaller commands whole.
# Running the server: its data directory's lock, the children kept running, the stop in order.
# service.serve is imported only when ``serve`` is asked for.
# This stays a module rather than a package service/cli/, because others name it:
# the console script (service.cli:main), ``python -m service.cli`` (how ``ginbox serve`` starts its
# bot workers) and the tests.
# A test also reads this file for gunicorn's command line.
# service.serve sits one layer below it in the layers contract, so it never imports the command line back.

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from service.config import SettingError, Settings, env_int, in_range

#: what ``ginbox --help`` says (plain text: the module's docstring is written for Python readers)
DESCRIPTION = ("The gin rummy game server. serve: the HTTP API, its bot workers and, without REDIS_URL, an "
               "embedded Redis. worker: a bot worker on its own (beside a server run in parts). match: a "
               "duplicate match on a server, or in this process with --local. audit: a finished game's "
               "export, or with --match a finished match and its games' exports, checked offline. analyse: every "
               "decision of a finished game's export rated by the expected points it gave away, offline. archive: every "
               "finished game not archived yet rewritten into its compact archived record.")

#: gunicorn worker classes the API is run and tested under
WORKER_CLASSES = ("gevent", "gthread")


def no_control_socket() -> list[str]:
    """gunicorn's flag for no control socket, where it has one (27 and later).

    Its default path, ~/.gunicorn/gunicorn.ctl, is shared by every server one user runs: a second
    `ginbox serve` took it over, and stopping that one deleted the first one's. Nothing of ginbox
    uses the control interface.
    """
    from gunicorn.config import KNOWN_SETTINGS

    return ["--no-control-socket"] if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS) else []


def worker_args(worker_class: str = "gevent", threads: int = 16, connections: int = 1000) -> list[str]:
    """gunicorn's options for the API's worker class (``ginbox serve``, the tests and the benchmark use these).

    ``worker_class`` is "gevent" (the default) or "gthread"; another raises ValueError.
    ``connections`` bounds the requests (and streams) one gevent process serves at once.
    ``threads`` is gthread's threads per process.
    """
    # gevent is the default.
    # One event loop per process serves its requests.
    # A live stream (/games/{id}/stream) costs a greenlet rather than an OS thread.
    # On the load benchmark (tests/bench/bench_api.py, eight runs each way on one machine),
    # it answered 1-33% more moves per second than 2 x 8 gthread threads (16% in the median).
    # A request hands the interpreter over between greenlets without a thread switch and a lock hand-off.
    if worker_class == "gevent":
        return ["--worker-class", "gevent", "--worker-connections", str(connections)]
    # gthread remains for environments where monkey-patching is unwelcome
    if worker_class == "gthread":
        return ["--worker-class", "gthread", "--threads", str(threads)]
    raise ValueError(f"unknown worker class {worker_class!r} (one of {', '.join(WORKER_CLASSES)})")


#: seconds gunicorn gives its API processes, once stopped, to finish the requests in hand before it
#: ends them (its --graceful-timeout, 30 by default). A command answers in milliseconds; what is
#: still open after that is a live stream or an idle keep-alive connection, which would otherwise
#: hold the stop for the whole time. A stream cut by the stop loses nothing: its client reconnects
#: with Last-Event-ID, and every move acknowledged is already in Redis
API_GRACEFUL_STOP_S = 2


def api_command(args) -> list[str]:
    """The command line of the API's gunicorn under ``ginbox serve``."""
    return [
        sys.executable, "-m", "gunicorn",
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.processes),
        *worker_args(args.worker_class, args.threads, args.connections),
        "--timeout", "0",  # streams stay open; a hung request is cut by Redis timeouts instead
        "--graceful-timeout", str(API_GRACEFUL_STOP_S),
        "--config", "python:service.metrics",  # its child_exit hook drops a dead process's samples
        *no_control_socket(),
        "service.wsgi:app",
    ]


def serve_workers(args) -> list[tuple[str, list[str]]]:
    """The bot workers ``ginbox serve`` starts, as (name, ``ginbox`` arguments).

    ``--workers-turns`` workers take bot turns only (people's games against built-in bots, bot
    advisors, turn clocks), so that a match's whole board games and the games of built-in bots
    alone never delay them; the ``--workers-bots`` workers take both, turns first. The
    ``--workers-analysis`` workers take decision analyses only. Default: one of each. The bot
    workers also archive finished games, when no bot job waits.
    """
    return ([("turn worker", ["worker", "--queues", "turns"])] * args.workers_turns
            + [("bot worker", ["worker", "--queues", "turns,boards,archive"])] * args.workers_bots
            + [("analysis worker", ["worker", "--queues", "analysis"])] * getattr(args, "workers_analysis", 0))


def cmd_serve(args) -> int:
    """Run the HTTP API under gunicorn, the bot workers and, without REDIS_URL, an embedded Redis."""
    from service.serve.server import run_server

    return run_server(args.host, args.port, args.connections, api_command(args), serve_workers(args))


def cmd_worker(args) -> int:
    """Run an RQ worker that plays bot turns and board games (and sweeps stalled games)."""
    from workers.runner import parse_queues, run_worker

    try:
        queues = parse_queues(args.queues)
    except ValueError as err:
        # name what gave the value: the option, else the variable its default was read from
        given = "GINBOX_WORKER_QUEUES" if args.queues == os.environ.get("GINBOX_WORKER_QUEUES") else "--queues"
        print(f"ginbox worker: {given}={args.queues!r}: {err}", file=sys.stderr)
        return 2
    settings = Settings.from_env()
    if not settings.redis_url:
        print("ginbox worker: REDIS_URL is not set", file=sys.stderr)
        return 2
    print(f"ginbox worker: pid {os.getpid()}, taking {' then '.join(queues)} jobs"
          f"{' until its queues are empty' if args.burst else ''}", flush=True)
    return run_worker(settings, burst=args.burst, queues=queues)


def cmd_archive(args) -> int:
    """Archive every finished game whose log is not archived yet (the archive queue's workers archive
    each game as it ends: this is for the games that ended before, or whose job was lost).

    Each log is rewritten once into its compact archived record, checked to give the log back event
    for event, then the log and its snapshots are dropped. Every read of the game answers as before.
    Prints a progress bar, then how many games came to each outcome. Exits 0 when every finished game
    is archived, 1 if some could not be, 2 if Redis cannot be reached.
    """
    import redis

    from service import composition

    settings = Settings.from_env()
    if not settings.redis_url:
        print("ginbox archive: REDIS_URL is not set", file=sys.stderr)
        return 2
    try:
        built = composition.build_worker(settings)
        total = built.archives.finished_games()
        bar = _archive_bar(total)
        outcomes = built.archives.archive_finished(progress=bar)
        bar(None, None)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
        print(f"\nginbox archive: Redis cannot be reached ({err})", file=sys.stderr)
        return 2
    print(", ".join(f"{outcome}: {n}" for outcome, n in sorted(outcomes.items())) or "no finished game")
    return 0 if set(outcomes) <= {"archived", "archived_already", "no_game"} else 1


def _archive_bar(total: int, stream=None, every_s: float = 0.2):
    """A progress callback that rewrites one line of stderr: the finished games gone through, of all."""
    import time

    stream = stream or sys.stderr
    started, last, done = time.perf_counter(), [0.0], [0]

    def show(game_id, outcome) -> None:
        if game_id is not None:
            done[0] += 1
        now = time.perf_counter()
        if game_id is not None and now - last[0] < every_s:
            return
        last[0] = now
        width = 30
        filled = width * min(done[0], total) // max(1, total)
        stream.write(f"\rarchiving [{'#' * filled}{'.' * (width - filled)}] {done[0]}/{total} games "
                     f"{now - started:.0f}s")
        if game_id is None:
            stream.write("\n")
        stream.flush()

    return show


def cmd_audit(args) -> int:
    """Check a finished game from its export alone (GET /games/{id}/export): no server, no Redis.

    With --match, a finished match from its document (GET /matches/{id}) and every table's export.
    Prints each check, then a line that says whether the audit passed and what it does not check
    (the players' names and the timestamps, which the commitment does not cover); exits 0 if all
    pass, 1 if one fails (a line that is no JSON, or nests too deep to be an export's, included),
    2 if a file cannot be read.
    """
    # This docstring is also ``ginbox audit --help``'s description, which argparse reflows:
    # its words are the help's words.
    if args.match is not None:
        return _audit_match(args)
    if len(args.files) != 1:
        print("ginbox audit: give one game's export (FILE), or --match MATCH.json and the match's game exports",
              file=sys.stderr)
        return 2
    from service.rules.audit import verify_export

    file = args.files[0]
    try:
        if file == "-":
            lines = sys.stdin.read().splitlines()
        else:
            lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        print(f"ginbox audit: cannot read {file}: {err}", file=sys.stderr)
        return 2
    return _print_audit(verify_export(lines))


def cmd_analyse(args) -> int:
    """Rate every decision of a finished game from its export (GET /games/{id}/export): the expected
    points of the move played and of the best legal move, from what the deciding seat knew then.

    Prints a per-seat summary and writes the whole result as JSON (--out; '-' for stdout, when the
    summary goes to stderr). The same export, samples and seed give the same bytes. Exits 0 when
    done, 1 if the file is no game's export, 2 if it cannot be read or written.
    """
    from service.analysis import ExportError, analyse_log, read_export, to_json
    from service.analysis.report import progress_line, summary_text

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"ginbox analyse: cannot read {args.file}: {err}", file=sys.stderr)
        return 2
    try:
        log, advice = read_export(text.splitlines())
        result = analyse_log(log, samples=args.samples, seed=args.seed, advice=advice, progress=progress_line())
    except (ExportError, ValueError) as err:
        print(f"ginbox analyse: {args.file}: {err}", file=sys.stderr)
        return 1
    out = args.out or ("-" if args.file == "-" else str(Path(args.file).with_suffix("")) + ".analysis.json")
    summary = sys.stderr if out == "-" else sys.stdout
    try:
        if out == "-":
            sys.stdout.write(to_json(result))
        else:
            Path(out).write_text(to_json(result), encoding="utf-8")
    except OSError as err:
        print(f"ginbox analyse: cannot write {out}: {err}", file=sys.stderr)
        return 2
    print(summary_text(result), file=summary)
    if out != "-":
        print(f"the whole analysis: {out}", file=summary)
    return 0


def _print_audit(report: dict) -> int:
    """Print an audit's checks and its last line; the exit code."""
    for check in report["checks"]:
        print(f"{'PASS' if check['ok'] else 'FAIL'}  {check['name']}: {check['detail']}")
    failed = [c["name"] for c in report["checks"] if not c["ok"]]
    count = len(report["checks"])
    print(f"audit {'passed' if report['ok'] else 'FAILED'}: {count} check{'' if count == 1 else 's'}"
          + (f", failed: {', '.join(failed)}" if failed else "")
          + (f"; not checked: {report['not_checked']}" if report.get("not_checked") else ""))
    return 0 if report["ok"] else 1


def _audit_match(args) -> int:
    """``ginbox audit --match MATCH.json EXPORT...``: a directory among the exports stands for its
    ``*.ndjson`` files."""
    from service.rules.match_audit import verify_match

    if not args.files:
        print("ginbox audit: --match needs the match's game exports: ginbox audit --match MATCH.json "
              "EXPORT [EXPORT ...] (a directory: its *.ndjson files)", file=sys.stderr)
        return 2
    paths: list[Path] = []
    for given in args.files:
        path = Path(given)
        paths += sorted(path.glob("*.ndjson")) if path.is_dir() else [path]
    try:
        match_text = sys.stdin.read() if args.match == "-" else Path(args.match).read_text(encoding="utf-8")
        exports = [(path.name, path.read_text(encoding="utf-8").splitlines()) for path in paths]
    except (OSError, UnicodeDecodeError) as err:
        print(f"ginbox audit: cannot read {getattr(err, 'filename', None) or args.match}: {err}", file=sys.stderr)
        return 2
    return _print_audit(verify_match(match_text, exports))


def cmd_match(args) -> int:
    """Run a duplicate match on the configured server (GINBOX_URL), or in this process with --local."""
    from workers.arena_match import EXIT_USAGE
    from workers.arena_match import main as run_match

    problem = match_argument_problem(args.variant, args.participants, args.boards)
    if problem is not None:
        print(f"ginbox match: {problem}", file=sys.stderr, flush=True)
        return EXIT_USAGE
    return run_match(args)


def match_argument_problem(variant: str, participants: str, boards: int) -> str | None:
    """What is wrong with ``ginbox match``'s --participants or --boards, before anything is sent
    (the server would refuse them the same way, a round trip later); None if nothing is."""
    from service.rules import duplicate as D

    names = [p.strip() for p in participants.split(",")]
    want = D.PARTICIPANTS[variant]
    if "" in names:
        return (f"--participants {participants!r} holds an empty name: give {want} comma-separated built-in "
                f"policies or bot accounts, e.g. {','.join(['basic', 'expert', 'random'][:want])}")
    if len(names) != want:
        return (f"{variant} needs {want} participants, not {len(names)}: give --participants as {want} "
                f"comma-separated built-in policies or bot accounts, e.g. {','.join(['basic', 'expert', 'random'][:want])}")
    if not 1 <= boards <= D.MAX_BOARDS:
        return f"a match has 1 to {D.MAX_BOARDS} boards (--boards), not {boards}"
    return None


def whole_number(minimum: int, maximum: int | None = None):
    """An argparse ``type``: a whole number from ``minimum`` to ``maximum``, as the settings are checked."""

    def parse(text: str) -> int:
        try:
            return in_range("the value", text, int(text), minimum, maximum, above=False)
        except SettingError as err:
            raise argparse.ArgumentTypeError(str(err).replace("the value=", "")) from None
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None

    return parse


# ``ginbox audit``'s options, with the abbreviations argparse takes for them
AUDIT_OPTIONS = {"-h", *("--help"[:n] for n in range(3, 7)), *("--match"[:n] for n in range(3, 8))}


def files_named_like_options(argv: list[str]) -> list[str]:
    """``ginbox audit``'s arguments, an existing file or directory whose name begins with ``-`` taken
    as that file (``./`` put before it) rather than as an option: a game id may begin with ``-``, so
    may its export's name, and ``*.ndjson`` expands to it. Other commands' arguments are left as they are."""
    if not argv or argv[0] != "audit":
        return argv
    out = [argv[0]]
    for i, arg in enumerate(argv[1:], start=1):
        if arg == "--":
            return out + argv[i:]
        named_like_option = arg.startswith("-") and arg != "-" and arg.split("=", 1)[0] not in AUDIT_OPTIONS
        out.append(f"./{arg}" if named_like_option and Path(arg).exists() else arg)
    return out


def _run(argv: list[str] | None) -> int:
    argv = files_named_like_options(list(sys.argv[1:] if argv is None else argv))
    parser = argparse.ArgumentParser(prog="ginbox", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help=cmd_serve.__doc__)
    serve.add_argument("--host", default=os.environ.get("GINBOX_HOST", "127.0.0.1"),
                       help="address the API listens on (default: $GINBOX_HOST, else 127.0.0.1)")
    serve.add_argument("--port", type=whole_number(1, 65535), default=env_int("GINBOX_PORT", 8000, 1, 65535),
                       help="port the API listens on (default: $GINBOX_PORT, else 8000)")
    serve.add_argument("--processes", type=whole_number(1), default=env_int("GINBOX_PROCESSES", 2, 1),
                       help="gunicorn processes of the API (default: $GINBOX_PROCESSES, else 2)")
    serve.add_argument("--worker-class", choices=WORKER_CLASSES,
                       default=os.environ.get("GINBOX_WORKER_CLASS", "gevent"),
                       help="gunicorn worker class of the API (default: $GINBOX_WORKER_CLASS, else gevent)")
    serve.add_argument("--connections", type=whole_number(1), default=env_int("GINBOX_CONNECTIONS", 1000, 1),
                       help="simultaneous connections per API process, gevent only "
                            "(default: $GINBOX_CONNECTIONS, else 1000)")
    serve.add_argument("--threads", type=whole_number(1), default=env_int("GINBOX_THREADS", 16, 1),
                       help="threads per API process, gthread only (default: $GINBOX_THREADS, else 16)")
    serve.add_argument("--workers-bots", type=whole_number(0), default=env_int("GINBOX_BOT_WORKERS", 1, 0),
                       help="bot worker processes to start beside the API that take bot turns first, then "
                            "matches' board games, 0 for none (default: $GINBOX_BOT_WORKERS, else 1)")
    serve.add_argument("--workers-turns", type=whole_number(0), default=env_int("GINBOX_TURN_WORKERS", 1, 0),
                       help="bot worker processes to start beside the API that take bot turns only, so that "
                            "no match delays them, 0 for none (default: $GINBOX_TURN_WORKERS, else 1)")
    serve.add_argument("--workers-analysis", type=whole_number(0), default=env_int("GINBOX_ANALYSIS_WORKERS", 1, 0),
                       help="worker processes to start beside the API that run decision analyses only, so that "
                            "no analysis delays a bot, 0 for none (default: $GINBOX_ANALYSIS_WORKERS, else 1)")
    serve.set_defaults(func=cmd_serve)
    worker = sub.add_parser("worker", help=cmd_worker.__doc__)
    worker.add_argument("--burst", action="store_true", help="exit when its queues are empty")
    worker.add_argument("--queues", default=os.environ.get("GINBOX_WORKER_QUEUES", "turns,boards,archive"),
                        help="the jobs it takes: turns (bot turns in games with a person or a bot account, "
                             "turn clocks), boards (matches' whole board games and the turns of games of built-in "
                             "bots alone), analysis (decision analyses of finished games), archive (finished games "
                             "to archive), or several comma-separated (turns,boards,archive): turn jobs always first, whatever "
                             "the order given (default: $GINBOX_WORKER_QUEUES, else turns,boards,archive)")
    worker.set_defaults(func=cmd_worker)
    archive = sub.add_parser("archive", help="archive every finished game not archived yet (REDIS_URL)",
                             description=cmd_archive.__doc__)
    archive.set_defaults(func=cmd_archive)
    audit = sub.add_parser("audit", help="check a finished game's export, or a finished match with --match, "
                                         "offline (no server needed)",
                           description=cmd_audit.__doc__,
                           usage="ginbox audit FILE | ginbox audit --match MATCH.json EXPORT [EXPORT ...]")
    audit.add_argument("files", nargs="*", metavar="FILE",
                       help="the game's export, NDJSON as GET /games/{id}/export gives it ('-': stdin); with "
                            "--match, every game's export of the match, in any order (a directory: its *.ndjson "
                            "files)")
    audit.add_argument("--match", metavar="MATCH.json",
                       help="audit a whole finished match: its document as GET /matches/{id} gives it once over "
                            "('-': stdin)")
    audit.set_defaults(func=cmd_audit)
    analyse = sub.add_parser("analyse", help="rate every decision of a finished game's export by the expected "
                                             "points it gave away, offline", description=cmd_analyse.__doc__)
    analyse.add_argument("file", metavar="FILE", help="the game's export, NDJSON as GET /games/{id}/export gives "
                                                      "it ('-': stdin)")
    analyse.add_argument("--samples", type=whole_number(2, 10000), default=24,
                         help="determinizations (opponent hand and stock) per move compared (24); four times as "
                              "many measure a loss")
    analyse.add_argument("--seed", type=whole_number(0), default=0, help="the seed of the determinizations (0)")
    analyse.add_argument("--out", metavar="RESULT.json",
                         help="where the JSON result goes (default: FILE without .ndjson, plus .analysis.json; "
                              "'-': stdout)")
    analyse.set_defaults(func=cmd_analyse)
    match = sub.add_parser("match", help=cmd_match.__doc__, description=cmd_match.__doc__,
                           epilog="exit codes: 0 the match is over; 1 the server could not be reached or refused "
                                  "the match; 2 wrong arguments (here or in the server's 400/422); 130 "
                                  "interrupted (Ctrl-C); 143 stopped by SIGTERM. A match the command stops "
                                  "following goes on at the server.")
    match.add_argument("--variant", default="gin-rami", choices=["gin-rami", "three-hand"])
    match.add_argument("--participants", required=True,
                       help="comma-separated built-in policies or bot accounts, e.g. basic,expert")
    match.add_argument("--boards", type=int, default=100, help="boards (deals) to play, each at every table (100)")
    match.add_argument("--server", default=os.environ.get("GINBOX_URL", "http://127.0.0.1:8000"),
                       help="the server (default: $GINBOX_URL, else http://127.0.0.1:8000)")
    match.add_argument("--local", action="store_true", help="play here, without server or Redis (policies only)")
    match.add_argument("--token", default=None,
                       help="a bot account's token: the bot sends the match, and may play in it (default: "
                            "$GINBOX_BOT_TOKEN, on a server)")
    match.add_argument("--rated", action=argparse.BooleanOptionalAction, default=None,
                       help="whether the match moves the ratings (the server's default: rated)")
    match.add_argument("--move-time-s", type=whole_number(1, 86_400), default=None, metavar="SECONDS",
                       help="the time per move, the turn clock (at least 5 with a bot account)")
    match.set_defaults(func=cmd_match)
    args = parser.parse_args(argv)
    if args.command == "serve" and args.worker_class not in WORKER_CLASSES:
        # argparse checks the choices of a value given on the command line, not of a default
        raise SettingError(f"GINBOX_WORKER_CLASS={args.worker_class!r} is not one of {', '.join(WORKER_CLASSES)}")
    return args.func(args)


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    except SettingError as err:
        # a setting the environment got wrong: one line that names it, no traceback
        print(f"ginbox: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
