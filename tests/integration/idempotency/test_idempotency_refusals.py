"""Only a move that was played is recorded under its Idempotency-Key: a refused one records
nothing, so the same request sent again with the same key is decided afresh; openapi.yaml says so
rather than promising the first answer, whatever it was, again."""

from __future__ import annotations

import yaml
from support.apiclient import SPEC_PATH
from support.decks import build_deck
from support.gameplay import create_game, etag_version
from support.problems import problem

NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()
DECK = build_deck(NON_DEALER, DEALER, "TH", ["QS", "JS"])


def _move(api, g, seat: int, command: dict, key: str):
    return api.post(f"/games/{g.game_id}/moves", json=command, token=g.tokens[seat],
                    headers={"Idempotency-Key": key})


def test_a_move_refused_under_a_key_is_played_when_sent_again_with_it(api):
    # seat 0 deals: seat 1 is first to take or pass the upcard TH
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0, decks=[DECK])
    v0 = g.version()
    problem(_move(api, g, 0, {"type": "pass_upcard"}, "ann-1"), 409, "not_your_turn")
    assert g.version() == v0
    g.move(1, {"type": "pass_upcard"})
    # now it is ann's turn: the same request with the same key is decided, not answered 409 again
    played = _move(api, g, 0, {"type": "pass_upcard"}, "ann-1")
    assert played.status_code == 200, played.get_data(as_text=True)
    assert etag_version(played) == v0 + 2
    # and that success is what the key now holds: sent again, it plays nothing and answers the same
    again = _move(api, g, 0, {"type": "pass_upcard"}, "ann-1")
    assert (again.status_code, again.get_json()) == (200, played.get_json())
    assert g.version() == v0 + 2
    problem(_move(api, g, 0, {"type": "draw_stock"}, "ann-1"), 422, "idempotency_key_reused")


def test_the_spec_says_only_successful_answers_are_recorded():
    spec = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    intro = " ".join(spec["info"]["description"].split())
    key = " ".join(spec["components"]["parameters"]["IdempotencyKey"]["description"].split())
    for text in (intro, key):
        assert "(same status and body)" not in text
        assert "only a request that succeeded is recorded" in text, text
        assert "refused request records nothing" in text, text
