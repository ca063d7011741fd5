"""A bot account that plays every game it is given through one event stream, as a third party's would.

It needs nothing but the standard library and its bot token (``POST /bots`` gives it once)::

    python -m workers.arena_bot http://127.0.0.1:8000 BOT_TOKEN [--accept-challenges] [--threads N]
                                [--exit-after-matches N] [--deadline S]

It keeps one connection to ``GET /bots/me/stream`` open (reconnecting with ``Last-Event-ID``
whenever the server ends it) and hands each ``your_turn`` to a pool of threads, so it plays
hundreds of games at once: each turn reads the game's view with the bot's token and plays the
move :func:`workers.outside_bot.choose` picks (the same play as the one-game outside bot) with
``If-Match``, so a stale turn is refused (412) and simply dropped. With ``--accept-challenges``
it accepts every challenge it is sent. Waits, refusals and exit codes as in workers.outside_bot;
0 once ``--exit-after-matches`` matches it was in are over.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from workers.outside_bot import EXIT_GAVE_UP, EXIT_OVER, Api, Stop, choose, log

#: seconds to wait before connecting again after the stream failed
RECONNECT_S = 0.5


class ArenaBot:
    """One bot account: its stream, its turns played on a pool of threads."""

    def __init__(self, base: str, token: str, *, threads: int = 8, accept_challenges: bool = False,
                 deadline_s: float = 3600.0):
        self.base = base.rstrip("/")
        self.token = token
        self.accept_challenges = accept_challenges
        self.deadline = time.monotonic() + deadline_s
        self.pool = ThreadPoolExecutor(max_workers=threads)
        self.last_id: str | None = None
        self.stop = threading.Event()
        self.matches_over: set[str] = set()
        self.games_over: set[str] = set()
        self.turns_played = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._busy: set[str] = set()
        self._again: set[str] = set()

    # -- the stream ----------------------------------------------------------------------------

    def events(self):
        """(type, data) of the bot's stream, forever: reconnects after the server ends it."""
        while not self.stop.is_set() and time.monotonic() < self.deadline:
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
            if self.last_id:
                headers["Last-Event-ID"] = self.last_id
            req = urllib.request.Request(self.base + "/bots/me/stream", headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
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
            except urllib.error.HTTPError as err:
                if err.code in (401, 403, 404, 422):
                    raise Stop(4, f"stopped: the stream answered {err.code}") from None
                log(f"stream: {err.code}; connecting again")
            except (urllib.error.URLError, OSError) as err:
                log(f"stream: {err}; connecting again")
            time.sleep(RECONNECT_S)

    def run(self, exit_after_matches: int | None = None) -> int:
        """Play until ``exit_after_matches`` matches are over (or the deadline, or ``stop``)."""
        try:
            for kind, data in self.events():
                if kind == "your_turn":
                    self.pool.submit(self._turn, data["game_id"])
                elif kind == "game_over":
                    self.games_over.add(data["game_id"])
                elif kind == "challenge" and self.accept_challenges and data.get("status") == "pending":
                    self.pool.submit(self._accept, data["challenge_id"])
                elif kind == "match_over":
                    self.matches_over.add(data["match_id"])
                    if exit_after_matches is not None and len(self.matches_over) >= exit_after_matches:
                        return EXIT_OVER
            return EXIT_OVER if self.stop.is_set() else EXIT_GAVE_UP
        finally:
            self.pool.shutdown(wait=True)

    # -- the turns -----------------------------------------------------------------------------

    def _turn(self, game_id: str) -> None:
        """Play the bot's move in ``game_id`` if it has one now (a stale turn finds none, or gets 412).

        One thread per game at a time: a turn announced while a thread is on the game makes that
        thread look once more when it is done, so no turn is lost between its look and its end.
        """
        with self._lock:
            if game_id in self._busy:
                self._again.add(game_id)
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
                if game_id not in self._again:
                    self._busy.discard(game_id)
                    return
                self._again.discard(game_id)

    def _play_now(self, game_id: str) -> None:
        api = Api(self.base, game_id, self.token, self.deadline)
        for _ in range(3):
            view = api.view()
            if view["status"] != "playing" or not view["legal_moves"]:
                return
            if api.move(view["version"], choose(api, view)) == 200:
                with self._lock:
                    self.turns_played += 1

    def _accept(self, challenge_id: str) -> None:
        api = Api(self.base, "", self.token, self.deadline)
        status, doc = api.call("POST", f"/challenges/{challenge_id}/accept")
        if status != 200:
            log(f"challenge {challenge_id}: {status} {doc}")


#: where the bot's token may come from instead of the command line (which other users can list)
TOKEN_ENV = "GINBOX_BOT_TOKEN"


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
                        help="exit once this many matches the bot plays in are over")
    parser.add_argument("--deadline", type=float, default=3600, help="give up after this many seconds (3600)")
    args = parser.parse_args(argv)
    if not args.token:
        args.token = (os.environ if environ is None else environ).get(TOKEN_ENV) or None
    if not args.token:
        parser.error(f"the bot's token is needed: as the second argument or in {TOKEN_ENV}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    bot = ArenaBot(args.base, args.token, threads=args.threads, accept_challenges=args.accept_challenges,
                   deadline_s=args.deadline)
    try:
        code = bot.run(args.exit_after_matches)
    except Stop as stop:
        log(str(stop))
        return stop.code
    print(json.dumps({"turns": bot.turns_played, "games": len(bot.games_over),
                      "matches": sorted(bot.matches_over), "errors": bot.errors}))
    return code


if __name__ == "__main__":
    sys.exit(main())
