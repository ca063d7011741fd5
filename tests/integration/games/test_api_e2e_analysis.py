"""POST /analysis/melds against an independent brute force (RULES.md §1 Melds, Knocking)."""

from __future__ import annotations

import random

from support.cardmath import is_meld, min_deadwood, value
from support.decks import ALL_CODES


def test_worked_example_of_eleven_cards(api):
    """RULES.md §1: 7C 7D 7H + 7S 8S 9S TS melded; deadwood counted by hand."""
    hand = "7C 7D 7H 7S 8S 9S TS KD QH 2C AD".split()
    resp = api.post("/analysis/melds", json={"cards": hand})
    assert resp.status_code == 200
    body = resp.get_json()
    # all eleven: melds 777 + 7-8-9-T S (or 7777 + 8-9-T S); deadwood KD 10 + QH 10 + 2C 2 + AD 1 = 23
    assert body["deadwood"] == 23
    assert sorted(body["deadwood_cards"]) == sorted(["KD", "QH", "2C", "AD"])
    # the best discard is KD or QH, leaving 10 + 2 + 1 = 13 > 10: no knock and no gin
    assert body["deadwood_after_discard"] == 13
    assert body["knock_discards"] == [] and body["gin_discards"] == []


def test_random_hands_agree_with_the_brute_force(api):
    rng = random.Random(2024)
    for _ in range(40):
        n = rng.choice([3, 7, 10, 11, 11, 11])
        hand = rng.sample(ALL_CODES, n)
        body = api.post("/analysis/melds", json={"cards": hand}).get_json()
        assert body["deadwood"] == min_deadwood(hand), hand
        melded = [c for m in body["melds"] for c in m]
        assert all(is_meld(m) for m in body["melds"]), body
        assert sorted(melded + body["deadwood_cards"]) == sorted(hand)
        assert sum(value(c) for c in body["deadwood_cards"]) == body["deadwood"]
        if n == 11:
            after = {c: min_deadwood([x for x in hand if x != c]) for c in hand}
            assert body["deadwood_after_discard"] == min(after.values())
            assert {(k["card"], k["deadwood"]) for k in body["knock_discards"]} == \
                {(c, d) for c, d in after.items() if d <= 10}
            assert sorted(body["gin_discards"]) == sorted(c for c, d in after.items() if d == 0)


def test_cards_must_be_distinct_codes_one_to_eleven(api):
    for cards in ([], ["AS", "AS"], ["ZZ"], [c for c in ALL_CODES[:12]]):
        resp = api.post("/analysis/melds", json={"cards": cards})
        assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_body"
