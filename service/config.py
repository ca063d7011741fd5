"""Settings from the environment: the one place that reads them (service/docs/OPERATE.md lists each)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit


class SettingError(ValueError):
    """A setting in the environment that cannot be read; its text names the variable and its value."""


def in_range(name: str, raw: str, value, minimum, maximum, above):
    """``value`` if it is at least ``minimum`` (greater, with ``above``) and at most ``maximum``
    (None: no bound), else SettingError naming the variable, its text ``raw`` and the range."""
    low_ok = minimum is None or (value > minimum if above else value >= minimum)
    if low_ok and (maximum is None or value <= maximum):
        return value
    if above:
        wanted = f"greater than {minimum:g}"
    elif maximum is None:
        wanted = f"at least {minimum:g}"
    elif minimum is None:
        wanted = f"at most {maximum:g}"
    else:
        wanted = f"from {minimum:g} to {maximum:g}"
    raise SettingError(f"{name}={raw!r} is out of range: it must be {wanted}")


def env_int(name: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
    """The whole number in environment variable ``name`` (unset or empty: ``default``), from
    ``minimum`` to ``maximum`` (either None: unbounded)."""
    return _env_number(name, default, int, "a whole number", minimum, maximum, above=False)


def env_float(name: str, default: float, minimum: float | None = None, above: bool = False) -> float:
    """The finite number in environment variable ``name`` (unset or empty: ``default``), at least
    ``minimum`` (greater than it with ``above``; None: unbounded)."""
    return _env_number(name, default, float, "a number", minimum, None, above=above)


def _env_number(name: str, default, parse, what: str, minimum, maximum, above: bool):
    """The number ``parse`` reads in environment variable ``name`` (unset or empty: ``default``),
    in range (``in_range``); SettingError when it is not ``what`` or not finite."""
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise SettingError(f"{name}={raw!r} is not {what}") from None
    # only a float can be infinite or NaN (and a whole number too large for one is no error)
    if isinstance(value, float) and not math.isfinite(value):
        raise SettingError(f"{name}={raw!r} is not a finite number")
    return in_range(name, raw, value, minimum, maximum, above=above)


#: the fewest characters of a server secret (GINBOX_SECRET)
MIN_SECRET_CHARS = 32


def env_secret(name: str) -> str | None:
    """The secret in environment variable ``name`` (unset or empty: None), at least
    MIN_SECRET_CHARS characters; an error never shows it."""
    raw = os.environ.get(name) or None
    if raw is not None and len(raw) < MIN_SECRET_CHARS:
        raise SettingError(f"{name} is too short: it must be at least {MIN_SECRET_CHARS} characters "
                           f"(e.g. the output of `openssl rand -base64 32`)")
    return raw


#: what a bearer token set in the environment (GINBOX_METRICS_TOKEN) is made of: RFC 6750's
#: b64token characters (what an Authorization header carries as it is; the output of
#: `openssl rand -base64 32` or `-hex 32` qualifies), from MIN_SECRET_CHARS to MAX_BEARER_CHARS of them
BEARER_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/=")
MAX_BEARER_CHARS = 200


def env_bearer_token(name: str) -> str | None:
    """The bearer token in environment variable ``name`` (unset or empty: None): MIN_SECRET_CHARS
    to MAX_BEARER_CHARS of BEARER_TOKEN_CHARS; an error never shows it."""
    raw = os.environ.get(name) or None
    if raw is None:
        return None
    if not MIN_SECRET_CHARS <= len(raw) <= MAX_BEARER_CHARS:
        raise SettingError(f"{name} must be {MIN_SECRET_CHARS} to {MAX_BEARER_CHARS} characters long "
                           f"(e.g. the output of `openssl rand -hex 32`)")
    if not set(raw) <= BEARER_TOKEN_CHARS:
        raise SettingError(f"{name} may hold only letters, digits and - . _ ~ + / = "
                           f"(what 'Authorization: Bearer <token>' carries; e.g. `openssl rand -hex 32`)")
    return raw


#: the levels of GINBOX_LOG_LEVEL (the logging module's names, in any case)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level(name: str, default: str = "INFO") -> str:
    """The log level in environment variable ``name`` (unset or empty: ``default``), one of LOG_LEVELS."""
    raw = os.environ.get(name)
    if raw in (None, ""):
        return default
    if raw.strip().upper() not in LOG_LEVELS:
        raise SettingError(f"{name}={raw!r} is not a log level: it must be one of "
                           f"{', '.join(level.lower() for level in LOG_LEVELS)}")
    return raw.strip().upper()


#: the URL schemes of a Redis server (redis-py's ``from_url``)
REDIS_SCHEMES = ("redis", "rediss", "unix")


def env_redis_url(name: str) -> str | None:
    """The Redis URL in environment variable ``name`` (unset or empty: None): redis://, rediss://
    or unix:// with a socket path (redis-py's schemes; a redis URL without host means localhost)."""
    raw = os.environ.get(name) or None
    if raw is None:
        return None
    try:
        parsed = urlsplit(raw)
        parsed.port  # noqa: B018 (a port that is no number raises here)
    except ValueError as err:
        raise SettingError(f"{name}={raw!r} is not a Redis URL: {err}") from None
    if parsed.scheme not in REDIS_SCHEMES:
        raise SettingError(f"{name}={raw!r} is not a Redis URL: it must start with "
                           f"{', '.join(f'{s}://' for s in REDIS_SCHEMES)}")
    if parsed.scheme == "unix" and not parsed.path:
        raise SettingError(f"{name}={raw!r} is not a Redis URL: it names no socket path")
    return raw


