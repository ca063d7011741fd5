"""GET /games/{id}/advice on a gin-rami game: there is no advisor, so the list is empty, for everyone.

openapi.yaml's listAdvice says everyone sees all the advice once a game is over; a finished
gin-rami game has none to show, and answers so (200, an empty list) rather than refusing. While it
runs the answer is the same for its seats and for spectators: it tells nothing a view does not.
"""

from __future__ import annotations

from support.decks import build_deck
from support.gameplay import create_game

# over at once: seat 1 takes the upcard TH and goes gin discarding KS (20 >= target 1)
NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()


def _advice(api, game_id, token=None):
    resp = api.get(f"/games/{game_id}/advice", token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def test_a_gin_rami_game_lists_no_advice_to_anyone_while_it_runs_and_once_it_is_over(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0,
                    options={"target_score": 1}, decks=[build_deck(NON_DEALER, DEALER, "TH")])
    for token in (None, g.tokens[0], g.tokens[1]):
        assert _advice(api, g.game_id, token) == {"advice": []}
    g.move(1, {"type": "take_upcard"})
    g.move(1, {"type": "knock", "discard": "KS", "melds": None})
    assert g.view(None)["status"] == "over"
    for token in (None, g.tokens[0], g.tokens[1]):
        assert _advice(api, g.game_id, token) == {"advice": []}


def test_a_waiting_gin_rami_game_lists_no_advice_either(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert _advice(api, g.game_id) == {"advice": []}
    assert _advice(api, g.game_id, g.tokens[0]) == {"advice": []}
