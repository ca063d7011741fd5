"""The lobby as a person fills it in: a seat switched from "You" to a bot leaves the person's name
behind (the server names the bot), and a rule out of range is refused in the form's own words, at
the field, which is marked and focused."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import Api, css, serious_violations, wait_for


def test_a_seat_switched_to_a_bot_does_not_keep_the_persons_name(live_server, new_browser):
    api = Api(live_server)
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    name = driver.find_element(By.ID, "your-name")
    name.send_keys("Alice", Keys.TAB)  # leaving the field changes it
    wait_for(driver, lambda d: d.find_element(By.ID, "seat0-name").get_attribute("value") == "Alice",
             what="seat 0 named after the person")
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("bot:random")
    assert driver.find_element(By.ID, "seat0-name").get_attribute("value") == ""
    assert driver.find_element(By.ID, "seat0-name").get_attribute("placeholder") == "the server names it"
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/watch/" in d.current_url, what="the game of bots watched")
    game_id = driver.current_url.split("/watch/")[1].split("#")[0]
    bot = api.view(game_id)["players"][0]
    assert bot["bot"] == "random" and "Alice" not in bot["name"], bot
    # and back: seat 0 as "You" is the person's again
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("bot:basic")
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("you")
    assert driver.find_element(By.ID, "seat0-name").get_attribute("value") == "Alice"
    assert serious_violations(driver) == []
