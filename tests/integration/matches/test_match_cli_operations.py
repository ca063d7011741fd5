"""`ginbox match` following a match on a server: SIGTERM ends the follow as a Ctrl-C does (with the
line that says the match goes on), a server that no longer has the match is not said to go on
with it, and a match no worker plays gets one hint that a worker must be running."""

from __future__ import annotations

import signal

import pytest

from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from support.arena_fixtures import app, settings  # noqa: F401 (fixtures)
from support.cli_clients import STARTED, Served, spawn_match, wait_for
from workers import arena_match

def lines_of(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr
    return [ln for ln in stderr.splitlines() if ln.strip()]


def test_sigterm_ends_the_follow_as_ctrl_c_does_and_says_the_match_goes_on(app, tmp_path):  # noqa: F811
    served = Served(app)  # no worker: the match stays in play
    err = tmp_path / "match.err"
    proc = spawn_match(err, "--participants", "basic,random", "--boards", "3", "--server", served.base)
    try:
        match_id = wait_for(err, STARTED, proc).group(1)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == arena_match.EXIT_TERMINATED == 128 + signal.SIGTERM
        assert out == ""
        last = lines_of(err.read_text())[-1]
        assert last == (f"ginbox match: stopped (SIGTERM); the match goes on at the server: follow it at "
                        f"{served.base}/match/{match_id} (or GET {served.base}/matches/{match_id})")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        served.stop()


@pytest.mark.slow
def test_a_server_that_no_longer_has_the_match_is_not_said_to_go_on_with_it(app, redis_url, key_prefix,  # noqa: F811
                                                                             tmp_path):
    served = Served(app)
    err = tmp_path / "match.err"
    proc = spawn_match(err, "--participants", "basic,random", "--boards", "3", "--server", served.base)
    replaced = None
    try:
        match_id = wait_for(err, STARTED, proc).group(1)
        # the server is replaced, on the same address, by one on other data: it has no such match
        served.stop()
        other = Settings(redis_url=redis_url, key_prefix=f"{key_prefix}-other", queue_name=f"{key_prefix}-other-bots")
        replaced = Served(create_app(other, bot_scheduler=make_bot_scheduler(other)), port=served.port)
        proc.communicate(timeout=arena_match.GIVE_UP_S + 60)
        assert proc.returncode == arena_match.EXIT_FAILED == 1
        last = lines_of(err.read_text())[-1]
        assert last.startswith(f"ginbox match: GET {served.base}/matches/{match_id}: 404 match_not_found"), last
        assert last.endswith("; the server no longer has this match"), last
        assert "goes on" not in last
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        served.stop()
        if replaced is not None:
            replaced.stop()


class HintSeen(Exception):
    pass


def test_a_match_no_worker_plays_gets_one_hint_that_a_worker_must_run(app, monkeypatch):  # noqa: F811
    monkeypatch.setattr(arena_match, "POLL_S", 0.05)
    served = Served(app)  # and no worker
    said: list[str] = []
    looks = []

    def progress(match: dict) -> None:
        looks.append((match["games_done"], match["version"]))
        # a few looks more once the hint came: it is said once
        if said and len(looks) > said_at[0] + 5:
            raise HintSeen

    said_at = [0]

    def report(line: str) -> None:
        said.append(line)
        said_at[0] = len(looks)

    try:
        with pytest.raises(HintSeen):
            arena_match.run_remote(served.base, {"variant": "gin-rami", "participants": ["basic", "random"],
                                                 "boards": 2}, progress=progress, report=report, idle_hint_s=0.5)
    finally:
        served.stop()
    assert len(set(looks)) == 1  # nothing moved
    assert said == [arena_match.idle_hint(0.5)]
    assert said[0].startswith("no board game has ended for 0.5 s: ") and "(ginbox worker;" in said[0]