@dataclass
class Settings:
    """Runtime settings; tests build one directly instead of touching the environment."""

    redis_url: str | None = None          # REDIS_URL: the event store (and everything else by default)
    rq_redis_url: str | None = None       # RQ_REDIS_URL: the job queue, when it must live elsewhere
    data_dir: str = ".ginbox-data"        # GINBOX_DATA_DIR: the embedded Redis keeps its files here
    key_prefix: str = "ginbox"            # GINBOX_KEY_PREFIX: first part of every Redis key
    queue_name: str = "ginbox-bots"       # GINBOX_QUEUE: bot turns and turn clocks
    board_queue_name: str | None = None   # GINBOX_BOARD_QUEUE: matches' board games, bots-alone games' turns; None: <queue>-boards
    snapshot_every: int = 50              # GINBOX_SNAPSHOT_EVERY: events between state snapshots
    max_body_bytes: int = 64 * 1024       # GINBOX_MAX_BODY_BYTES
    rate_limit_per_minute: int = 600      # GINBOX_RATE_LIMIT: requests per minute per token / address
    stream_opens_per_minute: int = 60     # GINBOX_RATE_LIMIT_STREAMS: stream opens per minute per token / address (0: no limit)
    creations_per_hour: int = 2000        # GINBOX_CREATIONS_PER_HOUR: games, matches, challenges created per address (0: no limit)
    creations_per_day: int = 10_000       # GINBOX_CREATIONS_PER_DAY: the same, per day (0: no limit)
    registrations_per_hour: int = 20      # GINBOX_REGISTRATIONS_PER_HOUR: bot accounts registered per address (0: no limit)
    registrations_per_day: int = 100      # GINBOX_REGISTRATIONS_PER_DAY: the same, per day (0: no limit)
    memory_guard_share: float = 0.9       # GINBOX_MEMORY_GUARD: refuse new games past this share of Redis maxmemory (0: never)
    unstarted_expire_s: float = 24 * 3600.0  # GINBOX_UNSTARTED_EXPIRE_S: end a game whose seats never filled after this long (0: never)
    matches_per_caller: int = 4           # GINBOX_MATCHES_PER_CALLER: matches of POST /matches in play per caller (0: no cap)
    matches_in_play: int = 32             # GINBOX_MATCHES_IN_PLAY: the same, server-wide (0: no cap)
    challenges_per_bot: int = 20          # GINBOX_CHALLENGES_PER_BOT: challenges pending to one bot (0: no cap)
    challenges_per_challenger: int = 5    # GINBOX_CHALLENGES_PER_CHALLENGER: pending from one challenger (0: no cap)
    tournaments_in_play: int = 4          # GINBOX_TOURNAMENTS_IN_PLAY: tournaments in play server-wide (0: no cap)
    tournament_entries: int = 16          # GINBOX_TOURNAMENT_ENTRIES: the most entries of one tournament
    tournament_rounds: int = 10           # GINBOX_TOURNAMENT_ROUNDS: the most rounds of one tournament
    tournament_boards: int = 20           # GINBOX_TOURNAMENT_BOARDS: the most boards of one pairing
    bot_games_per_caller: int = 4         # GINBOX_BOT_GAMES_PER_CALLER: games of POST /games of built-in bots alone in play per caller (0: no cap)
    bot_games_in_play: int = 64           # GINBOX_BOT_GAMES_IN_PLAY: the same, server-wide (0: no cap)
    analyses_per_caller: int = 2          # GINBOX_ANALYSES_PER_CALLER: decision analyses queued or running per caller (0: no cap)
    analyses_queued: int = 16             # GINBOX_ANALYSES_QUEUED: the same, server-wide (0: no cap)
    analysis_samples: int = 24            # GINBOX_ANALYSIS_SAMPLES: determinizations per decision of a served analysis
    analysis_processes: int = 2           # GINBOX_ANALYSIS_PROCESSES: processes one served analysis runs in (lowered priority)
    analysis_queue_name: str | None = None  # GINBOX_ANALYSIS_QUEUE: decision analyses; None: <queue>-analysis
    archive_queue_name: str | None = None  # GINBOX_ARCHIVE_QUEUE: finished games to archive; None: <queue>-archive
    max_streams_per_client: int = 32      # GINBOX_MAX_STREAMS_PER_CLIENT: live streams open at once per token / address
    connections: int = 1000               # GINBOX_CONNECTIONS: connections of one API process (its streams' Redis pool)
    redis_timeout_s: float = 2.0          # GINBOX_REDIS_TIMEOUT: socket timeout, so a dead Redis fails fast
    bot_stall_s: float = 30.0             # GINBOX_BOT_STALL_S: re-enqueue a bot turn waiting this long
    board_chain_s: float = 5.0            # GINBOX_BOARD_CHAIN_S: a board job plays on into the games its games' ends start this long (0: never)
    bot_budget_ms: int = 200              # GINBOX_BOT_BUDGET_MS: expert's time per move unless the seat sets one
    abandon_after_s: float = 7 * 24 * 3600.0  # GINBOX_ABANDON_AFTER_S: end a game nobody moved in this long (0: never)
    abandon_drawn_hands: int = 1000       # GINBOX_ABANDON_DRAWN_HANDS: end a game of built-in bots alone after this many drawn hands in a row (0: never)
    proxy_hops: int = 0                   # GINBOX_PROXY_HOPS: trusted proxies that append to X-Forwarded-For
    rate_limit_ipv6_prefix: int = 64      # GINBOX_RATE_LIMIT_IPV6_PREFIX: an IPv6 client is counted by this network
    cors_origins: str = "*"               # GINBOX_CORS_ORIGINS: origins browsers may call from ('' for none)
    secret: str | None = field(default=None, repr=False)  # GINBOX_SECRET: seals creation records (None: one kept in Redis)
    metrics_token: str | None = field(default=None, repr=False)  # GINBOX_METRICS_TOKEN: /metrics needs it as a bearer token (None: public)
    log_level: str = "INFO"               # GINBOX_LOG_LEVEL: the least level logged (debug ... critical)
    extra: dict = field(default_factory=dict)

    @property
    def board_queue(self) -> str:
        """The queue of the jobs that play a match's board game whole: its own, so that a bot's turn
        in a person's game never waits behind them (GINBOX_BOARD_QUEUE, else ``<GINBOX_QUEUE>-boards``)."""
        return self.board_queue_name or f"{self.queue_name}-boards"

    @property
    def analysis_queue(self) -> str:
        """The queue of the decision analyses' jobs (GINBOX_ANALYSIS_QUEUE, else ``<GINBOX_QUEUE>-analysis``)."""
        return self.analysis_queue_name or f"{self.queue_name}-analysis"

    @property
    def archive_queue(self) -> str:
        """The queue of the jobs that archive finished games (GINBOX_ARCHIVE_QUEUE, else ``<GINBOX_QUEUE>-archive``)."""
        return self.archive_queue_name or f"{self.queue_name}-archive"

    @classmethod
    def from_env(cls) -> "Settings":
        return cls(
            redis_url=env_redis_url("REDIS_URL"),
            rq_redis_url=env_redis_url("RQ_REDIS_URL"),
            data_dir=os.environ.get("GINBOX_DATA_DIR", ".ginbox-data"),
            key_prefix=os.environ.get("GINBOX_KEY_PREFIX", "ginbox"),
            queue_name=os.environ.get("GINBOX_QUEUE", "ginbox-bots"),
            board_queue_name=os.environ.get("GINBOX_BOARD_QUEUE") or None,
            snapshot_every=env_int("GINBOX_SNAPSHOT_EVERY", 50, minimum=1),
            max_body_bytes=env_int("GINBOX_MAX_BODY_BYTES", 64 * 1024, minimum=1),
            rate_limit_per_minute=env_int("GINBOX_RATE_LIMIT", 600, minimum=0),  # 0: no limit
            stream_opens_per_minute=env_int("GINBOX_RATE_LIMIT_STREAMS", 60, minimum=0),  # 0: no limit
            creations_per_hour=env_int("GINBOX_CREATIONS_PER_HOUR", 2000, minimum=0),  # 0: no limit
            creations_per_day=env_int("GINBOX_CREATIONS_PER_DAY", 10_000, minimum=0),  # 0: no limit
            registrations_per_hour=env_int("GINBOX_REGISTRATIONS_PER_HOUR", 20, minimum=0),  # 0: no limit
            registrations_per_day=env_int("GINBOX_REGISTRATIONS_PER_DAY", 100, minimum=0),  # 0: no limit
            memory_guard_share=env_float("GINBOX_MEMORY_GUARD", 0.9, minimum=0),  # 0: never
            unstarted_expire_s=env_float("GINBOX_UNSTARTED_EXPIRE_S", 24 * 3600.0, minimum=0),  # 0: never
            matches_per_caller=env_int("GINBOX_MATCHES_PER_CALLER", 4, minimum=0),  # 0: no cap
            matches_in_play=env_int("GINBOX_MATCHES_IN_PLAY", 32, minimum=0),  # 0: no cap
            challenges_per_bot=env_int("GINBOX_CHALLENGES_PER_BOT", 20, minimum=0),  # 0: no cap
            challenges_per_challenger=env_int("GINBOX_CHALLENGES_PER_CHALLENGER", 5, minimum=0),  # 0: no cap
            tournaments_in_play=env_int("GINBOX_TOURNAMENTS_IN_PLAY", 4, minimum=0),  # 0: no cap
            tournament_entries=env_int("GINBOX_TOURNAMENT_ENTRIES", 16, minimum=2),
            tournament_rounds=env_int("GINBOX_TOURNAMENT_ROUNDS", 10, minimum=1),
            tournament_boards=env_int("GINBOX_TOURNAMENT_BOARDS", 20, minimum=1),
            bot_games_per_caller=env_int("GINBOX_BOT_GAMES_PER_CALLER", 4, minimum=0),  # 0: no cap
            bot_games_in_play=env_int("GINBOX_BOT_GAMES_IN_PLAY", 64, minimum=0),  # 0: no cap
            analyses_per_caller=env_int("GINBOX_ANALYSES_PER_CALLER", 2, minimum=0),  # 0: no cap
            analyses_queued=env_int("GINBOX_ANALYSES_QUEUED", 16, minimum=0),  # 0: no cap
            analysis_samples=env_int("GINBOX_ANALYSIS_SAMPLES", 24, minimum=2, maximum=10000),
            analysis_processes=env_int("GINBOX_ANALYSIS_PROCESSES", 2, minimum=1, maximum=64),
            analysis_queue_name=os.environ.get("GINBOX_ANALYSIS_QUEUE") or None,
            archive_queue_name=os.environ.get("GINBOX_ARCHIVE_QUEUE") or None,
            max_streams_per_client=env_int("GINBOX_MAX_STREAMS_PER_CLIENT", 32, minimum=0),  # 0: no cap
            connections=env_int("GINBOX_CONNECTIONS", 1000, minimum=1),
            redis_timeout_s=env_float("GINBOX_REDIS_TIMEOUT", 2.0, minimum=0, above=True),
            bot_stall_s=env_float("GINBOX_BOT_STALL_S", 30.0, minimum=0, above=True),
            board_chain_s=env_float("GINBOX_BOARD_CHAIN_S", 5.0, minimum=0),  # 0: no chains
            bot_budget_ms=env_int("GINBOX_BOT_BUDGET_MS", 200, minimum=1),
            abandon_after_s=env_float("GINBOX_ABANDON_AFTER_S", 7 * 24 * 3600.0, minimum=0),  # 0: never
            abandon_drawn_hands=env_int("GINBOX_ABANDON_DRAWN_HANDS", 1000, minimum=0),  # 0: never
            proxy_hops=env_int("GINBOX_PROXY_HOPS", 0, minimum=0),
            rate_limit_ipv6_prefix=env_int("GINBOX_RATE_LIMIT_IPV6_PREFIX", 64, minimum=1, maximum=128),
            cors_origins=os.environ.get("GINBOX_CORS_ORIGINS", "*"),
            secret=env_secret("GINBOX_SECRET"),
            metrics_token=env_bearer_token("GINBOX_METRICS_TOKEN"),
            log_level=env_log_level("GINBOX_LOG_LEVEL"),
        )
