"""The lobby's challenge form says what is missing in its own words, and asks the bot account no
faster moves than the server allows: at least 5 s a move, as a match seating a bot account does.

Nothing is sent while the form is refused, so the bot's challenge count stays where it was.
"""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, css, register_bot, stored, text_of, wait_for
from screenshots import shoot

CHALLENGES = "ginbox.challenges.v1"


def fill(driver, **fields: str) -> None:
    for field, value in fields.items():
        box = driver.find_element(By.ID, field.replace("_", "-"))
        box.clear()
        if value:
            box.send_keys(value)


def sent_challenges(driver) -> list:
    return [e for e in driver.execute_script("return globalThis.ginboxExchanges")
            if e["method"] == "POST" and e["url"] == "/challenges"]


def test_the_challenge_form_asks_a_name_in_lobby_words_and_at_least_5_s_a_move(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, _ = register_bot(api)
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    assert driver.find_element(By.ID, "challenge-move-time").get_attribute("min") == "5"

    # no name: the form says so without speaking of a table the lobby does not have
    fill(driver, challenge_to=bot, your_name="")  # the one name field, at the top
    driver.find_element(By.ID, "challenge-button").click()
    said = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the missing name")
    assert said == "Say your name (Your name, at the top): the bot and anyone watching see you by it."
    assert "table" not in said

    # 2 s a move: refused here, as the server would refuse it
    fill(driver, your_name="ann", challenge_move_time="2")
    driver.find_element(By.ID, "challenge-button").click()
    said = wait_for(driver, lambda d: "5 seconds" in text_of(d, "#challenge-error") and text_of(d, "#challenge-error"),
                    what="the move time refused")
    assert said == "Give the bot at least 5 seconds a move (up to 86400), or leave the time empty for no clock."
    shoot(driver, tmp_path / "challenge-form-move-time.png", "#challenge-form")
    assert sent_challenges(driver) == [] and stored(driver, CHALLENGES) == {}
    status, problem = api.call("POST", "/challenges", {"to": bot, "variant": "gin-rami", "name": "ann", "boards": 1,
                                                       "move_time_s": 2})
    assert status == 422 and problem["code"] == "invalid_match"

    # 5 s is taken
    fill(driver, challenge_move_time="5")
    driver.find_element(By.ID, "challenge-button").click()
    row = wait_for(driver, lambda d: css(d, "#my-challenges li[data-challenge]"), what="the challenge listed")[0]
    assert "5 s a move" in row.text and text_of(driver, "#challenge-error") == ""
    mine = stored(driver, CHALLENGES)[row.get_attribute("data-challenge")]
    assert mine["move_time_s"] == 5
