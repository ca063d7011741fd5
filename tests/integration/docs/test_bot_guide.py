"""The bot guide's programs play a whole game on a live server and print what the guide shows.

``service/docs/BOTS.md`` marks each runnable program with a line ``<!-- runnable-python: NAME -->``
right before its ```python block, and shows what it prints in the ```text block that follows.
Each test takes the program out of the guide as it stands, runs it with ``python`` against the API
under gunicorn and a ``ginbox worker`` (so that the built-in bot moves), the server's URL in
``GINBOX_URL``, and checks that it exits 0 and prints the guide's output once the parts that differ
on every run (game id, move count, scores, winner) are replaced by placeholders.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
import uuid

import pytest

from support.apiclient import SPEC_PATH
from support.servers import REPO, ApiServer, WorkerProcess, service_env

GUIDE = REPO / "service" / "docs" / "BOTS.md"

# what changes from run to run, and its placeholder
_RANDOM = [
    (re.compile(r"^(game )[A-Za-z0-9_-]{16}(: )", re.M), r"\1<game_id>\2"),
    (re.compile(r"( after )\d+( of my moves)"), r"\1<n>\2"),
    (re.compile(r"(scores )\[\d+, \d+\]"), r"\1[<score>, <score>]"),
    (re.compile(r"(winner seat )[01]$", re.M), r"\1<seat>"),
]


def normalise(text: str) -> tuple[str, list[int]]:
    """The text with its random parts replaced, and how many of each there were."""
    counts = []
    for pattern, placeholder in _RANDOM:
        text, n = pattern.subn(placeholder, text)
        counts.append(n)
    return text.strip("\n"), counts


def runnable(guide: str, name: str) -> tuple[str, str]:
    """The program marked ``name`` in the guide and the output shown after it."""
    marker = f"<!-- runnable-python: {name} -->"
    assert guide.count(marker) == 1, f"the guide must mark exactly one program {name!r}"
    after = guide.split(marker, 1)[1]
    program = re.match(r"\n```python\n(.*?)^```$", after, re.S | re.M)
    assert program, f"no ```python block right after the marker {marker}"
    shown = re.search(r"^```text\n(.*?)^```$", after[program.end():], re.S | re.M)
    assert shown, f"no ```text block showing what the program {name!r} prints"
    return program.group(1), shown.group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory, redis_url):
    """The API under gunicorn and one bot worker, on a key prefix of their own; the API's URL."""
    where = tmp_path_factory.mktemp("bot-guide")
    env = service_env(redis_url, f"gbbg{uuid.uuid4().hex[:12]}")
    worker = WorkerProcess(env, where / "worker.log").start()
    try:
        with ApiServer(env, where / "gunicorn.log", workers=1) as api:
            yield f"http://{api.host}:{api.port}"
    finally:
        worker.stop()


def run_program(tmp_path, source: str, base: str) -> str:
    """Run the program as a reader would, with ``python`` in its folder; its stdout (it must exit 0)."""
    script = tmp_path / "bot.py"
    script.write_text(source, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINBOX_")}
    env["GINBOX_URL"] = base
    env.pop("PYTHONPATH", None)  # the program imports nothing of the repository
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"the guide's program failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def assert_prints_what_the_guide_shows(printed: str, shown: str) -> None:
    got, got_counts = normalise(printed)
    want, want_counts = normalise(shown)
    diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "guide", "program", lineterm=""))
    assert want == got, f"the program printed something else than the guide shows:\n{diff}"
    # the guide shows a real run's values, and the program printed every one of them
    assert want_counts == got_counts == [1, 1, 1, 1], (want_counts, got_counts)


@pytest.mark.slow
def test_the_smallest_bot_plays_a_whole_game_against_the_basic_bot(server, tmp_path):
    source, shown = runnable(GUIDE.read_text(encoding="utf-8"), "smallest-bot")
    assert "import requests" not in source, "the smallest bot uses the standard library only"
    assert_prints_what_the_guide_shows(run_program(tmp_path, source, server), shown)


@pytest.mark.slow
def test_the_smallest_bot_plays_through_a_client_generated_from_openapi_yaml(server, tmp_path):
    guide = GUIDE.read_text(encoding="utf-8")
    source, shown = runnable(guide, "generated-client-bot")
    # the client is generated as the guide says: its generator.json and its command line
    config = re.search(r"^cat > generator\.json <<'EOF'\n(.*?)^EOF$", guide, re.S | re.M)
    assert config, "the guide shows no generator.json"
    (tmp_path / "generator.json").write_text(config.group(1), encoding="utf-8")
    command = re.search(r"^openapi-python-client generate (.*?)$\n^\s+(.*?)$", guide, re.M)
    assert command, "the guide shows no openapi-python-client command"
    args = (command.group(1).rstrip("\\ ") + " " + command.group(2)).split()
    args[args.index("--path") + 1] = str(SPEC_PATH)
    generated = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", *args],
                               cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert generated.returncode == 0, f"the generator failed:\n{generated.stdout[-4000:]}\n{generated.stderr[-4000:]}"
    assert (tmp_path / "ginbox_client" / "__init__.py").exists(), json.dumps(sorted(os.listdir(tmp_path)))
    assert_prints_what_the_guide_shows(run_program(tmp_path, source, server), shown)
