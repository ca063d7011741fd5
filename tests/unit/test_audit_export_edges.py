"""``ginbox audit`` on exports a person may hand it: a line nested far too deep, events numbered
wrong, fields no event has, values of the wrong kind, a turn the clock played; and what the audit
says it does not check (the players' names and the timestamps, which the commitment does not cover).

The exports are made by the engine itself (no server): a gin rami game whose first turn the clock
plays, ended by a resignation, written as GET /games/{id}/export writes a log.
"""

from __future__ import annotations

import json

import pytest

from service import cli
from service.rules import commands, events, game
from service.rules.audit import NOT_CHECKED, verify, verify_export

SEED = bytes(range(32))


def _log() -> list:
    """game_created ... hand_dealt, the clock's pass of the upcard for the non-dealer, the dealer's
    pass, then the non-dealer resigns (which reveals the seed)."""
    spec = game.GameSpec(variant="gin-rami", players=[{"name": "ann"}, {"name": "bob"}],
                         options={"turn_timeout_s": 30}, seed=SEED)
    log = list(game.start(spec))
    state = game.replay(log)
    first = state.to_act[0]
    for actor, command in ((first, commands.PlayTimedOutTurn(commands.PASS_UPCARD)),
                           (1 - first, commands.PASS_UPCARD), (first, commands.RESIGN)):
        state, produced = game.apply(state, actor, command)
        log += produced
    return log


def _export() -> list[dict]:
    return [{**events.encode(e), "ts": 1_800_000_000_000 + 250 * n, "version": n}
            for n, e in enumerate(_log(), start=1)]


def _run(tmp_path, lines, capsys) -> tuple[int, list[str]]:
    path = tmp_path / "game.ndjson"
    path.write_text("".join((ln if isinstance(ln, str) else json.dumps(ln)) + "\n" for ln in lines),
                    encoding="utf-8")
    code = cli.main(["audit", str(path)])
    captured = capsys.readouterr()
    assert captured.err == ""
    return code, captured.out.splitlines()


def _failed(out: list[str]) -> dict[str, str]:
    return {line[6:].split(":", 1)[0]: line.split(": ", 1)[1] for line in out if line.startswith("FAIL  ")}


def test_the_engines_export_with_a_turn_the_clock_played_passes(tmp_path, capsys):
    lines = _export()
    assert [ln["type"] for ln in lines][4:] == ["turn_timed_out", "upcard_passed", "upcard_passed", "game_resigned"]
    code, out = _run(tmp_path, lines, capsys)
    assert code == 0, out
    assert "PASS  replay: 8 events replayed; scores [0, 0]; recorded final scores [0, 0]" in out
    assert not _failed(out)
    # the server's audit of the same log: the same verdict
    assert verify(_log(), SEED.hex())["ok"] is True


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000,
                                  json.dumps({"version": 1, "data": json.loads("[" * 40 + "]" * 40)})],
                         ids=["list-100000-deep", "object-100000-deep", "40-deep"])
def test_a_line_nested_too_deep_is_one_failed_check_not_a_traceback(text, tmp_path, capsys):
    lines = [json.dumps(ln) for ln in _export()]
    lines.insert(2, text)
    code, out = _run(tmp_path, lines, capsys)
    assert code == 1
    assert out == ["FAIL  export: line 3 nests more than 32 levels deep: no line of an export does",
                   "audit FAILED: 1 check, failed: export"]


def test_a_numbering_failure_names_the_first_wrong_event(tmp_path, capsys):
    lines = _export()
    del lines[3]  # hand_dealt, event 4: line 4 now holds event 5
    code, out = _run(tmp_path, lines, capsys)
    assert code == 1
    assert _failed(out)["numbering"] == "event 4 expected, got version 5 at line 4"
    lines = _export()
    lines[6]["version"] = "7"  # the right number, written as text
    code, out = _run(tmp_path, lines, capsys)
    assert _failed(out)["numbering"] == "event 7 expected, got version '7' at line 7"


def test_fields_no_event_has_fail_the_fields_check(tmp_path, capsys):
    lines = _export()
    lines[1]["note"] = "cut fairly"
    lines[5]["data"]["by"] = "the clock"
    code, out = _run(tmp_path, lines, capsys)
    assert code == 1
    assert set(_failed(out)) == {"fields"}
    assert _failed(out)["fields"] == ("line 2 (event 2) has fields no event has: note; "
                                      "line 6 (event 6) has fields no event has: data.by")
    lines = _export()
    del lines[2]["ts"]
    lines.append({"type": "advice_given", "v": 1, "at_version": 5, "seq": 0, "ts": 1,
                  "data": {"seat": 0, "captain": 1, "hand_no": 1, "text": "pass", "mood": "sure"}})
    code, out = _run(tmp_path, lines, capsys)
    assert _failed(out)["fields"] == ("line 3 (event 3) lacks ts; "
                                      "line 9 (advice) has fields no advice has: data.mood")


def test_values_of_the_wrong_kind_fail_without_a_traceback(tmp_path, capsys):
    for line, field, value in ((3, "deck", 5), (1, "players", 7), (5, "seat", [0]), (2, "round", "first"),
                               (6, "seat", 10**30)):
        lines = _export()
        lines[line]["data"][field] = value
        code, out = _run(tmp_path, lines, capsys)
        assert code == 1 and _failed(out), (field, out)
        assert out[-1].startswith("audit FAILED")


def test_names_and_timestamps_are_said_to_be_unchecked_and_changing_them_still_passes(tmp_path, capsys):
    lines = _export()
    lines[0]["data"]["players"] = [{"name": "zed"}, {"name": "bob"}]
    for ln in lines:
        ln["ts"] = 7
    code, out = _run(tmp_path, lines, capsys)
    assert code == 0, out
    # numbering, fields, seed_revealed, commitment, seed_recorded, randomly_dealt_flag, derivation
    # (1: the seed alone, so no client_seeds), cut_0, deal_1, replay, advice
    assert out[-1] == f"audit passed: 11 checks; not checked: {NOT_CHECKED}"
    assert NOT_CHECKED.startswith("the players' names") and "timestamps" in NOT_CHECKED
    assert verify_export(json.dumps(ln) for ln in lines)["not_checked"] == NOT_CHECKED


def test_a_card_that_is_no_card_fails_the_replay_once_not_the_advice_too(tmp_path, capsys):
    # a log that discards a card: both pass the upcard, the non-dealer draws and discards, then resigns
    spec = game.GameSpec(variant="gin-rami", players=[{"name": "ann"}, {"name": "bob"}], seed=SEED)
    log = list(game.start(spec))
    state = game.replay(log)
    first = state.to_act[0]
    for actor, command in ((first, commands.PASS_UPCARD), (1 - first, commands.PASS_UPCARD),
                           (first, commands.DRAW_STOCK)):
        state, produced = game.apply(state, actor, command)
        log += produced
    discard = next(m for m in game.legal_moves(state, first) if isinstance(m, commands.Discard))
    state, produced = game.apply(state, first, discard)
    log += produced
    state, produced = game.apply(state, 1 - first, commands.RESIGN)
    log += produced
    lines = [{**events.encode(e), "ts": 1_800_000_000_000 + n, "version": n} for n, e in enumerate(log, start=1)]
    assert verify_export(json.dumps(ln) for ln in lines)["ok"]
    at = next(i for i, ln in enumerate(lines) if ln["type"] == "card_discarded")
    lines[at]["data"]["card"] = "ZZ"
    code, out = _run(tmp_path, lines, capsys)
    assert code == 1
    assert list(_failed(out)) == ["replay"] and "'ZZ'" in _failed(out)["replay"]
