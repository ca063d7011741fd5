"""Hollywood (RULES.md §5): one deal of hands scored into three games at once, worked out by hand.

Every game here is gin rami with first_dealer=0: seat 0 (ann) deals hand 1, so bob (seat 1) is
the non-dealer of the odd hands and ann of the even ones. The hands are support.rules' patterns,
played by ``knock``: both pass the upcard, the non-dealer draws the stock's top card and knocks.
Under gin rami's defaults (gin 20 flat, undercut 10):

- P_KNOCK: the non-dealer knocks, K = 2, D = 29: the non-dealer scores 27.
- P_UNDERCUT: the non-dealer knocks keeping 9H, K = 9, D = 1: the dealer scores 10 + 8 = 18.
- P_GIN: the non-dealer goes gin: 20.
"""

from __future__ import annotations

import json

import pytest

from service.rules import audit, game, rulesets, views
from service.rules.commands import Resign
from service.rules.errors import RulesError
from service.rules.events import GameEnded, HandDrawn, HandScored, decode, encode

from support.rules import P_GIN, P_KNOCK, P_UNDERCUT, deck_of, new_table

ANN, BOB = 0, 1
#: (pattern, the non-dealer's discard to knock with) of each kind of hand
KNOCK, UNDERCUT, GIN = (P_KNOCK, "9H"), (P_UNDERCUT, "2D"), (P_GIN, "KH")


def knock(t, hand):
    """Plays one hand of the pattern ``hand``; the events it made."""
    pattern, discard = hand
    nd = t.state.non_dealer
    t.pass_(nd)
    t.pass_(t.state.dealer)
    t.stock(nd)
    return t.knock(nd, discard)


def hollywood_table(hands, **options):
    return new_table("gin-rami", decks=[deck_of(p) for p, _ in hands], first_dealer=0,
                     options={"hollywood": True, **options})


def game_scores(t):
    return [g["scores"] for g in views.view_state(t.state, None)["hollywood"]["games"]]


# -- the worked sheet of RULES.md §5 Hollywood -----------------------------------------------------

#: target 50, box bonus 10, game bonus 20, shutouts doubled.
#: Each line: the hand, its winner, its points, the games it goes into, then each game's scores
#: after it (ann, bob) and the games it ends, and the overall scores (the sum of the three).
#:
#: 1 KNOCK,    bob nd:  bob +27, his 1st win -> game 1.                G1 0-27
#: 2 KNOCK,    ann nd:  ann +27, her 1st     -> game 1.                G1 27-27
#: 3 KNOCK,    bob nd:  bob +27, his 2nd     -> games 1, 2.            G1 27-54: over, bob wins it.
#:    G1's bonuses: hands in it ann 1, bob 2 -> box 10 and 20; game 20 to bob; ann won a hand in
#:    it, so no shutout. Totals: ann 27 + 10 = 37, bob 54 + 20 + 20 = 94.        G2 0-27
#: 4 UNDERCUT, ann nd:  bob +18, his 3rd     -> games 2, 3 (1 is over). G2 0-45, G3 0-18
#: 5 GIN,      bob nd:  bob +20, his 4th     -> games 2, 3.            G2 0-65: over, bob wins it.
#:    G2's bonuses: hands in it ann 0, bob 3 -> box 30 to bob; game 20; ann has no hand in it: a
#:    shutout, bob's total doubled: (65 + 30 + 20) x 2 = 230. Ann 0.            G3 0-38
#: 6 KNOCK,    ann nd:  ann +27, her 2nd     -> games 1, 2: both over: it goes nowhere.
#: 7 UNDERCUT, bob nd:  ann +18, her 3rd     -> game 3.                G3 18-38
#: 8 KNOCK,    ann nd:  ann +27, her 4th     -> game 3.                G3 45-38
#: 9 UNDERCUT, bob nd:  ann +18, her 5th     -> game 3.                G3 63-38: over, ann wins it.
#:    G3's bonuses: hands in it ann 3, bob 2 -> box 30 and 20; game 20 to ann; no shutout.
#:    Totals: ann 63 + 30 + 20 = 113, bob 38 + 20 = 58.
#: Overall: ann 37 + 0 + 113 = 150, bob 94 + 230 + 58 = 382: bob wins the whole, and games 1 and 2.
WORKED = [
    # hand, winner, points, entered, (G1, G2, G3) scores after, ended, overall
    (KNOCK, BOB, 27, [1], ([0, 27], [0, 0], [0, 0]), [], [0, 27]),
    (KNOCK, ANN, 27, [1], ([27, 27], [0, 0], [0, 0]), [], [27, 27]),
    (KNOCK, BOB, 27, [1, 2], ([37, 94], [0, 27], [0, 0]), [1], [37, 121]),
    (UNDERCUT, BOB, 18, [2, 3], ([37, 94], [0, 45], [0, 18]), [], [37, 157]),
    (GIN, BOB, 20, [2, 3], ([37, 94], [0, 230], [0, 38]), [2], [37, 362]),
    (KNOCK, ANN, 27, [], ([37, 94], [0, 230], [0, 38]), [], [37, 362]),
    (UNDERCUT, ANN, 18, [3], ([37, 94], [0, 230], [18, 38]), [], [55, 362]),
    (KNOCK, ANN, 27, [3], ([37, 94], [0, 230], [45, 38]), [], [82, 362]),
    (UNDERCUT, ANN, 18, [3], ([37, 94], [0, 230], [113, 58]), [3], [150, 382]),
]
WORKED_OPTIONS = {"target_score": 50, "box_bonus": 10, "game_bonus": 20, "shutout_doubles": True}


