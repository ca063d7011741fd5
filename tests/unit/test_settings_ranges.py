"""A setting whose value is a number or URL the server cannot use is refused at start, as one that
cannot be read is: one line naming it, exit status 2, before anything is started, the same way by
`ginbox serve`, `ginbox worker` and the app."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from service.config import SettingError, Settings

#: (variable, value, what the line says of it)
OUT_OF_RANGE = [
    ("GINBOX_SNAPSHOT_EVERY", "0", "must be at least 1"),
    ("GINBOX_SNAPSHOT_EVERY", "-3", "must be at least 1"),
    ("GINBOX_MAX_BODY_BYTES", "-1", "must be at least 1"),
    ("GINBOX_RATE_LIMIT", "-1", "must be at least 0"),
    ("GINBOX_MAX_STREAMS_PER_CLIENT", "-1", "must be at least 0"),
    ("GINBOX_CHALLENGES_PER_BOT", "-1", "must be at least 0"),
    ("GINBOX_CHALLENGES_PER_CHALLENGER", "-2", "must be at least 0"),
    ("GINBOX_CONNECTIONS", "0", "must be at least 1"),
    ("GINBOX_REDIS_TIMEOUT", "0", "must be greater than 0"),
    ("GINBOX_REDIS_TIMEOUT", "-1", "must be greater than 0"),
    ("GINBOX_REDIS_TIMEOUT", "nan", "is not a finite number"),
    ("GINBOX_REDIS_TIMEOUT", "inf", "is not a finite number"),
    ("GINBOX_BOT_STALL_S", "-1", "must be greater than 0"),
    ("GINBOX_BOT_BUDGET_MS", "0", "must be at least 1"),
    ("GINBOX_BOARD_CHAIN_S", "-0.5", "must be at least 0"),
    ("GINBOX_ABANDON_AFTER_S", "-5", "must be at least 0"),
    ("GINBOX_PROXY_HOPS", "-1", "must be at least 0"),
    ("REDIS_URL", "foo://x", "is not a Redis URL: it must start with redis://, rediss://, unix://"),
    ("REDIS_URL", "localhost:6379", "is not a Redis URL"),
    ("REDIS_URL", "redis://localhost:port/0", "is not a Redis URL"),
    ("RQ_REDIS_URL", "http://localhost:6379", "is not a Redis URL"),
    ("REDIS_URL", "unix://", "names no socket path"),
]

#: the settings of `ginbox serve` alone (its options' defaults)
SERVE_OUT_OF_RANGE = [
    ("GINBOX_PORT", "-5", "must be from 1 to 65535"),
    ("GINBOX_PORT", "99999", "must be from 1 to 65535"),
    ("GINBOX_PROCESSES", "0", "must be at least 1"),
    ("GINBOX_PROCESSES", "-1", "must be at least 1"),
    ("GINBOX_CONNECTIONS", "0", "must be at least 1"),
    ("GINBOX_THREADS", "0", "must be at least 1"),
    ("GINBOX_BOT_WORKERS", "-1", "must be at least 0"),
    ("GINBOX_TURN_WORKERS", "-2", "must be at least 0"),
]


def clean_env(**env) -> dict:
    return {**{k: v for k, v in os.environ.items()
               if not k.startswith("GINBOX_") and k not in ("REDIS_URL", "RQ_REDIS_URL")}, **env}


def run(args: list[str], **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "service.cli", *args], env=clean_env(**env),
                          capture_output=True, text=True, timeout=60)


def one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize("name, value, said", OUT_OF_RANGE)
def test_settings_refuse_a_value_out_of_range_naming_it(monkeypatch, name, value, said):
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingError) as refused:
        Settings.from_env()
    assert str(refused.value).startswith(f"{name}={value!r} ")
    assert said in str(refused.value)


@pytest.mark.parametrize("name, value, read", [
    ("GINBOX_RATE_LIMIT", "0", ("rate_limit_per_minute", 0)),      # 0: no limit, as documented
    ("GINBOX_MAX_STREAMS_PER_CLIENT", "0", ("max_streams_per_client", 0)),  # 0: no cap
    ("GINBOX_CHALLENGES_PER_BOT", "0", ("challenges_per_bot", 0)),  # 0: no cap
    ("GINBOX_CHALLENGES_PER_CHALLENGER", "7", ("challenges_per_challenger", 7)),
    ("GINBOX_CONNECTIONS", "1", ("connections", 1)),
    ("GINBOX_ABANDON_AFTER_S", "0", ("abandon_after_s", 0.0)),     # 0: never
    ("GINBOX_PROXY_HOPS", "0", ("proxy_hops", 0)),
    ("GINBOX_REDIS_TIMEOUT", "0.25", ("redis_timeout_s", 0.25)),
    ("GINBOX_SNAPSHOT_EVERY", "1", ("snapshot_every", 1)),
    ("REDIS_URL", "rediss://user:pw@redis.example:6380/2", ("redis_url", "rediss://user:pw@redis.example:6380/2")),
    ("REDIS_URL", "unix:///run/redis.sock?db=1", ("redis_url", "unix:///run/redis.sock?db=1")),
])
def test_the_edges_of_each_range_are_accepted(monkeypatch, name, value, read):
    monkeypatch.setenv(name, value)
    assert getattr(Settings.from_env(), read[0]) == read[1]


def test_the_app_refuses_the_same_values(monkeypatch):
    from service.app import create_app

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    monkeypatch.setenv("GINBOX_SNAPSHOT_EVERY", "0")
    with pytest.raises(SettingError, match="GINBOX_SNAPSHOT_EVERY='0' is out of range"):
        create_app()


@pytest.mark.parametrize("name, value, said", [
    ("GINBOX_SNAPSHOT_EVERY", "0", "must be at least 1"),
    ("GINBOX_REDIS_TIMEOUT", "nan", "is not a finite number"),
    ("REDIS_URL", "foo://x", "is not a Redis URL"),
    *SERVE_OUT_OF_RANGE,
])
def test_serve_refuses_before_it_starts_anything(tmp_path, name, value, said):
    data = tmp_path / "data"
    done = run(["serve"], GINBOX_DATA_DIR=str(data), **{name: value})
    line = one_line(done)
    assert line.startswith(f"ginbox: {name}={value!r} ") and said in line, line
    assert done.stdout == ""
    assert not data.exists()  # no lock taken, no Redis started


@pytest.mark.parametrize("name, value, said", [
    ("GINBOX_REDIS_TIMEOUT", "-1", "must be greater than 0"),
    ("REDIS_URL", "foo://x", "is not a Redis URL"),
    ("RQ_REDIS_URL", "http://localhost:6379", "is not a Redis URL"),
])
def test_worker_refuses_before_it_starts(name, value, said):
    env = {"REDIS_URL": "redis://127.0.0.1:1/0", name: value}
    line = one_line(run(["worker", "--burst"], **env))
    assert line.startswith(f"ginbox: {name}={value!r} ") and said in line, line


@pytest.mark.parametrize("option, value, said", [("--port", "0", "must be from 1 to 65535"),
                                                 ("--processes", "0", "must be at least 1"),
                                                 ("--workers-bots", "-1", "must be at least 0")])
def test_serve_options_have_the_same_ranges(tmp_path, option, value, said):
    done = run(["serve", option, value], GINBOX_DATA_DIR=str(tmp_path / "data"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"argument {option}: '{value}' is out of range: it {said}" in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()
