"""The lobby keeps up with what it did and says what it means.

A private game just created is at once among "Your games" and in the server's list; a seat taken
with no name is "player <seat, counted from 1>" wherever it is taken, and an empty name is never kept as this
browser's; a built-in bot typed as the account to challenge is told apart from bot accounts, and
the account field says how an account comes to be when none is listed.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import Api, css, exchanges, text_of, wait_for
from screenshots import shoot


def test_a_private_game_just_created_is_listed_without_a_reload(live_server, new_browser, tmp_path):
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    wait_for(driver, lambda d: "None yet" in text_of(d, "#my-games"), what="no game of this browser's")
    driver.find_element(By.ID, "your-name").send_keys("ann")
    Select(driver.find_element(By.ID, "seat1-kind")).select_by_value("open")
    driver.find_element(By.ID, "private").click()
    driver.find_element(By.ID, "create-button").click()
    link = wait_for(driver, lambda d: d.find_element(By.ID, "invite-1").get_attribute("value"), what="the invitation")
    game_id = link.split("/play/")[1].split("#")[0]
    wait_for(driver, lambda d: css(d, f'#my-games a.resume[data-game="{game_id}"]'), polls=50, what="the game among yours")
    assert "None yet" not in text_of(driver, "#my-games")
    wait_for(driver, lambda d: css(d, f'#games-table tr[data-game="{game_id}"]'), polls=50, what="the game listed")
    assert "seat 2 by invitation" in text_of(driver, f'#games-table tr[data-game="{game_id}"]')
    shoot(driver, tmp_path / "lobby-after-private.png")


def test_a_seat_taken_with_no_name_is_player_and_its_number_and_no_name_is_kept(live_server, new_browser):
    api = Api(live_server)
    # by invitation, with the name left empty
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": True})
    assert status == 201, created
    game_id, secret = created["game_id"], created["seats"][1]["invite"]
    guest = new_browser()
    guest.get(f"{live_server}/play/{game_id}#seat=1&secret={secret}")
    wait_for(guest, lambda d: css(d, "#invite-name"), what="the invitation form")
    assert guest.find_element(By.ID, "invite-name").get_attribute("placeholder") == "player 2"
    guest.find_element(By.CSS_SELECTOR, "#invite-form button").click()
    view = api.wait_view(game_id, None, lambda v: v["players"][1] is not None)
    assert view["players"][1]["name"] == "player 2"
    wait_for(guest, lambda d: "secret" not in d.current_url, what="the claim")
    assert guest.execute_script("return localStorage.getItem('ginbox.name')") is None

    # created in the lobby, with the name left empty: the field says what it becomes
    creator = new_browser()
    creator.get(live_server + "/")
    wait_for(creator, lambda d: css(d, "#seat1-kind"), what="the lobby")
    assert text_of(creator, "#seat0-note") == "you, as player 1 (Your name, above)"
    # a second person at this screen is named in the seat's row
    Select(creator.find_element(By.ID, "seat1-kind")).select_by_value("you")
    assert creator.find_element(By.ID, "seat1-name").is_displayed()
    assert creator.find_element(By.ID, "seat1-name").get_attribute("placeholder") == "player 2"
    Select(creator.find_element(By.ID, "seat1-kind")).select_by_value("bot:basic")
    creator.find_element(By.ID, "create-button").click()
    wait_for(creator, lambda d: "/play/" in d.current_url, what="the table")
    made = creator.current_url.split("/play/")[1].split("#")[0]
    assert api.view(made)["players"][0]["name"] == "player 1"
    assert creator.execute_script("return localStorage.getItem('ginbox.name')") is None

    # joined from the lobby, with the name left empty
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None]})
    assert status == 201, created
    game_id = created["game_id"]
    guest.get(live_server + "/")
    join = f'button.join[data-game="{game_id}"][data-seat="1"]'
    wait_for(guest, lambda d: css(d, join), what="the join button")
    assert guest.find_element(By.ID, "your-name").get_attribute("value") == ""
    guest.find_element(By.CSS_SELECTOR, join).click()
    view = api.wait_view(game_id, None, lambda v: v["players"][1] is not None)
    assert view["players"][1]["name"] == "player 2"
    assert guest.execute_script("return localStorage.getItem('ginbox.name')") is None


def test_a_built_in_bot_is_not_challenged_as_an_account(live_server, new_browser, tmp_path):
    api = Api(live_server)
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    # the account field's help says what GET /ratings says: rated accounts to pick, or none yet
    rated = [r for v in ("gin-rami", "three-hand")
             for r in api.call("GET", f"/ratings?variant={v}")[1]["ratings"] if r["kind"] == "bot"]
    if rated:
        wait_for(driver, lambda d: text_of(d, "#challenge-to-help").startswith("pick a rated one"), what="the help")
    else:
        wait_for(driver, lambda d: "No bot account is rated" in text_of(d, "#challenge-to-help"), what="the help")
        assert "POST /bots" in text_of(driver, "#challenge-to-help")
        assert css(driver, '#challenge-to-help a[href="/docs#/arena/registerBot"]')
    for field, value in (("challenge-to", "basic"), ("your-name", "ann")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "challenge-button").click()
    text = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the refusal")
    assert text.startswith("basic is a built-in bot, not a bot account: play it in a new game above"), text
    assert not [e for e in exchanges(driver) if e["method"] == "POST"]
    shoot(driver, tmp_path / "challenge-built-in.png", "#challenge-form")
