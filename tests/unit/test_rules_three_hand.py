"""Three-handed box gin: roles by cut, rotation, scores per player, advice (RULES.md §2)."""

from __future__ import annotations

import pytest

from service.rules import cards, fairness
from service.rules import game as G
from service.rules.commands import Advise, DrawStock, PassUpcard
from service.rules.errors import RulesError
from service.rules.events import AdviceGiven, CardsCut, RolesAssigned

from support.rules import P_KNOCK, P_UNDERCUT, deck_of, new_table

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def rank(code: str) -> int:
    # ace low (0) .. king high (12)
    return "A23456789TJQK".index(code[0])


def seed_where(predicate, limit=20000) -> bytes:
    """The first seed b"cut-<i>" whose round-0 cut of three satisfies ``predicate(ranks)``."""
    for i in range(limit):
        seed = b"cut-%d" % i
        if predicate([rank(c) for c in fairness.cut_cards(seed, 0, 3)]):
            return seed
    raise AssertionError("no such seed")


def cut_game(seed):
    t = new_table("three-hand", seed=seed)
    cuts = [e for e in t.events if isinstance(e, CardsCut)]
    roles = [e for e in t.events if isinstance(e, RolesAssigned)]
    assert len(roles) == 1 and roles[0].reason == "cut"
    return t, cuts, roles[0]


# --------------------------------------------------------------------------- roles by cut


def test_cut_gives_highest_the_box_middle_the_captain_lowest_the_advisor_rules_2_roles():
    """§2 Roles: highest card in the box, middle captain, lowest advisor."""
    seed = seed_where(lambda r: len(set(r)) == 3)
    t, cuts, roles = cut_game(seed)
    assert len(cuts) == 1 and cuts[0].seats == (0, 1, 2) and cuts[0].purpose == "roles"
    by_rank = sorted(range(3), key=lambda i: rank(cuts[0].cards[i]), reverse=True)
    assert (roles.box, roles.captain, roles.advisor) == tuple(cuts[0].seats[i] for i in by_rank)
    assert t.state.roles == {"box": roles.box, "captain": roles.captain, "advisor": roles.advisor}
    assert t.state.dealer == roles.box and t.state.to_act == (roles.captain,)


def test_cut_ranks_ace_low_and_king_high_rules_1_cards_and_2_roles():
    """§1 "Ace is always low": an ace cut is lower than every other card."""
    seed = seed_where(lambda r: 0 in r and 12 in r and len(set(r)) == 3)
    _, cuts, roles = cut_game(seed)
    ranks = [rank(c) for c in cuts[0].cards]
    assert cuts[0].seats[ranks.index(12)] == roles.box
    assert cuts[0].seats[ranks.index(0)] == roles.advisor


def test_tie_for_highest_is_cut_again_between_the_tied_players_rules_2_decision():
    """§2 [decision] "Ties on rank are cut again among the tied players; every cut is recorded"."""
    seed = seed_where(lambda r: sorted(r)[1] == sorted(r)[2] != sorted(r)[0])
    _, cuts, roles = cut_game(seed)
    first = [rank(c) for c in cuts[0].cards]
    low_seat = cuts[0].seats[first.index(min(first))]
    tied = tuple(s for s in cuts[0].seats if s != low_seat)
    assert roles.advisor == low_seat
    # the tied pair re-cuts (perhaps several times) until their ranks differ
    assert len(cuts) >= 2 and all(c.seats == tied for c in cuts[1:])
    assert [c.round for c in cuts] == list(range(len(cuts)))
    last = [rank(c) for c in cuts[-1].cards]
    assert last[0] != last[1]
    assert roles.box == tied[last.index(max(last))] and roles.captain == tied[last.index(min(last))]


def test_tie_for_lowest_is_cut_again_for_captain_and_advisor_rules_2_decision():
    seed = seed_where(lambda r: sorted(r)[0] == sorted(r)[1] != sorted(r)[2])
    _, cuts, roles = cut_game(seed)
    first = [rank(c) for c in cuts[0].cards]
    high_seat = cuts[0].seats[first.index(max(first))]
    assert roles.box == high_seat
    tied = tuple(s for s in cuts[0].seats if s != high_seat)
    assert all(c.seats == tied for c in cuts[1:])
    last = [rank(c) for c in cuts[-1].cards]
    assert roles.captain == tied[last.index(max(last))] and roles.advisor == tied[last.index(min(last))]


def test_three_way_tie_is_cut_again_by_all_three_rules_2_decision():
    seed = seed_where(lambda r: len(set(r)) == 1)
    _, cuts, roles = cut_game(seed)
    assert len(cuts) >= 2 and cuts[1].seats == (0, 1, 2)
    assert sorted((roles.box, roles.captain, roles.advisor)) == [0, 1, 2]


def test_explicit_roles_replace_the_cut_rules_2_roles():
    """§2 "Roles may instead be given explicitly when the game is created"."""
    t = new_table("three-hand", roles={"box": 2, "captain": 0, "advisor": 1})
    assert not [e for e in t.events if isinstance(e, CardsCut)]
    assert t.events[1] == RolesAssigned(2, 0, 1, "explicit")
    assert t.state.randomly_dealt is False


