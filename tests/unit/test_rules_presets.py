"""Presets: ``rules`` on creation expands to a variant's options (RULES.md §5 Presets).

Each expected dict is the §5 table's row written out by hand over the §4 defaults.
"""

from __future__ import annotations

import pytest

from service.rules import audit, game, views
from service.rules.errors import RulesError
from service.rules.events import HandScored, decode, encode
from service.rules.presets import PRESET_NAMES, resolve

from support.rules import P_GIN, P_UNDERCUT, deck_of, new_table

#: §4's gin-rami defaults with every §5 extension off
GIN_RAMI_DEFAULTS = {
    "target_score": 100, "knock_limit": 10, "gin_bonus": 20, "big_gin_bonus": 30,
    "gin_adds_deadwood": False, "undercut_bonus": 10, "max_turns_per_hand": 200,
    "turn_timeout_s": None, "client_seed_wait_s": None,
    "box_bonus": 0, "game_bonus": 0, "shutout_bonus": 0, "shutout_doubles": False,
    "oklahoma": False, "oklahoma_spades_double": False, "hollywood": False,
}
#: eaai: gin 25 + deadwood, no big gin, undercut 25, knock 10, to 100, no bonuses
EAAI = dict(GIN_RAMI_DEFAULTS, gin_bonus=25, gin_adds_deadwood=True, big_gin_bonus=None, undercut_bonus=25)
#: standard: eaai with box bonus 25, game bonus 100, shutout doubles
STANDARD = dict(EAAI, box_bonus=25, game_bonus=100, shutout_doubles=True)
#: oklahoma: standard with oklahoma (knock_limit then null), spades double, to 150
OKLAHOMA = dict(STANDARD, oklahoma=True, oklahoma_spades_double=True, knock_limit=None, target_score=150)
#: hollywood: standard with hollywood
HOLLYWOOD = dict(STANDARD, hollywood=True)


def test_the_presets_are_those_of_the_table():
    assert PRESET_NAMES == ("gin-rami", "box-gin", "eaai", "openspiel", "standard", "oklahoma", "hollywood")


@pytest.mark.parametrize("rules, variant, expected", [
    ("gin-rami", "gin-rami", GIN_RAMI_DEFAULTS),
    ("eaai", "gin-rami", EAAI),
    ("openspiel", "gin-rami", EAAI),
    ("standard", "gin-rami", STANDARD),
    ("oklahoma", "gin-rami", OKLAHOMA),
    ("hollywood", "gin-rami", HOLLYWOOD),
])
def test_a_preset_expands_to_its_options(rules, variant, expected):
    assert resolve(variant, rules, None) == expected


def test_box_gin_is_three_hands_defaults():
    # §2/§4: gin 25 + deadwood, no big gin, undercut 10
    assert resolve("three-hand", "box-gin", {}) == dict(
        GIN_RAMI_DEFAULTS, gin_bonus=25, big_gin_bonus=None, gin_adds_deadwood=True)


def test_explicit_options_override_the_preset():
    got = resolve("gin-rami", "eaai", {"undercut_bonus": 10, "target_score": 50})
    assert got == dict(EAAI, undercut_bonus=10, target_score=50)


def test_oklahoma_turned_off_brings_back_a_knock_limit():
    got = resolve("gin-rami", "oklahoma", {"oklahoma": False, "knock_limit": 7})
    assert got == dict(STANDARD, target_score=150, knock_limit=7)


@pytest.mark.parametrize("variant, rules, options, code", [
    ("gin-rami", "Hollywood", None, "unknown_rules"),
    ("three-hand", "hollywood", None, "rules_not_for_variant"),
    ("three-hand", "box-gin", {"hollywood": True}, "option_not_for_variant"),
    ("gin-rami", "EAAI", None, "unknown_rules"),
    ("gin-rami", 3, None, "unknown_rules"),
    ("gin-rami", "box-gin", None, "rules_not_for_variant"),
    ("three-hand", "eaai", None, "rules_not_for_variant"),
    ("gin-rami", "oklahoma", {"knock_limit": 7}, "rules_conflict"),
    ("gin-rami", "eaai", {"undercut_bonus": -1}, "invalid_option"),
    ("gin-rami", "eaai", {"no_such_option": 1}, "invalid_option"),
])
def test_bad_rules_are_refused(variant, rules, options, code):
    with pytest.raises(RulesError) as err:
        resolve(variant, rules, options)
    assert err.value.code == code and not err.value.conflict


def test_a_refused_preset_creates_nothing():
    with pytest.raises(RulesError) as err:
        game.start(game.GameSpec("gin-rami", [{"name": "a"}, {"name": "b"}], rules="box-gin", seed=b"x"))
    assert err.value.code == "rules_not_for_variant"


def test_the_log_and_the_view_state_the_preset_and_its_options():
    t = new_table("gin-rami", rules="standard")
    created = t.events[0]
    assert created.rules == "standard" and created.options == STANDARD
    wire = encode(created)
    assert wire["data"]["rules"] == "standard" and decode(wire) == created
    view = views.view_state(t.state, None)
    assert view["rules"] == "standard" and view["options"] == STANDARD


def test_a_game_without_a_preset_says_none_and_its_event_omits_it():
    t = new_table("gin-rami")
    assert t.events[0].rules is None and "rules" not in encode(t.events[0])["data"]
    assert views.view_state(t.state, None)["rules"] is None


def test_eaai_scores_gin_25_plus_deadwood():
    """P_GIN: the knocker goes gin; the defender's own melds leave 5C = 5: 25 + 5 = 30."""
    t = new_table("gin-rami", decks=[deck_of(P_GIN)], first_dealer=0, rules="eaai")
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    scored = next(e for e in t.knock(1, "KH") if isinstance(e, HandScored))
    assert (scored.outcome, scored.winner, scored.points) == ("gin", 1, 30)


def test_eaai_scores_an_undercut_25_plus_the_difference():
    """P_UNDERCUT: K = 9, D = 1: the defender scores 25 + (9 - 1) = 33."""
    t = new_table("gin-rami", decks=[deck_of(P_UNDERCUT)], first_dealer=0, rules="eaai")
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    scored = next(e for e in t.knock(1, "2D") if isinstance(e, HandScored))
    assert (scored.outcome, scored.winner, scored.points) == ("undercut", 0, 33)


@pytest.mark.parametrize("rules", ["eaai", "oklahoma"])
def test_a_preset_game_passes_the_audit(rules):
    t = new_table("gin-rami", decks=[deck_of(P_UNDERCUT)], first_dealer=0, rules=rules,
                  options={"target_score": 20})
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    # an undercut, K = 9, D = 1: eaai 25 + 8 = 33; oklahoma's upcard KS (limit 10) is a spade:
    # (25 + 8) x 2 = 66, then the standard bonuses: 66 + 1 hand x 25 + 100 = 191, doubled
    # (a shutout) = 382
    t.knock(1, "2D")
    assert t.state.status == "over"
    assert t.state.scores == ([33, 0] if rules == "eaai" else [382, 0])
    report = audit.verify([encode(e) for e in t.events], t.state.seed)
    assert report["ok"], report
