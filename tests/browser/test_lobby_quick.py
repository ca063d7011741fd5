"""The lobby for a new player: "Play a bot now" is in view as the page opens and one click seats
the person at a gin rami table against the expert bot with the standard rules; the person's seat is
named by the one "Your name" field (no second name field for it); seats read from 1; the rules are
one link away, from the lobby and from the table."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import Api, console_errors, css, hand_cards, serious_violations, stored, text_of, texts, wait_for
from lobby_and_end import in_view


def test_play_a_bot_now_seats_you_at_a_table_in_one_click(live_server, new_browser, tmp_path):
    api = Api(live_server)
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    driver.find_element(By.ID, "your-name").send_keys("ann")
    # in view as the lobby opens, with no scrolling
    in_view(driver, "#play-bot-now", scroll=False)
    assert driver.find_element(By.ID, "play-bot-now").text == "Play a bot now"
    driver.save_screenshot(str(tmp_path / "lobby-top.png"))
    driver.find_element(By.ID, "play-bot-now").click()

    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table")
    game_id = driver.current_url.split("/play/")[1].split("#")[0]
    wait_for(driver, lambda d: len(hand_cards(d)) in (10, 11), what="the person's hand")
    in_view(driver, "#hand")
    driver.save_screenshot(str(tmp_path / "quick-table.png"))
    view = api.view(game_id)
    assert view["variant"] == "gin-rami"
    assert view["players"][0] == {"name": "ann"}
    assert view["players"][1]["bot"] == "expert"
    # the standard rules of gin rami (RULES.md §4): game to 100, knock at 10 or less, no clock
    assert (view["options"]["target_score"], view["options"]["knock_limit"], view["options"]["turn_timeout_s"]) == \
        (100, 10, None)
    assert view["randomly_dealt"] is True
    # the seat's token is this browser's: the lobby lists the game among "Your games"
    assert stored(driver, "ginbox.seats.v1")[game_id]["seats"]["0"]["name"] == "ann"
    assert console_errors(driver) == []


def test_one_name_field_and_seats_counted_from_one(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, open_game = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "bob"}, None]})
    assert status == 201, open_game
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    driver.find_element(By.ID, "your-name").send_keys("ann")
    wait_for(driver, lambda d: text_of(d, "#seat0-note").startswith("you, as ann"), what="the seat named by Your name")

    # one name field a person types their own name in: "Your name"; the "You" seat has none, and the
    # challenge form plays under it too
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('input[autocomplete=nickname], #create-form input:not([type])'))"
        ".filter(e => e.offsetParent !== null).map(e => e.id)")
    assert shown == ["your-name", "seat1-name"], shown  # seat 2 is a bot's, to name it
    assert not driver.find_element(By.ID, "seat0-name").is_displayed()
    # the seats read from 1: "Seat 1", "Seat 2"; so does the first dealer's choice
    assert texts(driver, "#seat-rows label[for$='-kind']") == ["Seat 1", "Seat 2"]
    dealers = driver.execute_script(
        "return Array.from(document.querySelectorAll('select[name=first_dealer] option'), o => [o.value, o.textContent])")
    assert dealers == [["", "by the cut"], ["0", "seat 1"], ["1", "seat 2"]]
    in_view(driver, "#seat-rows")
    driver.save_screenshot(str(tmp_path / "lobby-seats.png"))
    # an open seat names no one: whoever joins names themselves
    Select(driver.find_element(By.ID, "seat1-kind")).select_by_value("open")
    assert not driver.find_element(By.ID, "seat1-name").is_displayed()
    assert text_of(driver, "#seat1-note") == "whoever joins names themselves"
    # three seats for box gin, from 1 to 3
    driver.find_element(By.CSS_SELECTOR, "input[name=variant][value=three-hand]").click()
    assert texts(driver, "#seat-rows label[for$='-kind']") == ["Seat 1", "Seat 2", "Seat 3"]

    # the server's games: an open seat is the second, to people
    row = f'#games-table tr[data-game="{open_game["game_id"]}"]'
    wait_for(driver, lambda d: css(d, f"{row} button.join"), what="the open game listed")
    assert texts(driver, f"{row} button.join") == ["Join seat 2"]
    assert "bob, seat 2 open" in text_of(driver, row)
    in_view(driver, f"{row} button.join")

    # made from the form, the person's seat takes the name typed once
    driver.find_element(By.CSS_SELECTOR, "input[name=variant][value=gin-rami]").click()
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table")
    game_id = driver.current_url.split("/play/")[1].split("#")[0]
    players = api.view(game_id)["players"]
    assert players[0] == {"name": "ann"} and players[1]["bot"] == "basic"
    assert serious_violations(driver) == []


def test_the_rules_are_a_link_away_from_the_lobby_and_the_table(live_server, new_browser):
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "header.top a[href='/guides/RULES']"), what="the lobby")
    in_view(driver, "header.top a[href='/guides/RULES']", scroll=False)
    in_view(driver, "#rules-link", scroll=False)
    status, page = Api(live_server).call("GET", "/guides/RULES")
    assert status == 200 and "Gin rummy as ginbox plays it" in page
    status, created = Api(live_server).call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}]})
    assert status == 201, created
    driver.get(f"{live_server}/watch/{created['game_id']}")
    wait_for(driver, lambda d: css(d, "header.top a[href='/guides/RULES']"), what="the table")
    in_view(driver, "header.top a[href='/guides/RULES']", scroll=False)
    driver.find_element(By.CSS_SELECTOR, "header.top a[href='/guides/RULES']").click()
    # the rules open beside the table, which stays where it is
    wait_for(driver, lambda d: len(d.window_handles) == 2, what="the rules in a tab of their own")
    driver.switch_to.window(driver.window_handles[1])
    wait_for(driver, lambda d: d.current_url.endswith("/guides/RULES"), what="the rules page")
    assert "gin rami" in driver.page_source.lower()


def test_on_a_phone_play_a_bot_now_is_in_view_and_the_seat_rows_fit(live_server, new_browser, tmp_path):
    driver = new_browser(390, 844)
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    in_view(driver, "#play-bot-now", scroll=False)
    driver.save_screenshot(str(tmp_path / "lobby-phone-top.png"))
    driver.find_element(By.CSS_SELECTOR, "input[name=variant][value=three-hand]").click()
    for i in range(3):
        in_view(driver, f"#seat{i}-kind")
    in_view(driver, "#seat0-note")
    in_view(driver, "#seat2-name")
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    driver.save_screenshot(str(tmp_path / "lobby-phone-seats.png"))
