"""Resigning and abandoned games, two extensions of the rules (RULES.md Extensions: Resigning,
Abandoned games): who wins, what is scored, what the state, the views, legal_moves and the audit say."""

from __future__ import annotations

import pytest

from service.rules import audit, cards, views
from service.rules import game as G
from service.rules.commands import RESIGN, AbandonGame, Resign, command_from_dict, command_to_dict
from service.rules.errors import RulesError
from service.rules.events import GameAbandoned, GameResigned, HandScored, decode, encode

from support.rules import deck, new_table

SEED = b"rules-test-seed"
ROLES = {"box": 0, "captain": 1, "advisor": 2}

# RULES.md worked example "A knock, with lay-offs": seat 0 (the non-dealer) draws the 2D and knocks
# with the 9H: K = 2, the defender lays off 4C, 7C, 3S, 2S and keeps 9C KH KS, D = 29: 29 - 2 = 27.
KNOCK_HAND = deck("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H", "2S 3S 4C 7C QD QH QS KH KS 9C", "JD", "2D")


def gin_rami_after_one_scored_hand():
    """A gin-rami game where seat 0 scored 27 in hand 1; hand 2 is dealt (seat 0 deals it)."""
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    t.pass_(0)
    t.pass_(1)
    t.stock(0)
    t.knock(0, "9H")
    assert t.last(HandScored).scores == (27, 0)
    assert t.state.hand_no == 2 and t.state.dealer == 0 and t.state.to_act == (1,)
    return t


# --------------------------------------------------------------------------- the wire form


def test_resign_is_a_move_without_fields():
    assert command_from_dict({"type": "resign"}) is RESIGN
    assert command_to_dict(Resign()) == {"type": "resign"}
    with pytest.raises(RulesError) as err:
        command_from_dict({"type": "resign", "seat": 1})
    assert err.value.code == "invalid_command"


def test_the_new_events_round_trip_through_the_registry_at_version_1():
    for event in (GameResigned(1, 0, 2, (27, 0), SEED.hex()), GameAbandoned(3600, 0, (0, 0), SEED.hex())):
        wire = encode(event)
        assert wire["v"] == 1 and decode(wire) == event


# --------------------------------------------------------------------------- resigning


def test_a_player_not_to_act_may_resign_and_the_opponent_wins_with_the_scores_as_they_stand():
    """Extensions, Resigning: any time in play; the hand in play is not scored; scores stand."""
    t = gin_rami_after_one_scored_hand()
    new = t.do(0, RESIGN)  # seat 0 leads 27 to 0 and is not to act: it may still resign
    assert new == [GameResigned(seat=0, winner=1, hand_no=2, scores=(27, 0), seed=SEED.hex())]
    s = t.state
    assert s.status == "over" and s.phase == "game_over" and s.to_act == ()
    assert s.winner == 1 and s.scores == [27, 0]  # the winner gets no points: nothing is scored
    assert s.end == {"reason": "resigned", "resigned": 0, "idle_s": None}
    assert G.legal_moves(s, 0) == [] and G.legal_moves(s, 1) == []


def test_the_player_to_act_may_resign_in_the_middle_of_a_turn():
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    t.pass_(0)
    t.pass_(1)
    t.stock(0)  # seat 0 holds eleven cards and must discard or knock
    assert t.do(0, RESIGN)[0].winner == 1
    assert t.state.winner == 1 and t.state.scores == [0, 0]


@pytest.mark.parametrize("resigner, winner", [(0, 1), (1, 0), (2, 0)])
def test_in_three_hand_the_other_side_of_the_hand_in_play_wins(resigner, winner):
    """Box 0 plays captain 1, advisised by 2: the box resigning gives the game to the captain, the
    captain or the advisor resigning gives it to the box."""
    t = new_table("three-hand", roles=ROLES)
    new = t.do(resigner, RESIGN)
    assert new == [GameResigned(resigner, winner, 1, (0, 0, 0), SEED.hex())]
    assert t.state.winner == winner and t.state.status == "over"


