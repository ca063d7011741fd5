"""The lobby says what the server refused in sentences: the problem's detail and code, then each
field's message after the field's name ("decks.0: length must be …"), never the raw JSON."""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By

from helpers import Api, css, serious_violations, text_of, wait_for
from screenshots import shoot


def field_lines(errors, path=()) -> list[str]:
    """The "field: message" sentences the page is to show for a problem's ``errors``."""
    out = []
    if isinstance(errors, dict):
        for key, inner in errors.items():
            out += field_lines(inner, path + (key,))
    elif isinstance(errors, list):
        for message in errors:
            out += field_lines(message, path)
    else:
        out.append(f"{'.'.join(path)}: {errors[0].lower()}{errors[1:]}")
    return out


def assert_readable(text: str, problem: dict) -> None:
    assert problem["code"] == "invalid_body" and problem["errors"], problem
    assert problem["detail"].rstrip(". ") in text and "[invalid_body]" in text, text
    for line in field_lines(problem["errors"]):
        assert line in text, (line, text)
    # none of the JSON's punctuation reaches the person
    assert not any(c in text for c in '{}"'), text
    assert text.count("[") == 1 and text.count("]") == 1, text


def test_a_refused_deck_is_explained_field_by_field(live_server, new_browser, tmp_path):
    api = Api(live_server)
    deck = ["AC", "2C", "3C"]  # a deck of three cards, not 52
    status, problem = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                                  "decks": [deck]})
    assert status == 400, problem

    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    driver.find_element(By.CSS_SELECTOR, "#create-form details summary").click()
    driver.find_element(By.ID, "decks").send_keys('[["AC", "2C", "3C"]]')
    driver.find_element(By.ID, "create-button").click()
    text = wait_for(driver, lambda d: text_of(d, "#create-error"), what="the refusal")
    assert text.startswith("The game was not created: "), text
    assert_readable(text, problem)
    assert "decks.0: length must be" in text
    assert "/play/" not in driver.current_url
    shoot(driver, tmp_path / "lobby-deck-refused.png", "#create-form")
    assert serious_violations(driver) == []


def test_a_match_of_no_boards_is_explained_field_by_field(live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot = f"n{uuid.uuid4().hex[:10]}"
    status, problem = api.call("POST", "/challenges", {"to": bot, "variant": "gin-rami", "name": "ann", "boards": 0})
    assert status == 400, problem

    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the challenge form")
    driver.find_element(By.ID, "challenge-kind-match").click()
    for field, value in (("challenge-to", bot), ("challenge-name", "ann"), ("challenge-boards", "0")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    driver.find_element(By.ID, "challenge-button").click()
    text = wait_for(driver, lambda d: text_of(d, "#challenge-error"), what="the refusal")
    assert text.startswith("The challenge was refused: "), text
    assert_readable(text, problem)
    assert "boards: must be greater than or equal to 1" in text
    shoot(driver, tmp_path / "lobby-boards-refused.png", "#challenge-form")
    assert serious_violations(driver) == []