def play_worked():
    t = hollywood_table([hand for hand, *_ in WORKED], **WORKED_OPTIONS)
    for number, (hand, winner, points, entered, games, ended, overall) in enumerate(WORKED, start=1):
        assert t.state.status == "playing", number
        scored = next(e for e in knock(t, hand) if isinstance(e, HandScored))
        assert (scored.hand_no, scored.winner, scored.points) == (number, winner, points)
        assert scored.hollywood["entered"] == entered, number
        assert list(scored.scores) == overall and t.state.scores == overall, number
        assert game_scores(t) == list(games), number
        assert t.state.results[-1]["hollywood"] == {"entered": entered, "scores": list(games), "ended": ended}
    return t


def test_the_worked_sheet_game_by_game():
    t = play_worked()
    assert t.state.status == "over" and t.state.winner == BOB
    ended = t.last(GameEnded)
    assert (ended.winner, list(ended.scores), ended.bonuses) == (BOB, [150, 382], None)
    g1, g2, g3 = views.view_state(t.state, None)["hollywood"]["games"]
    assert g1 == {"game": 1, "hand_points": [27, 54], "hands_won": [1, 2], "scores": [37, 94], "over": True,
                  "winner": BOB, "bonuses": {
                      "hand_points": [27, 54], "hands_won": [1, 2], "box_bonus": [10, 20], "game_bonus": [0, 20],
                      "shutout": False, "shutout_bonus": [0, 0], "shutout_doubling": [0, 0], "totals": [37, 94]}}
    assert g2["winner"] == BOB and g2["hands_won"] == [0, 3] and g2["bonuses"] == {
        "hand_points": [0, 65], "hands_won": [0, 3], "box_bonus": [0, 30], "game_bonus": [0, 20],
        "shutout": True, "shutout_bonus": [0, 0], "shutout_doubling": [0, 115], "totals": [0, 230]}
    assert g3["winner"] == ANN and g3["hand_points"] == [63, 38] and g3["hands_won"] == [3, 2]
    assert g3["bonuses"]["totals"] == [113, 58] and g3["bonuses"]["shutout"] is False
    # the game_ended event records the three games as they ended
    assert [g["scores"] for g in ended.hollywood["games"]] == [[37, 94], [0, 230], [113, 58]]


