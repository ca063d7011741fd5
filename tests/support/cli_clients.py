"""Helpers of the tests of the command-line clients (``ginbox match``, the bot programs): the app on
a real socket that a test can take away, ``ginbox match`` run or spawned, and waiting for a line."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from werkzeug.serving import make_server

from support.servers import REPO

#: the line ``ginbox match`` prints once the server has started the match: (match id, page URL)
STARTED = re.compile(r"ginbox match: match (\S+) started: (\S+)")


def ginbox_match(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", "match", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def spawn_match(err_path: Path, *args: str) -> subprocess.Popen:
    with open(err_path, "w") as err:
        return subprocess.Popen([sys.executable, "-m", "service.cli", "match", *args], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=err, text=True)


def wait_for(path: Path, pattern: re.Pattern | str, proc: subprocess.Popen, seconds: float = 60) -> re.Match:
    """The first match of ``pattern`` in the file, waiting for it while ``proc`` runs."""
    pattern = re.compile(re.escape(pattern)) if isinstance(pattern, str) else pattern
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = pattern.search(path.read_text())
        if found:
            return found
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"{pattern.pattern!r} never came:\n{path.read_text()}")


class Served:
    """The app on a real socket (a given port, or any), which a test can take away (its port then
    refuses connections)."""

    def __init__(self, wsgi_app, port: int = 0):
        self.server = make_server("127.0.0.1", port, wsgi_app, threaded=True)
        self.port = self.server.server_port
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.up = True

    def stop(self) -> None:
        if self.up:
            self.server.shutdown()
            self.server.server_close()
            self.up = False
