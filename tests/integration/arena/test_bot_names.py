"""Bot account names that could pass for something else, and profile texts that hide characters.

A bot's name is refused (422 invalid_bot_name) when it is, in any case, a built-in policy's name or
"me", or has the shape of the name the server gives a built-in bot's seat (``<policy>-bot-<seat>``)
or a built-in policy's place in a match (``<policy>-<n>``); a name is taken (409 bot_name_taken)
when an account has it in any case. Accounts registered before names were folded are kept as they
are. A description or owner with a control or format character is refused as the spec's pattern
refuses it (400 invalid_body). No refusal creates anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

from service.rules.names import BOT_POLICY_NAMES
from service.store.tokens import hash_token, issue_token
from support.gameplay import create_game

def _spec_pattern(field: str) -> str:
    """The pattern openapi.yaml gives a field of BotRegistration (itself or through its $ref)."""
    doc = yaml.safe_load((Path(__file__).resolve().parents[3] / "openapi.yaml").read_text(encoding="utf-8"))
    schemas = doc["components"]["schemas"]
    prop = schemas["BotRegistration"]["properties"][field]
    for part in (prop, *prop.get("allOf", ())):
        if "$ref" in part:
            part = schemas[part["$ref"].rsplit("/", 1)[1]]
        if "pattern" in part:
            return part["pattern"]
    raise AssertionError(f"BotRegistration.{field} has no pattern")


def register(api, name: str, **extra):
    return api.post("/bots", json={"name": name, **extra})


def refused_as_invalid_name(api, name: str) -> dict:
    resp = register(api, name)
    assert resp.status_code == 422, (name, resp.get_data(as_text=True))
    problem = resp.get_json()
    assert problem["code"] == "invalid_bot_name"
    assert api.get(f"/bots/{name}").status_code == 404, f"{name!r} was created"
    return problem


def test_the_reserved_names_are_refused_in_any_case_and_the_message_lists_them(api):
    for name in ("Basic", "ME", "Me", "mE", "EXPERT", "Random", "advanceD"):
        problem = refused_as_invalid_name(api, name)
    # the message names everything reserved: each policy, "me", and the seats' name shapes
    for word in (*BOT_POLICY_NAMES, "'me'", "-bot-", "any case"):
        assert word in problem["detail"], (word, problem["detail"])


def test_names_shaped_like_a_built_in_seat_or_a_match_place_are_refused(api):
    # the names the server gives built-in bots: at a game's seats, and in a match of two basics
    g = create_game(api, "gin-rami", [{"bot": "basic"}, {"bot": "expert"}])
    given = [p["name"] for p in g.created["view"]["players"]]
    assert given == ["basic-bot-0", "expert-bot-1"]
    for name in (*given, "Basic-Bot-0", "EXPERT-bot-12", "random-bot-2", "advanced-bot-0", "basic-2", "Expert-3", "basic-bot", "basic_bot_1"):
        refused_as_invalid_name(api, name)
    # names that merely start like one are a bot's own
    for name in ("basic-botany", "expert-fan", "basicbot", "random_walk", "me2", "Meadow"):
        resp = register(api, name)
        assert resp.status_code == 201, (name, resp.get_data(as_text=True))


def test_a_name_is_taken_in_any_case(api):
    assert register(api, "alpha").status_code == 201
    for name in ("Alpha", "ALPHA", "alpha"):
        resp = register(api, name)
        assert resp.status_code == 409 and resp.get_json()["code"] == "bot_name_taken", name
    # any case names the one account, spelled as registered
    assert api.get("/bots/Alpha").get_json()["name"] == "alpha" and api.get("/bots/ALPHA").get_json()["name"] == "alpha"
    # and the other way round: a capitalised name holds its lower-case spelling too
    assert register(api, "Beta").status_code == 201
    assert register(api, "beta").get_json()["code"] == "bot_name_taken"


def test_accounts_registered_before_names_were_folded_are_kept_and_hold_their_names(api, api_app, redis_conn,
                                                                                   key_prefix):
    # what an older server left: two accounts whose names differ only in case, and no folded index
    tokens = {}
    for name in ("delta", "Delta", "Gamma"):
        tokens[name] = issue_token()
        profile = {"name": name, "description": "", "owner": "", "created": 1, "token_hash": hash_token(tokens[name])}
        redis_conn.hset(f"{key_prefix}:arena:bots", name, json.dumps(profile, sort_keys=True))
        redis_conn.hset(f"{key_prefix}:arena:bot-tokens", hash_token(tokens[name]), name)
    for name in ("DELTA", "gamma", "GAMMA"):
        resp = register(api, name)
        assert resp.status_code == 409 and resp.get_json()["code"] == "bot_name_taken", name
    arena = api_app.extensions["ginbox"].arena
    for name, token in tokens.items():
        assert api.get(f"/bots/{name}").get_json()["name"] == name
        assert arena.bot_of(token) == name
    assert register(api, "epsilon").status_code == 201


DIRTY = ("two\nlines", "tab\there", "nul\x00", "zero\u200bwidth", "joiner\u200d", "right\u202eto left",
         "bom\ufeff", "del\x7f", "c1\x85", "para\u2029graph", "tag\U000e0041")


@pytest.mark.parametrize("field", ["description", "owner"])
def test_profile_texts_with_control_or_format_characters_are_refused(api, field):
    pattern = _spec_pattern(field)
    spec = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    for i, text in enumerate(DIRTY):
        assert not spec.is_valid(text), repr(text)
        name = f"dirty{i}"
        resp = register(api, name, **{field: text})
        assert resp.status_code == 400, (text, resp.get_data(as_text=True))
        problem = resp.get_json()
        assert problem["code"] == "invalid_body" and field in problem["errors"], problem
        assert api.get(f"/bots/{name}").status_code == 404
    # what a person writes is kept as written
    for i, text in enumerate(("plays gin, badly", "Zo\u00e9 \u738b \U0001f0a1", "")):
        assert spec.is_valid(text)
        resp = register(api, f"clean{i}", **{field: text})
        assert resp.status_code == 201, resp.get_data(as_text=True)
        assert api.get(f"/bots/clean{i}").get_json()[field] == text


def test_a_name_with_a_trailing_line_break_or_other_character_is_refused(api):
    for name in ("alpha\n", "alpha\r", "al\u200bpha", "alpha\u0000", "\u0430lpha"):
        resp = register(api, name)
        assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_body", (name, resp.get_data(as_text=True))
    assert api.get("/bots/alpha").status_code == 404
