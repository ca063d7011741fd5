"""Whom a request is counted against, under which names its counters are announced, and the
check of a presented token that decides it."""

from __future__ import annotations

import hmac
import threading
from collections import OrderedDict

from service.store.tokens import hash_token

#: the operations that hand out tokens (a game's seat tokens, a claimed seat's, a bot account's, a
#: person's of a challenge or match): counted against the address whatever token they present
TOKEN_MAKING_ENDPOINTS = frozenset({"games.create_game", "games.claim_seat", "arena.register_bot",
                                    "arena.create_challenge", "arena.create_match"})
#: tokens a process remembers as issued (by hash): the oldest are forgotten first
KNOWN_TOKENS = 10_000
#: the operations that open a server-sent event stream: counted apart (GINBOX_RATE_LIMIT_STREAMS)
STREAM_ENDPOINTS = frozenset({"games.stream", "arena.bot_stream", "arena.match_stream", "arena.tournament_stream"})
#: the operations that create a game (or import one, a match, a challenge that makes one, a tournament
#: that makes many)
CREATION_ENDPOINTS = frozenset({"games.create_game", "games.import_game", "arena.create_match",
                                "arena.create_challenge", "arena.create_tournament"})
#: the operations that register a bot account
REGISTRATION_ENDPOINTS = frozenset({"arena.register_bot"})

#: the name each kind of counter is announced under in RateLimit-Policy and RateLimit (the
#: caller's own per-minute request counter, of a token or of an address, is "default")
POLICY_NAMES = {"token": "default", "addr": "address", "addr-tokens": "address-tokens",
                "stream-token": "streams", "stream-addr": "streams", "stream-addr-tokens": "address-streams",
                "create-hour": "creations-hour", "create-day": "creations-day",
                "register-hour": "registrations-hour", "register-day": "registrations-day"}
#: what a counter of each kind counts, and whose, for the 429's detail
COUNTED = {"token": ("requests", "token"), "addr": ("requests", "address"),
           "addr-tokens": ("requests with tokens", "address"), "stream-token": ("stream opens", "token"),
           "stream-addr": ("stream opens", "address"), "stream-addr-tokens": ("stream opens with tokens", "address"),
           "create-hour": ("game creations", "address"), "create-day": ("game creations", "address"),
           "register-hour": ("bot registrations", "address"), "register-day": ("bot registrations", "address")}
WINDOW_NAMES = {60: "minute", 3600: "hour", 86400: "day"}


def policy_names(standings) -> list[str]:
    """The name of each counter of a verdict (service.ratelimit.Standing): the first is "default"
    unless it counts stream opens."""
    return ["default" if i == 0 and s.kind in ("token", "addr") else POLICY_NAMES.get(s.kind, s.kind)
            for i, s in enumerate(standings)]


def headers(verdict) -> dict[str, str]:
    """The RateLimit-Policy and RateLimit fields of a verdict (draft-ietf-httpapi-ratelimit-headers-10,
    structured-field lists: one item per counter the request was counted against)."""
    if not verdict.standings:
        return {}
    names = policy_names(verdict.standings)
    policy = ", ".join(f'"{n}";q={s.limit};w={s.window_s}' for n, s in zip(names, verdict.standings))
    now = ", ".join(f'"{n}";r={s.remaining};t={s.reset_s}' for n, s in zip(names, verdict.standings))
    return {"RateLimit-Policy": policy, "RateLimit": now}


def refusal_detail(verdict) -> str:
    """The 429's detail: what was counted, whose, over which window, and the limit."""
    standing = next((s for s in verdict.standings if s.kind == verdict.refused_by), None)
    if standing is None:
        return "too many requests; retry after the time in Retry-After"
    what, whose = COUNTED.get(standing.kind, ("requests", "client"))
    window = WINDOW_NAMES.get(standing.window_s, f"{standing.window_s} s")
    counted = "" if what == "requests" else f": {what}"
    return (f"too many requests{counted} from this {whose} this {window} (at most {standing.limit}); "
            "retry after the time in Retry-After")


