"""Whole games played over HTTP from explicit decks; final scores worked out by hand from RULES.md.

Each hand is designed to end at once with a knock, gin or big gin whose deadwood can be
counted on the fingers; the arithmetic is in the comments. ``cardmath`` (an independent
brute force, not the engine) double-checks that each deck deals the hands the comments claim.
"""

from __future__ import annotations

import json

from support.cardmath import defender_deadwood, min_deadwood, min_deadwood_after_discard
from support.decks import ALL_CODES, build_deck
from support.gameplay import create_game


def _split(s: str) -> list[str]:
    return s.split()


def _knock(discard, melds):
    return {"type": "knock", "discard": discard, "melds": [m.split() for m in melds]}


# ---------------------------------------------------------------------------------------------
# three-hand box gin (RULES.md §2), roles given: box seat 0, captain seat 1, advisor seat 2

# Hand 1: box 0 deals, captain 1 is the non-dealer. Both pass the upcard 3H; the captain
# draws KS from the stock and knocks discarding 4D.
TH1_CAPTAIN = _split("5C 6C 7C 9D 9H 9S JS QS AH 4D")
TH1_BOX = _split("2D 2H 2S 8C 9C TS KH QD 5H 6D")
TH1_MELDS = ["5C 6C 7C", "9D 9H 9S", "JS QS KS"]
# K = AH = 1.
# Box: own set 2D 2H 2S; lays off 8C then 9C on 5C-6C-7C (a chain), TS on JS-QS-KS;
# left KH 10 + QD 10 + 5H 5 + 6D 6 = 31 = D.  K 1 < D 31: the captain (seat 1) scores
# D - K = 30 (§2 Scoring).  The box lost: captain 1 goes into the box, advisor 2 becomes
# captain, box 0 sits out (§2 Rotation) -> box 1, captain 2, advisor 0.
TH_DECK1 = build_deck(TH1_CAPTAIN, TH1_BOX, "3H", ["KS"])

# Hand 2: box 1 deals, captain 2. The captain takes the upcard TH and goes gin discarding KS.
TH2_CAPTAIN = _split("AC 2C 3C 4D 4H 4S 7H 8H 9H KS")
TH2_BOX = _split("5S 5D 5C JD QD KD 2H 3D 8S 6C")
TH2_MELDS = ["AC 2C 3C", "4D 4H 4S", "7H 8H 9H TH"]
# Gin (K = 0). Box: own melds 5S 5D 5C and JD-QD-KD, no lay-offs against gin; left
# 2H 2 + 3D 3 + 8S 8 + 6C 6 = 19.  The captain (seat 2) scores gin bonus 25 + 19 = 44
# (§2: gin adds the opponent's deadwood).  The box lost again -> box 2, captain 0, advisor 1.
TH_DECK2 = build_deck(TH2_CAPTAIN, TH2_BOX, "TH")

# Hand 3: box 2 deals, captain 0. The captain takes the upcard QS and knocks discarding 4H.
TH3_CAPTAIN = _split("3C 4C 5C 8D 8H 8S TS JS 6D 4H")
TH3_BOX = _split("AC AD AH AS 6C 7C 8C 9S KS 6H")
TH3_MELDS = ["3C 4C 5C", "8D 8H 8S", "TS JS QS"]
# K = 6D = 6.  Box: own set AC AD AH AS and run 6C-7C-8C (or lays them off: same count),
# lays off 9S and KS on TS-JS-QS; left 6H = 6 = D.  K 6 >= D 6: undercut, the box (seat 2)
# scores undercut bonus 10 + (6 - 6) = 10 (§2: equal counts are an undercut).
TH_DECK3 = build_deck(TH3_CAPTAIN, TH3_BOX, "QS")
# Scores: seat 0: 0; seat 1: 30; seat 2: 44 + 10 = 54 >= target 50 -> seat 2 wins.