def test_the_view_counts_every_win_and_says_where_the_next_one_goes():
    t = hollywood_table([hand for hand, *_ in WORKED[:6]], **WORKED_OPTIONS)
    sheet = views.view_state(t.state, None)["hollywood"]
    assert sheet["hands_won"] == [0, 0] and sheet["next_win_enters"] == [[1], [1]]
    for hand, *_ in WORKED[:3]:
        knock(t, hand)
    # ann won 1 hand (next: games 1, 2, but 1 is over), bob 2 (next: all three, but 1 is over)
    sheet = views.view_state(t.state, None)["hollywood"]
    assert sheet["hands_won"] == [1, 2] and sheet["next_win_enters"] == [[2], [2, 3]]
    for hand, *_ in WORKED[3:5]:
        knock(t, hand)
    # games 1 and 2 over: ann's 2nd win would go nowhere, bob's next into game 3
    sheet = views.view_state(t.state, None)["hollywood"]
    assert sheet["hands_won"] == [1, 4] and sheet["next_win_enters"] == [[], [3]]
    assert [g["over"] for g in sheet["games"]] == [True, True, False]


def test_the_hand_after_a_game_ends_is_dealt_as_usual():
    """Game 1 ends at hand 3 of the worked sheet; the match goes on and the deal alternates."""
    t = hollywood_table([hand for hand, *_ in WORKED[:4]], **WORKED_OPTIONS)
    for hand, *_ in WORKED[:3]:
        events = knock(t, hand)
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.next_dealer == BOB and t.state.dealer == BOB and t.state.hand_no == 4
    assert not any(isinstance(e, GameEnded) for e in t.events)


# -- edge cases ----------------------------------------------------------------------------------


def test_one_hand_ends_two_games_and_a_win_can_go_nowhere():
    """Target 25, no bonuses.
    1 UNDERCUT, bob nd: ann +18, her 1st -> G1 18-0.
    2 KNOCK,    ann nd: ann +27, her 2nd -> G1 45-0 and G2 27-0: both over at once, ann wins both.
    3 KNOCK,    bob nd: bob +27, his 1st -> game 1, over: nowhere. Scores unchanged.
    4 KNOCK,    ann nd: ann +27, her 3rd -> G3 27-0: over. Ann wins the three, 45 + 27 + 27 = 99 to 0.
    No bonus is on: each game's scores are its hand points and its bonuses null."""
    t = hollywood_table([UNDERCUT, KNOCK, KNOCK, KNOCK], target_score=25)
    knock(t, UNDERCUT)
    assert game_scores(t) == [[18, 0], [0, 0], [0, 0]]
    knock(t, KNOCK)
    assert game_scores(t) == [[45, 0], [27, 0], [0, 0]]
    assert t.state.results[-1]["hollywood"]["ended"] == [1, 2]
    assert views.view_state(t.state, None)["hollywood"]["next_win_enters"] == [[3], []]
    scored = next(e for e in knock(t, KNOCK) if isinstance(e, HandScored))
    assert (scored.winner, scored.points, scored.hollywood["entered"]) == (BOB, 27, [])
    assert game_scores(t) == [[45, 0], [27, 0], [0, 0]] and t.state.scores == [72, 0]
    knock(t, KNOCK)
    assert t.state.status == "over" and t.state.winner == ANN and t.state.scores == [99, 0]
    games = views.view_state(t.state, None)["hollywood"]["games"]
    assert [g["winner"] for g in games] == [ANN, ANN, ANN]
    assert [g["bonuses"] for g in games] == [None, None, None]
    assert [g["hands_won"] for g in games] == [[2, 0], [1, 0], [1, 0]]


def test_a_shutout_is_per_game():
    """Target 20, shutout_bonus 50. 1 KNOCK, bob nd: bob +27 -> G1 0-27: over, ann has no hand in
    it: 27 + 50 = 77. 2 KNOCK, ann nd: ann +27, her 1st -> game 1, over: nowhere.
    3 KNOCK, bob nd: bob +27, his 2nd -> game 2: 0-27, ann has no hand in game 2 either: 77.
    4 KNOCK, ann nd: ann +27, her 2nd -> game 2, over: nowhere.
    5 KNOCK, bob nd: bob +27, his 3rd -> game 3: 0-27: a third shutout, 77. Bob: 231 to 0,
    though ann won two hands."""
    t = hollywood_table([KNOCK] * 5, target_score=20, shutout_bonus=50)
    for _ in range(5):
        knock(t, KNOCK)
    games = views.view_state(t.state, None)["hollywood"]["games"]
    assert [g["scores"] for g in games] == [[0, 77], [0, 77], [0, 77]]
    assert all(g["bonuses"]["shutout"] for g in games)
    assert t.state.scores == [0, 231] and t.state.winner == BOB
    assert views.view_state(t.state, None)["hollywood"]["hands_won"] == [2, 3]


