"""The pages' card maths (service/static/web/cards.js), run in Node.js, against the engine's: the
knock panel says "a set", "a run" or "not a set or a run" and counts deadwood with these functions,
so they must agree with service.rules.melds on every group a panel can show (all groups of 3 and 4
cards of a 16-card slice, every card's value and label, and sorting)."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from pathlib import Path

from service.rules import melds

CARDS_JS = (Path(__file__).resolve().parents[2] / "service" / "static" / "web" / "cards.js").as_uri()
NODE = shutil.which("node") or "/usr/bin/node"

RUN = """
import { isSet, isRun, isMeld, value, label, sortCards, deadwood } from %s;
const input = JSON.parse(await new Promise((resolve) => {
  let text = ""; process.stdin.on("data", (c) => { text += c; }); process.stdin.on("end", () => resolve(text));
}));
process.stdout.write(JSON.stringify({
  kinds: input.groups.map((g) => [isSet(g), isRun(g), isMeld(g)]),
  values: input.cards.map(value),
  labels: input.cards.map(label),
  sorted: sortCards(input.cards),
  deadwood: deadwood(input.cards),
}));
"""

# runs in hearts and spades, sets of fives and sixes, a king to try wrapping round the ace
SLICE = ["AH", "2H", "3H", "4H", "5H", "6H", "KH", "5S", "6S", "7S", "8S", "9S", "5C", "5D", "6C", "6D"]
RANK_WORDS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}


def test_cards_js_agrees_with_the_engine_on_every_meld_value_and_label():
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    groups = [list(g) for n in (3, 4) for g in itertools.combinations(SLICE, n)]
    groups += [["QH", "KH", "AH"], ["KS", "AS", "2S"], ["7C", "7D", "7H", "7S"], ["9D", "TD", "JD", "QD", "KD"]]
    payload = json.dumps({"groups": groups, "cards": deck})
    out = subprocess.run([NODE, "--input-type=module", "-e", RUN % json.dumps(CARDS_JS)], input=payload,
                         capture_output=True, text=True, check=True, timeout=60)
    got = json.loads(out.stdout)

    for group, (is_set, is_run, is_meld) in zip(groups, got["kinds"]):
        assert (is_set, is_run, is_meld) == (melds.is_set(group), melds.is_run(group), melds.is_meld(group)), group
    # counted by hand: sets, C(4,3) + 1 of the fives and of the sixes, and the four sevens: 11; runs,
    # A-6 of hearts 4 + 3, 5-9 of spades 3 + 2, and 9-K of diamonds: 13 (Q-K-A and K-A-2 are none)
    assert sum(k[0] for k in got["kinds"]) == 11 and sum(k[1] for k in got["kinds"]) == 13
    assert got["values"] == [min("A23456789TJQK".index(c[0]) + 1, 10) for c in deck]
    assert got["deadwood"] == 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 * 4)  # 340, every card once
    suits = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
    assert got["labels"] == [f"{RANK_WORDS.get(c[0], c[0])} of {suits[c[1]]}" for c in deck]
    assert got["labels"][deck.index("QH")] == "queen of hearts" and got["labels"][deck.index("TS")] == "10 of spades"
    assert sorted(got["sorted"]) == sorted(deck) and got["sorted"][:2] == ["AS", "2S"]