@pytest.mark.parametrize(
    "roles",
    [{"box": 0, "captain": 0, "advisor": 1}, {"box": 0, "captain": 1}, {"box": 0, "captain": 1, "advisor": 3}],
)
def test_invalid_explicit_roles_are_refused(roles):
    with pytest.raises(RulesError) as err:
        new_table("three-hand", roles=roles)
    assert err.value.code == "invalid_roles"


# --------------------------------------------------------------------------- rotation


def knock_hand(t, pattern_discard):
    """Both pass, the captain draws the stock's top card and knocks."""
    box, captain, _ = t.state.roles["box"], t.state.roles["captain"], None
    t.do(captain, PassUpcard())
    t.do(box, PassUpcard())
    t.do(captain, DrawStock())
    return t.knock(captain, pattern_discard)


def test_box_winning_stays_in_the_box_and_captain_and_advisor_swap_rules_2_rotation():
    """§2 "The box won the hand: the box stays in the box; captain and advisor swap"."""
    t = new_table("three-hand", decks=[deck_of(P_UNDERCUT), deck_of(P_KNOCK)], roles=ROLES)
    new = knock_hand(t, "2D")
    # undercut: box (seat 0) scores 10 + (9 - 1) = 18
    assert new[1].winner == 0 and new[1].points == 18
    assert new[2] == RolesAssigned(0, 2, 1, "box_won")
    assert t.state.roles == {"box": 0, "captain": 2, "advisor": 1}
    # the box deals hand 2 to the new captain; the new advisor (seat 1) gets no cards
    d = deck_of(P_KNOCK)
    assert set(cards.codes_of(t.state.hands[2])) == set(d[0:20:2])
    assert set(cards.codes_of(t.state.hands[0])) == set(d[1:20:2])
    assert t.state.hands[1] == 0 and t.state.to_act == (2,)


def test_box_losing_sits_out_captain_takes_the_box_advisor_becomes_captain_rules_2_rotation():
    """§2 "The box lost: the box becomes advisor, the captain goes into the box, the advisor
    becomes captain"."""
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    new = knock_hand(t, "9H")
    # the captain (seat 1) wins 29 - 2 = 27
    assert new[1].winner == 1 and new[1].points == 27
    assert new[2] == RolesAssigned(1, 2, 0, "box_lost")
    assert t.state.dealer == 1 and t.state.non_dealer == 2 and t.state.hands[0] == 0


def test_scores_belong_to_players_not_roles_and_the_advisor_never_scores_rules_2():
    """§2 "Scores belong to players, not roles"; "The advisor never scores"."""
    t = new_table("three-hand", decks=[deck_of(P_KNOCK), deck_of(P_UNDERCUT)], roles=ROLES)
    knock_hand(t, "9H")  # seat 1 (captain) +27, then seat 1 is the box
    assert t.state.scores == [0, 27, 0]
    knock_hand(t, "2D")  # captain = seat 2 knocks with K = 9 vs D = 1: the box (seat 1) +18
    assert t.state.scores == [0, 45, 0]
    assert t.state.roles == {"box": 1, "captain": 0, "advisor": 2}


# --------------------------------------------------------------------------- advice


def test_advisor_advice_is_recorded_and_changes_nothing_in_play_rules_2_decision():
    """§2 [decision] "Advice is a message ... it has no effect on play"."""
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    before = t.state
    new = t.do(2, Advise("take the jack"))
    assert new == [AdviceGiven(2, 1, 1, "take the jack")]
    s = t.state
    assert (s.phase, s.to_act, s.hands, s.pile, s.scores) == (
        before.phase, before.to_act, before.hands, before.pile, before.scores
    )
    assert G.legal_moves(s, 1) == G.legal_moves(before, 1)


@pytest.mark.parametrize("seat", [0, 1])
def test_only_the_advisor_advises_rules_2(seat):
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, seat, Advise("pass"))
    assert err.value.code == "not_advisor"


def test_the_advisor_does_not_play_for_the_team_rules_2_decision():
    """§2 [decision] "only the captain's moves are played for the team"."""
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    assert G.legal_moves(t.state, 2) == []
    with pytest.raises(RulesError) as err:
        G.decide(t.state, 2, PassUpcard())
    # the role never plays, whatever the moment: refused as forbidden (403 on the wire), not as a turn
    assert (err.value.code, err.value.forbidden, err.value.conflict) == ("forbidden", True, False)


@pytest.mark.parametrize("text", ["", "   ", "x" * 501])
def test_empty_or_overlong_advice_is_refused(text):
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, 2, Advise(text))
    assert err.value.code == "invalid_command"


def test_advice_before_the_game_starts_is_refused():
    t = new_table("three-hand", players=[{"name": "ann"}, None, None], roles=ROLES)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, 2, Advise("hello"))
    assert err.value.code == "game_not_started"
