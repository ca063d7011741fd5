"""The words of the table, replay and match pages say what is true of the game shown.

"(or knock)" only when a knock is among the player's legal moves; a match board game's score sheet
says it is one hand of a match board, not a game to 1; advice names cards as the rest of the page
does (with suit symbols, never the API's codes); the match standings label built-in bots as the
people and bot accounts are labelled.
"""

from __future__ import annotations

import json

from helpers import Api, register_bot, text_of, wait_for
from finished import DECK as KNOCK_DECK
from screenshots import shoot
from support.decks import build_deck

#: ann (seat 0, non-dealer) is dealt ten cards that meld nothing (deadwood 50 and more after any
#: draw): whatever she draws, no knock is possible at her first discard
ANN = ["KC", "QD", "JH", "9S", "8C", "6D", "5H", "3S", "2C", "TD"]
BOB = ["AC", "3C", "5C", "7C", "AD", "3D", "5D", "7D", "AH", "3H"]
NO_KNOCK_DECK = build_deck(ANN, BOB, "KS", stock_top=["9H"])


def hold_seat(driver, base: str, game_id: str, variant: str, seat: int, token: str, name: str) -> None:
    """Put the seat's token in this browser's storage, as the lobby does when it creates a game."""
    driver.get(base + "/")
    record = {game_id: {"game_id": game_id, "variant": variant, "seats": {str(seat): {"token": token, "name": name}},
                        "created": 0}}
    driver.execute_script("localStorage.setItem('ginbox.seats.v1', arguments[0])", json.dumps(record))


def to_first_discard(api: Api, deck: list[str]) -> tuple[str, str]:
    """A two-person game at ann's first discard (both passed the upcard, she drew): (id, her token)."""
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "decks": [deck]})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token, move in [(ann, {"type": "pass_upcard"}), (bob, {"type": "pass_upcard"}), (ann, {"type": "draw_stock"})]:
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=token)
        assert status == 200, answer
    return game_id, ann


def test_or_knock_is_said_only_when_a_knock_is_legal(live_server, new_browser, tmp_path):
    api = Api(live_server)
    driver = new_browser()
    for deck, knocks in ((NO_KNOCK_DECK, False), (KNOCK_DECK, True)):
        game_id, ann = to_first_discard(api, deck)
        view = api.view(game_id, ann)
        assert view["phase"] == "discard" and any(m["type"] == "knock" for m in view["legal_moves"]) == knocks
        hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
        driver.get(f"{live_server}/play/{game_id}#seat=0")
        wait_for(driver, lambda d: "Your turn" in text_of(d, "#turn"), what="ann's turn")
        turn = text_of(driver, "#turn")
        if knocks:
            assert "Your turn: discard (or knock)." in turn, turn
        else:
            assert "Your turn: discard." in turn and "knock" not in turn, turn
            shoot(driver, tmp_path / "discard-no-knock.png")


def test_a_match_board_game_says_it_is_one_hand_of_a_match(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    status, made = api.call("POST", "/matches", {"variant": "gin-rami", "participants": [bot, "basic"], "boards": 1},
                            token=bot_token)
    assert status == 201, made
    match_id = made["match_id"]
    status, match = api.call("GET", f"/matches/{match_id}")
    table = match["board_results"][0]["tables"][0]
    seat = table["seats"].index(bot)
    driver = new_browser()
    hold_seat(driver, live_server, table["game_id"], "gin-rami", seat, bot_token, bot)
    driver.get(f"{live_server}/play/{table['game_id']}#seat={seat}")
    wait_for(driver, lambda d: text_of(d, "#score-sheet caption"), what="the score sheet")
    caption = text_of(driver, "#score-sheet caption")
    assert caption == "Score sheet (one hand, a match board)", caption
    shoot(driver, tmp_path / "match-board-table.png")

    # the match page: every participant labelled, the built-in bot too
    driver.get(f"{live_server}/match/{match_id}")
    wait_for(driver, lambda d: text_of(d, "#standings tbody"), what="the standings")
    rows = {row["name"]: row["kind"] for row in match["standings"]}
    assert sorted(rows.values()) == ["bot", "policy"], rows
    for name, kind in rows.items():
        shown = text_of(driver, f'#standings tbody tr[data-name="{name}"] th')
        assert shown == f"{name} ({'bot account' if kind == 'bot' else 'built-in bot'})", shown
    shoot(driver, tmp_path / "match-standings.png")


def test_advice_names_cards_with_suit_symbols(live_server, new_browser, tmp_path):
    api = Api(live_server)
    captain = ["AC", "2C", "3C", "4D", "6D", "8H", "9H", "JS", "QS", "KS"]
    box = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}, "decks": [build_deck(captain, box, "KD")]})
    assert status == 201, created
    game_id = created["game_id"]
    advisor = created["seats"][2]["token"]
    status, answer = api.call("POST", f"/games/{game_id}/advice", {"text": "Discard JS, keep TD and 9H."}, token=advisor)
    assert status in (200, 201), answer
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "three-hand", 2, advisor, "abe")
    driver.get(f"{live_server}/play/{game_id}#seat=2")
    wait_for(driver, lambda d: text_of(d, "#advice-list"), what="the advice")
    text = text_of(driver, "#advice-list")
    assert "Discard J\u2660, keep 10\u2666 and 9\u2665." in text, text
    shoot(driver, tmp_path / "advice-symbols.png")
