"""A request body with a Content-Encoding other than identity is refused (415), never read as it is."""

from __future__ import annotations

import gzip
import json

import pytest

from support.decks import build_deck
from support.gameplay import create_game
from support.problems import problem as _problem

# gin rami, seat 0 deals: seat 1 (non-dealer) is to take or pass the upcard TH
NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()
DECK = build_deck(NON_DEALER, DEALER, "TH", ["QS"])
TAKE = json.dumps({"type": "take_upcard"}).encode()


@pytest.fixture
def game(api):
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0, decks=[DECK])


# mtime=0: the same bytes at every collection (the test processes must collect the same ids)
@pytest.mark.parametrize("encoding, body", [("gzip", TAKE), ("gzip", gzip.compress(TAKE, mtime=0)), ("br", TAKE),
                                            ("deflate", TAKE), ("identity, gzip", TAKE)],
                         ids=["gzip-plain", "gzip-gzipped", "br", "deflate", "identity-then-gzip"])
def test_a_move_with_a_content_encoding_is_415_and_is_not_played(api, game, encoding, body):
    before = game.version()
    resp = api.post(f"/games/{game.game_id}/moves", data=body, content_type="application/json",
                    headers={"Content-Encoding": encoding}, token=game.tokens[1])
    problem = _problem(resp, 415, "unsupported_encoding")
    assert "Content-Encoding" in problem["detail"]
    assert game.version() == before
    assert [e["version"] for e in game.events(0)][-1] == before


def test_a_creation_with_a_content_encoding_is_415_and_creates_nothing(api):
    before = api.get("/games").get_json()
    body = json.dumps({"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}).encode()
    _problem(api.post("/games", data=gzip.compress(body), content_type="application/json",
                      headers={"Content-Encoding": "gzip"}), 415, "unsupported_encoding")
    assert api.get("/games").get_json() == before


@pytest.mark.parametrize("encoding", ["identity", "Identity", " identity "])
def test_a_move_with_content_encoding_identity_is_played(api, game, encoding):
    before = game.version()
    resp = api.post(f"/games/{game.game_id}/moves", data=TAKE, content_type="application/json",
                    headers={"Content-Encoding": encoding}, token=game.tokens[1])
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert game.version() == before + 1
