"""Free text a person sends and others read (advice, names, a bot's description and owner) holds
no control, format (zero-width, direction) or line separator character, and a text that must say
something holds at least one visible character: 400 invalid_body otherwise, and nothing is recorded.
"""

from __future__ import annotations

import jsonschema_rs
import pytest
import yaml
from support.apiclient import SPEC_PATH
from support.decks import build_deck
from support.gameplay import create_game
from support.problems import problem

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))

# three-hand, roles given: box 0, captain 1, advisor 2 (the advisor advises the captain)
CAPTAIN = "5C 6C 7C 9D 9H 9S JS QS AH 4D".split()
BOX = "2D 2H 2S 8C 9C TS KH QD 5H 6D".split()
DECK = build_deck(CAPTAIN, BOX, "3H", ["KS"])

HIDDEN_OR_CONTROL = [
    "\u001b[31mred\u0000nul\nline",  # a terminal colour sequence, a NUL and a line break
    "a\u202eb",                       # a right-to-left override
    "\u200b\u200b",                   # zero-width spaces only
    "keep\tthe low cards",            # a tab
    "one\u2028two",                   # a line separator
    "\ufeffpass",                     # a byte order mark
]
SHOWS_NOTHING = [" ", "\u3000\u00a0", "\u2800", "\u3164"]


def _game(api):
    return create_game(api, "three-hand", [{"name": "box"}, {"name": "cap"}, {"name": "adv"}],
                       roles={"box": 0, "captain": 1, "advisor": 2}, decks=[DECK])


def _advice_texts(api, g) -> list[str]:
    resp = api.get(f"/games/{g.game_id}/advice", token=g.tokens[1])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return [a["text"] for a in resp.get_json()["advice"]]


@pytest.mark.parametrize("text", HIDDEN_OR_CONTROL + SHOWS_NOTHING)
def test_advice_with_a_control_format_or_invisible_character_or_nothing_visible_is_refused(api, text):
    g = _game(api)
    body = problem(api.post(f"/games/{g.game_id}/advice", json={"text": text}, token=g.tokens[2]),
                   400, "invalid_body")
    assert "text" in body["errors"]
    assert _advice_texts(api, g) == []


def test_advice_of_visible_text_in_any_script_is_given(api):
    g = _game(api)
    texts = ["take the 3H", "  keep spades  ", "\u05e9\u05de\u05d5\u05e8 \u2660"]
    for text in texts:
        resp = api.post(f"/games/{g.game_id}/advice", json={"text": text}, token=g.tokens[2])
        assert resp.status_code == 200, (text, resp.get_data(as_text=True))
    assert _advice_texts(api, g) == texts


def test_the_advice_pattern_of_the_spec_is_the_servers_rule(api):
    from schemas.common import VISIBLE_TEXT_PATTERN

    text = SPEC["components"]["schemas"]["Advice"]["properties"]["text"]
    assert text["pattern"] == VISIBLE_TEXT_PATTERN
    spec = jsonschema_rs.validator_for({"type": "string", "pattern": text["pattern"]})
    for refused in HIDDEN_OR_CONTROL + SHOWS_NOTHING:
        assert not spec.is_valid(refused), repr(refused)
    assert spec.is_valid("  keep spades  ")


@pytest.mark.parametrize("text", HIDDEN_OR_CONTROL)
def test_every_other_free_text_refuses_the_same_characters(api, text):
    # a person's name in a challenge
    body = {"to": "nobody", "variant": "gin-rami", "name": text}
    assert "name" in problem(api.post("/challenges", json=body), 400, "invalid_body")["errors"]
    # a bot's description and owner
    for field in ("description", "owner"):
        body = {"name": "textbot", field: text}
        assert field in problem(api.post("/bots", json=body), 400, "invalid_body")["errors"]
    # a seat's name, at creation and when claimed
    body = {"variant": "gin-rami", "seats": [{"name": text}, None]}
    assert "seats" in problem(api.post("/games", json=body), 400, "invalid_body")["errors"]
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert "name" in problem(api.post(f"/games/{g.game_id}/seats/1", json={"name": text}), 400,
                             "invalid_body")["errors"]
