"""``ginbox match`` sends a match as a bot account (--token), unrated (--no-rated) and with a turn
clock (--move-time-s); with stdout not a terminal its progress is plain lines on stderr."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register
from support.cli_clients import STARTED, Served, ginbox_match, spawn_match, wait_for
from support.servers import REPO

pytestmark = pytest.mark.timeout(120)


def test_local_progress_is_one_plain_line_per_board_when_stdout_is_no_terminal():
    proc = ginbox_match("--local", "--participants", "basic,random", "--boards", "3", timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "boards" in line]
    assert [re.sub(r" \(.*\)$", "", line) for line in lines] == [f"ginbox match: boards {n}/3" for n in (1, 2, 3)]
    assert "\x1b[" not in proc.stderr and "━" not in proc.stderr  # no bar drawn
    assert "basic" in proc.stdout and "random" in proc.stdout


@pytest.mark.parametrize("flag", [["--token", "x"], ["--no-rated"], ["--rated"], ["--move-time-s", "30"]])
def test_local_refuses_what_only_a_server_does(flag):
    proc = ginbox_match("--local", "--participants", "basic,random", "--boards", "1", *flag, timeout=60)
    assert proc.returncode == 2 and flag[0].split("/")[0] in proc.stderr and "server" in proc.stderr


def test_a_bots_token_sends_the_match_unrated_with_its_clock(app, client, tmp_path):  # noqa: F811
    alpha = register(client, "alpha")  # alpha does not accept matches: only its own token seats it
    served = Served(app)
    err = tmp_path / "match.err"
    proc = spawn_match(err, "--participants", "alpha,basic", "--boards", "1", "--server", served.base,
                       "--token", alpha, "--no-rated", "--move-time-s", "7")
    try:
        match_id = wait_for(err, STARTED, proc).group(1)
        wait_for(err, "ginbox match: boards 0/1", proc)
        view = client.get(f"/matches/{match_id}").get_json()
        assert [p["name"] for p in view["participants"]] == ["alpha", "basic"]
        assert view["rated"] is False and view["move_time_s"] == 7
        assert match_id in client.get("/bots/me", token=alpha).get_json()["recent_matches"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        served.stop()
    assert proc.returncode == 143
    assert "\x1b[" not in err.read_text()


def test_a_token_from_the_environment_and_a_refused_one(app, client):  # noqa: F811
    register(client, "alpha")
    served = Served(app)
    try:
        env = {**os.environ, "GINBOX_BOT_TOKEN": "not-a-bot-token"}
        proc = subprocess.run([sys.executable, "-m", "service.cli", "match", "--participants", "alpha,basic",
                               "--boards", "1", "--server", served.base], cwd=REPO, capture_output=True, text=True,
                              timeout=60, env=env)
    finally:
        served.stop()
    assert proc.returncode == 2 and "bot_token_required" in proc.stderr
