"""A gin-rami game as OpenSpiel gin_rummy records and back (OPENSPIEL.md), in pure Python: no OpenSpiel needed.

OpenSpiel's numbers below are worked out by hand from its source (gin_rummy.h, gin_rummy_utils.cc):
a card is suit * 13 + rank, suits in the order s c d h, ranks A to K; a set's meld id is
rank * 5 + the suit missing (4 for all four), a run's 65 + suit * 11 + its low rank (three cards),
109 + suit * 10 + low (four), 149 + suit * 9 + low (five); an action laying meld m is 56 + m.
"""

from __future__ import annotations

import json

import pytest

from service.rules import audit, events, game, openspiel
from service.rules.errors import RulesError
from service.rules.openspiel_codes import (
    MELDS, defender_actions, meld_id, order_layoffs, to_code, to_int,
)
from support.decks import build_deck
from support.openspiel_play import PLAYTHROUGH, decisions, play_game

# Seat 0 (the non-dealer: OpenSpiel's player 0) takes the upcard 4S and goes gin discarding QD:
# AS 2S 3S 4S, 4C 5C 6C, 7H 7D 7C. Seat 1 melds 9H TH JH (29 points, more than the nines' 27) and
# keeps 2C 3C 9D 9S KS 5D 8S: 2 + 3 + 9 + 9 + 10 + 5 + 8 = 46. Gin under the openspiel preset: 25 + 46 = 71.
GIN_SEAT0 = "AS 2S 3S 4C 5C 6C 7H 7D 7C QD".split()
GIN_SEAT1 = "2C 3C 9H 9D 9S TH JH KS 5D 8S".split()
# AS=0 2S=1 3S=2 4C=16 5C=17 6C=18 7H=45 7D=32 7C=19 QD=37; 2C=14 3C=15 9H=47 9D=34 9S=8 TH=48
# JH=49 KS=12 5D=30 8S=7; the upcard 4S=3
GIN_DEAL = [0, 1, 2, 16, 17, 18, 45, 32, 19, 37, 14, 15, 47, 34, 8, 48, 49, 12, 30, 7, 3]
# AS-4S: 109 -> 165; 4C 5C 6C: 65 + 11 + 3 = 79 -> 135; 7H 7D 7C, no spade: 30 -> 86
GIN_KNOCKER_MELDS = {165, 135, 86}
# 9H TH JH: 65 + 3 * 11 + 8 = 106 -> 162
GIN_DEFENDER = [162, 54]


def one_hand(seat0, seat1, upcard, moves, rules="openspiel", options=None, stock=None):
    """The log of a one-hand game (target 1) dealt from these cards, seat 1 dealing, after ``moves``."""
    spec = game.GameSpec("gin-rami", [{"name": "ann"}, {"name": "bob"}],
                         {"target_score": 1, **(options or {})}, seed=b"openspiel-test", rules=rules,
                         decks=[build_deck(seat0, seat1, upcard, stock)], first_dealer=1)
    log = game.start(spec)
    state = game.replay(log)
    for seat, command in moves:
        state, new = game.apply(state, seat, command)
        log += new
    return log


def gin_log():
    from service.rules.commands import TAKE_UPCARD, Knock

    return one_hand(GIN_SEAT0, GIN_SEAT1, "4S", [(0, TAKE_UPCARD), (0, Knock("QD", None))])


def test_cards_are_numbered_as_openspiel_numbers_them():
    # "As" 0, "Ks" 12, "Ac" 13, "4d" 29 (the playthrough's first chance outcome), "Kh" 51
    assert [to_int(c) for c in ("AS", "KS", "AC", "4D", "KH")] == [0, 12, 13, 29, 51]
    assert [to_code(n) for n in (0, 12, 13, 29, 51)] == ["AS", "KS", "AC", "4D", "KH"]


