"""A person challenges a bot account from the lobby and plays the match from the browser.

The bot account is registered over HTTP and answered for by the test with its token (it is an
outside account: the server plays none of its moves). The person fills the lobby's challenge form;
the token the answer holds stays in the browser's storage, and once the bot accepts, the lobby
links to the match page, which lists the person's turns and links each to the table page.

A 1-board gin-rami match has two tables. Seat 1 deals first at both, so the non-dealer at seat 0
is offered the upcard first: at table 0 (seated [person, bot]) that is the person, at table 1
(seated [bot, person]) the bot. So the first listing holds table 0 alone; once the person passes
the upcard there (the bot, dealer, is then offered it) and the test passes it for the bot at
table 1 (the person, dealer there, is then offered it), the listing holds table 1 alone.
"""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By

from helpers import (Api, click_when_ready, console_errors, css, hand_cards, register_bot, serious_violations, stored,
                     text_of, wait_for)
from support.arena_http import short_game_move
from chromium import resize
from screenshots import shoot

CHALLENGES = "ginbox.challenges.v1"


def fill_challenge(driver, base: str, to: str, name: str, boards: str = "1") -> None:
    driver.get(base + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    for field, value in (("challenge-to", to), ("challenge-boards", boards), ("your-name", name)):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "challenge-button").click()


