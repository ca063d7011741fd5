"""Decision analysis: no hindsight, reproducibility, the knock's arrangement, advice, the summaries and
``ginbox analyse`` (service/docs/ANALYSIS.md)."""

from __future__ import annotations

import json

from service import cli
from service.analysis import analyse_log, classify, to_json
from service.analysis.advice import advised_move
from service.analysis.summary import tally
from service.rules import cards, events
from service.rules.commands import PASS_UPCARD, TAKE_UPCARD, Knock
from support.analysis_games import N, last_decision, play, start, wall_deal, wall_moves
from support.decks import build_deck

HIGH_HAND = ["7C", "8C", "9C", "TD", "JD", "QD", "KH", "KS", "KC", "8H"]
LOW_POOL = ["AC", "2C", "3C", "AD", "2D", "3D", "AH", "2H", "3H", "AS", "2S", "3S"]


def _wall_log(pool):
    deck = wall_deal(HIGH_HAND, "9H", pool)
    state, log = start(deck)
    return play(state, log, wall_moves(deck))[1]


def _seat_entries(result, seat):
    return [e for e in result["decisions"] if e["seat"] == seat]


def test_swapping_two_cards_the_seat_never_saw_changes_none_of_its_analysis():
    """AC (dealt to the dealer) and 3S (at the bottom of the stock) trade places: the non-dealer sees
    neither, every move stays the same, and its every decision is analysed exactly as before."""
    swapped = list(LOW_POOL)
    swapped[0], swapped[11] = swapped[11], swapped[0]
    one, other = _wall_log(LOW_POOL), _wall_log(swapped)
    assert events.encode(one[-30]) == events.encode(other[-30])  # same moves ...
    dealt = [e for e in one if type(e) is events.HandDealt][0], [e for e in other if type(e) is events.HandDealt][0]
    assert dealt[0].deck != dealt[1].deck  # ... from other cards
    a, b = analyse_log(one, samples=4, seed=3), analyse_log(other, samples=4, seed=3)
    assert len(_seat_entries(a, N)) >= 29
    assert _seat_entries(a, N) == _seat_entries(b, N)


def test_a_card_seen_later_changes_nothing_before_it_was_seen():
    """The dealer's AC trades places with the stock card it draws first (and throws back at once, so
    the non-dealer sees AC on the pile instead): the decisions before that throw are unchanged."""
    deck = wall_deal(HIGH_HAND, "9H", LOW_POOL)
    first_dealer_draw = deck[22]
    state, log = start(deck)
    one = play(state, log, wall_moves(deck))[1]
    other_deck = [("AC" if c == first_dealer_draw else first_dealer_draw if c == "AC" else c) for c in deck]
    state, log = start(other_deck)
    other = play(state, log, wall_moves(other_deck))[1]
    thrown = next(v for v, e in enumerate(other, start=1) if type(e) is events.CardDiscarded and e.card == "AC")
    a, b = analyse_log(one, samples=4, seed=3), analyse_log(other, samples=4, seed=3)
    before = [e for e in _seat_entries(a, N) if e["version"] < thrown]
    assert len(before) >= 2
    assert before == [e for e in _seat_entries(b, N) if e["version"] < thrown]
    assert _seat_entries(a, N) != _seat_entries(b, N)  # once AC is seen, the non-dealer knows another game


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_samples():
    log = _wall_log(LOW_POOL)
    first = to_json(analyse_log(log, samples=4, seed=11))
    assert first == to_json(analyse_log(log, samples=4, seed=11))
    result = json.loads(first)
    assert result["method"]["seed"] == 11 and result["method"]["samples"] == 4
    other = json.loads(to_json(analyse_log(log, samples=4, seed=12)))
    assert [e["ev_range"] for e in result["decisions"]] != [e["ev_range"] for e in other["decisions"]]


def test_the_knock_laying_out_fewer_lay_offs_is_the_better_arrangement():
    """7C 7D 7H 7S 8S 9S TS: as 7C 7D 7H + 7S-TS the opponent may lay off 6S and JS; as the four sevens
    + 8S-TS only JS. Same deadwood, so the four sevens are never worse and better whenever 6S is held."""
    hand = ["7C", "7D", "7H", "7S", "8S", "9S", "TS", "AC", "2D", "KH"]
    deck = build_deck(hand, ["AD", "KC", "5S", "QH", "8C", "4H", "6H", "QC", "KD", "4S"], "3H")
    laid = [["7C", "7D", "7H"], ["7S", "8S", "9S", "TS"]]
    state, log = start(deck)
    state, log = play(state, log, [(N, TAKE_UPCARD), (N, Knock("KH", laid))])
    move, arrangement = last_decision(log, samples=24)
    assert move["kind"] == "knock" and arrangement["kind"] == "arrangement"
    assert arrangement["chosen"]["melds"] == laid
    assert sorted(map(sorted, arrangement["best"]["melds"])) == [["7C", "7D", "7H", "7S"], ["8S", "9S", "TS"]]
    assert arrangement["loss"] > 0


