"""How a game's end reads: in the lobby's games (and "Your games") the winner and how, and on the
table's score sheet a line for the end. A resignation leaves the scores as they stood, so the
loser may lead: the words must say who won.

The games are finished.py's: ann knocks in hand 1 and scores 26 (RULES.md worked example).
"""

from __future__ import annotations


from lobby_and_end import close_hand_end, hold_seats, in_view
from finished import first_hand_played
from helpers import Api, click_when_ready, console_errors, css, hand_cards, serious_violations, text_of, wait_for


def test_a_resignation_reads_as_the_other_sides_win_in_the_lobby_and_on_the_score_sheet(live_server, new_browser,
                                                                                           tmp_path):
    api = Api(live_server)
    # a game to 100: ann leads 26 to 0 after hand 1, then resigns in hand 2
    game_id, (ann, _bob) = first_hand_played(api, target_score=100)
    driver = new_browser()
    hold_seats(driver, live_server, game_id, "gin-rami", {0: (ann, "ann")})
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: len(hand_cards(d)) >= 10, what="the table")
    close_hand_end(driver)
    click_when_ready(driver, "#resign", "the resign button")
    click_when_ready(driver, "#resign-yes", "the question")
    wait_for(driver, lambda d: api.view(game_id)["status"] == "over", what="the game over")
    close_hand_end(driver)

    # the table's score sheet: hand 1 as it was, then the end, then the totals
    wait_for(driver, lambda d: css(d, "#score-sheet-end"), what="the score sheet's end")
    assert text_of(driver, "#score-sheet-end") == "End\tann resigned after hand 1; bob wins."
    in_view(driver, "#score-sheet-end")
    rows = driver.execute_script(
        "return Array.from(document.querySelectorAll('#score-sheet tbody tr'), r => r.firstElementChild.textContent)")
    assert rows == ["1", "End", "Now"]
    driver.save_screenshot(str(tmp_path / "resigned-score-sheet.png"))

    # the lobby: the winner and how, where the scores alone (26 to 0) would say ann
    driver.get(live_server + "/")
    row = f'#games-table tr[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, row), what="the game listed")
    status = text_of(driver, f"{row} td[data-label=Status]")
    assert status == "over — bob won: ann resigned", status
    in_view(driver, f"{row} td[data-label=Status]")
    driver.save_screenshot(str(tmp_path / "resigned-lobby-row.png"))
    mine = f'#my-games .game-end[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, mine), what="the game among yours, over")
    assert text_of(driver, mine).strip() == "over — bob won: ann resigned"
    in_view(driver, mine)
    assert serious_violations(driver) == [] and console_errors(driver) == []


def test_a_game_won_at_the_target_reads_as_won_with_the_scores(live_server, new_browser):
    api = Api(live_server)
    game_id, (ann, _bob) = first_hand_played(api, target_score=1)
    assert api.view(game_id)["status"] == "over"
    driver = new_browser()
    hold_seats(driver, live_server, game_id, "gin-rami", {0: (ann, "ann")})
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: css(d, "#score-sheet-end"), what="the score sheet's end")
    close_hand_end(driver)
    # ann's 26 reached the target of 1
    assert text_of(driver, "#score-sheet-end") == "End\tann wins the game, reaching 26 (game to 1)."
    in_view(driver, "#score-sheet-end")

    driver.get(live_server + "/")
    row = f'#games-table tr[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, row), what="the game listed")
    assert text_of(driver, f"{row} td[data-label=Status]") == "over — ann won 26 to 0"
    in_view(driver, f"{row} td[data-label=Status]")


def test_an_abandoned_game_reads_as_nobodys_win(live_server, new_browser):
    """The server abandons a game only after its idle time (hours): the words are checked on the
    modules' own functions, given the end the server sends (openapi.yaml GameEnd)."""
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    players = [{"name": "ann"}, {"name": "expert-bot-1", "bot": "expert"}]
    idle = {"reason": "abandoned", "resigned": None, "idle_s": 7200}
    lobby = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/web/lobby-games.js').then(m => done(m.endText("
        "{status: 'over', winner: null, scores: [51, 20], end: arguments[0]}, arguments[1])))", idle, players)
    assert lobby == "abandoned, no winner"
    view = {"status": "over", "end": idle, "winner": None, "players": players, "scores": [51, 20],
            "hand_no": 4, "hand_results": [{}, {}, {}], "options": {"target_score": 100}}
    drawn = {**view, "end": {**idle, "idle_s": 0, "drawn_hands": 1000}, "hand_no": 1003}
    lines = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/web/table-result.js').then(m => done([m.endLine(arguments[0]), m.endLine(arguments[1])]))",
        view, drawn)
    assert lines == ["Abandoned after 7200 s without a move, in hand 4: nobody wins.",
                     "Abandoned after 1000 drawn hands in a row, in hand 1003: nobody wins."]


def test_an_expired_game_reads_as_never_started(live_server, new_browser):
    """A game whose seats were never all taken expires (GINBOX_UNSTARTED_EXPIRE_S, a day by default):
    the lobby, the score sheet, the turn line and the replay say so, on the modules' own functions."""
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    players = [{"name": "ann"}, None]
    expired = {"reason": "expired", "resigned": None, "idle_s": 86400}
    view = {"status": "over", "end": expired, "winner": None, "players": players, "scores": [0, 0],
            "hand_no": 0, "hand_results": [], "options": {"target_score": 100}, "viewer": 0}
    said = driver.execute_async_script(
        "const [done, end, players, view] = [arguments[3], arguments[0], arguments[1], arguments[2]];"
        "Promise.all([import('/web/lobby-games.js'), import('/web/table-result.js'), import('/web/table-turn.js'),"
        " import('/web/replay-board.js')]).then(([lobby, result, turn, board]) => done(["
        " lobby.endText({status: 'over', winner: null, scores: [0, 0], end}, players),"
        " result.endLine(view), turn.phaseText({...view, to_act: []}), board.gameOverText(view)]))",
        expired, players, view)
    assert said[0] == "expired before it started, no winner"
    assert said[1] == "Expired: a seat was still free 86400 s after the game was made; nobody wins."
    assert said[2].startswith("Game over: it expired, a seat still free 86400 s after it was made; nobody wins")
    assert said[3] == "The game expired: a seat was still free 86400 s after it was made. Nobody wins."
