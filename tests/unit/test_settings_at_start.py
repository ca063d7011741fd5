"""Settings checked before anything starts, in one line naming the variable and exit status 2: the
log level (GINBOX_LOG_LEVEL), the worker's queues (GINBOX_WORKER_QUEUES), and under gunicorn run with
its config module (service.metrics), whose on_starting hook checks them before it listens or starts an
API process (without it, each process printed a traceback and gunicorn ended "Worker failed to boot")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from service.config import SettingError, Settings

NO_REDIS = "redis://127.0.0.1:1/0"  # never reached: the refusal comes first


def _env(**env) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GINBOX_") and k != "REDIS_URL"}
    return {**clean, **env}


def ginbox(args: list[str], **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], env=_env(**env),
                          capture_output=True, text=True, timeout=60)


def gunicorn(**env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gunicorn", "--bind", "127.0.0.1:0", "--workers", "1",
                           "--config", "python:service.metrics", "service.wsgi:app"],
                          env=_env(**env), capture_output=True, text=True, timeout=60)


def _one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_the_log_level_is_read_in_any_case_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.delenv("GINBOX_LOG_LEVEL", raising=False)
    assert Settings.from_env().log_level == "INFO"
    monkeypatch.setenv("GINBOX_LOG_LEVEL", "warning")
    assert Settings.from_env().log_level == "WARNING"
    monkeypatch.setenv("GINBOX_LOG_LEVEL", "bogus")
    with pytest.raises(SettingError, match="GINBOX_LOG_LEVEL='bogus' is not a log level"):
        Settings.from_env()


@pytest.mark.parametrize("args", [["serve"], ["worker", "--burst"]])
def test_a_bad_log_level_stops_ginbox_before_it_starts_anything(tmp_path, args):
    done = ginbox(args, GINBOX_LOG_LEVEL="bogus", GINBOX_DATA_DIR=str(tmp_path / "data"),
                  **({"REDIS_URL": NO_REDIS} if args[0] == "worker" else {}))
    assert done.returncode == 2
    assert "GINBOX_LOG_LEVEL='bogus'" in _one_line(done)
    assert not (tmp_path / "data").exists()  # not even the data directory's lock was taken


@pytest.mark.parametrize("given, named", [
    ({"GINBOX_WORKER_QUEUES": "foo"}, "GINBOX_WORKER_QUEUES='foo'"),
    ({}, "--queues='bar'"),
])
def test_a_worker_names_where_its_bad_queues_came_from(given, named):
    args = ["worker", "--burst"] + ([] if given else ["--queues", "bar"])
    done = ginbox(args, REDIS_URL=NO_REDIS, **given)
    assert done.returncode == 2
    assert named in _one_line(done)


def _after_gunicorn_start(done: subprocess.CompletedProcess) -> str:
    """The line after gunicorn's own "Starting gunicorn" line, the only other one."""
    assert "Traceback" not in done.stderr and "Worker failed to boot" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and "Starting gunicorn" in lines[0], done.stderr
    return lines[1]


@pytest.mark.parametrize("env, named", [
    ({"GINBOX_RATE_LIMIT": "-1"}, "GINBOX_RATE_LIMIT='-1' is out of range"),
    ({"GINBOX_LOG_LEVEL": "bogus"}, "GINBOX_LOG_LEVEL='bogus'"),
    ({"GINBOX_REDIS_TIMEOUT": "nan"}, "GINBOX_REDIS_TIMEOUT='nan'"),
])
def test_gunicorn_with_the_config_module_refuses_a_bad_setting_in_one_line(env, named):
    done = gunicorn(REDIS_URL=NO_REDIS, **env)
    assert done.returncode == 2
    assert named in _after_gunicorn_start(done)


def test_gunicorn_with_the_config_module_refuses_to_start_without_redis_url():
    done = gunicorn()
    assert done.returncode == 2
    assert "REDIS_URL is not set" in _after_gunicorn_start(done)
