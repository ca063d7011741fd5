"""Hand results rich enough to replay: version 2 of hand_scored (RULES.md Scoring a hand, the
result line by line) and the upcaster that reads version 1 (games recorded before it)."""

from __future__ import annotations

import json

import pytest

from service.rules import audit, views
from service.rules import game as G
from service.rules.commands import ClaimSeat, DrawStock, Knock, PassUpcard
from service.rules.errors import RulesError
from service.rules.events import HandScored, decode, encode

from support.rules import deck, new_table

# RULES.md worked example "A knock, with lay-offs": the non-dealer draws the 2D and knocks with the 9H.
KNOCK_HAND = deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H", "2S 3S 4C 7C QD QH QS KH KS 9C", "JD", "2D")

# A gin-rami game as the engine wrote it before hand_scored had a version 2 (its events are those
# of the code of that time, recorded once): ann and bob, target 50, three hands dealt from
# KNOCK_HAND, the non-dealer knocking in each: 27 to ann, 27 to bob, 27 to ann, who wins 54 to 27.
STORED_V1_LOG = """\
{"type":"game_created","v":1,"data":{"variant":"gin-rami","options":{"target_score":50,"knock_limit":10,"undercut_bonus":10,"max_turns_per_hand":200,"turn_timeout_s":null,"gin_bonus":20,"big_gin_bonus":30,"gin_adds_deadwood":false},"rules_version":"ginbox-rules/1","commitment":"db6390063d99701d5f584ec4adf58670341791195f17fb677350aee5dccd61c8","seed":"73746f7265642d76312d6c6f67","players":[{"name":"ann"},null],"randomly_dealt":false,"decks":[["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"],["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"],["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"]],"roles":null,"first_dealer":1}}
{"type":"seat_claimed","v":1,"data":{"seat":1,"player":{"name":"bob"}}}
{"type":"dealer_chosen","v":1,"data":{"dealer":1,"reason":"explicit"}}
{"type":"hand_dealt","v":1,"data":{"hand_no":1,"dealer":1,"non_dealer":0,"deck":["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"],"source":"explicit"}}
{"type":"upcard_passed","v":1,"data":{"seat":0}}
{"type":"upcard_passed","v":1,"data":{"seat":1}}
{"type":"card_drawn","v":1,"data":{"seat":0,"source":"stock","card":"2D"}}
{"type":"knocked","v":1,"data":{"seat":0,"discard":"9H","melds":[["AC","2C","3C"],["7D","7H","7S"],["4S","5S","6S"]],"deadwood_cards":["2D"],"deadwood":2,"kind":"knock"}}
{"type":"hand_scored","v":1,"data":{"hand_no":1,"knocker":0,"defender":1,"outcome":"knock","knocker_deadwood":2,"defender_melds":[["QD","QH","QS"]],"layoffs":[["4C",0],["7C",1],["2S",2],["3S",2]],"defender_deadwood_cards":["9C","KH","KS"],"defender_deadwood":29,"winner":0,"points":27,"scores":[27,0]}}
{"type":"hand_dealt","v":1,"data":{"hand_no":2,"dealer":0,"non_dealer":1,"deck":["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"],"source":"explicit"}}
{"type":"upcard_passed","v":1,"data":{"seat":1}}
{"type":"upcard_passed","v":1,"data":{"seat":0}}
{"type":"card_drawn","v":1,"data":{"seat":1,"source":"stock","card":"2D"}}
{"type":"knocked","v":1,"data":{"seat":1,"discard":"9H","melds":[["AC","2C","3C"],["7D","7H","7S"],["4S","5S","6S"]],"deadwood_cards":["2D"],"deadwood":2,"kind":"knock"}}
{"type":"hand_scored","v":1,"data":{"hand_no":2,"knocker":1,"defender":0,"outcome":"knock","knocker_deadwood":2,"defender_melds":[["QD","QH","QS"]],"layoffs":[["4C",0],["7C",1],["2S",2],["3S",2]],"defender_deadwood_cards":["9C","KH","KS"],"defender_deadwood":29,"winner":1,"points":27,"scores":[27,27]}}
{"type":"hand_dealt","v":1,"data":{"hand_no":3,"dealer":1,"non_dealer":0,"deck":["AC","2S","2C","3S","3C","4C","7D","7C","7H","QD","7S","QH","4S","QS","5S","KH","6S","KS","9H","9C","JD","2D","5C","6C","8C","TC","JC","QC","KC","AD","3D","4D","5D","6D","8D","9D","TD","KD","AH","2H","3H","4H","5H","6H","8H","TH","JH","AS","8S","9S","TS","JS"],"source":"explicit"}}
{"type":"upcard_passed","v":1,"data":{"seat":0}}
{"type":"upcard_passed","v":1,"data":{"seat":1}}
{"type":"card_drawn","v":1,"data":{"seat":0,"source":"stock","card":"2D"}}
{"type":"knocked","v":1,"data":{"seat":0,"discard":"9H","melds":[["AC","2C","3C"],["7D","7H","7S"],["4S","5S","6S"]],"deadwood_cards":["2D"],"deadwood":2,"kind":"knock"}}
{"type":"hand_scored","v":1,"data":{"hand_no":3,"knocker":0,"defender":1,"outcome":"knock","knocker_deadwood":2,"defender_melds":[["QD","QH","QS"]],"layoffs":[["4C",0],["7C",1],["2S",2],["3S",2]],"defender_deadwood_cards":["9C","KH","KS"],"defender_deadwood":29,"winner":0,"points":27,"scores":[54,27]}}
{"type":"game_ended","v":1,"data":{"winner":0,"scores":[54,27],"seed":"73746f7265642d76312d6c6f67"}}
"""