def test_the_built_in_advisors_words_name_their_moves():
    assert advised_move("Take the upcard: with 9D ...") == ("take",)
    assert advised_move("Pass the upcard.") == ("pass",)
    assert advised_move("Draw from the stock.") == ("stock",)
    assert advised_move("Take the top card of the discard pile.") == ("pile",)
    assert advised_move("Discard 7H: 7H helps the hand least.") == ("discard", cards.INDEX_OF["7H"])
    assert advised_move("Knock, discarding TC: knocking with 4 ...") == ("knock", cards.INDEX_OF["TC"])
    assert advised_move("Lay down big gin.") == ("big_gin",)
    assert advised_move("go for the spades, trust me") is None


def test_advice_is_compared_with_the_move_the_captain_played():
    """The advisor said to take 9D (gin at once); the captain passed it: the advice was the best move."""
    hand = ["2C", "3C", "4C", "5D", "6D", "7D", "9S", "9H", "9C", "JH"]
    deck = build_deck(hand, ["AD", "KC", "5S", "QH", "8C", "3H", "TS", "6H", "KD", "4S"], "9D")
    state, log = start(deck, "three-hand")
    advice = [{"type": "advice_given", "at_version": len(log), "seq": 0,
               "data": {"seat": 2, "captain": N, "hand_no": 1, "text": "Take the upcard."}},
              {"type": "advice_given", "at_version": len(log), "seq": 1,
               "data": {"seat": 2, "captain": N, "hand_no": 1, "text": "you will regret it"}}]
    state, log = play(state, log, [(N, PASS_UPCARD)])
    result = analyse_log(log, samples=8, seed=1, advice=advice)
    (entry,) = [e for e in result["decisions"] if e["seat"] == N]
    taken, free_text = entry["advice"]
    assert taken["move"] == {"type": "take_upcard"} and taken["followed"] is False
    assert taken["loss"] == 0 and taken["gain"] >= 20
    assert free_text == {"text": "you will regret it", "move": None}
    assert result["seats"][N]["advice"] == {"compared": 1, "followed": 0, "points_advice_gave_away": 0.0}


def test_classes_and_accuracy_are_those_the_guide_gives():
    assert [classify(x) for x in (0.0, 0.4, 1.0, 2.99, 3.0, 7.99, 8.0, 40)] == [
        "best", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    entries = [{"loss": 0.0, "ev_range": 10.0, "class": "best"}, {"loss": 4.0, "ev_range": 10.0, "class": "mistake"},
               {"loss": 1.0, "ev_range": 0.0, "class": "inaccuracy"}, {"loss": 0.2, "ev_range": 5.0, "class": "good"}]
    t = tally(entries)
    # 5.2 points given away of 25 that the worst moves would have given away: 100 * (1 - 5.2 / 25) = 79.2
    assert t["points_given_away"] == 5.2 and t["accuracy"] == 79.2 and t["mean_loss"] == 1.3
    assert t["good_share"] == 0.5 and (t["inaccuracies"], t["mistakes"], t["blunders"]) == (1, 1, 0)


def _export(tmp_path, log):
    path = tmp_path / "game.ndjson"
    path.write_text("".join(json.dumps({**events.encode(e), "version": v, "ts": 0}) + "\n"
                            for v, e in enumerate(log, start=1)), encoding="utf-8")
    return path


def test_the_command_prints_a_summary_and_writes_the_same_json_twice(tmp_path, capsys):
    path = _export(tmp_path, _wall_log(LOW_POOL))
    assert cli.main(["analyse", str(path), "--samples", "3", "--seed", "4", "--out", str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr()
    assert "accuracy" in out.out and "ann" in out.out and "decisions" in out.err
    assert cli.main(["analyse", str(path), "--samples", "3", "--seed", "4", "--out", str(tmp_path / "b.json")]) == 0
    first = (tmp_path / "a.json").read_bytes()
    assert first == (tmp_path / "b.json").read_bytes()
    result = json.loads(first)
    assert result["analysis_version"] == 1 and result["method"]["samples"] == 3
    assert result["seats"][N]["decisions"] == len(_seat_entries(result, N)) > 0
    assert cli.main(["analyse", str(path), "--samples", "3"]) == 0
    assert (tmp_path / "game.analysis.json").exists()


def test_the_command_refuses_what_is_no_export(tmp_path, capsys):
    bad = tmp_path / "bad.ndjson"
    bad.write_text('{"version": 1, "type": "nothing", "v": 1, "data": {}}\n', encoding="utf-8")
    assert cli.main(["analyse", str(bad)]) == 1
    assert "ginbox analyse" in capsys.readouterr().err
    assert cli.main(["analyse", str(tmp_path / "missing.ndjson")]) == 2
