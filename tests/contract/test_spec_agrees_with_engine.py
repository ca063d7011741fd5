"""openapi.yaml states the rules engine's enums and bounds: the variants, statuses, bot names,
card codes, move types, rule options, meld sizes and advice limit are declared once, in
service.rules, and the wire schemas take them from there; this test holds the spec to them."""

from __future__ import annotations

import itertools
import re
import string
from pathlib import Path

import pytest
import yaml

from schemas.games import MAX_DECKS, MOVE_SCHEMAS, OptionsSchema
from service.games.reads import LISTED_FIELDS
from service.rules import cards, commands, melds, names, variants, views
from service.rules.state import new_state

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(encoding="utf-8"))
COMPONENTS = SPEC["components"]["schemas"]


def component(name: str) -> dict:
    return COMPONENTS[name]


def test_the_variant_enum_is_the_engines_variants():
    assert component("Variant")["enum"] == list(variants.VARIANT_NAMES)


def test_each_variants_creation_schema_has_its_seat_count():
    creation = {"three-hand": "CreateThreeHandGame", "gin-rami": "CreateGinRamiGame"}
    assert sorted(creation) == sorted(variants.VARIANT_NAMES)
    for name, schema in creation.items():
        seats = component(schema)["properties"]["seats"]
        assert (seats["minItems"], seats["maxItems"]) == (variants.VARIANTS[name].seats,) * 2, name
        assert component(schema)["properties"]["variant"] == {"const": name}


def test_roles_first_dealer_and_decks_have_the_engines_sizes():
    roles = component("Roles")
    assert roles["required"] == list(variants.ROLE_NAMES)
    for role in variants.ROLE_NAMES:
        seat = roles["properties"][role]
        seat = component(seat["$ref"].rsplit("/", 1)[1]) if "$ref" in seat else seat
        assert (seat["minimum"], seat["maximum"]) == (0, variants.VARIANTS[variants.THREE_HAND].seats - 1)
    first_dealer = component("CreateGinRamiGame")["properties"]["first_dealer"]
    assert (first_dealer["minimum"], first_dealer["maximum"]) == (0, variants.VARIANTS[variants.GIN_RAMI].seats - 1)
    deck = component("Deck")
    assert deck["minItems"] == deck["maxItems"] == len(cards.DECK)
    assert component("Decks")["maxItems"] == MAX_DECKS


def test_the_status_enum_is_the_engines_statuses():
    assert component("Status")["enum"] == list(names.STATUSES)


def test_the_bot_strategies_are_the_engines_bot_names():
    assert component("BotStrategy")["enum"] == list(names.BOT_POLICY_NAMES)


def test_the_card_pattern_is_the_engines_and_matches_exactly_the_deck():
    assert component("Card")["pattern"] == cards.CARD_PATTERN
    two_characters = ("".join(pair) for pair in itertools.product(string.printable, repeat=2))
    assert {text for text in two_characters if re.search(cards.CARD_PATTERN, text)} == set(cards.DECK)


def test_the_move_types_are_the_engines_and_each_has_its_schema():
    move = component("Move")
    assert list(move["discriminator"]["mapping"]) == list(commands.MOVE_TYPES)
    for kind, ref in move["discriminator"]["mapping"].items():
        assert component(ref.rsplit("/", 1)[1])["properties"]["type"] == {"const": kind}
    assert list(MOVE_SCHEMAS) == list(commands.MOVE_TYPES)


def test_a_knocks_melds_have_the_engines_sizes():
    laid = component("Knock")["properties"]["melds"]["oneOf"][1]
    assert laid["maxItems"] == melds.MAX_MELDS
    assert (laid["items"]["minItems"], laid["items"]["maxItems"]) == (melds.MIN_MELD_CARDS, melds.MAX_HAND_CARDS)
    assert component("MeldsRequest")["properties"]["cards"]["maxItems"] == melds.MAX_HAND_CARDS


def test_the_advice_limit_is_the_engines():
    text = component("Advice")["properties"]["text"]
    assert text["maxLength"] == commands.MAX_ADVICE_LENGTH
    assert f"1 to {commands.MAX_ADVICE_LENGTH} characters" in text["description"]


def test_the_options_are_the_engines_options():
    assert sorted(component("Options")["properties"]) == sorted(variants.OPTION_NAMES)
    assert sorted(OptionsSchema().fields) == sorted(variants.OPTION_NAMES)


@pytest.mark.parametrize("name", variants.OPTION_NAMES)
def test_each_options_type_and_bounds_are_the_engines(name):
    stated = component("Options")["properties"][name]
    if name in variants.BOOL_OPTIONS:
        assert stated["type"] == "boolean"
        return
    # knock_limit reads null under Oklahoma (RULES.md §5), the only value it may then take
    nullable = name in variants.NULLABLE_OPTIONS or name == "knock_limit"
    assert stated["type"] == (["integer", "null"] if nullable else "integer")
    assert (stated["minimum"], stated["maximum"]) == variants.INT_OPTION_BOUNDS[name]


def _wire(value) -> str:
    return "null" if value is None else str(value).lower()


@pytest.mark.parametrize("name", variants.OPTION_NAMES)
def test_each_options_stated_default_is_the_engines(name):
    stated = component("Options")["properties"][name]
    defaults = {variant: variants.VARIANTS[variant].defaults[name] for variant in variants.VARIANT_NAMES}
    if "default" in stated:
        assert len(set(map(repr, defaults.values()))) == 1
        assert stated["default"] == defaults[variants.THREE_HAND]
    text = stated.get("description", "")
    # "(default 25 in three-hand, 20 in gin-rami)" or "(default 100)" or "null (the default)"
    per_variant = re.search(r"default (\S+) in three-hand, (\S+) in gin-rami", text)
    if per_variant:
        assert per_variant.groups() == (_wire(defaults["three-hand"]), _wire(defaults["gin-rami"]))
        return
    single = re.search(r"\(default (\S+?)\)", text) or re.search(r"(\S+) \(the default\)", text)
    assert single, f"openapi.yaml states no default for option {name}"
    assert {_wire(value) for value in defaults.values()} == {single.group(1)}


def test_the_standings_decimals_are_the_engines():
    from service.rules import duplicate

    standing = component("Standing")["properties"]
    for field in ("mean_per_board", "ci95"):
        assert f"to {duplicate.STANDING_DECIMALS} decimals" in standing[field]["description"], field


def test_a_game_summarys_fields_are_the_listings_and_the_engines_summary():
    # what the index records of a game (reads.LISTED_FIELDS) and what the engine sums it up by
    # (views.summary_of, here of a game not started: its end and winner null)
    state = new_state(variant="gin-rami", options=dict(variants.VARIANTS["gin-rami"].defaults), players=(None, None),
                      rules_version="", seed="", commitment="", decks=None, fairness=0, invites=None,
                      randomly_dealt=True, spec_first_dealer=None, spec_roles=None, rules=None,
                      imported_from=None)
    summary = views.summary_of(state)
    assert summary["end"] is None and summary["winner"] is None
    summary_schema = component("GameSummary")
    assert set(summary_schema["properties"]) == set(LISTED_FIELDS) | set(summary)
    assert set(summary_schema["required"]) == set(summary_schema["properties"])


def test_a_summarys_end_is_the_views():
    assert component("GameSummary")["properties"]["end"]["oneOf"] == component("View")["properties"]["end"]["oneOf"]


def test_a_summarys_origin_is_the_views():
    summary, view = component("GameSummary")["properties"], component("View")["properties"]
    assert summary["imported_from"]["oneOf"] == view["imported_from"]["oneOf"]
