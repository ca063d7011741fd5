"""The ``ginbox`` commands that work on what a server wrote: ``audit``, ``analyse``, ``convert`` (offline,
from exports and records) and ``archive`` (on the server's Redis)."""

from __future__ import annotations

import sys
from pathlib import Path


def read_text(command: str, file: str) -> str | None:
    """The text of ``file`` ('-': stdin), or None once ``ginbox <command>: cannot read …`` is printed."""
    try:
        return sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        print(f"ginbox {command}: cannot read {file}: {err}", file=sys.stderr)
        return None


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
    from service.analysis.report import summary_text
    from service.progress import decisions_progress

    text = read_text("analyse", args.file)
    if text is None:
        return 2
    try:
        log, advice = read_export(text.splitlines())
        with decisions_progress() as progress:
            result = analyse_log(log, samples=args.samples, seed=args.seed, advice=advice, progress=progress,
                                 processes=args.processes)
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


def cmd_convert(args) -> int:
    """Turn a finished gin-rami game's export (GET /games/{id}/export) into OpenSpiel gin_rummy records, one
    OpenSpiel game per hand; or turn OpenSpiel records (this command's, {"parameters", "actions"}, or a
    bare JSON list of actions) into an export that ginbox audits, analyses and replays.

    Which way is read from the file: NDJSON lines of events are an export, one JSON document is a record.
    Exits 0 when done, 1 if the file is neither or does not convert (the reason and its code are
    printed), 2 if it cannot be read or written.
    """
    from service.rules.openspiel_files import ConvertError, convert_text

    text = read_text("convert", args.file)
    if text is None:
        return 2
    try:
        result = convert_text(text)
    except ConvertError as err:
        print(f"ginbox convert: {args.file}: {err} ({err.code})", file=sys.stderr)
        return 1
    out = args.out or ("-" if args.file == "-" else str(Path(args.file).with_suffix("")) + result.suffix)
    try:
        if out == "-":
            sys.stdout.write(result.text)
        else:
            Path(out).write_text(result.text, encoding="utf-8")
    except OSError as err:
        print(f"ginbox convert: cannot write {out}: {err}", file=sys.stderr)
        return 2
    summary = sys.stderr if out == "-" else sys.stdout
    for line in result.lines:
        print(line, file=summary)
    if out != "-":
        print(f"written: {out}", file=summary)
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
    from service.config import Settings
    from service.progress import counted

    settings = Settings.from_env()
    if not settings.redis_url:
        print("ginbox archive: REDIS_URL is not set", file=sys.stderr)
        return 2
    try:
        built = composition.build_worker(settings)
        total = built.archives.finished_games()
        done = [0]
        with counted("ginbox archive", "archiving", "games", total) as show:
            def one(game_id, outcome) -> None:
                done[0] += 1
                show(done[0])

            outcomes = built.archives.archive_finished(progress=one)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
        print(f"\nginbox archive: Redis cannot be reached ({err})", file=sys.stderr)
        return 2
    print(", ".join(f"{outcome}: {n}" for outcome, n in sorted(outcomes.items())) or "no finished game")
    return 0 if set(outcomes) <= {"archived", "archived_already", "no_game"} else 1


def cmd_repair_index(args) -> int:
    """Rebuild the listings (GET /games, /matches, /tournaments) from the logs' own records.

    On a Redis Cluster a listing is updated just after each append; a process that died in between
    leaves the log right and its listing behind. This rewrites every entry from its log's meta hash.
    It is safe to run at any time, while the server runs too. Prints a progress bar per kind of log,
    then how many of each it saw. Exits 0, or 2 if Redis cannot be reached.
    """
    import redis

    from service import composition
    from service.config import Settings
    from service.progress import counted

    settings = Settings.from_env()
    if not settings.redis_url:
        print("ginbox repair-index: REDIS_URL is not set", file=sys.stderr)
        return 2
    seen = {}
    try:
        for kind, index in composition.game_indexes(settings).items():
            with counted("ginbox repair-index", kind, kind, index.count_games()) as show:
                seen[kind] = index.repair(progress=show)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
        print(f"\nginbox repair-index: Redis cannot be reached ({err})", file=sys.stderr)
        return 2
    print(", ".join(f"{kind}: {n}" for kind, n in seen.items()))
    return 0
