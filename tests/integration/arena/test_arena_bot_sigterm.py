"""SIGTERM (a service manager's stop, kill's default) ends arena_bot as Ctrl-C does: one line on
stderr, no traceback, and exit status 143 (128 + 15, as `ginbox match` and shells report it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from werkzeug.serving import make_server

from support.apiclient import ValidatingClient
from support.arena_fixtures import app, settings  # noqa: F401 (fixtures)
from support.servers import REPO
from workers import arena_bot


def _wait_for(path: Path, text: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in path.read_text():
            return
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never came:\n{path.read_text()}")


def test_sigterm_stops_the_arena_bot_with_one_line_and_exit_143(app, tmp_path):  # noqa: F811
    token = ValidatingClient(app).post("/bots", json={"name": "terminable", "description": "waits",
                                                      "owner": "tests"}).get_json()["token"]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    err = tmp_path / "bot.err"
    with open(err, "w") as out:
        bot = subprocess.Popen([sys.executable, "-m", "workers.arena_bot", base, "--deadline", "120"],
                               cwd=REPO, stdout=subprocess.PIPE, stderr=out, text=True,
                               env={**os.environ, "GINBOX_BOT_TOKEN": token})
    try:
        _wait_for(err, "arena_bot: stream: connected to ", bot)
        bot.send_signal(signal.SIGTERM)
        out, _ = bot.communicate(timeout=30)
        assert bot.returncode == arena_bot.EXIT_TERMINATED == 143
        assert out == ""  # no summary: it did not end on its own
        text = err.read_text()
        assert "Traceback" not in text, text
        lines = [ln for ln in text.splitlines() if ln.strip()]
        assert lines[-1].startswith("arena_bot: stopped (SIGTERM); the bot's games go on at the server"), text
        assert sum("SIGTERM" in ln for ln in lines) == 1, text
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        server.shutdown()
        server.server_close()