def test_resigning_is_refused_before_the_game_starts_after_it_ends_and_to_non_players():
    waiting = G.replay(G.start(G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED)))
    with pytest.raises(RulesError) as err:
        G.decide(waiting, 0, RESIGN)
    assert (err.value.code, err.value.conflict) == ("game_not_started", True)

    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    for actor in (None, 2, -1, "0"):
        with pytest.raises(RulesError) as err:
            G.decide(t.state, actor, RESIGN)
        assert err.value.code == "not_a_player"
    t.do(1, RESIGN)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, 0, RESIGN)
    assert (err.value.code, err.value.conflict) == ("game_over", True)


def test_resign_is_never_listed_in_legal_moves():
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    t.pass_(0)
    t.pass_(1)
    t.stock(0)
    assert all(type(c) is not Resign for c in G.legal_moves(t.state, 0))


def test_a_resigned_game_reveals_everything_to_everyone():
    t = gin_rami_after_one_scored_hand()
    hands = [cards.codes_of(mask) for mask in t.state.hands]  # ten cards each, hidden from the other
    t.do(1, RESIGN)
    for viewer in (None, 0, 1):
        v = views.view_state(t.state, viewer)
        assert v["end"] == {"reason": "resigned", "resigned": 1, "idle_s": None}
        assert v["winner"] == 0 and v["seed"] == SEED.hex() and v["legal_moves"] == []
        assert v["all_hands"] == hands and [len(h) for h in hands] == [10, 10]


def test_a_game_won_at_the_target_says_so():
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1, options={"target_score": 20})
    t.pass_(0)
    t.pass_(1)
    t.stock(0)
    t.knock(0, "9H")  # 27 >= 20
    assert t.state.status == "over" and t.state.winner == 0
    assert views.view_state(t.state, None)["end"] == {"reason": "target_score", "resigned": None, "idle_s": None}


# --------------------------------------------------------------------------- abandoned games


def test_an_abandoned_game_ends_with_no_winner_and_the_scores_as_they_stand():
    """Extensions, Abandoned games: the server ends it; nobody wins; the hand in play is not scored."""
    t = gin_rami_after_one_scored_hand()
    new = t.do(None, AbandonGame(86400))
    assert new == [GameAbandoned(idle_s=86400, hand_no=2, scores=(27, 0), seed=SEED.hex())]
    s = t.state
    assert s.status == "over" and s.winner is None and s.scores == [27, 0] and s.to_act == ()
    assert views.view_state(s, 1)["end"] == {"reason": "abandoned", "resigned": None, "idle_s": 86400}


def test_a_game_whose_seats_never_filled_can_be_abandoned():
    waiting = G.replay(G.start(G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED)))
    state, new = G.apply(waiting, None, AbandonGame(5))
    assert new == [GameAbandoned(5, 0, (0, 0), SEED.hex())]
    assert state.status == "over" and state.winner is None


@pytest.mark.parametrize("actor, command, code", [
    (0, AbandonGame(10), "invalid_command"),       # players do not abandon: they resign
    (None, AbandonGame(-1), "invalid_command"),
    (None, AbandonGame(True), "invalid_command"),
])
def test_abandoning_is_the_servers_with_a_whole_idle_time(actor, command, code):
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, actor, command)
    assert err.value.code == code
    assert t.state.status == "playing"


def test_an_ended_game_cannot_be_abandoned():
    t = new_table("gin-rami", decks=[KNOCK_HAND], first_dealer=1)
    t.do(0, RESIGN)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, None, AbandonGame(10))
    assert err.value.code == "game_over"


# --------------------------------------------------------------------------- the audit


def test_the_audit_replays_a_resigned_and_an_abandoned_game():
    for last in ((1, RESIGN), (None, AbandonGame(600))):
        t = gin_rami_after_one_scored_hand()
        t.do(*last)
        report = audit.verify(t.events, SEED)
        assert report["ok"], report
        replay = [c for c in report["checks"] if c["name"] == "replay"][0]
        assert "recorded final scores [27, 0]" in replay["detail"]


def test_the_audit_fails_a_resignation_that_names_the_wrong_winner():
    t = gin_rami_after_one_scored_hand()
    t.do(1, RESIGN)
    forged = t.events[:-1] + [GameResigned(1, 1, 2, (27, 0), SEED.hex())]
    report = audit.verify(forged, SEED)
    assert not report["ok"]
    assert [c["ok"] for c in report["checks"] if c["name"] == "replay"] == [False]
