"""A bot account that plays every game it is given through one event stream, as a third party's would.

It needs nothing but the standard library and its bot token (``POST /bots`` gives it once)::

    python -m workers.arena_bot http://127.0.0.1:8000 BOT_TOKEN [--accept-challenges] [--threads N]
                                [--exit-after-matches N] [--deadline S] [--max-wait S]

Its waits, refusals and exit codes follow workers.outside_bot (see ``main``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

from workers import outside_bot
from workers.outside_bot import (EXIT_GAVE_UP, EXIT_INTERRUPTED, EXIT_OVER, EXIT_REFUSED, EXIT_USAGE, Api, Stop, choose,
                                 problem_text, refusal, retry_delay, url_problem)

#: the name its messages on stderr begin with
PROG = "arena_bot"
#: seconds to wait before connecting again after the server ended the stream (it does after a while)
RECONNECT_S = 0.5
#: the most moves played from one look at a game before the thread lets other games go first
MOVES_AT_ONCE = 8


# Its messages on stderr begin "arena_bot:".
# One says when the stream is connected, and again when it is connected after trouble.
def log(message: str) -> None:
    outside_bot.log(message, PROG)


def _problem(err: urllib.error.HTTPError):
    """The problem+json document of an error answer (None if it has none)."""
    try:
        raw = err.read()
        return json.loads(raw) if raw else None
    except (ValueError, OSError, http.client.HTTPException):
        return None


class ArenaBot:
    """One bot account: its stream, its turns played on a pool of threads."""

    def __init__(self, base: str, token: str, *, threads: int = 8, accept_challenges: bool = False,
                 deadline_s: float = 3600.0, max_wait_s: float = 30.0):
        self.base = base.rstrip("/")
        self.token = token
        self.max_wait_s = max_wait_s
        self.accept_challenges = accept_challenges
        self.deadline = time.monotonic() + deadline_s
        self.pool = ThreadPoolExecutor(max_workers=threads)
        self.last_id: str | None = None
        self.stop = threading.Event()
        self.matches_over: set[str] = set()
        self.games_over: set[str] = set()
        self.turns_played = 0
        self.errors: list[str] = []
        self.connections = 0                # attempts to open the stream
        self.connected = False              # whether the stream was ever open (its first opening is reported)
        self.past_events_read = False       # whether the stream's past was read (the live stream follows)
        self.stream_waits: list[float] = []  # the seconds waited before each attempt after a failed one
        self._lock = threading.Lock()
        self.requests = 0                   # requests sent for turns and challenges (the stream's not counted)
        self._busy: set[str] = set()
        self._again: dict[str, int] = {}    # game id -> the newest turn announced while a thread was on it
        self._handled: dict[str, int] = {}  # game id -> the newest version played from, or seen with nothing to play

    # -- the stream ----------------------------------------------------------------------------

    def events(self, once: bool = False):
        """(type, data) of the bot's stream, forever: reconnects after the server ends it.

        With ``once``, the events until the stream has caught up (``?once=1``), then it ends.
        A 429 or 5xx (503 ``redis_unavailable``...) is waited out as its ``Retry-After`` asks.
        A failed connection, with a doubling back-off.
        Both waits are capped at ``max_wait_s``; another 4xx stops the bot.
        """
        # the waits are capped as the other requests' waits are
        failures = 0
        while not self.stop.is_set() and time.monotonic() < self.deadline:
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
            if self.last_id:
                headers["Last-Event-ID"] = self.last_id
            req = urllib.request.Request(self.base + "/bots/me/stream" + ("?once=1" if once else ""), headers=headers)
            self.connections += 1
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    if not self.connected:
                        log(f"stream: connected to {self.base}/bots/me/stream")
                    elif failures:
                        log(f"stream: connected again after {failures} failed attempt{'s' if failures > 1 else ''}")
                    self.connected = True
                    failures = 0
                    kind, data, entry_id = None, [], None
                    for raw in resp:
                        line = raw.decode("utf-8").rstrip("\r\n")
                        if line.startswith("id: "):
                            entry_id = line[4:]
                        elif line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: "):
                            data.append(line[6:])
                        elif line == "" and kind is not None:
                            self.last_id = entry_id or self.last_id
                            yield kind, json.loads("\n".join(data))
                            kind, data, entry_id = None, [], None
                        if self.stop.is_set():
                            return
                if once:
                    return
            except urllib.error.HTTPError as err:
                doc = _problem(err)
                if err.code == 404:
                    raise refusal(err.code, doc, self.base) from None
                if err.code != 429 and err.code < 500:
                    raise Stop(EXIT_REFUSED, f"stopped: the stream answered {problem_text(err.code, doc)}") from None
                failures += 1
                retry_after = err.headers.get("Retry-After")
                hint = f" (Retry-After: {retry_after})" if retry_after is not None else ""
                self._wait_to_reconnect(retry_delay(retry_after, failures, self.max_wait_s),
                                        f"{problem_text(err.code, doc)}{hint}")
                continue
            except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
                failures += 1
                self._wait_to_reconnect(retry_delay(None, failures, self.max_wait_s),
                                        f"the connection failed ({getattr(err, 'reason', err)})")
                continue
            self.stop.wait(RECONNECT_S)

    def _wait_to_reconnect(self, delay: float, what: str) -> None:
        """Report the failure and wait ``delay`` seconds (less if the deadline comes first, none once stopped)."""
        delay = max(0.0, min(delay, self.deadline - time.monotonic()))
        self.stream_waits.append(delay)
        log(f"stream: {what}; connecting again in {delay:.1f} s")
        self.stop.wait(delay)

    def read_past(self) -> tuple[dict[str, int], list[str]]:
        """Read what the stream holds already (``?once=1``), acting on none of it as it is read.

        Returns ({game id: version} of the turns still to look at, [challenge ids] still pending as far as it tells).
        The live stream then goes on from its last id.
        """
        # A new process has no Last-Event-ID, so the stream holds everything the bot was ever told.
        # A game that ended since its turn needs no look.
        # A challenge answered or withdrawn since is left alone.
        # The matches over then are not counted.
        turns: dict[str, int] = {}
        challenges: dict[str, None] = {}
        for kind, data in self.events(once=True):
            if kind == "your_turn":
                turns[data["game_id"]] = data["version"]
            elif kind == "game_over":
                turns.pop(data["game_id"], None)
            elif kind == "challenge" and data.get("status") == "pending":
                challenges[data["challenge_id"]] = None
            elif kind == "challenge_withdrawn":
                challenges.pop(data["challenge_id"], None)
            elif kind in ("game_started", "match_started") and data.get("challenge_id"):
                challenges.pop(data["challenge_id"], None)
        self.past_events_read = True
        return turns, list(challenges)

    def run(self, exit_after_matches: int | None = None) -> int:
        """Play until ``exit_after_matches`` matches are over (or the deadline, or ``stop``).

        Only matches that end once the bot follows its live stream count: those over before it
        started (its stream's past) do not. The turns its past leaves waiting are played first.
        """
        # It first reads what its stream already holds (?once=1: the whole past of the account,
        # which a new process without Last-Event-ID is sent).
        # It plays the turns that past leaves waiting, accepts the challenges still pending,
        # and counts no match that was over before.
        # Then it keeps one connection to GET /bots/me/stream open,
        # reconnecting with Last-Event-ID whenever the server ends it.
        # It hands each your_turn to a pool of threads, so it plays hundreds of games at once.
        # With --accept-challenges it accepts every challenge it is sent.
        try:
            turns, challenges = self.read_past()
            for game_id, version in turns.items():
                self.pool.submit(self._turn, game_id, version)
            if self.accept_challenges:
                for challenge_id in challenges:
                    self.pool.submit(self._accept, challenge_id, True)
            for kind, data in self.events():
                if kind == "your_turn":
                    self.pool.submit(self._turn, data["game_id"], data["version"])
                elif kind == "game_over":
                    self.games_over.add(data["game_id"])
                    with self._lock:
                        self._handled.pop(data["game_id"], None)
                elif kind == "challenge" and self.accept_challenges and data.get("status") == "pending":
                    self.pool.submit(self._accept, data["challenge_id"])
                elif kind == "match_over":
                    self.matches_over.add(data["match_id"])
                    if exit_after_matches is not None and len(self.matches_over) >= exit_after_matches:
                        return EXIT_OVER
            return EXIT_OVER if self.stop.is_set() else EXIT_GAVE_UP
        except KeyboardInterrupt:
            # turns not begun are dropped (the server keeps them waiting); a move being sent is finished
            self.stop.set()
            self.pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            self.pool.shutdown(wait=True)

    # -- the turns -----------------------------------------------------------------------------

    def _turn(self, game_id: str, version: int) -> None:
        """Play the bot's moves in ``game_id`` from the turn announced at ``version``.

        A stale turn finds none, or gets 412.
        A turn at a version the bot has played from already, or seen with nothing to play, costs nothing.
        One thread plays a game at a time.
        """
        with self._lock:
            # a draw's answer shows the discard to make,
            # so the turn announced after the draw is played before it arrives
            if version <= self._handled.get(game_id, 0):
                return
            # A newer turn announced while a thread is on the game makes that thread look once more when it is done.
            # So no turn is lost between its look and its end.
            if game_id in self._busy:
                self._again[game_id] = max(version, self._again.get(game_id, 0))
                return
            self._busy.add(game_id)
        while True:
            try:
                self._play_now(game_id)
            except Stop as stop:
                self.errors.append(f"{game_id}: {stop}")
                log(f"{game_id}: {stop}")
            except Exception as err:  # noqa: BLE001 (one game's trouble must not end the others)
                self.errors.append(f"{game_id}: {err!r}")
                log(f"{game_id}: {err!r}")
            with self._lock:
                again = self._again.pop(game_id, None)
                if again is None or again <= self._handled.get(game_id, 0):
                    self._busy.discard(game_id)
                    return

    def _play_now(self, game_id: str) -> None:
        """Look at the game once and play every move the bot has there now, each from the answer to
        the one before (a move's answer is the mover's new view)."""
        # Each turn reads the game's view with the bot's token,
        # and plays the move workers.outside_bot.choose picks from it:
        # the same play as the one-game outside bot, worked out from the view alone.
        # The move carries If-Match, so a stale turn is refused (412) and simply dropped.
        # A move's answer is the new view, so a draw and its discard cost one look and two moves.
        api = Api(self.base, game_id, self.token, self.deadline, self.max_wait_s, prog=PROG)
        try:
            view = api.view()
            for _ in range(MOVES_AT_ONCE):
                if view["status"] != "playing" or not view["legal_moves"]:
                    self._handled_up_to(game_id, view["version"])
                    return
                status, after = api.play(view["version"], choose(view))
                if status == 200:
                    self._handled_up_to(game_id, view["version"])
                    with self._lock:
                        self.turns_played += 1
                    view = after
                else:  # 409/412: the game moved on meanwhile
                    view = api.view()
        finally:
            with self._lock:
                self.requests += api.sent

    def _handled_up_to(self, game_id: str, version: int) -> None:
        with self._lock:
            self._handled[game_id] = max(version, self._handled.get(game_id, 0))

    def _accept(self, challenge_id: str, past: bool = False) -> None:
        api = Api(self.base, "", self.token, self.deadline, self.max_wait_s, prog=PROG)
        # one Idempotency-Key for every sending: a retry after a lost answer (none came, a proxy's
        # 502) gets the accept the first sending made, not 409 challenge_not_pending; while that
        # first one is still being answered, the server says 409 idempotency_key_in_use: wait
        path, headers, failures = f"/challenges/{challenge_id}/accept", {"Idempotency-Key": str(uuid.uuid4())}, 0
        while True:
            status, doc = api.call("POST", path, headers=headers)
            in_use = status == 409 and isinstance(doc, dict) and doc.get("code") == "idempotency_key_in_use"
            if not in_use or time.monotonic() >= self.deadline:
                break
            failures += 1
            time.sleep(retry_delay(None, failures, self.max_wait_s))
        with self._lock:
            self.requests += api.sent
        if past and status == 409:
            return  # answered (or expired) before this process started, which its past did not show
        if status != 200:
            log(f"challenge {challenge_id}: {problem_text(status, doc)}")


#: where the bot's token may come from instead of the command line (which other users can list)
TOKEN_ENV = "GINBOX_BOT_TOKEN"
#: stopped by SIGTERM (a service manager's, kill's): 128 + 15, as ``ginbox match`` and shells report it
EXIT_TERMINATED = 143


def parse_args(argv=None, environ=None) -> argparse.Namespace:
    """The command line; the token from it or, when it names none, from ``GINBOX_BOT_TOKEN``."""
    parser = argparse.ArgumentParser(prog="python -m workers.arena_bot",
                                     description="Play every game a ginbox bot account is given, over one stream.")
    parser.add_argument("base", help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("token", nargs="?", default=None,
                        help=f"the bot's token (from POST /bots); or set {TOKEN_ENV}, which keeps it out of the "
                             "process list (a token that begins with '-' goes after '--')")
    parser.add_argument("--threads", type=int, default=8, help="turns played at once (8)")
    parser.add_argument("--accept-challenges", action="store_true", help="accept every challenge")
    parser.add_argument("--exit-after-matches", type=int, default=None,
                        help="exit once this many matches the bot plays in have ended since it started")
    parser.add_argument("--deadline", type=float, default=3600, help="give up after this many seconds (3600)")
    parser.add_argument("--max-wait", type=float, default=30.0,
                        help="the longest single wait when the server asks for time (30)")
    args = parser.parse_args(argv)
    if not args.token:
        args.token = (os.environ if environ is None else environ).get(TOKEN_ENV) or None
    if not args.token:
        parser.error(f"the bot's token is needed: as the second argument or in {TOKEN_ENV}")
    return args


def main(argv=None) -> int:
    """Run the bot from the command line; its exit code.

    0 once ``--exit-after-matches`` matches it was in have ended since it started.
    2 for wrong arguments, among them a server URL without http(s):// and a host, or one the server answers 404.
    130 after Ctrl-C and 143 after SIGTERM, each said in one line.
    """
    # Waits, refusals and exit codes are as in workers.outside_bot, the stream's included.
    # A server URL the server answers 404 not_found is a path it does not have.
    # Ctrl-C or SIGTERM ends it after finishing any move it is sending.
    # A 429 or 503 on the stream is waited out as its Retry-After asks (ArenaBot.events).
    args = parse_args(argv)
    if (problem := url_problem(args.base)) is not None:
        log(problem)
        return EXIT_USAGE
    bot = ArenaBot(args.base, args.token, threads=args.threads, accept_challenges=args.accept_challenges,
                   deadline_s=args.deadline, max_wait_s=args.max_wait)
    stopped_by = None

    def terminated(signum, frame):
        # SIGTERM ends the bot as a Ctrl-C does (a move being sent is finished), with its own line
        nonlocal stopped_by
        stopped_by = signum
        raise KeyboardInterrupt

    previous_handler = signal.signal(signal.SIGTERM, terminated)
    try:
        code = bot.run(args.exit_after_matches)
    except Stop as stop:
        log(str(stop))
        return stop.code
    except KeyboardInterrupt:
        code, what = ((EXIT_TERMINATED, "stopped (SIGTERM)") if stopped_by == signal.SIGTERM
                      else (EXIT_INTERRUPTED, "interrupted"))
        log(f"{what}; the bot's games go on at the server, and their turns wait for it to connect again")
        return code
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
    print(json.dumps({"turns": bot.turns_played, "requests": bot.requests, "games": len(bot.games_over),
                      "matches": sorted(bot.matches_over), "errors": bot.errors}))
    return code


if __name__ == "__main__":
    sys.exit(main())
