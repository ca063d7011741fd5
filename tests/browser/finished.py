"""A finished game to replay: the API tour's first hand (RULES.md worked example), played to a game of 1.

ann (seat 0) is dealt 7C KC AD 2D 7D 7H 9H 4S 5S 6S, bob (seat 1) 9C TC JC 4D 2H 5H 8H 7S QS KS;
the upcard is QH. Both pass; ann draws 3D and knocks discarding KC with 9H alone (9). Bob keeps
9C TC JC, lays off 4D and 7S, and is left with 2 + 5 + 8 + 10 + 10 = 35: ann scores 35 - 9 = 26,
which ends a game to 1.
"""

from __future__ import annotations

from helpers import Api
from support.decks import build_deck

ANN = ["7C", "KC", "AD", "2D", "7D", "7H", "9H", "4S", "5S", "6S"]
BOB = ["9C", "TC", "JC", "4D", "2H", "5H", "8H", "7S", "QS", "KS"]
DECK = build_deck(ANN, BOB, "QH", stock_top=["3D"])
MELDS = [["7C", "7D", "7H"], ["4S", "5S", "6S"], ["AD", "2D", "3D"]]


def finished_game(api: Api, target_score: int = 1) -> str:
    """Create and play the game (over unless ``target_score`` is above 26); its id."""
    game_id, _ = first_hand_played(api, target_score)
    assert api.view(game_id)["status"] == "over"
    return game_id


def first_hand_played(api: Api, target_score: int) -> tuple[str, list[str]]:
    """Create the game and play its first hand: (its id, the seats' tokens)."""
    status, created = api.call("POST", "/games", {
        "variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}], "first_dealer": 1,
        "decks": [DECK], "options": {"target_score": target_score}})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token, move in [(ann, {"type": "pass_upcard"}), (bob, {"type": "pass_upcard"}),
                        (ann, {"type": "draw_stock"}),
                        (ann, {"type": "knock", "discard": "KC", "melds": MELDS})]:
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=token)
        assert status == 200, answer
    return game_id, [ann, bob]