def test_meld_ids_follow_openspiels_layout():
    assert meld_id([to_int(c) for c in ("AS", "AC", "AD")]) == 3  # the ace set without the heart
    assert meld_id([to_int(c) for c in ("AS", "AC", "AD", "AH")]) == 4
    assert meld_id([to_int(c) for c in ("2C", "2D", "2H")]) == 5  # rank 1, no spade
    assert meld_id([to_int(c) for c in ("AS", "2S", "3S")]) == 65
    assert meld_id([to_int(c) for c in ("JH", "QH", "KH")]) == 65 + 3 * 11 + 10
    assert meld_id([to_int(c) for c in ("AS", "2S", "3S", "4S")]) == 109
    assert meld_id([to_int(c) for c in ("9H", "TH", "JH", "QH", "KH")]) == 184
    assert len(MELDS) == 185 and all(meld_id(list(cards)) == i for i, cards in MELDS.items())


def test_a_gin_hand_becomes_the_openspiel_actions_worked_out_by_hand():
    record = openspiel.to_record(gin_log())
    assert record["parameters"] == {"knock_card": 10, "gin_bonus": 25, "undercut_bonus": 25, "oklahoma": False}
    [hand] = record["hands"]
    actions = hand["actions"]
    # the deal, take the upcard (52), knock (55), discard QD (37), three melds, pass, the defender's meld, pass
    assert actions[:24] == GIN_DEAL + [52, 55, 37]
    assert set(actions[24:27]) == GIN_KNOCKER_MELDS and actions[27] == 54
    assert actions[28:] == GIN_DEFENDER
    assert hand["players"] == [0, 1] and hand["terminal"] is True
    assert hand["returns"] == [71, -71] and hand["ginbox_points"] == [71, 0]
    assert record["ginbox"]["end"] == {"reason": "target_score"} and record["ginbox"]["winner"] == 0


def test_a_tie_is_scored_nothing_by_openspiel_and_an_undercut_by_ginbox():
    from service.rules.commands import DRAW_STOCK, PASS_UPCARD, Knock

    # both pass the upcard QH; seat 0 draws KC and knocks discarding it, with 5D left (5):
    # AS 2S 3S, 7C 7D 7H, 9C 9D 9H. Seat 1 keeps 5H (5) once 2C 3C 4C, TD JD QD, 6S 6C 6H are
    # melded; 5H lays off on nothing. K = D = 5: ginbox gives the defender the undercut bonus,
    # 25 + 0; OpenSpiel 0 - 0 = 0
    log = one_hand("AS 2S 3S 7C 7D 7H 9C 9D 9H 5D".split(), "2C 3C 4C TD JD QD 6S 6C 6H 5H".split(), "QH",
                   [(0, PASS_UPCARD), (1, PASS_UPCARD), (0, DRAW_STOCK), (0, Knock("KC", None))], stock=["KC"])
    [hand] = openspiel.to_record(log)["hands"]
    assert hand["returns"] == [0, 0] and hand["ginbox_points"] == [0, 25]
    # pass, pass, draw from the stock, its KC (25), knock, discard KC; the knocker's melds:
    # AS2S3S 65 -> 121, the sevens without a spade 30 -> 86, the nines 40 -> 96; a pass
    a = hand["actions"]
    assert a[21:27] == [54, 54, 53, 25, 55, 25] and set(a[27:30]) == {121, 86, 96} and a[30] == 54
    # the defender: no lay-off (54); 2C3C4C 65 + 11 + 1 -> 133, TDJDQD 65 + 22 + 9 -> 152, the
    # sixes without a diamond 5 * 5 + 2 = 27 -> 83; a pass
    assert a[31] == 54 and set(a[32:35]) == {133, 152, 83} and a[35:] == [54]


def test_openspiels_own_playthrough_imports_with_its_result():
    log = openspiel.from_record({"game": "gin_rummy", "parameters": {"knock_card": 10}, "actions": PLAYTHROUGH})
    assert log[0].imported_from == "openspiel" and log[0].rules == "openspiel"
    scored = next(e for e in log if type(e) is events.HandScored)
    assert (scored.knocker, scored.knocker_deadwood, scored.defender_deadwood, scored.points) == (1, 9, 42, 33)
    assert type(log[-1]) is events.GameEnded and list(log[-1].scores) == [0, 33]
    # and back: the same actions, the knocker's melds perhaps in another order
    [hand] = openspiel.to_record(log)["hands"]
    assert hand["actions"][:52] == PLAYTHROUGH[:52] and sorted(hand["actions"]) == sorted(PLAYTHROUGH)
    assert hand["returns"] == [-33, 33]


