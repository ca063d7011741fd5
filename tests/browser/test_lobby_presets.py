"""The lobby's "New game" form offers the presets of the chosen variant: a game created under one
states it, with its options, and a rule field filled in overrides it as on the API. The challenge
form offers them too."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import Api, console_errors, css, register_bot, wait_for
from lobby_and_end import in_view

#: the eaai preset's options as RULES.md §5 lists them
EAAI = {"target_score": 100, "knock_limit": 10, "gin_bonus": 25, "big_gin_bonus": None,
        "gin_adds_deadwood": True, "undercut_bonus": 25, "box_bonus": 0, "game_bonus": 0,
        "shutout_bonus": 0, "shutout_doubles": False, "oklahoma": False}


def options_of(driver) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll('#create-rules option'), o => o.value)")


def open_lobby(driver, base: str) -> None:
    driver.get(base + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    driver.find_element(By.ID, "your-name").send_keys("ann")


def test_an_eaai_game_created_in_the_lobby_states_its_preset_and_options(live_server, new_browser, tmp_path):
    api = Api(live_server)
    driver = new_browser()
    open_lobby(driver, live_server)
    # gin rami's presets; box gin's one
    assert options_of(driver) == ["", "gin-rami", "eaai", "openspiel", "standard", "oklahoma", "hollywood"]
    driver.find_element(By.CSS_SELECTOR, "input[name=variant][value=three-hand]").click()
    assert options_of(driver) == ["", "box-gin"]
    driver.find_element(By.CSS_SELECTOR, "input[name=variant][value=gin-rami]").click()
    Select(driver.find_element(By.ID, "create-rules")).select_by_value("eaai")
    in_view(driver, "#create-rules")
    assert driver.find_element(By.ID, "target-score").get_attribute("placeholder") == "100"
    driver.save_screenshot(str(tmp_path / "lobby-presets.png"))
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table")
    game_id = driver.current_url.split("/play/")[1].split("#")[0]
    view = api.view(game_id)
    assert view["rules"] == "eaai"
    assert {k: view["options"][k] for k in EAAI} == EAAI
    assert console_errors(driver) == []


def test_oklahoma_takes_the_knock_limit_from_the_upcard_and_a_field_overrides_the_preset(live_server, new_browser):
    api = Api(live_server)
    driver = new_browser()
    open_lobby(driver, live_server)
    knock = driver.find_element(By.ID, "knock-limit")
    knock.send_keys("7")
    Select(driver.find_element(By.ID, "create-rules")).select_by_value("oklahoma")
    # the knock limit is the upcard's: its field is off and empty, and says so
    assert not knock.is_enabled() and knock.get_attribute("value") == ""
    assert knock.get_attribute("placeholder") == "by the upcard"
    assert driver.find_element(By.ID, "target-score").get_attribute("placeholder") == "150"
    driver.find_element(By.ID, "target-score").send_keys("50")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table")
    view = api.view(driver.current_url.split("/play/")[1].split("#")[0])
    assert view["rules"] == "oklahoma"
    assert (view["options"]["target_score"], view["options"]["oklahoma"], view["options"]["knock_limit"],
            view["options"]["box_bonus"]) == (50, True, None, 25)


def test_a_challenge_sent_from_the_lobby_under_a_preset_makes_a_game_that_states_it(live_server, new_browser):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    driver = new_browser()
    open_lobby(driver, live_server)
    driver.find_element(By.ID, "challenge-kind-game").click()
    driver.find_element(By.ID, "challenge-to").send_keys(bot)
    driver.find_element(By.ID, "challenge-variant-three-hand").click()
    values = driver.execute_script(
        "return Array.from(document.querySelectorAll('#challenge-rules option'), o => o.value)")
    assert values == ["", "box-gin"]
    driver.find_element(By.ID, "challenge-variant-gin-rami").click()
    Select(driver.find_element(By.ID, "challenge-rules")).select_by_value("oklahoma")
    in_view(driver, "#challenge-rules")
    driver.find_element(By.ID, "challenge-button").click()
    row = wait_for(driver, lambda d: css(d, "#my-challenges li[data-challenge]"), what="the challenge listed")[0]
    challenge_id = row.get_attribute("data-challenge")
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200, accepted
    assert accepted["rules"] == "oklahoma"
    view = api.view(accepted["game_id"])
    assert view["rules"] == "oklahoma"
    assert (view["options"]["oklahoma"], view["options"]["target_score"], view["options"]["knock_limit"]) == \
        (True, 150, None)