def test_three_hand_game_from_explicit_decks_ends_with_the_scores_worked_out_by_hand(api):
    """RULES.md §2: knock, gin and undercut scoring, rotation after a lost hand, game end at the target."""
    # the decks deal what the comments say (independent brute force)
    assert min_deadwood_after_discard(TH1_CAPTAIN + ["KS"]) == (1, ["4D"])
    assert defender_deadwood(TH1_BOX, [m.split() for m in TH1_MELDS]) == 31
    assert min_deadwood(TH2_BOX) == 19
    assert min_deadwood(TH2_CAPTAIN[:-1] + ["TH"]) == 0
    assert defender_deadwood(TH3_BOX, [m.split() for m in TH3_MELDS]) == 6
    assert min_deadwood([c for c in TH3_CAPTAIN + ["QS"] if c != "4H"]) == 6

    g = create_game(api, "three-hand", [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}],
                    roles={"box": 0, "captain": 1, "advisor": 2}, options={"target_score": 50},
                    decks=[TH_DECK1, TH_DECK2, TH_DECK3])
    assert g.created["randomly_dealt"] is False
    assert sorted(g.tokens) == [0, 1, 2]
    assert [s["kind"] for s in g.created["seats"]] == ["human"] * 3
    spectator = g.created["view"]
    assert spectator["viewer_role"] == "spectator" and spectator["hand"] is None
    assert spectator["roles"] == {"box": 0, "captain": 1, "advisor": 2}

    # hand 1 -----------------------------------------------------------------------------
    v = g.view(1)
    assert v["hand_no"] == 1 and v["dealer"] == 0 and v["to_act"] == [1]
    assert sorted(v["hand"]) == sorted(TH1_CAPTAIN)
    assert v["discard_top"] == "3H"
    # the advisor sees the captain's hand (§2), the box its own
    assert sorted(g.view(2)["hand"]) == sorted(TH1_CAPTAIN)
    assert sorted(g.view(0)["hand"]) == sorted(TH1_BOX)
    resp = api.post(f"/games/{g.game_id}/advice", json={"text": "knock as soon as you can"}, token=g.tokens[2])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert [a["text"] for a in g.view(1)["advice"]] == ["knock as soon as you can"]
    assert g.view(0)["advice"] == []

    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "pass_upcard"})
    after_draw = g.move(1, {"type": "draw_stock"})
    assert after_draw["drawn_card"] == "KS"
    v = g.move(1, _knock("4D", TH1_MELDS))
    last = v["last_hand"]
    assert (last["hand_no"], last["outcome"], last["knocker"], last["winner"]) == (1, "knock", 1, 1)
    assert (last["knocker_deadwood"], last["defender_deadwood"], last["points"]) == (1, 31, 30)
    assert v["scores"] == [0, 30, 0]
    assert v["roles"] == {"box": 1, "captain": 2, "advisor": 0}
    assert v["hand_no"] == 2 and v["dealer"] == 1 and v["to_act"] == [2]

    # hand 2 -----------------------------------------------------------------------------
    assert sorted(g.view(2)["hand"]) == sorted(TH2_CAPTAIN)
    assert sorted(g.view(0)["hand"]) == sorted(TH2_CAPTAIN)  # seat 0 now advises the captain
    g.move(2, {"type": "take_upcard"})
    v = g.move(2, _knock("KS", TH2_MELDS))
    last = v["last_hand"]
    assert (last["outcome"], last["knocker"], last["winner"]) == ("gin", 2, 2)
    assert (last["knocker_deadwood"], last["defender_deadwood"], last["points"]) == (0, 19, 44)
    assert last["layoffs"] == []
    assert v["scores"] == [0, 30, 44]
    assert v["roles"] == {"box": 2, "captain": 0, "advisor": 1}
    assert v["hand_no"] == 3 and v["dealer"] == 2 and v["to_act"] == [0]

    # hand 3 -----------------------------------------------------------------------------
    g.move(0, {"type": "take_upcard"})
    v = g.move(0, _knock("4H", TH3_MELDS))
    last = v["last_hand"]
    assert (last["outcome"], last["knocker"], last["winner"]) == ("undercut", 0, 2)
    assert (last["knocker_deadwood"], last["defender_deadwood"], last["points"]) == (6, 6, 10)
    assert v["scores"] == [0, 30, 54]
    assert v["status"] == "over" and v["winner"] == 2
    assert v["legal_moves"] == []

    _check_finished_game(api, g, expected_scores=[0, 30, 54], winner=2)