def test_an_imported_game_audits_as_not_dealt_here_and_a_changed_move_fails_its_replay():
    lines = openspiel.export_lines(openspiel.from_record(PLAYTHROUGH))
    report = audit.verify_export(lines)
    assert report["ok"], report
    names = [c["name"] for c in report["checks"]]
    assert "origin" in names and "commitment" not in names and not any(n.startswith("deal_") for n in names)
    assert report["not_checked"].startswith("the deals (the game was imported")
    # the knocker discards 8C instead of 6C: not what ginbox's rules make of the log's moves
    changed = [line.replace('"discard":"6C"', '"discard":"8C"') for line in lines]
    assert changed != lines
    report = audit.verify_export(changed)
    assert not report["ok"] and [c["name"] for c in report["checks"] if not c["ok"]] == ["replay"]


@pytest.mark.parametrize("seed, rules, options, resign_at", [
    (11, "openspiel", None, None),
    (12, "openspiel", None, None),
    (13, "openspiel", {"oklahoma": True, "knock_limit": None}, None),
    (14, "openspiel", {"knock_limit": 5, "undercut_bonus": 10}, None),
    (15, "openspiel", {"target_score": 30}, 40),
    (16, "eaai", None, None),
])
def test_a_round_trip_keeps_every_decision_and_every_result(seed, rules, options, resign_at):
    log = play_game(seed, rules=rules, options=options, resign_at=resign_at)
    record = json.loads(json.dumps(openspiel.to_record(log)))  # as a file holds it
    back = openspiel.from_record(record)
    assert decisions(back) == decisions(log)
    assert back[0].options == log[0].options and back[0].players == log[0].players
    assert type(back[-1]) is type(log[-1]) and back[-1].scores == log[-1].scores
    assert audit.verify_export(openspiel.export_lines(back))["ok"]


def test_a_game_cut_short_keeps_its_last_hand_as_an_openspiel_game_not_over():
    log = play_game(15, options={"target_score": 30}, resign_at=40)
    assert type(log[-1]) is events.GameResigned
    record = openspiel.to_record(log)
    assert record["hands"][-1]["terminal"] is False and record["hands"][-1]["returns"] is None
    assert record["ginbox"]["end"] == {"reason": "resigned", "seat": 0}


def test_lay_offs_go_in_an_order_openspiel_accepts_or_become_melds():
    run = [[to_int(c) for c in ("4S", "5S", "6S")]]
    # 3S first, then 2S beyond it
    assert order_layoffs(run, [to_int("2S"), to_int("3S")]) == [to_int("3S"), to_int("2S")]
    # OpenSpiel counts one laid-off card a side as part of the run: a third at one end is refused
    assert order_layoffs(run, [to_int(c) for c in ("AS", "2S", "3S")]) is None
    # so the defender who lays off AS 2S 3S melds them instead, leaving the same deadwood (the KD)
    hand = [to_int(c) for c in ("AS", "2S", "3S", "KD")]
    actions = defender_actions(run, [to_int(c) for c in ("AS", "2S", "3S")], [], hand, [to_int("KD")], gin=False)
    # (3S and 2S laid off would leave AS, which melds with nothing): no lay-off, AS 2S 3S as meld 65
    assert actions == [54, 56 + 65, 54]


def with_rules_error(call, *args):
    with pytest.raises(RulesError) as caught:
        call(*args)
    return caught.value.code, caught.value.message


def test_a_three_hand_game_is_refused():
    spec = game.GameSpec("three-hand", [{"name": n} for n in "abc"], None, seed=b"x")
    log = game.start(spec)
    state = game.replay(log)
    from service.rules.commands import RESIGN

    log += game.decide(state, 0, RESIGN)
    assert with_rules_error(openspiel.to_record, log)[0] == "openspiel_variant"


def test_rules_openspiel_does_not_play_are_refused_by_name():
    from service.rules.commands import TAKE_UPCARD, Knock

    log = one_hand(GIN_SEAT0, GIN_SEAT1, "4S", [(0, TAKE_UPCARD), (0, Knock("QD", None))], rules=None)
    code, message = with_rules_error(openspiel.to_record, log)
    # gin rami's defaults: gin a flat 20, big gin 30
    assert code == "openspiel_rules_differ" and "gin_adds_deadwood" in message and "big_gin_bonus" in message


