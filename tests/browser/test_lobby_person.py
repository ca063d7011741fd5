"""The lobby as a person fills it in: a seat switched from "You" to a bot leaves the person's name
behind (the server names the bot; the person's seat is named by the one "Your name" field), and a
rule out of range is refused in the form's own words, at the field, which is marked and focused."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import Api, css, serious_violations, text_of, wait_for
from screenshots import shoot


def test_a_seat_switched_to_a_bot_does_not_keep_the_persons_name(live_server, new_browser):
    api = Api(live_server)
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    name = driver.find_element(By.ID, "your-name")
    name.send_keys("Alice", Keys.TAB)  # leaving the field changes it
    wait_for(driver, lambda d: text_of(d, "#seat0-note").startswith("you, as Alice"),
             what="the first seat named after the person")
    # the person's seat has no name field of its own: "Your name" is the one
    assert not driver.find_element(By.ID, "seat0-name").is_displayed()
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("bot:random")
    assert driver.find_element(By.ID, "seat0-name").is_displayed()
    assert driver.find_element(By.ID, "seat0-name").get_attribute("value") == ""
    assert driver.find_element(By.ID, "seat0-name").get_attribute("placeholder") == "the server names it"
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/watch/" in d.current_url, what="the game of bots watched")
    game_id = driver.current_url.split("/watch/")[1].split("#")[0]
    bot = api.view(game_id)["players"][0]
    assert bot["bot"] == "random" and "Alice" not in bot["name"], bot
    # and back: the first seat as "You" is the person's again
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("bot:basic")
    Select(driver.find_element(By.ID, "seat0-kind")).select_by_value("you")
    assert text_of(driver, "#seat0-note").startswith("you, as Alice")
    assert not driver.find_element(By.ID, "seat0-name").is_displayed()
    assert serious_violations(driver) == []


def test_a_rule_out_of_range_is_refused_at_its_field_in_the_forms_words(live_server, new_browser, tmp_path):
    api = Api(live_server)
    newest = lambda: [g["game_id"] for g in api.call("GET", "/games?limit=1")[1]["games"]]  # noqa: E731
    before = newest()
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    field = driver.find_element(By.ID, "knock-limit")
    field.send_keys("101")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: text_of(d, "#create-error") == "The game was not created: Knock limit: at most 100.",
             what="the refusal in the form's words")
    assert field.get_attribute("aria-invalid") == "true"
    assert field.get_attribute("aria-describedby") == "create-error"
    assert driver.execute_script("return document.activeElement.id") == "knock-limit"
    shoot(driver, tmp_path / "knock-limit.png", "#create-form")
    assert serious_violations(driver) == []
    # the other fields in turn: below the least, then right, and the mark goes
    field.clear()
    game_to = driver.find_element(By.ID, "target-score")
    game_to.send_keys("0")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: text_of(d, "#create-error") == "The game was not created: Game to: at least 1.",
             what="the target's refusal")
    assert field.get_attribute("aria-invalid") is None and game_to.get_attribute("aria-invalid") == "true"
    assert newest() == before