# ---------------------------------------------------------------------------------------------
# two-player gin rami (RULES.md §3), seat 0 deals first; target 50

# Hand 1: dealer 0, non-dealer 1 takes the upcard TH and goes gin discarding KS.
GR1_N = _split("AC 2C 3C 4D 4H 4S 7H 8H 9H KS")
GR1_D = _split("5C 6D 8S JD QC KD 2H 3S 9D TC")
GR1_MELDS = ["AC 2C 3C", "4D 4H 4S", "7H 8H 9H TH"]
# Gin scores a flat 20 in gin rami (§3 [decision]: no deadwood added; seat 0's 73 is ignored).
# Scores: seat 0: 0, seat 1: 20.
GR_DECK1 = build_deck(GR1_N, GR1_D, "TH")

# Hand 2: the deal alternates: dealer 1, non-dealer 0 takes the upcard KS, knocks discarding 4D.
GR2_N = _split("5C 6C 7C 9D 9H 9S JS QS AH 4D")
GR2_D = _split("2D 2H 2S 8C 9C TS KH QD 5H 6D")
GR2_MELDS = ["5C 6C 7C", "9D 9H 9S", "JS QS KS"]
# K = AH = 1; D = KH 10 + QD 10 + 5H 5 + 6D 6 = 31 after 2D 2H 2S and lay-offs 8C, 9C, TS.
# The attacker scores D - K = 30 (§3).  Scores: seat 0: 30, seat 1: 20.
GR_DECK2 = build_deck(GR2_N, GR2_D, "KS")

# Hand 3: dealer 0 again (alternation), non-dealer 1. Both pass the upcard; then each player
# draws from the stock and discards the card drawn. The stock has 52 - 21 = 31 cards; after the
# 29th draw two are left, so the 29th discard (seat 1's: turns 1, 3, ..., 29) draws the hand
# (§1 Drawn hand): nobody scores and the same dealer, seat 0, deals hand 4.
GR_DECK3 = list(ALL_CODES)

# Hand 4: dealer 0, non-dealer 1 takes the upcard QC: eleven cards all in melds, big gin
# without a discard: a flat 30 (§3).  Scores: seat 0: 30, seat 1: 20 + 30 = 50 >= 50: seat 1 wins.
GR4_N = _split("AS 2S 3S 4S 5H 5D 5C 9C TC JC")
GR4_D = _split("KH QH 2D 7D 3H 8H 6S 9S KD JH")
GR4_MELDS = ["AS 2S 3S 4S", "5C 5D 5H", "9C TC JC QC"]
GR_DECK4 = build_deck(GR4_N, GR4_D, "QC")