def test_a_game_not_over_is_refused():
    from service.rules.commands import TAKE_UPCARD

    log = one_hand(GIN_SEAT0, GIN_SEAT1, "4S", [(0, TAKE_UPCARD)])
    assert with_rules_error(openspiel.to_record, log)[0] == "game_not_over"


def test_a_hand_drawn_at_the_turn_limit_is_refused():
    log = play_game(21, options={"max_turns_per_hand": 3}, wild=0.0)
    assert any(type(e) is events.HandDrawn and e.reason == "turn_limit" for e in log)
    assert with_rules_error(openspiel.to_record, log)[0] == "openspiel_hand_differs"


@pytest.mark.parametrize("record, code, words", [
    ("not a record", "openspiel_record_invalid", "object"),
    ({"game": "leduc_poker", "actions": PLAYTHROUGH}, "openspiel_record_invalid", "leduc_poker"),
    ({"parameters": {"knock_card": 11}, "actions": PLAYTHROUGH}, "openspiel_record_invalid", "knock_card"),
    ({"parameters": {"hand_size": 7}, "actions": PLAYTHROUGH}, "openspiel_rules_differ", "hand_size"),
    (PLAYTHROUGH[:15], "openspiel_record_invalid", "21 chance actions"),
    ([0] * 21 + [54], "openspiel_record_invalid", "21 different cards"),
    (PLAYTHROUGH[:21] + [241], "openspiel_record_invalid", "from 0 to 240"),
    (PLAYTHROUGH[:21] + ["54"], "openspiel_record_invalid", "whole number"),
    # player 0 passes the upcard; player 1 then plays a card (4d, player 0's), which is no draw
    (PLAYTHROUGH[:22] + [29], "openspiel_record_invalid", "action 22"),
    # both pass, player 0 draws the 2d from the stock, then discards the Ah, which neither holds
    (PLAYTHROUGH[:25] + [39], "openspiel_record_invalid", "action 25"),
    # a drawn card already dealt
    (PLAYTHROUGH[:24] + [29], "openspiel_record_invalid", "not yet seen"),
    # player 1 takes the upcard 5c (17) and discards it at once: OpenSpiel allows it, ginbox does not
    (PLAYTHROUGH[:22] + [52, 17], "openspiel_move_not_in_ginbox", "just taken"),
    ({"hands": [{"actions": PLAYTHROUGH[:30]}, {"actions": PLAYTHROUGH}]}, "openspiel_record_invalid",
     "not over"),
    (PLAYTHROUGH + [54], "openspiel_record_invalid", "already over"),
])
def test_a_malformed_record_is_refused_with_its_code(record, code, words):
    got, message = with_rules_error(openspiel.from_record, record)
    assert got == code and words in message, message


def test_a_knock_at_the_wall_is_refused():
    # a hand played to the wall by the conversion of a ginbox game: its last action is the pass at
    # the wall (54), which ginbox's drawn hand becomes; a knock there (55) is OpenSpiel's alone
    log = next(lg for seed in range(30, 60) for lg in [play_game(seed, wild=0.0, options={"knock_limit": 0})]
               if any(type(e) is events.HandDrawn for e in lg))
    record = openspiel.to_record(log)
    n, hand = next((n, h) for n, h in enumerate(record["hands"]) if h["returns"] == [0, 0] and h["actions"][-1] == 54
                   and not any(a >= 55 for a in h["actions"]))
    single = {"parameters": record["parameters"], "actions": hand["actions"][:-1] + [55]}
    code, message = with_rules_error(openspiel.from_record, single)
    assert code == "openspiel_move_not_in_ginbox" and "wall" in message


