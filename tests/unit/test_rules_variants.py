"""Variants and rule options: defaults and validation (RULES.md §2, §3, §4)."""

from __future__ import annotations

import pytest

from service.rules import game as G
from service.rules import variants as V
from service.rules.errors import RulesError

from support.rules import new_table


def test_three_hand_defaults_rules_4():
    """§4 table, three-hand column."""
    assert V.normalise_options("three-hand", None) == {
        "target_score": 100,
        "knock_limit": 10,
        "gin_bonus": 25,
        "big_gin_bonus": None,
        "gin_adds_deadwood": True,
        "undercut_bonus": 10,
        "max_turns_per_hand": 200,
        "turn_timeout_s": None,  # extension: no turn clock unless asked for
        "client_seed_wait_s": None,  # extension: the deal waits for no client seed unless asked for
        # extensions of §5, all off: no end-of-game bonus, no Oklahoma
        "box_bonus": 0,
        "game_bonus": 0,
        "shutout_bonus": 0,
        "shutout_doubles": False,
        "oklahoma": False,
        "oklahoma_spades_double": False,
        "hollywood": False,
    }


def test_gin_rami_defaults_rules_4():
    """§4 table, gin-rami column."""
    assert V.normalise_options("gin-rami", {}) == {
        "target_score": 100,
        "knock_limit": 10,
        "gin_bonus": 20,
        "big_gin_bonus": 30,
        "gin_adds_deadwood": False,
        "undercut_bonus": 10,
        "max_turns_per_hand": 200,
        "turn_timeout_s": None,  # extension: no turn clock unless asked for
        "client_seed_wait_s": None,  # extension: the deal waits for no client seed unless asked for
        # extensions of §5, all off: no end-of-game bonus, no Oklahoma
        "box_bonus": 0,
        "game_bonus": 0,
        "shutout_bonus": 0,
        "shutout_doubles": False,
        "oklahoma": False,
        "oklahoma_spades_double": False,
        "hollywood": False,
    }


def test_game_created_records_every_option_value_rules_4():
    t = new_table("gin-rami", options={"target_score": 50})
    created = t.events[0]
    assert created.options["target_score"] == 50 and created.options["gin_bonus"] == 20
    assert t.state.options == created.options and len(created.options) == 16
    assert created.rules_version == V.RULES_VERSION


@pytest.mark.parametrize(
    "options",
    [
        {"target": 100},
        {"target_score": 0},
        {"target_score": "100"},
        {"target_score": True},
        {"knock_limit": -1},
        {"knock_limit": 10.5},
        {"gin_bonus": None},
        {"big_gin_bonus": -5},
        {"gin_adds_deadwood": 1},
        {"undercut_bonus": -1},
        {"max_turns_per_hand": 0},
        ["target_score", 100],
    ],
)
def test_invalid_options_are_refused_rules_4(options):
    with pytest.raises(RulesError) as err:
        V.normalise_options("gin-rami", options)
    assert err.value.code == "invalid_option" and not err.value.conflict


def test_big_gin_bonus_null_disables_big_gin_rules_4():
    assert V.normalise_options("gin-rami", {"big_gin_bonus": None})["big_gin_bonus"] is None

    def big_gin_allowed(variant, options=None):
        players = [{"name": name} for name in "abc"[: V.VARIANTS[variant].seats]]
        return G.replay(G.start(G.GameSpec(variant, players, options, seed=b"x"))).big_gin

    assert not big_gin_allowed("three-hand")
    assert big_gin_allowed("gin-rami")
    assert not big_gin_allowed("gin-rami", {"big_gin_bonus": None})


def test_unknown_variant_is_refused():
    with pytest.raises(RulesError) as err:
        G.start(G.GameSpec("four-hand", [None] * 4, seed=b"x"))
    assert err.value.code == "invalid_variant"


@pytest.mark.parametrize(
    "kwargs, code",
    [
        (dict(variant="gin-rami", players=[{"name": "a"}]), "invalid_players"),
        (dict(variant="three-hand", players=[{"name": "a"}, {"name": "b"}]), "invalid_players"),
        (dict(variant="gin-rami", players=["ann", "bob"]), "invalid_players"),
        (dict(variant="gin-rami", players=[None, None], seed=None), "invalid_seed"),
        (dict(variant="gin-rami", players=[None, None], seed="text"), "invalid_seed"),
        (dict(variant="gin-rami", players=[None, None], seed=b""), "invalid_seed"),
        (dict(variant="gin-rami", players=[None, None], decks=[["AC"] * 52]), "invalid_deck"),
        (dict(variant="gin-rami", players=[None, None], decks=[["AC", "2C"]]), "invalid_deck"),
        (dict(variant="gin-rami", players=[None, None], roles={"box": 0, "captain": 1, "advisor": 2}), "invalid_roles"),
        (dict(variant="gin-rami", players=[None, None], first_dealer=2), "invalid_first_dealer"),
        (dict(variant="three-hand", players=[None] * 3, first_dealer=0), "invalid_first_dealer"),
        (dict(variant="gin-rami", players=[None, None], options={"knock_limit": 200}), "invalid_option"),
    ],
)
def test_invalid_specs_are_refused(kwargs, code):
    kwargs.setdefault("seed", b"seed")
    with pytest.raises(RulesError) as err:
        G.start(G.GameSpec(**kwargs))
    assert err.value.code == code and not err.value.conflict


def test_variants_have_their_seat_counts_rules_2_and_3():
    assert V.get_variant("three-hand").seats == 3 and V.get_variant("gin-rami").seats == 2


def test_turn_timeout_is_an_optional_extension_with_bounds():
    assert V.normalise_options("gin-rami", {"turn_timeout_s": 30})["turn_timeout_s"] == 30
    assert V.normalise_options("gin-rami", {"turn_timeout_s": None})["turn_timeout_s"] is None
    for bad in (0, 86_401, "30", 1.5, True):
        with pytest.raises(RulesError) as err:
            V.normalise_options("three-hand", {"turn_timeout_s": bad})
        assert err.value.code == "invalid_option"


def test_a_timed_out_turn_is_recorded_before_the_move_played_for_the_seat():
    from service.rules import commands as K
    from service.rules.events import TurnTimedOut

    t = new_table("gin-rami", options={"turn_timeout_s": 30})
    seat = t.state.to_act[0]
    before = t.state
    events = G.decide(before, seat, K.PlayTimedOutTurn(K.PassUpcard()))
    # the marker first, then exactly the events the seat's own pass would have caused
    assert events[0] == TurnTimedOut(seat, before.hand_no)
    assert events[1:] == G.decide(before, seat, K.PassUpcard())
    after = G.replay(list(t.events) + events)
    assert after.to_act != (seat,) and after.version == before.version + len(events)
    # it is no wire command: a client cannot claim to be the clock
    with pytest.raises(RulesError):
        K.command_from_dict({"type": "play_timed_out_turn", "move": {"type": "pass_upcard"}})
    # and it plays only moves
    with pytest.raises(RulesError):
        G.decide(before, seat, K.PlayTimedOutTurn(K.Advise("hi")))
