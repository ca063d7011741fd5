"""``ginbox convert FILE``: an export to OpenSpiel records, a record to an export that ``ginbox audit``
and ``ginbox analyse`` read (OPENSPIEL.md); bad files exit 1 with their code, unreadable ones 2.

The games are played in the engine alone (support.openspiel_play); the command runs in-process.
"""

from __future__ import annotations

import json

import pytest

from service.cli import main
from service.rules import commands, events, game, openspiel
from support.openspiel_play import PLAYTHROUGH, decisions, play_game


def write_export(path, log):
    path.write_text("".join(openspiel.export_lines(log)), encoding="utf-8")
    return path


def test_an_export_becomes_a_record_and_the_record_an_export_with_every_decision(tmp_path, capsys):
    log = play_game(31)
    export = write_export(tmp_path / "g.ndjson", log)
    assert main(["convert", str(export)]) == 0
    out = capsys.readouterr().out
    record = json.loads((tmp_path / "g.openspiel.json").read_text(encoding="utf-8"))
    hands = sum(1 for e in log if type(e) is events.HandDealt)
    assert len(record["hands"]) == hands and f"{hands} hands as OpenSpiel gin_rummy games" in out
    assert main(["convert", str(tmp_path / "g.openspiel.json"), "--out", str(tmp_path / "back.ndjson")]) == 0
    assert "imported_from openspiel" in capsys.readouterr().out
    back = [json.loads(line) for line in (tmp_path / "back.ndjson").read_text(encoding="utf-8").splitlines()]
    log_back = [events.decode(line) for line in back]
    assert decisions(log_back) == decisions(log)


def test_an_imported_game_audits_and_analyses(tmp_path, capsys):
    (tmp_path / "play.json").write_text(json.dumps(PLAYTHROUGH), encoding="utf-8")
    assert main(["convert", str(tmp_path / "play.json")]) == 0
    assert "won by seat 1, scores [0, 33]" in capsys.readouterr().out
    assert main(["audit", str(tmp_path / "play.ndjson")]) == 0
    out = capsys.readouterr().out
    assert "PASS  origin: imported from openspiel" in out and "PASS  commitment" not in out and "deal_1" not in out
    assert "audit passed" in out and "not checked: the deals (the game was imported" in out
    assert main(["analyse", str(tmp_path / "play.ndjson"), "--samples", "2"]) == 0
    assert (tmp_path / "play.analysis.json").exists() and "decisions" in capsys.readouterr().out


def test_stdin_and_stdout(tmp_path, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps({"actions": PLAYTHROUGH})))
    assert main(["convert", "-"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert json.loads(lines[0])["type"] == "game_created" and json.loads(lines[-1])["type"] == "game_ended"
    assert "imported_from openspiel" in captured.err


def three_hand_log():
    spec = game.GameSpec("three-hand", [{"name": n} for n in "abc"], None, seed=b"three")
    log = game.start(spec)
    return log + game.decide(game.replay(log), 0, commands.RESIGN)


def unfinished_log():
    spec = game.GameSpec("gin-rami", [{"name": "a"}, {"name": "b"}], None, seed=b"two", rules="openspiel")
    return game.start(spec)


@pytest.mark.parametrize("name, text, code", [
    ("words.ndjson", "these are not the lines of an export\n", "not_an_export"),
    ("object.ndjson", '{"version": 1, "type": "game_created", "v": 1, "data": {}}\n', "not_an_export"),
    ("three.ndjson", "".join(openspiel.export_lines(three_hand_log())), "openspiel_variant"),
    ("unfinished.ndjson", "".join(openspiel.export_lines(unfinished_log())), "game_not_over"),
    ("short.json", json.dumps(PLAYTHROUGH[:12]), "openspiel_record_invalid"),
    ("taken.json", json.dumps({"parameters": {"knock_card": 10}, "actions": PLAYTHROUGH[:22] + [52, 17]}),
     "openspiel_move_not_in_ginbox"),
])
def test_a_file_that_does_not_convert_exits_1_with_its_code_and_writes_nothing(tmp_path, capsys, name, text, code):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["convert", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ginbox convert: {path}: ") and err.rstrip().endswith(f"({code})") and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_file_that_cannot_be_read_or_written_exits_2(tmp_path, capsys):
    assert main(["convert", str(tmp_path / "missing.ndjson")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "play.json").write_text(json.dumps(PLAYTHROUGH), encoding="utf-8")
    assert main(["convert", str(tmp_path / "play.json"), "--out", str(tmp_path / "no" / "such" / "dir.ndjson")]) == 2
    assert "cannot write" in capsys.readouterr().err
