"""A complete bot that plays through the public HTTP API only, as a third party's would.

It needs nothing but the standard library and a seat token::

    python -m workers.outside_bot http://127.0.0.1:8000 GAME_ID SEAT_TOKEN [--poll S] [--deadline S] [--max-wait S]

Its exit codes are the ``EXIT_*`` constants below; every wait and refusal is reported on stderr.
"""

# A bot account that plays many games at once, told of each turn by one event stream,
# is workers/arena_bot.py: it plays each turn with this module's choose.

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

VALUES = {**{str(n): n for n in range(2, 10)}, "A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}
RANKS, SUITS = "A23456789TJQK", "CDHS"

# Exit codes:
# - 0: the game is over; the final scores and winner are printed on stdout as JSON.
# - 2: wrong arguments: the server URL is not an http(s) URL with a host (checked before any
#   request), or the server answers 404 for a path it does not have.
# - 3: no such game (or seat): 404.
# - 4: the server refused the bot for another reason it cannot fix by retrying (a 4xx).
# - 5: gave up: the game was not over before --deadline seconds (default 3600), whether the
#   bot was waiting for its opponent or for the server.
EXIT_OVER, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_REFUSED, EXIT_GAVE_UP = 0, 2, 3, 4, 5
#: stopped by Ctrl-C (SIGINT), as shells report a process that signal ended
EXIT_INTERRUPTED = 130
#: answers worth waiting for: the server asks for time (429, 503) or is having trouble (5xx)
RETRY_STATUSES = {429, 500, 502, 503, 504}

# How it treats the server's answers (every error is application/problem+json with a code):
# - 429 rate_limited and 503 redis_unavailable: wait, then send the very same request again.
#   A move keeps its Idempotency-Key, so a move the server did take is not played twice.
#   A refused connection, a timeout or another 5xx is waited out the same way (retry_delay).
#   Each wait is reported on stderr.
# - 409 and 412 on a move: the game moved on (or the move came out of turn): look again.
# - 404 and any other 4xx: stop (refusal), with the answer's status, code and detail on stderr.


class Stop(Exception):
    """The bot cannot go on: the process exits with ``code`` after printing the message."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def problem_text(status: int, doc) -> str:
    """'404 game_not_found: there is no game ...' from a problem+json answer (its detail, else its title)."""
    if isinstance(doc, dict) and "code" in doc:
        return f"{status} {doc['code']}: {doc.get('detail') or doc.get('title') or ''}".rstrip(": ")
    return f"{status} (no problem details)"


def url_problem(base: str) -> str | None:
    """Why ``base`` cannot be a server's URL (None when it can): it needs the scheme http or https and a host."""
    try:
        parts = urllib.parse.urlsplit(base)
        parts.port  # noqa: B018 (raises ValueError on a port that is not a number)
    except ValueError as err:
        return f"the server URL {base!r} is not a URL ({err})"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"the server URL {base!r} needs http:// or https:// and a host, e.g. http://127.0.0.1:8000"
    return None


def log(message: str, prog: str = "outside_bot") -> None:
    print(f"{prog}: {message}", file=sys.stderr, flush=True)


def retry_delay(retry_after: str | None, failures: int, max_wait_s: float) -> float:
    """Seconds to wait before asking again: the answer's ``Retry-After`` (seconds) or, without one
    (or with an HTTP date), a back-off doubling from half a second with each failure in a row;
    at most ``max_wait_s``, then lengthened by a random 0-20% so that refused clients spread out."""
    # --max-wait is 30 seconds by default.
    # The random lengthening is so that clients refused together do not come back together.
    try:
        asked = float(retry_after) if retry_after is not None else None
    except ValueError:
        asked = None
    if asked is None or asked != asked or asked < 0:  # absent, a date, NaN or negative
        asked = 0.5 * 2 ** min(max(failures, 1) - 1, 10)
    delay = min(asked, max_wait_s)
    return delay + random.uniform(0, 0.2 * delay)


class Api:
    """The two calls a bot needs (its view, its move), with the waits a shared server asks for."""

    def __init__(self, base: str, game_id: str, token: str, deadline: float, max_wait_s: float = 30.0,
                 timeout_s: float = 10.0, prog: str = "outside_bot"):
        self.base = base.rstrip("/")
        self.prog = prog                    # the name its waits are reported under
        self.game_id = game_id
        self.token = token
        self.deadline = deadline            # time.monotonic() after which the bot gives up
        self.max_wait_s = max_wait_s
        self.timeout_s = timeout_s
        self.sent = 0                       # requests sent (each retry counts)

    def _once(self, method: str, path: str, data: bytes | None, headers: dict):
        """(status, Retry-After header or None, parsed body); status None when no answer came."""
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        self.sent += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                return resp.status, None, json.loads(resp.read())
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                doc = json.loads(raw) if raw else None
            except ValueError:
                doc = None
            return err.code, err.headers.get("Retry-After"), doc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:  # refused, reset, timed out
            return None, None, getattr(err, "reason", err)

    def call(self, method: str, path: str, body=None, headers=None):
        """(status, parsed body) of the first answer that is not worth waiting for."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json", **(headers or {})}
        failures = 0
        while True:
            status, retry_after, doc = self._once(method, path, data, headers)
            if status is not None and status not in RETRY_STATUSES:
                return status, doc
            failures += 1
            self._wait(method, path, status, retry_after, doc, failures)

    def _wait(self, method: str, path: str, status, retry_after, doc, failures: int) -> None:
        delay = retry_delay(retry_after, failures, self.max_wait_s)
        what = problem_text(status, doc) if status is not None else f"no answer ({doc})"
        if time.monotonic() + delay > self.deadline:
            raise Stop(EXIT_GAVE_UP, f"gave up: {method} {path} got {what}, and the deadline is near")
        hint = f" (Retry-After: {retry_after})" if retry_after is not None else ""
        log(f"{method} {path}: {what}{hint}; waiting {delay:.1f} s", self.prog)
        time.sleep(delay)

    def view(self) -> dict:
        status, doc = self.call("GET", f"/games/{self.game_id}")
        if status != 200:
            raise refusal(status, doc, self.base)
        return doc

    def move(self, version: int, command: dict) -> int:
        """Plays a move; the answer's status (409 and 412 mean: look again)."""
        return self.play(version, command)[0]

    def play(self, version: int, command: dict) -> tuple[int, dict | None]:
        """Plays a move: (the answer's status, the mover's new view if it is 200, else None).
        409 and 412 mean: look again."""
        status, doc = self.call("POST", f"/games/{self.game_id}/moves", command,
                                {"If-Match": f'"{version}"', "Idempotency-Key": uuid.uuid4().hex})
        if status == 200:
            return status, doc
        if status in (409, 412):
            return status, None
        raise refusal(status, doc, self.base)


#: the 404s that say the server is right but the game (or seat) is not
NOT_FOUND_CODES = {"game_not_found", "seat_not_found"}


def refusal(status: int, doc, base: str | None = None) -> Stop:
    """The Stop for an answer the bot cannot get past; a 404 that is not the game's means a wrong server URL."""
    # 404 game_not_found or seat_not_found: stop, exit code 3.
    # Any other 404 (not_found: no such path) means the server URL is wrong (a path after the address, say):
    # exit code 2.
    # Any other 4xx (unauthorized: the token is not a seat of this game, invalid_body...): stop, exit code 4.
    if status == 404 and not (isinstance(doc, dict) and doc.get("code") in NOT_FOUND_CODES):
        where = f" {base}" if base else ""
        return Stop(EXIT_USAGE, f"stopped: {problem_text(status, doc)}: the server URL{where} looks wrong "
                                "(give the server's address alone, e.g. http://127.0.0.1:8000)")
    code = EXIT_NOT_FOUND if status == 404 else EXIT_REFUSED
    return Stop(code, f"stopped: {problem_text(status, doc)}")


def _runs(cards: set[int]) -> list[tuple[int, ...]]:
    """One run per maximal block of 3+ consecutive ranks of a suit (ace low only), suit by suit."""
    runs = []
    for suit in range(4):
        rank = 0
        while rank < 13:
            start = rank
            while rank < 13 and 13 * suit + rank in cards:
                rank += 1
            if rank - start >= 3:
                runs.append(tuple(range(13 * suit + start, 13 * suit + rank)))
            rank = max(rank, start + 1)
    return runs


def arrangement(hand) -> tuple[list[list[str]], list[str], int]:
    """(melds, deadwood cards, deadwood) of the hand's least-deadwood arrangement, as ``POST
    /analysis/melds`` answers them (the same arrangement, in the same order)."""
    # card indexes: suit * 13 + rank, suits C D H S
    cards = {SUITS.index(code[1]) * 13 + RANKS.index(code[0]) for code in hand}
    # Every choice of sets, each with the maximal runs of the cards left.
    # A rank held three or four times gives no set, the set of all, or with four each set of three.
    choices: list[tuple[set[int], list[tuple[int, ...]]]] = [(cards, [])]
    for rank in range(13):
        held = [suit for suit in range(4) if 13 * suit + rank in cards]
        if len(held) < 3:
            continue
        sets = [tuple(13 * s + rank for s in held)]
        if len(held) == 4:
            sets += [tuple(13 * s + rank for s in held if s != skip) for skip in held]
        choices += [(rest - set(meld), chosen + [meld]) for rest, chosen in choices for meld in sets]
    best = None
    for rest, chosen in choices:
        melds = sorted(chosen + _runs(rest))
        dead = sorted(cards - {card for meld in melds for card in meld})
        # the least by deadwood, then the number of deadwood cards, then the number of melds,
        # then the melds as sorted card indexes
        key = (sum(min(card % 13 + 1, 10) for card in dead), len(dead), len(melds), melds, dead)
        if best is None or key < best:
            best = key
    value, _, _, melds, dead = best

    def code(card: int) -> str:
        return RANKS[card % 13] + SUITS[card // 13]

    return [[code(c) for c in meld] for meld in melds], [code(c) for c in dead], value


def deadwood(hand) -> int:
    """The least deadwood of some cards."""
    return arrangement(hand)[2]


def deadwood_after_discard(hand) -> int:
    """The least deadwood left after the best discard from some cards."""
    return min(deadwood([c for c in hand if c != card]) for card in hand)


def choose(view: dict) -> dict:
    """One of the view's legal moves (worked out from the view alone)."""
    # It knocks whenever a knock is listed (the discard that leaves the least deadwood).
    # It takes the upcard or the discard only when that lowers its deadwood.
    # Otherwise it discards its highest unmatched card.
    # It works the melds and deadwood out itself (arrangement: the same least-deadwood arrangement,
    # in the same canonical order, as POST /analysis/melds answers).
    # So a move costs no request but the move itself, and the look that finds it to play.
    moves = view["legal_moves"]
    types = {m["type"] for m in moves}
    hand = view["hand"]
    knocks = [m for m in moves if m["type"] == "knock"]
    if knocks:
        if any(m["discard"] is None for m in knocks):
            return {"type": "knock", "discard": None}          # big gin: nothing to discard
        left = {m["discard"]: deadwood([c for c in hand if c != m["discard"]]) for m in knocks}
        return min(knocks, key=lambda m: (left[m["discard"]], m["discard"]))
    if "take_upcard" in types or "draw_discard" in types:
        top = view["discard_top"]
        if deadwood_after_discard(hand + [top]) < deadwood(hand):
            return {"type": "take_upcard"} if "take_upcard" in types else {"type": "draw_discard"}
        return {"type": "pass_upcard"} if "pass_upcard" in types else {"type": "draw_stock"}
    if "draw_stock" in types:
        return {"type": "draw_stock"}
    discards = [m for m in moves if m["type"] == "discard"]
    unmatched = set(arrangement(hand)[1])
    return max(discards, key=lambda m: (m["card"] in unmatched, VALUES[m["card"][0]], m["card"]))


def play(base: str, game_id: str, token: str, poll_s: float = 0.2, deadline_s: float = 3600,
         max_wait_s: float = 30.0) -> dict:
    """Play until the game is over; returns the final view. Raises Stop when it cannot."""
    # It polls its view, and plays when legal_moves is not empty.
    # A move's answer is the mover's new view, so a draw and the discard after it cost one look and two moves.
    # Moves carry If-Match and an Idempotency-Key, so a retry after a lost answer can never play twice.
    deadline = time.monotonic() + deadline_s
    api = Api(base, game_id, token, deadline, max_wait_s)
    view = api.view()
    while time.monotonic() < deadline:
        if view["status"] == "over":
            return view
        if view["legal_moves"]:
            status, after = api.play(view["version"], choose(view))
            view = after if status == 200 else api.view()   # a 409/412 only means: look again
        else:
            time.sleep(poll_s)
            view = api.view()
    raise Stop(EXIT_GAVE_UP, f"gave up: the game was not over after {deadline_s:g} s")


def _positionals_last(argv: list[str]) -> list[str]:
    """The options first, then ``--`` and the rest: game ids and tokens may begin with '-'."""
    options, rest = [], []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("-h", "--help"):
            options.append(word)
        elif word.startswith("--") and word != "--":
            options.append(word)
            if "=" not in word and i + 1 < len(argv):
                options.append(argv[i + 1])
                i += 1
        elif word != "--":
            rest.append(word)
        i += 1
    return options + ["--"] + rest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.outside_bot",
                                     description="Play one seat of a ginbox game over HTTP.")
    parser.add_argument("base", help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("game_id")
    parser.add_argument("token", help="the seat's token")
    parser.add_argument("--poll", type=float, default=0.2, help="seconds between two looks while waiting (0.2)")
    parser.add_argument("--deadline", type=float, default=3600, help="give up after this many seconds (3600)")
    parser.add_argument("--max-wait", type=float, default=30.0,
                        help="the longest single wait when the server asks for time (30)")
    args = parser.parse_args(_positionals_last(sys.argv[1:] if argv is None else list(argv)))
    if (problem := url_problem(args.base)) is not None:
        log(problem)
        return EXIT_USAGE
    try:
        final = play(args.base, args.game_id, args.token, args.poll, args.deadline, args.max_wait)
    except Stop as stop:
        log(str(stop))
        return stop.code
    except KeyboardInterrupt:
        log(f"interrupted; the game goes on at the server, and the seat's turns wait for a player "
            f"(GET {args.base.rstrip('/')}/games/{args.game_id})")
        return EXIT_INTERRUPTED
    print(json.dumps({"scores": final["scores"], "winner": final["winner"]}))
    return EXIT_OVER


if __name__ == "__main__":
    sys.exit(main())
