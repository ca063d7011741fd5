"""The ``ginbox`` command: ``serve``, ``worker``, ``match``, ``tournament``, ``audit``, ``analyse``, ``convert``,
``archive`` and ``repair-index``.

``serve`` runs the API, its bot workers and an embedded Redis.
``match`` plays a duplicate match on a server, or here.
``tournament`` runs a round-robin or Swiss tournament on a server.
``audit`` checks offline a finished game's export, or a finished match with its games' exports.
``analyse`` rates offline every decision of a finished game's export.
``convert`` turns a finished gin-rami game's export into OpenSpiel records, and such records into an export.
``archive`` archives the finished games whose logs are not archived yet.
``repair-index`` rebuilds the listings of games, matches and tournaments from their logs.
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

from service.cli_offline import cmd_analyse, cmd_archive, cmd_audit, cmd_convert, cmd_repair_index
from service.config import SettingError, Settings, env_int, in_range

#: what ``ginbox --help`` says (plain text: the module's docstring is written for Python readers)
DESCRIPTION = ("The gin rummy game server. serve: the HTTP API, its bot workers and, without REDIS_URL, an "
               "embedded Redis. worker: a bot worker on its own (beside a server run in parts). match: a "
               "duplicate match on a server, or in this process with --local. tournament: a round-robin or Swiss "
               "tournament on a server. audit: a finished game's "
               "export, or with --match a finished match and its games' exports, checked offline. analyse: every "
               "decision of a finished game's export rated by the expected points it gave away, offline. convert: a "
               "finished gin-rami game's export as OpenSpiel gin_rummy records, or such records as an export. archive: every "
               "finished game not archived yet rewritten into its compact archived record. repair-index: the listings "
               "rebuilt from the logs.")

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


def cmd_match(args) -> int:
    """Run a duplicate match on the configured server (GINBOX_URL), or in this process with --local."""
    from workers.arena_match import EXIT_USAGE
    from workers.arena_match import main as run_match

    problem = match_argument_problem(args.variant, args.participants, args.boards)
    if problem is None and args.samples is not None and not args.analyse:
        problem = "--samples is the analysis's: give it with --analyse"
    if problem is not None:
        print(f"ginbox match: {problem}", file=sys.stderr, flush=True)
        return EXIT_USAGE
    return run_match(args)


def cmd_tournament(args) -> int:
    """Run a round-robin or Swiss tournament on the configured server (GINBOX_URL), followed to its end."""
    from workers.arena_tournament import main as run_tournament

    return run_tournament(args)


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
    repair = sub.add_parser("repair-index", help="rebuild the listings of games, matches and tournaments from "
                            "their logs (REDIS_URL)", description=cmd_repair_index.__doc__)
    repair.set_defaults(func=cmd_repair_index)
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
    analyse.add_argument("--processes", type=whole_number(1, 64), default=os.cpu_count() or 1, metavar="N",
                         help="processes to rate the decisions in; the result is the same (default: the CPUs, "
                              f"{os.cpu_count() or 1} here)")
    analyse.add_argument("--samples", type=whole_number(2, 10000), default=24,
                         help="determinizations (opponent hand and stock) per move compared (24); four times as "
                              "many measure a loss")
    analyse.add_argument("--seed", type=whole_number(0), default=0, help="the seed of the determinizations (0)")
    analyse.add_argument("--out", metavar="RESULT.json",
                         help="where the JSON result goes (default: FILE without .ndjson, plus .analysis.json; "
                              "'-': stdout)")
    analyse.set_defaults(func=cmd_analyse)
    convert = sub.add_parser("convert", help="a finished gin-rami game's export as OpenSpiel gin_rummy records, or "
                                             "such records as an export, offline", description=cmd_convert.__doc__)
    convert.add_argument("file", metavar="FILE", help="a game's export (NDJSON, as GET /games/{id}/export gives it) "
                                                      "or an OpenSpiel record (JSON) ('-': stdin)")
    convert.add_argument("--out", metavar="OUT",
                         help="where the result goes (default: FILE without its last suffix, plus .openspiel.json "
                              "for an export, .ndjson for a record; '-': stdout)")
    convert.set_defaults(func=cmd_convert)
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
    match.add_argument("--analyse", action="store_true",
                       help="once the match is over, analyse every game here (ginbox analyse) and print the points "
                            "each participant gave away per hand, by decision kind")
    match.add_argument("--samples", type=whole_number(2, 1000), default=None, metavar="N",
                       help="with --analyse: determinizations per decision (default: 24, as ginbox analyse)")
    match.set_defaults(func=cmd_match)
    tournament = sub.add_parser("tournament", help=cmd_tournament.__doc__, description=cmd_tournament.__doc__,
                                epilog="exit codes: as ginbox match's. A tournament the command stops following "
                                       "goes on at the server.")
    tournament.add_argument("--system", default="round_robin", choices=["round_robin", "swiss"])
    tournament.add_argument("--entries", required=True,
                            help="comma-separated built-in policies or bot accounts, e.g. simple,basic,expert")
    tournament.add_argument("--boards", type=whole_number(1, 1000), default=2, help="boards of each pairing (2)")
    tournament.add_argument("--rounds", type=whole_number(1, 100), default=None, help="a Swiss's rounds")
    tournament.add_argument("--server", default=os.environ.get("GINBOX_URL", "http://127.0.0.1:8000"),
                            help="the server (default: $GINBOX_URL, else http://127.0.0.1:8000)")
    tournament.add_argument("--token", default=None,
                            help="a bot account's token: the bot sends the tournament, and may enter it "
                                 "(default: $GINBOX_BOT_TOKEN)")
    tournament.add_argument("--rated", action=argparse.BooleanOptionalAction, default=None,
                            help="whether the tournament moves the ratings (the server's default: rated)")
    tournament.add_argument("--move-time-s", type=whole_number(1, 86_400), default=None, metavar="SECONDS",
                            help="the time per move, the turn clock")
    tournament.set_defaults(func=cmd_tournament)
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