def test_a_drawn_hand_goes_into_no_game():
    """max_turns_per_hand 1: the non-dealer's first discard draws the hand (§1 Drawn hand)."""
    t = hollywood_table([KNOCK], max_turns_per_hand=1)
    before = views.view_state(t.state, None)["hollywood"]
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    events = t.discard(1, "9H")
    assert any(isinstance(e, HandDrawn) for e in events)
    assert views.view_state(t.state, None)["hollywood"] == before and t.state.scores == [0, 0]
    assert "hollywood" not in t.state.results[-1]


def test_a_resignation_ends_the_three_games_as_they_stand():
    """After hand 3 of the worked sheet (game 1 over: 37-94; game 2 open: 0-27), ann resigns:
    bob wins, the overall scores 37-121 stand and the open games get no bonuses."""
    t = hollywood_table([hand for hand, *_ in WORKED[:4]], **WORKED_OPTIONS)
    for hand, *_ in WORKED[:3]:
        knock(t, hand)
    t.do(ANN, Resign())
    assert t.state.status == "over" and t.state.winner == BOB and t.state.scores == [37, 121]
    games = views.view_state(t.state, None)["hollywood"]["games"]
    assert [g["over"] for g in games] == [True, False, False] and games[1]["bonuses"] is None


@pytest.mark.parametrize("scores, winners, expected", [
    # overall 100 to 100: bob won two games of three, and wins
    (([100, 0], [0, 50], [0, 50]), (ANN, BOB, BOB), BOB),
    (([0, 100], [50, 0], [50, 0]), (BOB, ANN, ANN), ANN),
    # overall 300 to 120: the higher sum wins, though ann won one game only
    (([300, 0], [0, 60], [0, 60]), (ANN, BOB, BOB), ANN),
])
def test_the_overall_winner_has_the_higher_sum_and_on_equal_sums_more_games(scores, winners, expected):
    games = [{"scores": s, "winner": w} for s, w in zip(scores, winners)]
    assert rulesets.hollywood_winner(games) == expected


# -- options, the log, replays -------------------------------------------------------------------


def test_three_hand_refuses_hollywood_and_creates_nothing():
    spec = game.GameSpec("three-hand", [{"name": n} for n in ("ann", "bob", "cat")], {"hollywood": True},
                         seed=b"x")
    with pytest.raises(RulesError) as err:
        game.start(spec)
    assert err.value.code == "option_not_for_variant" and "hollywood" in err.value.message


def test_the_hollywood_preset_is_standard_with_three_games():
    """standard: gin 25 + deadwood, undercut 25, box 25, game 100, shutouts doubled. Target 20.
    1 KNOCK, bob nd: bob +27 -> G1 0-27: over, a shutout: (27 + 25 + 100) x 2 = 304."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)] * 2, first_dealer=0, rules="hollywood",
                  options={"target_score": 20})
    knock(t, KNOCK)
    assert game_scores(t) == [[0, 304], [0, 0], [0, 0]] and t.state.status == "playing"


def test_without_hollywood_nothing_of_it_shows():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, options={"target_score": 20})
    events = knock(t, KNOCK)
    assert all("hollywood" not in encode(e)["data"] for e in events)
    assert t.state.hollywood is None and views.view_state(t.state, None)["hollywood"] is None
    assert "hollywood" not in t.state.results[-1]


def test_a_hollywood_game_replays_from_its_wire_form_and_passes_the_audit():
    t = play_worked()
    wire = [json.loads(json.dumps(encode(e))) for e in t.events]
    assert game.replay(wire) == t.state and [decode(w) for w in wire] == t.events
    snapshot = json.loads(json.dumps(game.state_to_dict(t.state)))
    assert game.state_from_dict(snapshot) == t.state
    report = audit.verify(wire, t.state.seed)
    assert report["ok"], report
