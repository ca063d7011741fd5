"""A setting the environment gets wrong stops `ginbox` with one line that names it (exit 2), never a
traceback: a whole number that is no number, a worker class that is none of the choices."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from service.config import SettingError, Settings


def run(args: list[str], **env) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GINBOX_") and k != "REDIS_URL"}
    return subprocess.run([sys.executable, "-m", "service.cli", *args], env={**clean, **env},
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args, env, named", [
    (["worker", "--burst"], {"GINBOX_RATE_LIMIT": "abc", "REDIS_URL": "redis://127.0.0.1:1/0"}, "GINBOX_RATE_LIMIT='abc'"),
    (["worker", "--burst"], {"GINBOX_REDIS_TIMEOUT": "2s", "REDIS_URL": "redis://127.0.0.1:1/0"},
     "GINBOX_REDIS_TIMEOUT='2s'"),
    (["serve"], {"GINBOX_PORT": "abc"}, "GINBOX_PORT='abc'"),
    (["serve"], {"GINBOX_TURN_WORKERS": "one"}, "GINBOX_TURN_WORKERS='one'"),
    (["serve"], {"GINBOX_WORKER_CLASS": "sync"}, "GINBOX_WORKER_CLASS='sync'"),
])
def test_a_bad_setting_is_one_line_naming_it_and_exit_2(args, env, named):
    done = run(args, **env)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr


def test_settings_from_the_environment_say_which_variable_is_wrong(monkeypatch):
    monkeypatch.setenv("GINBOX_SNAPSHOT_EVERY", "fifty")
    with pytest.raises(SettingError, match="GINBOX_SNAPSHOT_EVERY='fifty' is not a whole number"):
        Settings.from_env()
    monkeypatch.setenv("GINBOX_SNAPSHOT_EVERY", "50")
    assert Settings.from_env().snapshot_every == 50