def test_gin_rami_game_from_explicit_decks_ends_with_the_scores_worked_out_by_hand(api):
    """RULES.md §3: flat gin and big gin, knock with chained lay-offs, alternating deal, drawn hand redealt."""
    assert min_deadwood(GR1_N[:-1] + ["TH"]) == 0
    assert min_deadwood_after_discard(GR2_N + ["KS"]) == (1, ["4D"])
    assert defender_deadwood(GR2_D, [m.split() for m in GR2_MELDS]) == 31
    assert min_deadwood(GR4_N + ["QC"]) == 0

    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0,
                    options={"target_score": 50}, decks=[GR_DECK1, GR_DECK2, GR_DECK3, GR_DECK4])
    assert g.created["randomly_dealt"] is False

    # hand 1: gin scores a flat 20
    v = g.view(1)
    assert (v["hand_no"], v["dealer"], v["to_act"]) == (1, 0, [1])
    assert sorted(v["hand"]) == sorted(GR1_N)
    g.move(1, {"type": "take_upcard"})
    v = g.move(1, _knock("KS", GR1_MELDS))
    last = v["last_hand"]
    assert (last["outcome"], last["winner"], last["points"]) == ("gin", 1, 20)
    assert v["scores"] == [0, 20]
    assert (v["hand_no"], v["dealer"], v["to_act"]) == (2, 1, [0])

    # hand 2: knock, D - K = 30
    g.move(0, {"type": "take_upcard"})
    v = g.move(0, _knock("4D", GR2_MELDS))
    last = v["last_hand"]
    assert (last["outcome"], last["winner"]) == ("knock", 0)
    assert (last["knocker_deadwood"], last["defender_deadwood"], last["points"]) == (1, 31, 30)
    assert sorted(c for c, _ in last["layoffs"]) == ["8C", "9C", "TS"]
    assert v["scores"] == [30, 20]
    assert (v["hand_no"], v["dealer"], v["to_act"]) == (3, 0, [1])

    # hand 3: drawn when the stock is down to two cards
    g.move(1, {"type": "pass_upcard"})
    g.move(0, {"type": "pass_upcard"})
    stock = GR_DECK3[21:]
    seat = 1
    for turn in range(29):
        v = g.move(seat, {"type": "draw_stock"})
        assert v["drawn_card"] == stock[turn]
        v = g.move(seat, {"type": "discard", "card": stock[turn]})
        seat = 1 - seat
    last = v["last_hand"]
    assert last["outcome"] == "drawn" and last["hand_no"] == 3
    assert v["scores"] == [30, 20]
    assert (v["hand_no"], v["dealer"], v["to_act"]) == (4, 0, [1])

    # hand 4: big gin, no discard, a flat 30
    g.move(1, {"type": "take_upcard"})
    v = g.move(1, _knock(None, GR4_MELDS))
    last = v["last_hand"]
    assert (last["outcome"], last["winner"], last["points"]) == ("big_gin", 1, 30)
    assert v["scores"] == [30, 50]
    assert v["status"] == "over" and v["winner"] == 1

    _check_finished_game(api, g, expected_scores=[30, 50], winner=1)


def _check_finished_game(api, g, expected_scores, winner):
    """Every viewer sees the end; audit passes; the export holds one line per version."""
    final = g.view(None)
    assert final["status"] == "over" and final["winner"] == winner and final["scores"] == expected_scores
    assert final["seed"], "the seed is revealed once the game is over"
    for seat in g.tokens:
        assert g.view(seat)["scores"] == expected_scores
    audit = api.get(f"/games/{g.game_id}/audit")
    assert audit.status_code == 200, audit.get_data(as_text=True)
    report = audit.get_json()
    assert report["ok"] is True and report["commitment_ok"] is True and report["replay_ok"] is True
    assert report["seed"] == final["seed"]
    export = api.get(f"/games/{g.game_id}/export")
    assert export.status_code == 200
    lines = [json.loads(ln) for ln in export.get_data(as_text=True).splitlines() if ln.strip()]
    # one line per version, then one per piece of advice (marked with the version it was given at)
    advice = api.get(f"/games/{g.game_id}/advice").get_json()["advice"] if final["variant"] == "three-hand" else []
    assert len(lines) == final["version"] + len(advice)
    assert [ln["data"]["text"] for ln in lines[final["version"]:]] == [a["text"] for a in advice]
    assert all("at_version" in ln for ln in lines[final["version"]:])
    events = g.events(None)
    assert [e["version"] for e in events] == list(range(1, final["version"] + 1))
    assert events[-1]["type"] == "game_ended" and events[-1]["data"]["winner"] == winner