def test_a_defender_who_kept_deadwood_in_openspiel_is_scored_by_ginboxs_own_lay_offs_and_said_so():
    from service.rules.commands import DRAW_STOCK, PASS_UPCARD, Knock

    log = one_hand("AS 2S 3S 7C 7D 7H 9C 9D 9H 5D".split(), "2C 3C 4C TD JD QD 6S 6C 6H 5H".split(), "QH",
                   [(0, PASS_UPCARD), (1, PASS_UPCARD), (0, DRAW_STOCK), (0, Knock("KC", None))], stock=["KC"])
    record = openspiel.to_record(log)
    # the defender lays off nothing and melds nothing (54, 54): all ten cards count, 2 + 3 + 4 +
    # 10 + 10 + 10 + 6 + 6 + 6 + 5 = 62, so OpenSpiel's knocker gets 62 - 5 = 57
    actions = record["hands"][0]["actions"][:31] + [54, 54]
    notes: list = []
    back = openspiel.from_record({"parameters": record["parameters"], "actions": actions}, notes)
    scored = next(e for e in back if type(e) is events.HandScored)
    # ginbox melds the defender's cards itself: 5 against 5, an undercut, 25 to seat 1
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 1, 25)
    assert notes == ["hand 1: OpenSpiel returns [57, -57]; ginbox scores 25 to seat 1 (the defender's deadwood 5 "
                     "once ginbox laid off and melded for the least, 62 in the record; a tie is an undercut in "
                     "ginbox)"]


def test_a_run_of_six_is_laid_as_two_openspiel_melds_and_joined_again_on_import():
    from service.rules.commands import DRAW_STOCK, PASS_UPCARD, Knock

    # seat 0 draws QH and knocks discarding it: 3S-8S, 9C 9D 9H, with 2C left (2). Seat 1 melds
    # JC QC KC, lays off 2S (on the run) and 9S (on the nines or the run), and keeps AH 3H 5H 7D TH:
    # 1 + 3 + 5 + 7 + 10 = 26. The knocker scores 26 - 2 = 24
    log = one_hand("3S 4S 5S 6S 7S 8S 9C 9D 9H 2C".split(), "2S 9S AH 3H 5H 7D JC QC KC TH".split(), "KD",
                   [(0, PASS_UPCARD), (1, PASS_UPCARD), (0, DRAW_STOCK),
                    (0, Knock("QH", [["3S", "4S", "5S", "6S", "7S", "8S"], ["9C", "9D", "9H"]]))], stock=["QH"])
    [hand] = openspiel.to_record(log)["hands"]
    # 3S4S5S: 65 + 2 -> 123; 6S7S8S: 65 + 5 -> 126; the nines without a spade: 40 -> 96
    a = hand["actions"]
    assert a[21:27] == [54, 54, 53, to_int("QH"), 55, to_int("QH")] and set(a[27:30]) == {123, 126, 96}
    # the defender lays off 2S (1) and 9S (8) in some order, passes, melds JC QC KC (65 + 11 + 10 -> 142)
    assert a[30] == 54 and set(a[31:33]) == {1, 8} and a[33:] == [54, 142, 54]
    assert hand["returns"] == [24, -24] and hand["ginbox_points"] == [24, 0]
    back = openspiel.from_record({"actions": a})
    knocked = next(e for e in back if type(e) is events.Knocked)
    assert sorted(sorted(m) for m in knocked.melds) == sorted([sorted("3S 4S 5S 6S 7S 8S".split()), ["9C", "9D", "9H"]])


@pytest.mark.slow
def test_any_changed_record_imports_or_is_refused_with_a_code_never_a_crash():
    import random

    rng = random.Random(7)
    record = openspiel.to_record(play_game(41))
    refused = imported = 0
    for n in range(120):
        doc = json.loads(json.dumps(record))
        hand = rng.choice(doc["hands"])
        at = rng.randrange(len(hand["actions"]))
        kind = n % 4
        if kind == 0:
            hand["actions"][at] = rng.randrange(241)
        elif kind == 1:
            del hand["actions"][at]
        elif kind == 2:
            hand["actions"].insert(at, rng.randrange(241))
        else:
            doc["ginbox"][rng.choice(["options", "players", "end", "rules"])] = rng.choice(
                [None, 3, "x", [], {"reason": "resigned", "seat": True}, {"target_score": -1}])
        try:
            log = openspiel.from_record(doc)
        except RulesError as err:
            assert err.code.startswith("openspiel_"), err
            refused += 1
        else:
            assert audit.verify_export(openspiel.export_lines(log))["ok"]
            imported += 1
    assert refused and imported  # both happen: the changes are not all refused, nor all harmless
