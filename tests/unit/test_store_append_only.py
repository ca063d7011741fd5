"""No code path trims, deletes or rewrites a recorded event (the log is append-only); the one stream trimmed is a bot account's notices, which are no log; the one stream deleted is a finished game's, once its archived record that gives it back is written and checked."""

import re
from pathlib import Path

import service

ROOT = Path(service.__file__).parent.parent
SOURCES = sorted(p for d in ("service", "workers") for p in (ROOT / d).rglob("*.py"))

# stream commands that remove entries, and XADD options that trim as they add
STREAM_REMOVAL = re.compile(r"\b(xtrim|xdel)\b|\bxadd\b.*\b(maxlen|minid)\b", re.IGNORECASE)
# a key deletion in the store (DEL or UNLINK, from Python or from a Lua script)
KEY_DELETION = re.compile(r"\.(delete|unlink)\(|['\"](DEL|UNLINK)['\"]", re.IGNORECASE)


def test_the_sources_are_found():
    assert ROOT / "service" / "store" / "redis_store.py" in SOURCES


#: the one stream that is trimmed: a bot account's notices (your_turn, game_over, challenge...),
#: which are no event log but derived from the games' and matches' logs, which stay whole
BOT_NOTICES = "service/store/arena.py"
BOT_NOTICES_TRIM = "maxlen=self.stream_max_len, approximate=True"


def test_no_source_trims_or_deletes_stream_entries():
    offending = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if STREAM_REMOVAL.search(line) or re.search(r"\bmaxlen\s*=", line, re.IGNORECASE)
    ]
    # nowhere but in the bot notices' store...
    assert [o for o in offending if not o.startswith(BOT_NOTICES + ":")] == []
    # ...and there, one XADD that trims: the bot's notice stream, by length
    trims = [o for o in offending if "self.redis.xadd(" in o]
    assert len(trims) == 1 and 'self._bot(name, "stream")' in trims[0] and BOT_NOTICES_TRIM in trims[0], offending


def test_the_store_deletes_no_key():
    store_sources = [p for p in SOURCES if p.parent.name == "store"]
    deletions = [
        line.strip()
        for path in store_sources
        for line in path.read_text().splitlines()
        if KEY_DELETION.search(line)
    ]
    # a failed decision analysis
    # (derived data beside the log, never the log) is cleared before it is asked for again; and a
    # finished game's stream, snapshots and advice go in one script, only once its archived record
    # is in Redis, checked to give the log back, and the stream still holds exactly that log
    assert deletions == ["if ARGV[4] == 'create' then redis.call('DEL', KEYS[1]) end",
                         "redis.call('DEL', KEYS[1], KEYS[2], KEYS[5])"]


def test_the_one_deletion_of_a_stream_is_guarded_by_the_checked_archive():
    source = (ROOT / "service" / "store" / "redis_store.py").read_text()
    script = source[source.index("_LUA_DROP_ARCHIVED = "):]
    script = script[:script.index('"""', script.index('"""') + 3)]
    # the checks come before the deletion: the stream holds the log checked, the record is the one checked
    checks = ["redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1])", "redis.call('GET', KEYS[3]) ~= ARGV[2]",
              "redis.call('XLEN', KEYS[5]) ~= tonumber(ARGV[3])"]
    assert all(c in script for c in checks)
    assert max(script.index(c) for c in checks) < script.index("redis.call('DEL'")
