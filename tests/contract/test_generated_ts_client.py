"""A TypeScript bot on types generated from openapi.yaml plays a real server from its typed stream.

``tests/contract/ts_client/build.sh`` installs the pinned openapi-typescript, openapi-fetch and
TypeScript from the npm registry into a git-ignored folder (once; later runs reuse them), generates
the types from the spec as it stands, and compiles ``bot.ts`` with ``tsc --strict`` (nothing is
written on any error). Nothing generated is kept in the repository.

The bot registers an account, starts a game against the built-in ``basic`` bot and plays it from
``GET /bots/me/stream``: a ``switch`` on each message's ``type`` whose every branch gets its own
generated type, and whose default branch must be ``never``. Its summary is then held to what the
server recorded of the game. A second file, ``narrowing_refused.ts``, holds what the generated
types must refuse (a field a kind lacks, a kind left out of a switch, a kind that does not exist):
were the stream's messages typed ``any``, it would compile.
"""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path

import pytest

from support.servers import REPO, HttpClient

TS_CLIENT = REPO / "tests" / "contract" / "ts_client"
MOVES = ("upcard_taken", "upcard_passed", "card_drawn", "card_discarded", "knocked")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The folder the bot is built in: the generated types, bot.ts, and build/bot.js."""
    out = tmp_path_factory.mktemp("ts-client")
    run = subprocess.run(["bash", str(TS_CLIENT / "build.sh"), str(out)], capture_output=True, text=True,
                         timeout=280)
    assert run.returncode == 0, f"the build failed:\n{run.stdout[-6000:]}\n{run.stderr[-6000:]}"
    return out


def _get(base: str, path: str, token: str | None = None):
    host, port = base.removeprefix("http://").split(":")
    reply = HttpClient(host, int(port)).call("GET", path, token=token)
    assert reply.status == 200, reply.raw[:500]
    return reply.body


@pytest.mark.slow
def test_the_typescript_bot_plays_its_game_from_the_typed_stream(built, served_api):
    name = f"ts-{uuid.uuid4().hex[:8]}"
    run = subprocess.run(["node", str(built / "build" / "bot.js"), served_api, name, "90"], cwd=built,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"the bot failed ({run.returncode}):\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["name"] == name and summary["mismatched"] == 0

    game_id = summary["game_id"]
    game = _get(served_api, f"/games/{game_id}")
    my_seat = next(seat for seat, player in enumerate(game["players"]) if player and player.get("account") == name)
    assert summary["seat"] == my_seat, "game_started named another seat"
    # the game_over it was told of is the game's end as the server has it
    assert game["status"] == "over" and max(game["scores"]) >= 1
    assert summary["game_over"] == {"version": game["version"], "seat": my_seat, "scores": game["scores"]}
    # each move it made is one event of its seat's in the game's log, and nothing moved for it
    events = _get(served_api, f"/games/{game_id}/events?after=0&limit=1000")["events"]
    mine = [e for e in events if e["type"] in MOVES and e["data"]["seat"] == my_seat]
    assert summary["moves"] == len(mine) > 0 and not any(e["type"] == "turn_timed_out" for e in events)
    seen = summary["seen"]
    assert seen.keys() == {"game_started", "your_turn", "game_over"}
    assert seen["game_started"] == seen["game_over"] == 1 and seen["your_turn"] >= summary["moves"]
    assert _get(served_api, f"/bots/{name}")["name"] == name


@pytest.mark.slow
def test_the_generated_types_refuse_what_a_stream_message_is_not(built):
    source = (built / "narrowing_refused.ts").read_text(encoding="utf-8")
    # the lines marked REFUSED, and the error each must get
    wanted = {(n, m.group(1)) for n, line in enumerate(source.splitlines(), 1)
              if (m := re.search(r"// REFUSED (TS\d+)", line))}
    assert len(wanted) == 4
    run = subprocess.run([str(built / "node_modules" / ".bin" / "tsc"), "-p", str(built / "tsconfig.refused.json")],
                         cwd=built, capture_output=True, text=True, timeout=120)
    errors = set(re.findall(r"^narrowing_refused\.ts\((\d+),\d+\): error (TS\d+)", run.stdout, re.M))
    assert run.returncode != 0 and {(int(n), code) for n, code in errors} == wanted, run.stdout[-4000:]
