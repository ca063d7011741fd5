"""The score sheet of a game longer than a view's results lists every hand.

A view carries only the latest 8 hands' results; the table reads the earlier ones from
GET /games/{id}/hand-results, once, and keeps them as the game goes on. The game is dealt one deck
over and over (support.decks.QUICK_KNOCK): ann and bob take turns at knocking for 27, and ann reaches
the target of 150 in hand 11.
"""

from __future__ import annotations

from helpers import Api, console_errors, css, text_of, wait_for
from lobby_and_end import close_hand_end, in_view
from support.decks import QUICK_KNOCK, quick_knock_moves

HANDS = 11


def play_hand(api: Api, game_id: str, tokens: list[str], hand_no: int) -> None:
    for seat, move in quick_knock_moves(hand_no):
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=tokens[seat])
        assert status == 200, answer


def row_heads(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#score-sheet tbody tr'), r => r.firstElementChild.textContent)")


def sheet_reads(driver) -> list[str]:
    """The page's reads of the results (api.js keeps every exchange)."""
    return driver.execute_script(
        "return globalThis.ginboxExchanges.filter(x => x.url.includes('/hand-results')).map(x => x.url)")


def ten_hands_played(api: Api) -> tuple[str, list[str]]:
    """A game whose first 10 hands are over: (its id, the seats' tokens)."""
    status, created = api.call("POST", "/games", {
        "variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}], "first_dealer": 1,
        "decks": [QUICK_KNOCK] * HANDS, "options": {"target_score": 150}})
    assert status == 201, created
    game_id = created["game_id"]
    tokens = [s["token"] for s in created["seats"]]
    for hand_no in range(1, HANDS):
        play_hand(api, game_id, tokens, hand_no)
    return game_id, tokens


def test_the_score_sheet_of_a_long_game_lists_every_hand_read_once(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, tokens = ten_hands_played(api)
    view = api.view(game_id)
    assert (view["hand_results_total"], view["hand_results_from"], len(view["hand_results"])) == (10, 2, 8)

    # a spectator's page: the sheet lists hands 1 to 10, the first two read from the route, once
    driver = new_browser()
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: row_heads(d) == [*map(str, range(1, 11)), "Now"], what="ten hands on the sheet")
    assert len(sheet_reads(driver)) == 1
    first = text_of(driver, "#score-sheet tbody tr:nth-child(1)").split("\t")
    assert first == ["1", "knock: ann +27", "27", "0"], first
    second = text_of(driver, "#score-sheet tbody tr:nth-child(2)").split("\t")
    assert second == ["2", "knock: bob +27", "27", "27"], second

    # the last hand, live: the sheet gains it from the view, without reading the results again
    play_hand(api, game_id, tokens, HANDS)
    wait_for(driver, lambda d: row_heads(d) == [*map(str, range(1, HANDS + 1)), "End", "Now"],
             what="the eleventh hand and the end on the sheet")
    close_hand_end(driver)
    assert sheet_reads(driver) == [f"/games/{game_id}/hand-results?offset=0&limit=200"]
    assert text_of(driver, "#score-sheet-end") == "End\tann wins the game, reaching 162 (game to 150)."
    assert text_of(driver, "#score-sheet tbody tr.total").split("\t") == ["Now", "", "162", "135"]
    for k in range(1, HANDS + 1):
        in_view(driver, f"#score-sheet tbody tr:nth-child({k})")
    driver.execute_script("document.querySelector('#score-sheet').scrollIntoView({block: 'start'})")
    driver.save_screenshot(str(tmp_path / "long-game-sheet.png"))
    assert console_errors(driver) == []

    # the replay's last step: every hand too
    driver.get(f"{live_server}/replay/{game_id}#event=100000")
    wait_for(driver, lambda d: row_heads(d) == [*map(str, range(1, HANDS + 1)), "Now"], what="the replay's sheet")
    in_view(driver, "#score-sheet tbody tr:nth-child(1)")
    in_view(driver, f"#score-sheet tbody tr:nth-child({HANDS})")
    assert console_errors(driver) == []


def test_hands_that_could_not_be_read_are_said_missing_and_read_when_a_hand_ends(live_server, new_browser):
    api = Api(live_server)
    game_id, tokens = ten_hands_played(api)
    driver = new_browser()
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/hand-results*"]})
    driver.get(f"{live_server}/watch/{game_id}")
    # the view's eight hands, and a row that says the first two are missing
    wait_for(driver, lambda d: row_heads(d) == ["1–2", *map(str, range(3, 11)), "Now"], what="the sheet without hands 1 and 2")
    assert text_of(driver, "#score-sheet-missing") == "1–2\tNot shown: the first 2 hands could not be read."
    in_view(driver, "#score-sheet-missing")

    # the route is back: the next hand's end reads the sheet again
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    play_hand(api, game_id, tokens, HANDS)
    wait_for(driver, lambda d: row_heads(d) == [*map(str, range(1, HANDS + 1)), "End", "Now"],
             what="every hand on the sheet")
    assert not css(driver, "#score-sheet-missing")