def listed_games(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#turn-list li'), li => li.dataset.game)")


def test_a_person_challenges_a_bot_account_and_plays_its_turns_from_the_match_page(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()

    fill_challenge(driver, live_server, bot, "ann")
    row = wait_for(driver, lambda d: css(d, "#my-challenges li[data-challenge]"), what="the challenge listed")[0]
    challenge_id = row.get_attribute("data-challenge")
    assert f"ann against {bot}" in row.text and "Pending" in row.text
    # the token is in this browser's storage, under the challenge, and nowhere in the address or a cookie
    mine = stored(driver, CHALLENGES)[challenge_id]
    token = mine["token"]
    assert mine["to"] == bot and mine["name"] == "ann" and mine["boards"] == 1 and len(token) >= 32
    assert token not in driver.current_url and not driver.get_cookies()
    status, seen = api.call("GET", f"/challenges/{challenge_id}")
    assert status == 200 and seen["from"] == "ann" and seen["from_kind"] == "person" and seen["status"] == "pending"
    assert seen["to"] == bot and seen["boards"] == 1 and seen["variant"] == "gin-rami"
    shoot(driver, tmp_path / "lobby-challenge.png")

    # the bot accepts: the lobby, asking after its pending challenge, links to the match
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200, accepted
    match_id = accepted["match_id"]
    click_when_ready(driver, f'#my-challenges a.match-link[data-match="{match_id}"]', "the match link")
    wait_for(driver, lambda d: d.current_url == f"{live_server}/match/{match_id}", what="the match page")

    status, match = api.call("GET", f"/matches/{match_id}")
    assert status == 200 and [t["seats"] for t in match["board_results"][0]["tables"]] == [["ann", bot], [bot, "ann"]]
    table0, table1 = (t["game_id"] for t in match["board_results"][0]["tables"])

    # the person's one turn: table 0, where ann (seat 0, non-dealer) is offered the upcard
    wait_for(driver, lambda d: listed_games(d) == [table0], what="the turn at table 0")
    assert "take or pass the upcard" in text_of(driver, f'#turn-list li[data-game="{table0}"]')
    assert "Running" in text_of(driver, "#match-status")
    assert [r.get_attribute("data-name") for r in css(driver, "#standings tbody tr")] == [m["name"] for m in match["standings"]]
    assert len(css(driver, "#boards tbody tr")) == 2
    shoot(driver, tmp_path / "match-turns.png")
    assert serious_violations(driver) == [] and console_errors(driver) == []

    # Play: the table page plays ann's seat with the challenge's token, saved as that game's seat
    click_when_ready(driver, f'#turn-list a.play[data-game="{table0}"]', "the Play link")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="ann's hand at table 0")
    assert stored(driver, "ginbox.seats.v1")[table0]["seats"]["0"]["token"] == token
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    api.wait_view(table0, bot_token, lambda v: v["to_act"] == [1] and v["phase"] == "upcard")

    # the bot passes the upcard at table 1 (seat 0 there): ann, the dealer there, is offered it
    view1 = api.view(table1, bot_token)
    assert view1["viewer"] == 0 and view1["to_act"] == [0] and view1["phase"] == "upcard"
    status, moved = api.call("POST", f"/games/{table1}/moves", {"type": "pass_upcard"}, token=bot_token,
                             headers={"If-Match": f'"{view1["version"]}"'})
    assert status == 200, moved

    # back on the match page (the table page of a match game links to it): the listing has
    # changed, table 0 waits for the bot, table 1 for ann
    assert driver.find_element("css selector", "#match-link").get_attribute("href").endswith(f"/match/{match_id}")
    shoot(driver, tmp_path / "match-table.png")
    click_when_ready(driver, "#match-link", "the table page's link to the match")
    wait_for(driver, lambda d: listed_games(d) == [table1], what="the turn at table 1 alone")
    status, turns = api.call("GET", f"/matches/{match_id}/turns", token=token)
    assert status == 200 and [t["game_id"] for t in turns["turns"]] == [table1] and turns["turns"][0]["seat"] == 1
    assert "take or pass the upcard" in text_of(driver, f'#turn-list li[data-game="{table1}"]')
    shoot(driver, tmp_path / "match-turns-after.png")

    # the rest is played over HTTP, both seats at both tables (knocking when allowed): the page
    # says the match is over, lists no more turns and links every game to its replay
    for _ in range(3000):
        if api.call("GET", f"/matches/{match_id}")[1]["status"] == "over":
            break
        for game_id in (table0, table1):
            for seat_token in (token, bot_token):
                view = api.view(game_id, seat_token)
                if view["status"] == "playing" and view["viewer"] in view["to_act"]:
                    status, moved = api.call("POST", f"/games/{game_id}/moves", short_game_move(view["legal_moves"], view["hand"]),
                                             token=seat_token, headers={"If-Match": f'"{view["version"]}"'})
                    assert status == 200, moved
    else:
        raise AssertionError("the match never ended")
    wait_for(driver, lambda d: text_of(d, "#match-status").startswith("The match is over"), what="the match's end")
    assert "no more turns" in text_of(driver, "#turn-list") and listed_games(driver) == []
    replays = driver.execute_script("return Array.from(document.querySelectorAll('#boards a.replay'), a => a.pathname)")
    assert replays == [f"/replay/{table0}", f"/replay/{table1}"]
    # each reads "Replay" (its row names the board and table), and a screen reader hears which
    assert [e.get_attribute("aria-label") for e in css(driver, "#boards a.replay")] == [
        "Replay board 1, table 1", "Replay board 1, table 2"]
    assert not css(driver, "#boards a.table-link")
    shoot(driver, tmp_path / "match-over.png")
    assert serious_violations(driver) == []
    # on a phone's width nothing sticks out sideways
    resize(driver, 390, 844)
    shoot(driver, tmp_path / "match-over-phone.png")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    # and neither table scrolls sideways inside its frame
    for table in ("standings", "boards"):
        frame = driver.execute_script("const w = document.getElementById(arguments[0]).parentElement;"
                                      "return [w.className, w.scrollWidth, w.clientWidth]", table)
        assert frame[0] == "table-wrap" and frame[1] <= frame[2], (table, frame)

    # the lobby lists the match's games (saved as seats by the match page) as games of that match,
    # each named by its board and table, with a link to the match page; Forget still forgets one
    resize(driver, 1280, 900)
    driver.get(live_server + "/")
    wait_for(driver, lambda d: len(css(d, f'#my-games li.match-game[data-match="{match_id}"]')) == 2,
             what="the match's games in the lobby")
    entries = driver.execute_script(
        "return Array.from(document.querySelectorAll('#my-games li.match-game'), li => [li.querySelector('a.resume')"
        ".dataset.game, li.innerText, li.querySelector('a.resume').pathname, li.querySelector('a.match-page').pathname])")
    by_game = {game: (text, resume, page) for game, text, resume, page in entries}
    assert by_game[table0][0].startswith("Match game (board 1, table 1)") and by_game[table0][1] == f"/play/{table0}"
    assert by_game[table1][0].startswith("Match game (board 1, table 2)") and by_game[table1][1] == f"/play/{table1}"
    assert by_game[table0][2] == by_game[table1][2] == f"/match/{match_id}"
    assert table0 not in by_game[table0][0]  # named by its place in the match, not by its id
    shoot(driver, tmp_path / "lobby-match-games.png")
    assert serious_violations(driver) == []
    click_when_ready(driver, f'#my-games button.forget[data-game="{table1}"]', "the Forget button of table 2")
    wait_for(driver, lambda d: len(css(d, "#my-games li.match-game")) == 1, what="table 2 forgotten")
    assert table1 not in stored(driver, "ginbox.seats.v1") and table0 in stored(driver, "ginbox.seats.v1")
    click_when_ready(driver, f'#my-games li[data-match="{match_id}"] a.match-page', "the link to the match page")
    wait_for(driver, lambda d: d.current_url == f"{live_server}/match/{match_id}", what="the match page from the lobby")


def test_a_refused_challenge_shows_the_problem_and_stores_nothing(live_server, new_browser):
    api = Api(live_server)
    nobody = f"n{uuid.uuid4().hex[:10]}"
    driver = new_browser()
    fill_challenge(driver, live_server, nobody, "ann")
    error = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the refusal")
    status, problem = api.call("POST", "/challenges", {"to": nobody, "variant": "gin-rami", "name": "ann", "boards": 1})
    assert status == 404 and problem["code"] == "bot_not_found"
    assert problem["detail"] in error and "[bot_not_found]" in error
    assert stored(driver, CHALLENGES) == {}
    assert "None yet" in text_of(driver, "#my-challenges")
