"""The lobby says what the server refused in sentences: the problem's detail and code, then each
field's message after the field's name ("boards: must be …"), never the raw JSON; decks that are no
deck are stopped by the form itself, in words ("The deck lists 3 cards: …")."""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By

from helpers import Api, css, exchanges, serious_violations, text_of, wait_for
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


def test_a_deck_of_three_cards_is_stopped_in_words_before_it_is_sent(live_server, new_browser, tmp_path):
    # the server would answer "decks.0: length must be between 52 and 52": the form says it for people
    api = Api(live_server)
    status, problem = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                                  "decks": [["AC", "2C", "3C"]]})
    assert status == 400 and problem["code"] == "invalid_body", problem

    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the lobby")
    driver.find_element(By.CSS_SELECTOR, "#create-form details summary").click()
    for typed, said in (('[["AC", "2C", "3C"]]', "The deck lists 3 cards: a deck lists all 52, top card first."),
                        ('[["AC"], ' + '["XX"' + ', "AC"' * 51 + "]]",
                         "Deck 1 lists 1 card: a deck lists all 52, top card first."),
                        ('[' + '["XX"' + ', "AC"' * 51 + "]]",
                         'The deck holds "XX", which is no card: write cards as 7H, TD, AS (rank, then suit).'),
                        ('[' + '["AC"' + ', "AC"' * 51 + "]]", "The deck holds AC twice: each card appears once.")):
        box = driver.find_element(By.ID, "decks")
        box.clear()
        box.send_keys(typed)
        driver.find_element(By.ID, "create-button").click()
        wait_for(driver, lambda d: text_of(d, "#create-error") == f"The game was not created: {said}", polls=50,
                 what=f"the refusal of {typed[:30]}")
    assert "/play/" not in driver.current_url
    # nothing was sent: the form stopped the decks
    assert not [e for e in exchanges(driver) if e["method"] == "POST"]
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
    for field, value in (("challenge-to", bot), ("your-name", "ann"), ("challenge-boards", "0")):
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