def stored_v1_log() -> list[dict]:
    return [json.loads(line) for line in STORED_V1_LOG.splitlines()]


def knock_hand_scored(variant="gin-rami", **options):
    t = new_table(variant, decks=[KNOCK_HAND], first_dealer=1, options=options or None)
    t.pass_(0)
    t.pass_(1)
    t.stock(0)
    t.knock(0, "9H")
    return t, t.last(HandScored)


def test_a_knock_records_the_hands_the_turns_the_deadwood_before_lay_offs_and_the_next_dealer():
    """§2 Scoring: K = 2 (2D). The defender's own melds are QD QH QS; before lay-offs the rest,
    2S 3S 4C 7C 9C KH KS, counts 2 + 3 + 4 + 7 + 9 + 10 + 10 = 45; laying off 4C, 7C, 2S and 3S
    leaves 9C KH KS = 29, and the knocker scores 29 - 2 = 27. One draw: one turn. Seat 1 dealt,
    so seat 0 deals next (§3)."""
    _, scored = knock_hand_scored()
    assert encode(scored)["v"] == 2
    assert scored.discard == "9H"
    assert scored.knocker_melds == (("AC", "2C", "3C"), ("7D", "7H", "7S"), ("4S", "5S", "6S"))
    assert scored.knocker_deadwood_cards == ("2D",) and scored.knocker_deadwood == 2
    # each hand at the end, in card order (clubs, diamonds, hearts, spades; ace to king)
    assert scored.hands == (("AC", "2C", "3C", "2D", "7D", "7H", "4S", "5S", "6S", "7S"),
                            ("4C", "7C", "9C", "QD", "QH", "KH", "2S", "3S", "QS", "KS"))
    assert scored.turns == 1
    assert scored.defender_deadwood_before_layoffs == 45 and scored.defender_deadwood == 29
    assert scored.points == 27 and scored.next_dealer == 0


def test_the_hand_that_ends_the_game_has_no_next_dealer():
    _, scored = knock_hand_scored(target_score=20)  # 27 >= 20
    assert scored.next_dealer is None


def test_three_hand_gin_records_the_seat_that_sat_out_as_holding_nothing_and_the_new_box_deals():
    """RULES.md worked example "Gin, in each variant" (three-hand): box ann (0), captain bob (1),
    advisor cat (2). Bob goes gin: D = 5 (5C), no lay-offs against gin, so the deadwood before
    lay-offs is 5 too; bob scores 25 + 5 = 30 and goes into the box: bob deals next."""
    t = new_table("three-hand", decks=[deck("AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H 5C",
                                            "QH", "KH")],
                  roles={"box": 0, "captain": 1, "advisor": 2})
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.knock(1, "KH")
    scored = t.last(HandScored)
    assert (scored.outcome, scored.points, scored.winner) == ("gin", 30, 1)
    assert scored.hands[0] == ("5C", "8C", "9C", "TC", "9D", "JD", "QD", "KD", "9H", "9S")
    assert scored.hands[2] is None and len(scored.hands[1]) == 10
    assert scored.defender_deadwood_before_layoffs == scored.defender_deadwood == 5
    assert scored.next_dealer == 1 and t.state.dealer == 1


