"""Redis MONITOR on a connection of its own: the commands the clients sent, read back in a test.

    with CommandLog(redis_url) as log:
        ...                        # what the test measures
        sent = log.read()          # every command sent since the log opened (a marker ends the read)
"""

from __future__ import annotations

import uuid

import redis


class CommandLog:
    """The commands Redis ran for its clients (not those a Lua script ran), from MONITOR."""

    def __init__(self, redis_url: str):
        self.url = redis_url
        self._conn = redis.Redis.from_url(redis_url)
        self._monitor = self._conn.monitor()

    def __enter__(self) -> "CommandLog":
        self._monitor.__enter__()  # MONITOR, and its OK
        return self

    def __exit__(self, *exc) -> None:
        self._monitor.__exit__(*exc)
        self._conn.close()

    def read(self) -> list[dict]:
        """The commands sent since the last read (each as redis-py's Monitor gives it: ``command``,
        ``client_address``, ``client_port``, ``client_type``), up to a marker this call sends."""
        marker = f"commandlog-{uuid.uuid4().hex}"
        sender = redis.Redis.from_url(self.url)
        try:
            sender.echo(marker)
        finally:
            sender.close()
        out = []
        while True:
            entry = self._monitor.next_command()
            if entry["command"] == f"ECHO {marker}":
                return out
            if entry["client_type"] != "lua":
                out.append(entry)


def with_key_prefix(commands: list[dict], key_prefix: str) -> list[str]:
    """The commands (as text) that name a key under ``key_prefix``."""
    return [c["command"] for c in commands if f" {key_prefix}:" in f" {c['command']}"]
