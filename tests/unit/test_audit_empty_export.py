"""``ginbox audit`` on an export that holds no event (an empty file, blank lines, advice alone)
fails with one clear check, "no events", and passes nothing: an empty numbering proves nothing."""

from __future__ import annotations

import json

import pytest

from service import cli
from service.rules.audit import verify_export

#: a line of the advice log (no "version": not an event of the game's log)
ADVICE_ONLY = json.dumps({"type": "advice", "hand_no": 1}) + "\n"


@pytest.mark.parametrize("text", ["", "\n", "  \n\t\n", ADVICE_ONLY], ids=["empty", "one-blank-line", "blank-lines",
                                                                             "advice-only"])
def test_an_export_without_events_fails_as_having_no_events(text, tmp_path, capsys):
    path = tmp_path / "game.ndjson"
    path.write_text(text, encoding="utf-8")
    assert cli.main(["audit", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("PASS") for line in out), out
    assert len(out) == 2 and out[0].startswith("FAIL  export: no events"), out
    assert out[-1] == "audit FAILED: 1 check, failed: export"
    report = verify_export(text.splitlines())
    assert report["ok"] is False and [c["name"] for c in report["checks"]] == ["export"]
