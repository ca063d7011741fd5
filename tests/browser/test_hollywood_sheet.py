"""The table's score sheet of a Hollywood game (RULES.md §5): one column per game with its running
hand points where each hand went, each game's end and bonuses, and the three added up.

The hands are RULES.md's Hollywood example (tests/unit/test_rules_hollywood.py works it out line by
line): gin rami to 50, box bonus 10, game bonus 20, shutouts doubled; ann (seat 0) deals hand 1.
Game 1 ends at hand 3 (bob 94, ann 37), game 2 at hand 5 (bob 230, a shutout), game 3 at hand 9
(ann 113, bob 58); overall ann 150, bob 382.
"""

from __future__ import annotations

from helpers import Api, console_errors, css, serious_violations, text_of, texts, wait_for
from lobby_and_end import close_hand_end, hold_seats, in_view
from support.rules import P_GIN, P_KNOCK, P_UNDERCUT, deck_of

#: each hand's pattern and the non-dealer's knock discard (P_KNOCK: the non-dealer +27;
#: P_UNDERCUT: the dealer +18; P_GIN: the non-dealer +20)
HANDS = [(P_KNOCK, "9H"), (P_KNOCK, "9H"), (P_KNOCK, "9H"), (P_UNDERCUT, "2D"), (P_GIN, "KH"),
         (P_KNOCK, "9H"), (P_UNDERCUT, "2D"), (P_KNOCK, "9H"), (P_UNDERCUT, "2D")]


def play_hand(api: Api, game_id: str, tokens: list[str], discard: str) -> None:
    view = api.view(game_id)
    nd, dealer = view["non_dealer"], view["dealer"]
    for seat, move in ((nd, {"type": "pass_upcard"}), (dealer, {"type": "pass_upcard"}),
                       (nd, {"type": "draw_stock"}), (nd, {"type": "knock", "discard": discard})):
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=tokens[seat])
        assert status == 200, answer


def sheet_rows(driver) -> list[list[str]]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#score-sheet tbody tr'),"
        " r => Array.from(r.children, c => c.textContent))")


def test_the_score_sheet_shows_the_three_games_hand_by_hand(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}], "first_dealer": 0,
        "decks": [deck_of(p) for p, _ in HANDS],
        "options": {"hollywood": True, "target_score": 50, "box_bonus": 10, "game_bonus": 20,
                    "shutout_doubles": True}})
    assert status == 201, created
    game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
    for _, discard in HANDS[:8]:
        play_hand(api, game_id, tokens, discard)

    # after hand 8: games 1 and 2 over, game 3 open at 45-38
    driver = new_browser()
    hold_seats(driver, live_server, game_id, "gin-rami", {0: (tokens[0], "ann")})
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: css(d, "#score-sheet.hollywood tr.total"), what="the Hollywood score sheet")
    close_hand_end(driver)
    assert text_of(driver, "#score-sheet caption") == "Score sheet (Hollywood: three games at once, each to 50)"
    rows = sheet_rows(driver)
    assert rows[0] == ["1", "knock: bob +27 → game 1", "0–27", "", ""]
    assert rows[2] == ["3", "knock: bob +27 → games 1 and 2", "27–54, over: bob", "0–27", ""]
    assert rows[3] == ["4", "undercut: bob +18 → games 2 and 3", "", "0–45", "0–18"]
    assert rows[4] == ["5", "gin: bob +20 → games 2 and 3", "", "0–65, over: bob", "0–38"]
    assert rows[5] == ["6", "knock: ann +27 → no game", "", "", ""]
    assert rows[7] == ["8", "knock: ann +27 → game 3", "", "", "45–38"]
    assert rows[8] == ["Now", "the three added up: ann 82, bob 362", "37–94, bob wins", "0–230, bob wins", "45–38, open"]
    assert texts(driver, "#hollywood-games li") == [
        "Game 1: bob wins, 37–94 (hand points 27–54, box bonuses 10–20, game bonus 20).",
        "Game 2: bob wins, 0–230 (hand points 0–65, box bonuses 0–30, game bonus 20, a shutout: doubled).",
        "Game 3: open, 45–38 in hand points.",
        "The next win goes: ann's into game 3; bob's into game 3.",
    ]
    in_view(driver, "#score-sheet tr.total")
    in_view(driver, "#hollywood-next")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    driver.save_screenshot(str(tmp_path / "hollywood-sheet.png"))

    # hand 9: ann undercuts and reaches 63 in game 3, the last game open: the match is over
    play_hand(api, game_id, tokens, HANDS[8][1])
    wait_for(driver, lambda d: css(d, "#score-sheet-end"), what="the score sheet's end")
    # the hand's end panel says the match is over, and how the three games made it
    wait_for(driver, lambda d: css(d, "#hand-end-final"), what="the hand's end panel")
    assert text_of(driver, "#hand-end-final") == (
        "Game over. bob wins the three games added up, 382 to 150 (game 3 to you, games 1 and 2 to bob). "
        "Final score: ann (you) 150, bob 382.")
    close_hand_end(driver)
    assert text_of(driver, "#score-sheet-end") == \
        "End\tbob wins the three games added up, 382 to 150 (game 3 to ann, games 1 and 2 to bob)."
    assert sheet_rows(driver)[-1] == ["Now", "the three added up: ann 150, bob 382", "37–94, bob wins",
                                      "0–230, bob wins", "113–58, ann wins"]
    assert texts(driver, "#hollywood-games li")[2] == \
        "Game 3: ann wins, 113–58 (hand points 63–38, box bonuses 30–20, game bonus 20)."
    # the end's line spans every column after its heading: the result and the three games
    assert driver.execute_script("return document.querySelector('#score-sheet-end td').colSpan") == 4
    in_view(driver, "#score-sheet-end")
    assert serious_violations(driver) == [] and console_errors(driver) == []
    driver.save_screenshot(str(tmp_path / "hollywood-sheet-over.png"))

    # the replay's last event: the game's end in words, and the same sheet
    version = api.view(game_id)["version"]
    driver.get(f"{live_server}/replay/{game_id}#event={version}")
    wait_for(driver, lambda d: css(d, "#game-over") and css(d, "#score-sheet.hollywood tr.total"), what="the replay's end")
    assert text_of(driver, "#game-over").startswith(  # read by ann, whose seat the browser holds
        "bob wins the three games added up, 382 to 150 (game 3 to you, games 1 and 2 to bob).")
    assert sheet_rows(driver)[-1][0] == "Now" and sheet_rows(driver)[-1][4] == "113–58, ann wins"
    in_view(driver, "#game-over")

    # on a phone's width the sheet keeps to the page: nothing scrolls sideways
    phone = new_browser(390, 844)
    hold_seats(phone, live_server, game_id, "gin-rami", {0: (tokens[0], "ann")})
    phone.get(f"{live_server}/play/{game_id}")
    wait_for(phone, lambda d: css(d, "#score-sheet-end"), what="the score sheet on a phone")
    close_hand_end(phone)
    assert phone.execute_script("return window.innerWidth") == 390
    assert phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    wrap = phone.execute_script("const w = document.getElementById('score-sheet').parentElement;"
                                "return [w.className, w.scrollWidth, w.clientWidth]")
    assert wrap[0] == "table-wrap" and wrap[1] <= wrap[2], wrap
    in_view(phone, "#score-sheet tr.total")
    phone.save_screenshot(str(tmp_path / "hollywood-sheet-phone.png"))