def test_the_view_explains_the_hand_line_by_line():
    t, _ = knock_hand_scored()
    last = views.view_state(t.state, None)["last_hand"]
    assert {k: last[k] for k in ("turns", "defender_deadwood_before_layoffs", "defender_deadwood", "next_dealer",
                                 "points")} == {"turns": 1, "defender_deadwood_before_layoffs": 45,
                                                "defender_deadwood": 29, "next_dealer": 0, "points": 27}
    assert last["hands"][1] == ["4C", "7C", "9C", "QD", "QH", "KH", "2S", "3S", "QS", "KS"]


# --------------------------------------------------------------------------- version 1, upcast


def test_a_version_1_record_is_upcast_with_the_fields_it_did_not_record_left_null():
    wire = next(e for e in stored_v1_log() if e["type"] == "hand_scored")
    assert wire["v"] == 1 and "hands" not in wire["data"]
    event = decode(wire)
    assert type(event) is HandScored and event.upcast
    assert (event.points, event.scores, event.defender_deadwood) == (27, (27, 0), 29)
    assert all(getattr(event, name) is None for name in HandScored.ADDED_IN_V2)
    # it is written back in the current version
    assert encode(event)["v"] == 2 and encode(event)["data"]["hands"] is None


def test_a_version_2_record_must_hold_every_field():
    _, scored = knock_hand_scored()
    wire = encode(scored)
    del wire["data"]["turns"]
    with pytest.raises(RulesError) as err:
        decode(wire)
    assert err.value.code == "invalid_event"


def test_a_stored_version_1_log_replays_with_every_result_worked_out_again():
    state = G.replay(stored_v1_log())
    assert state.status == "over" and state.scores == [54, 27] and state.winner == 0
    results = state.results
    assert [r["scores"] for r in results] == [[27, 0], [27, 27], [54, 27]]
    # the evolver recomputes from the state what version 1 did not record
    assert [r["next_dealer"] for r in results] == [0, 1, None]  # the deal alternates; the last hand ends it
    assert [r["turns"] for r in results] == [1, 1, 1]
    assert [r["defender_deadwood_before_layoffs"] for r in results] == [45, 45, 45]
    knocker = ["AC", "2C", "3C", "2D", "7D", "7H", "4S", "5S", "6S", "7S"]
    defender = ["4C", "7C", "9C", "QD", "QH", "KH", "2S", "3S", "QS", "KS"]
    assert [r["hands"] for r in results] == [[knocker, defender], [defender, knocker], [knocker, defender]]


def test_a_stored_version_1_log_replays_to_the_state_the_same_game_reaches_today():
    old = stored_v1_log()
    created = decode(old[0])
    spec = G.GameSpec(created.variant, [{"name": "ann"}, None], dict(created.options),
                      seed=bytes.fromhex(created.seed), decks=[list(d) for d in created.decks], first_dealer=1)
    state = G.replay(G.start(spec))
    # play the same commands today: the claim, then three knocks by the non-dealer
    commands = [(None, ClaimSeat(1, {"name": "bob"}))]
    for non_dealer in (0, 1, 0):
        commands += [(non_dealer, PassUpcard()), (1 - non_dealer, PassUpcard()), (non_dealer, DrawStock()),
                     (non_dealer, Knock("9H", None))]
    for actor, command in commands:
        state, _ = G.apply(state, actor, command)
    assert G.replay(old) == state  # results included: what the upcast lacks is worked out the same


def test_a_stored_version_1_log_passes_the_audit():
    old = stored_v1_log()
    report = audit.verify(old, decode(old[0]).seed)
    assert report["ok"], [c for c in report["checks"] if not c["ok"]]


def test_the_audit_still_fails_a_forged_version_1_result():
    old = stored_v1_log()
    i = next(i for i, e in enumerate(old) if e["type"] == "hand_scored")
    old[i]["data"]["points"] += 1
    report = audit.verify(old, decode(old[0]).seed)
    assert not report["ok"]


def test_the_audit_fails_a_version_2_result_with_forged_replay_details():
    t, scored = knock_hand_scored(target_score=20)
    forged = [e if e is not scored else HandScored(**{**scored.__dict__, "defender_deadwood_before_layoffs": 44})
              for e in t.events]
    assert not audit.verify(forged, b"rules-test-seed")["ok"]
    assert audit.verify(t.events, b"rules-test-seed")["ok"]
