"""The failed audits FAIRNESS.md shows ("Checking a game") are what ``ginbox audit`` prints for the
export they were made from, changed as the guide says."""

from __future__ import annotations

import json
import re
from pathlib import Path

from service import cli

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "service" / "docs" / "FAIRNESS.md"
EXPORT = ROOT / "tests" / "integration" / "replay_audit" / "exports" / "export_before_client_seeds_gin_rami.ndjson"


def _examples() -> list[list[str]]:
    """The guide's ```text blocks that show a failed deal check, line by line."""
    blocks = re.findall(r"```text\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    return [b.splitlines() for b in blocks if "FAIL  deal_" in b]


def _audit(tmp_path: Path, capsys, hand_no: int, change) -> list[str]:
    lines = [json.loads(line) for line in EXPORT.read_text(encoding="utf-8").splitlines()]
    deal = next(ln for ln in lines if ln["type"] == "hand_dealt" and ln["data"]["hand_no"] == hand_no)
    change(deal["data"]["deck"])
    path = tmp_path / "game.ndjson"
    path.write_text("".join(json.dumps(ln) + "\n" for ln in lines), encoding="utf-8")
    assert cli.main(["audit", str(path)]) == 1
    return capsys.readouterr().out.splitlines()


def _shown(example: list[str], out: list[str]) -> None:
    """Each line of the example is a line of the output ("; ..." stands for what it leaves out)."""
    for line in example:
        head, _, tail = line.partition("; ... ")
        assert any(got.startswith(head) and got.endswith(tail) for got in out), (line, out)


def _card_52_made_jh(deck: list) -> None:
    assert deck[51] == "3D"  # the guide's "from 3D"
    deck[51] = "JH"


def _cards_6_and_41_swapped(deck: list) -> None:
    deck[5], deck[40] = deck[40], deck[5]


def test_the_guides_failed_audits_are_the_commands_output(tmp_path, capsys):
    bottom, hand = _examples()
    out = _audit(tmp_path, capsys, 6, _card_52_made_jh)
    _shown(bottom, out)
    assert [ln for ln in out if ln.startswith("FAIL")] == ["FAIL  deal_6: card 52 is JH in the log, 3D from the seed"]
    out = _audit(tmp_path, capsys, 2, _cards_6_and_41_swapped)
    _shown(hand, out)
    assert [ln.split(":")[0] for ln in out if ln.startswith("FAIL")] == ["FAIL  deal_2", "FAIL  replay"]
