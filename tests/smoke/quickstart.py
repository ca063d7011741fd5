"""The front door, tried as a new user would: README command 1, and the Docker image's install and CMD.

Run by ``.ci/run`` before the test suite (``python tests/smoke/quickstart.py``; ``--only readme``
or ``--only docker`` for one of the two). Each stage copies the checkout into a new temporary
folder, so nothing installed for the tests can leak into it:

- **readme**: reads command 1 from the README's quick start and runs it *as written* (it builds
  its own virtualenv with exactly the extras it names) with only ``GINBOX_PORT`` set to a free
  port, waits for ``/readyz``, plays an all-bot gin-rami game to its end through the API, stops
  the server as a terminal's Ctrl-C would, and checks that it exited cleanly and left no
  redis-server behind.
- **docker**: no Docker engine runs here, so it does what the image does: copies what the
  Dockerfile's ``COPY`` lines copy, builds a virtualenv with the Dockerfile's own ``pip install``
  line (nothing more), sets its ``ENV``, starts its ``CMD`` (the bind address moved to a free
  loopback port) against a Redis started for the purpose, starts ``ginbox worker`` from the same
  install (the README's way of running the image as a worker), plays the same game, and stops
  both as ``docker stop`` would (SIGTERM).

A runtime dependency that only the test extras bring in makes one of these fail, while the test
suite would stay green. Standard library only, apart from the project's own ``service.redis_process``
for the docker stage's Redis.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: a gin-rami game between two built-in bots, short enough for a smoke test
GAME = {"variant": "gin-rami", "seats": [{"bot": "basic"}, {"bot": "basic"}], "options": {"target_score": 10}}


def say(msg: str) -> None:
    print(f"smoke: {msg}", flush=True)


class SmokeFailure(Exception):
    """A stage of the smoke test failed; the message says which and why."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def copy_checkout(dest: Path) -> Path:
    """The checkout's files as git sees them (tracked and untracked, not ignored) copied into ``dest``."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = REPO / name
        if not src.exists() and not src.is_symlink():
            continue  # deleted in the working tree, not yet committed
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
        else:
            shutil.copy2(src, target)
    return dest


# -- reading the README and the Dockerfile --------------------------------------------------

def readme_command_1(readme: str) -> str:
    """The command under the ``# 1.`` comment of the README's quick start."""
    match = re.search(r"^# 1\..*\n(.+)$", readme, re.MULTILINE)
    if not match:
        raise SmokeFailure("README: no '# 1.' line followed by a command in the quick start")
    command = match.group(1).strip()
    if not command.endswith("ginbox serve"):
        raise SmokeFailure(f"README command 1 does not end by running 'ginbox serve': {command!r}")
    return command


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comments dropped."""
    out: list[tuple[str, str]] = []
    logical = ""
    for line in text.splitlines():
        if not logical and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        word, _, rest = logical.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
        logical = ""
    return out


def dockerfile_env(args: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(args))


def dockerfile_pip_install(args: str) -> str:
    """The ``pip install …`` part of a RUN line."""
    for part in args.split("&&"):
        if part.strip().startswith("pip install"):
            return part.strip()
    raise SmokeFailure(f"Dockerfile: no 'pip install' in RUN {args!r}")


# -- talking to the server -----------------------------------------------------------------

def http(method: str, url: str, body: dict | None = None, timeout: float = 10.0) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def wait_ready(base: str, proc: subprocess.Popen, log: Path, seconds: float) -> None:
    """Wait until ``/readyz`` answers 200; fail at once if the process exits."""
    deadline = time.monotonic() + seconds
    next_note = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SmokeFailure(f"exited with code {proc.returncode} before it was ready:\n{tail(log)}")
        try:
            if http("GET", f"{base}/readyz", timeout=2)[0] == 200:
                return
        except OSError:
            pass
        if time.monotonic() > next_note:
            say(f"  still waiting for {base}/readyz (installing or starting)…")
            next_note += 30
        time.sleep(0.5)
    raise SmokeFailure(f"{base}/readyz did not answer 200 within {seconds:.0f} s:\n{tail(log)}")


def play_all_bot_game(base: str, seconds: float = 180.0) -> None:
    """Create a basic-vs-basic game, wait for it to end, check its scores, audit and the served spec."""
    status, body = http("POST", f"{base}/games", GAME)
    if status != 201:
        raise SmokeFailure(f"POST /games answered {status}: {body[:500]!r}")
    game_id = json.loads(body)["game_id"]
    say(f"  game {game_id} created; waiting for the bots to finish it")
    deadline = time.monotonic() + seconds
    view: dict = {}
    while time.monotonic() < deadline:
        status, body = http("GET", f"{base}/games/{game_id}")
        if status != 200:
            raise SmokeFailure(f"GET /games/{game_id} answered {status}: {body[:500]!r}")
        view = json.loads(body)
        if view["status"] == "over":
            break
        time.sleep(0.3)
    else:
        raise SmokeFailure(f"the game did not end within {seconds:.0f} s (last version {view.get('version')})")
    target = GAME["options"]["target_score"]
    if max(view["scores"]) < target:
        raise SmokeFailure(f"the game is over but no score reached {target}: {view['scores']}")
    status, body = http("GET", f"{base}/games/{game_id}/audit")
    if status != 200 or not json.loads(body)["ok"]:
        raise SmokeFailure(f"the audit of the finished game failed ({status}): {body[:500]!r}")
    for path in ("/openapi.yaml", "/docs"):
        status, body = http("GET", f"{base}{path}")
        if status != 200 or not body:
            raise SmokeFailure(f"GET {path} answered {status}")
    say(f"  game over at version {view['version']}, scores {view['scores']}; audit ok")


def stop(proc: subprocess.Popen, sig: int, what: str, seconds: float = 60.0) -> None:
    """Send ``sig`` to the process group and check that the process exits with code 0."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
    try:
        code = proc.wait(seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise SmokeFailure(f"{what} did not exit within {seconds:.0f} s of {signal.Signals(sig).name}")
    if code != 0:
        raise SmokeFailure(f"{what} exited with code {code} after {signal.Signals(sig).name}")


def tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment minus anything that would point the product at the tests' installs or Redis."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "REDIS_URL", "RQ_REDIS_URL")
           and not k.startswith("GINBOX_") and k != "PROMETHEUS_MULTIPROC_DIR"}
    # the test virtualenv's bin folder must not be on PATH either
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if not (Path(p) / "activate").exists())
    env.update(extra)
    return env