def identities(address: str, token: str | None, issued: bool, endpoint: str | None) -> list[tuple[str, str]]:
    """The (kind, identity) counters one request counts against.

    ``issued``: the token is one this server issued for what the request asks about
    (``TokenCheck.issued``); a token that is not is counted as no token, so a client cannot
    dodge its address's limit by sending made-up ones.
    """
    # A request that presents a token this server issued is counted against that token, not its address.
    # Such a token is a seat token of the game it asks about, a bot account's token,
    # or a person's token of the match or challenge it asks about.
    # So bots and people behind one address (one machine, one NAT) each have their own budget,
    # and none can use up the others'.
    # A request without such a token is counted against its address.
    if endpoint in STREAM_ENDPOINTS:
        # a stream open is counted in a budget of its own, so a caller over its request limit
        # still hears its games, its turns and its clocks
        if not token or not issued:
            return [("stream-addr", address)]
        return [("stream-token", token), ("stream-addr-tokens", address)]
    counted = _identities(address, token, issued, endpoint)
    # game creations and bot registrations fill the server for good: the address has an hourly
    # and a daily budget of them too (its minute is the address's own, as above)
    if endpoint in CREATION_ENDPOINTS:
        counted += [("create-hour", address), ("create-day", address)]
    elif endpoint in REGISTRATION_ENDPOINTS:
        counted += [("register-hour", address), ("register-day", address)]
    return counted


def _identities(address: str, token: str | None, issued: bool, endpoint: str | None) -> list[tuple[str, str]]:
    if not token or not issued:
        return [("addr", address)]
    # Tokens are free to make (create a game, register a bot), so two guards stay on the address.
    # All the token-bearing requests of one address together have a cap of their own:
    # ADDRESS_TOKENS_FACTOR times the limit, counted apart from the address's anonymous budget.
    # The routes that hand out tokens are counted against the address too, whatever the request presents.
    counted = [("token", token), ("addr-tokens", address)]
    if endpoint in TOKEN_MAKING_ENDPOINTS:
        counted.append(("addr", address))
    return counted


class TokenCheck:
    """Whether a request's token is one this server issued, for the counter it is counted against.

    Only the counter depends on it: the operation checks the token itself as it always does.
    A bot account's token counts on every route, a seat token on its game's.
    A person's token of a match or a challenge counts on that one's routes.
    """

    # What was found issued is remembered in this process (a digest, never the token).
    # What was not is never remembered: a seat may be claimed a moment later.
    # A token not remembered costs a Redis read or two, as the operation's own check would.

    def __init__(self, games, arena, known: int = KNOWN_TOKENS):
        self.games = games
        self.arena = arena
        self.known = known
        self._issued: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._lock = threading.Lock()

    def issued(self, token: str | None, view_args: dict | None) -> bool:
        if not token:
            return False
        digest = hash_token(token)
        args = view_args or {}
        scopes = [("bot", "")]
        if "game_id" in args:
            scopes.insert(0, ("game", str(args["game_id"])))
        elif "match_id" in args:
            scopes.append(("match", str(args["match_id"])))
        elif "challenge_id" in args:
            scopes.append(("challenge", str(args["challenge_id"])))
        with self._lock:
            for scope in scopes:
                if (scope, digest) in self._issued:
                    self._issued.move_to_end((scope, digest))
                    return True
        for scope in scopes:
            if self._lookup(scope, token, digest):
                with self._lock:
                    self._issued[(scope, digest)] = True
                    while len(self._issued) > self.known:
                        self._issued.popitem(last=False)
                return True
        return False

    def _lookup(self, scope: tuple[str, str], token: str, digest: str) -> bool:
        kind, item = scope
        if kind == "game":
            # the game's own cache remembers the seats of tokens it has seen (a bot's seat included)
            return self.games is not None and self.games.tokens.seat_of(item, token) is not None
        if self.arena is None:
            return False
        store = self.arena.store
        if kind == "bot":
            return store.bot_of_token(digest) is not None
        if kind == "match":
            return any(hmac.compare_digest(digest, h) for h in store.match_seat_tokens(item).values())
        challenge = store.challenge(item)
        stored = (challenge or {}).get("person_token_hash")
        return isinstance(stored, str) and hmac.compare_digest(digest, stored)
