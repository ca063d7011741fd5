"""The lobby's challenges to a bot account: withdrawing a pending one, a single game, and a
three-hand (box gin) game with a third player, or refused for naming an unknown one.

The bot account is registered over HTTP and answered for by the test with its token (the server
plays none of its moves). The person uses the lobby's challenge form; the token the challenge's
answer holds stays in the browser's storage, and is what withdraws the challenge or, once a
single-game challenge is accepted, plays the person's seat of that game.
"""

from __future__ import annotations

import json

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

from helpers import (Api, click_when_ready, console_errors, css, hand_cards, register_bot, serious_violations, stored,
                     text_of, wait_for)
from screenshots import shoot

CHALLENGES = "ginbox.challenges.v1"
SEATS = "ginbox.seats.v1"


def send_challenge(driver, base: str, to: str, name: str, boards: str | None) -> str:
    """Fill and send the lobby's challenge form (``boards`` None: a single game); the challenge's id."""
    driver.get(base + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    driver.find_element(By.ID, "challenge-kind-game" if boards is None else "challenge-kind-match").click()
    fields = [("challenge-to", to), ("your-name", name)] + ([("challenge-boards", boards)] if boards else [])
    for field, value in fields:
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    return submit_challenge(driver)


def submit_challenge(driver) -> str:
    """Press the form's send button; the id of the challenge the lobby then lists."""
    driver.find_element(By.ID, "challenge-button").click()
    row = wait_for(driver, lambda d: css(d, "#my-challenges li[data-challenge]"), what="the challenge listed")[0]
    return row.get_attribute("data-challenge")


def row_of(challenge_id: str) -> str:
    return f'#my-challenges li[data-challenge="{challenge_id}"]'


def test_a_person_withdraws_a_pending_challenge_from_the_lobby(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()

    challenge_id = send_challenge(driver, live_server, bot, "ann", "3")
    row = row_of(challenge_id)
    assert "Pending" in text_of(driver, row) and "3 boards" in text_of(driver, row)
    assert stored(driver, CHALLENGES)[challenge_id]["status"] == "pending"
    shoot(driver, tmp_path / "lobby-challenge-pending.png")

    click_when_ready(driver, f"{row} button.withdraw", "the Withdraw button")
    wait_for(driver, lambda d: css(d, f'{row}[data-status="withdrawn"]'), what="the challenge shown withdrawn")
    assert "Withdrawn" in text_of(driver, row) and not css(driver, f"{row} button.withdraw")
    # the server says so, and the bot can no longer accept it
    status, seen = api.call("GET", f"/challenges/{challenge_id}")
    assert status == 200 and seen["status"] == "withdrawn" and seen["from"] == "ann"
    status, problem = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 409 and problem["code"] == "challenge_not_pending"
    # the browser still lists it (with its token) until it is forgotten
    assert stored(driver, CHALLENGES)[challenge_id]["status"] == "withdrawn"
    assert text_of(driver, "#challenge-error") == ""
    shoot(driver, tmp_path / "lobby-challenge-withdrawn.png")
    assert serious_violations(driver) == [] and console_errors(driver) == []

    click_when_ready(driver, f"{row} button.forget", "the Forget button")
    wait_for(driver, lambda d: "None yet" in text_of(d, "#my-challenges"), what="the challenge forgotten")
    assert stored(driver, CHALLENGES) == {}


def test_a_withdrawal_after_the_bot_accepted_shows_the_match(live_server, new_browser):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()
    challenge_id = send_challenge(driver, live_server, bot, "ann", "1")
    wait_for(driver, lambda d: css(d, f"{row_of(challenge_id)} button.withdraw"), what="the Withdraw button")
    # the lobby asks every two seconds: accept and click before it looks again
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200, accepted
    clicked = False
    for button in css(driver, f"{row_of(challenge_id)} button.withdraw"):
        try:
            button.click()
            clicked = True
        except StaleElementReferenceException:  # the lobby saw the acceptance first and drew the row again
            pass
    # whether the click reached the server or the lobby saw the acceptance first, it ends accepted
    wait_for(driver, lambda d: css(d, f'{row_of(challenge_id)} a.match-link[data-match="{accepted["match_id"]}"]'),
             what="the match link")
    if clicked:
        error = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the refusal")
        assert "[challenge_not_pending]" in error, error
    assert api.call("GET", f"/challenges/{challenge_id}")[1]["status"] == "accepted"


def test_a_single_game_challenge_accepted_by_the_bot_opens_at_the_table_with_the_person_s_hand(
        live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()

    challenge_id = send_challenge(driver, live_server, bot, "ann", None)
    row = row_of(challenge_id)
    assert "a single game" in text_of(driver, row) and "Pending" in text_of(driver, row)
    assert driver.find_element(By.ID, "challenge-boards").get_attribute("disabled") is not None
    mine = stored(driver, CHALLENGES)[challenge_id]
    token = mine["token"]
    assert mine["kind"] == "game" and mine["boards"] is None and len(token) >= 32
    status, seen = api.call("GET", f"/challenges/{challenge_id}")
    assert status == 200 and seen["kind"] == "game" and seen["boards"] is None and seen["status"] == "pending"
    assert seen["from"] == "ann" and seen["from_kind"] == "person"
    shoot(driver, tmp_path / "lobby-single-game-pending.png")

    # the bot accepts over HTTP: the lobby, asking after the challenge, links to the game's table
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200 and accepted["match_id"] is None, accepted
    game_id = accepted["game_id"]
    link = f'{row} a.game-link[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, link), what="the game link")
    assert "play the game" in text_of(driver, row)
    # the person's seat, as the bot's token sees the game: ann holds the other one
    bot_view = api.view(game_id, bot_token)
    ann_seat = 1 - bot_view["viewer"]
    assert bot_view["players"][ann_seat]["name"] == "ann"
    wait_for(driver, lambda d: game_id in stored(d, SEATS), what="the token saved as the game's seat")
    assert stored(driver, SEATS)[game_id]["seats"] == {str(ann_seat): {"token": token, "name": "ann"}}
    assert css(driver, f'#my-games a.resume[data-game="{game_id}"]')
    shoot(driver, tmp_path / "lobby-single-game-accepted.png")
    assert serious_violations(driver) == [] and console_errors(driver) == []

    click_when_ready(driver, link, "the game link")
    wait_for(driver, lambda d: d.current_url.startswith(f"{live_server}/play/{game_id}"), what="the table page")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="ann's hand")
    ann_view = api.view(game_id, token)
    assert ann_view["viewer"] == ann_seat and sorted(hand_cards(driver)) == sorted(ann_view["hand"])
    assert token not in driver.current_url and not driver.get_cookies()
    shoot(driver, tmp_path / "table-single-game.png")
    assert console_errors(driver) == []


def choose_three_hand(driver, base: str, to: str, name: str, third: str | None) -> None:
    """Open the lobby, choose box gin and a single game, and fill the form (``third`` None: the default)."""
    driver.get(base + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    assert not driver.find_element(By.ID, "challenge-with").is_displayed()  # gin rami, the default, has none
    driver.find_element(By.ID, "challenge-variant-three-hand").click()
    driver.find_element(By.ID, "challenge-kind-game").click()
    third_box = driver.find_element(By.ID, "challenge-with")
    assert third_box.is_displayed() and third_box.is_enabled() and third_box.get_attribute("value") == "basic"
    fields = [("challenge-to", to), ("your-name", name)] + ([("challenge-with", third)] if third else [])
    for field, value in fields:
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)


def challenges_told(api: Api, bot_token: str) -> list[str]:
    """The ids of the challenges the bot's stream has told it of, from its start (caught up at once)."""
    status, text = api.call("GET", "/bots/me/stream?after=0&once=1", token=bot_token)
    assert status == 200, text
    ids, event = [], None
    for line in text.splitlines():
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "challenge":
            ids.append(json.loads(line.split(":", 1)[1])["challenge_id"])
    return ids


def test_a_three_hand_challenge_with_basic_opens_a_table_of_three(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()

    choose_three_hand(driver, live_server, bot, "ann", None)
    # the third player is offered from the built-in policies (and the rated bot accounts)
    offered = driver.execute_script(
        "return Array.from(document.querySelectorAll('#third-names option'), o => o.value)")
    assert offered[:5] == ["random", "simple", "basic", "advanced", "expert"]
    shoot(driver, tmp_path / "lobby-three-hand-form.png", "#challenge-form")
    assert serious_violations(driver) == []
    challenge_id = submit_challenge(driver)
    row = row_of(challenge_id)
    listed = text_of(driver, row)
    assert f"ann against {bot} and basic, box gin (three-hand), a single game" in listed and "Pending" in listed
    mine = stored(driver, CHALLENGES)[challenge_id]
    token = mine["token"]
    assert mine["with"] == ["basic"] and mine["variant"] == "three-hand" and mine["kind"] == "game"
    # what the form sent, as the server keeps it
    status, seen = api.call("GET", f"/challenges/{challenge_id}")
    assert status == 200, seen
    assert (seen["variant"], seen["with"], seen["kind"], seen["from"], seen["to"]) == \
        ("three-hand", ["basic"], "game", "ann", bot)
    assert text_of(driver, "#challenge-error") == ""

    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200 and accepted["match_id"] is None, accepted
    game_id = accepted["game_id"]
    link = f'{row} a.game-link[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, link), what="the game link")
    # the person holds one seat of the three: the one the token's view of the game names
    ann_view = api.view(game_id, token)
    assert len(ann_view["players"]) == 3 and ann_view["players"][ann_view["viewer"]]["name"] == "ann"
    assert sorted(p["name"] for p in ann_view["players"]) == sorted(["ann", bot, "basic"])
    wait_for(driver, lambda d: game_id in stored(d, SEATS), what="the token saved as the game's seat")
    assert stored(driver, SEATS)[game_id]["seats"] == {str(ann_view["viewer"]): {"token": token, "name": "ann"}}
    assert stored(driver, SEATS)[game_id]["variant"] == "three-hand"
    assert serious_violations(driver) == [] and console_errors(driver) == []

    click_when_ready(driver, link, "the game link")
    wait_for(driver, lambda d: d.current_url.startswith(f"{live_server}/play/{game_id}"), what="the table page")
    # the page draws itself again on every event: read the score sheet's heads in one go
    heads = "return Array.from(document.querySelectorAll('#score-sheet thead th'), th => th.textContent)"
    names = wait_for(driver, lambda d: len(d.execute_script(heads)) == 5 and d.execute_script(heads),
                     what="the score sheet of three")[2:]
    assert names[ann_view["viewer"]] == "ann" and bot in names and "basic" in names
    wait_for(driver, lambda d: "ann" in text_of(d, "#whoami"), what="ann's seat at the table")
    # the two other seats are shown beside the person's hand (the advisor's page shows the captain's)
    others = driver.execute_script("return document.querySelectorAll('#board .pile.opponent[data-seat]').length")
    assert others == 2 and len(hand_cards(driver)) >= 10
    assert token not in driver.current_url and console_errors(driver) == []
    shoot(driver, tmp_path / "table-three-hand-challenge.png")


def test_a_three_hand_challenge_naming_no_one_known_is_refused_in_the_form(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser(390, 844)  # on a phone's width

    choose_three_hand(driver, live_server, bot, "ann", "nobody-here")
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    driver.find_element(By.ID, "challenge-button").click()
    error = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the refusal")
    assert error.startswith("The challenge was refused: ") and "[unknown_participant]" in error, error
    assert "'nobody-here' is neither a built-in policy" in error
    # nothing was kept: the bot was told of no challenge, and the browser holds none
    assert challenges_told(api, bot_token) == []
    assert stored(driver, CHALLENGES) == {} and "None yet" in text_of(driver, "#my-challenges")
    shoot(driver, tmp_path / "lobby-three-hand-refused.png", "#challenge-form")
    assert serious_violations(driver) == []
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    # the same challenge naming a known third player is taken, so the refusal was the name's alone
    third = driver.find_element(By.ID, "challenge-with")
    third.clear()
    third.send_keys("expert")
    challenge_id = submit_challenge(driver)
    assert text_of(driver, "#challenge-error") == ""
    assert list(stored(driver, CHALLENGES)) == [challenge_id]
    assert api.call("GET", f"/challenges/{challenge_id}")[1]["with"] == ["expert"]
    assert challenges_told(api, bot_token) == [challenge_id]
    assert api.call("POST", f"/challenges/{challenge_id}/decline", token=bot_token)[0] == 200
    wait_for(driver, lambda d: "Declined" in text_of(d, row_of(challenge_id)), what="the challenge declined")
    # the browser logs the refused request itself, and nothing else went wrong
    errors = console_errors(driver)
    assert len(errors) == 1 and "/challenges - Failed to load resource" in errors[0] and "422" in errors[0], errors


def test_a_three_hand_match_gives_the_person_a_seat_at_every_table(live_server, new_browser):
    """A 1-board box gin match is played at three tables, the players rotated: the person sits at
    each, and the match page saves the one token as the person's seat of every table's game."""
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()

    choose_three_hand(driver, live_server, bot, "ann", "advanced")
    driver.find_element(By.ID, "challenge-kind-match").click()
    boards = driver.find_element(By.ID, "challenge-boards")
    boards.clear()
    boards.send_keys("1")
    challenge_id = submit_challenge(driver)
    listed = text_of(driver, row_of(challenge_id))
    assert f"ann against {bot} and advanced, box gin (three-hand), a match of 1 board" in listed, listed
    token = stored(driver, CHALLENGES)[challenge_id]["token"]
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200 and accepted["game_id"] is None, accepted
    match_id = accepted["match_id"]
    status, match = api.call("GET", f"/matches/{match_id}")
    assert status == 200 and match["variant"] == "three-hand", match
    tables = match["board_results"][0]["tables"]
    # ann sits at each of the three tables, at a different seat each time
    seats = {t["game_id"]: t["seats"].index("ann") for t in tables}
    assert len(seats) == 3 and sorted(seats.values()) == [0, 1, 2]

    click_when_ready(driver, f'#my-challenges a.match-link[data-match="{match_id}"]', "the match link")
    wait_for(driver, lambda d: len(css(d, "#boards tbody a.table-link")) == 3, what="a Play link at every table")
    saved = stored(driver, SEATS)
    assert {g: saved[g]["seats"] for g in seats} == {
        g: {str(seat): {"token": token, "name": "ann"}} for g, seat in seats.items()}
    assert all(saved[g]["match"] == match_id for g in seats)
    # the token plays ann's seat at each table (the server agrees), and the table page takes it
    for game_id, seat in seats.items():
        assert api.view(game_id, token)["viewer"] == seat
    game_id = tables[2]["game_id"]
    click_when_ready(driver, f'#boards tbody a.table-link[data-game="{game_id}"]', "the third table's Play link")
    wait_for(driver, lambda d: d.current_url.startswith(f"{live_server}/play/{game_id}"), what="the table page")
    wait_for(driver, lambda d: f"you are ann, seat {seats[game_id] + 1}" in text_of(d, "#whoami"), what="ann's seat")
    heads = "return document.querySelectorAll('#score-sheet thead th').length"
    assert wait_for(driver, lambda d: d.execute_script(heads), what="the score sheet") == 5
    assert console_errors(driver) == []