# -- the two stages ------------------------------------------------------------------------

def stage_readme(work: Path, python: str) -> None:
    checkout = copy_checkout(work / "readme")
    command = readme_command_1((checkout / "README.md").read_text())
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = work / "readme.log"
    say(f"README command 1 in a fresh copy, port {port}: {command}")
    env = clean_env(GINBOX_PORT=str(port))
    if python != "python3":
        # the README says python3; where CI names another interpreter, use it for the venv
        command = re.sub(r"^python3 ", f"{shlex.quote(python)} ", command)
    with open(log, "wb") as out:
        proc = subprocess.Popen(["bash", "-c", command], cwd=checkout, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_ready(base, proc, log, seconds=900)
        say("  ready")
        play_all_bot_game(base)
        redis_port = embedded_redis_port(log)
        stop(proc, signal.SIGINT, "ginbox serve")
        if redis_port and port_answers(redis_port):
            raise SmokeFailure(f"the embedded redis-server on port {redis_port} still runs after ginbox serve stopped")
        say("  ginbox serve stopped cleanly (exit code 0)")
    except BaseException:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        say(f"log of ginbox serve:\n{tail(log)}")
        raise


def embedded_redis_port(log: Path) -> int | None:
    match = re.search(r"embedded Redis on redis://[^:]+:(\d+)", log.read_text(errors="replace"))
    return int(match.group(1)) if match else None


def port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stage_docker(work: Path, python: str) -> None:
    sys.path.insert(0, str(REPO))
    from service.redis_process import RedisServerProcess

    instructions = dockerfile_instructions((REPO / "Dockerfile").read_text())
    app = work / "docker" / "app"
    app.mkdir(parents=True)
    env_extra: dict[str, str] = {}
    pip_line = cmd = None
    for word, args in instructions:
        if word == "COPY":
            *sources, dest = shlex.split(args)
            target = app / dest if dest not in (".", "./") else app
            for src in sources:
                path = REPO / src
                if path.is_dir():
                    shutil.copytree(path, target, symlinks=True, dirs_exist_ok=True,
                                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
                else:
                    target.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target / path.name, follow_symlinks=False)
        elif word == "ENV":
            env_extra.update(dockerfile_env(args))
        elif word == "RUN":
            pip_line = dockerfile_pip_install(args)
        elif word == "CMD":
            cmd = json.loads(args)
    if pip_line is None or cmd is None:
        raise SmokeFailure("Dockerfile: no RUN pip install or no CMD")
    venv = work / "docker" / "venv"
    say(f"Dockerfile: a new virtualenv and its own install line: {pip_line}")
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    env = clean_env(**env_extra)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env['PATH']}"
    env["PROMETHEUS_MULTIPROC_DIR"] = str(work / "docker" / "metrics")
    Path(env["PROMETHEUS_MULTIPROC_DIR"]).mkdir()
    pip_log = work / "docker-pip.log"
    with open(pip_log, "wb") as out:
        installed = subprocess.run(["bash", "-c", pip_line], cwd=app, env=env, stdout=out, stderr=subprocess.STDOUT)
    if installed.returncode != 0:
        raise SmokeFailure(f"the Dockerfile's {pip_line!r} failed:\n{tail(pip_log)}")
    port = free_port()
    bind = cmd.index("--bind")
    cmd[bind + 1] = f"127.0.0.1:{port}"  # the image's 0.0.0.0:8000, moved to a free loopback port
    base = f"http://127.0.0.1:{port}"
    with RedisServerProcess(work / "docker" / "redis") as redis:
        env["REDIS_URL"] = redis.url
        api_log, worker_log = work / "docker-api.log", work / "docker-worker.log"
        say(f"  the image's CMD on port {port}: {shlex.join(cmd)}")
        with open(api_log, "wb") as a_out, open(worker_log, "wb") as w_out:
            api = subprocess.Popen(cmd, cwd=app, env=env, stdout=a_out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
            worker = subprocess.Popen(["ginbox", "worker"], cwd=app, env=env, stdout=w_out,
                                      stderr=subprocess.STDOUT, start_new_session=True)
        try:
            wait_ready(base, api, api_log, seconds=60)
            say("  ready")
            play_all_bot_game(base)
            stop(api, signal.SIGTERM, "the image's gunicorn")
            stop(worker, signal.SIGTERM, "ginbox worker")
            say("  gunicorn and the worker stopped cleanly (exit code 0)")
        except BaseException:
            for proc in (api, worker):
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
            say(f"log of the image's CMD:\n{tail(api_log)}\nlog of the worker:\n{tail(worker_log)}")
            raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("readme", "docker"), help="run one stage")
    parser.add_argument("--python", default="python3", help="the interpreter that builds the virtualenvs")
    args = parser.parse_args(argv)
    stages = {"readme": stage_readme, "docker": stage_docker}
    with tempfile.TemporaryDirectory(prefix="ginbox-smoke-") as tmp:
        for name, stage in stages.items():
            if args.only and name != args.only:
                continue
            started = time.monotonic()
            try:
                stage(Path(tmp), args.python)
            except SmokeFailure as failure:
                say(f"FAILED ({name}): {failure}")
                return 1
            say(f"{name}: passed in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
