"""The five pages have no serious or critical accessibility violation under axe-core (vendored,
see tests/browser/vendor/README.md), on a desktop and on a phone's width, and the table can be
played with the keyboard alone."""

from __future__ import annotations

import hashlib
import uuid

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from finished import finished_game
from helpers import AXE, Api, console_errors, hand_cards, serious_violations, text_of, wait_for

AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"


def test_the_vendored_axe_is_the_pinned_release():
    assert hashlib.sha256(AXE.read_bytes()).hexdigest() == AXE_SHA256


def fits(driver) -> bool:
    """Nothing sticks out sideways: the page never needs a horizontal scroll."""
    return driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_no_serious_violation_on_the_five_pages(live_server, new_browser, width, height):
    api = Api(live_server)
    replay_id = finished_game(api)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}]})
    assert status == 201
    game_id, token = created["game_id"], created["seats"][0]["token"]
    driver = new_browser(width, height)

    driver.get(live_server + "/")
    wait_for(driver, lambda d: d.find_elements("css selector", "#games-table tbody tr"), what="the lobby")
    assert serious_violations(driver) == [] and fits(driver) and console_errors(driver) == []

    # the table, as the player (the token is put where the lobby keeps it)
    driver.execute_script(
        "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
        " variant: 'gin-rami', seats: {0: {token: arguments[1], name: 'ann'}}, created: 1}}))", game_id, token)
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: len(hand_cards(d)) >= 10, what="the table")
    assert serious_violations(driver) == [] and fits(driver) and console_errors(driver) == []

    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live", what="the spectator's page")
    assert serious_violations(driver) == [] and fits(driver) and console_errors(driver) == []

    driver.get(f"{live_server}/replay/{replay_id}")
    wait_for(driver, lambda d: "created" in text_of(d, "#event-text"), what="the replay")
    driver.find_element("id", "last").click()
    wait_for(driver, lambda d: "Game over" in text_of(d, "#event-text"), what="the end of the replay")
    assert serious_violations(driver) == [] and fits(driver) and console_errors(driver) == []

    # a match page, for the person whose challenge a bot account accepted (its token where the lobby keeps it)
    bot = f"a11y{uuid.uuid4().hex[:8]}"
    status, registered = api.call("POST", "/bots", {"name": bot})
    assert status == 201, registered
    status, challenge = api.call("POST", "/challenges", {"to": bot, "variant": "gin-rami", "name": "ann", "boards": 1})
    assert status == 201, challenge
    status, accepted = api.call("POST", f"/challenges/{challenge['challenge_id']}/accept", token=registered["token"])
    assert status == 200, accepted
    driver.execute_script(
        "localStorage.setItem('ginbox.challenges.v1', JSON.stringify({[arguments[0]]: {challenge_id: arguments[0],"
        " to: arguments[1], variant: 'gin-rami', boards: 1, name: 'ann', token: arguments[2], status: 'accepted',"
        " match_id: arguments[3], created: 1}}))",
        challenge["challenge_id"], bot, challenge["token"], accepted["match_id"])
    driver.get(f"{live_server}/match/{accepted['match_id']}")
    wait_for(driver, lambda d: d.find_elements("css selector", "#turn-list a.play"), what="the match page")
    assert serious_violations(driver) == [] and fits(driver) and console_errors(driver) == []


def test_a_turn_is_played_with_the_keyboard_alone(live_server, new_browser):
    """Tab to the move buttons and press Enter/Space: the upcard, a draw and a discard."""
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    driver = new_browser()
    driver.get(live_server + "/")
    driver.execute_script(
        "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
        " variant: 'gin-rami', seats: {0: {token: arguments[1], name: 'ann'}}, created: 1}}))", game_id, ann)
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the table")

    def tab_to(selector: str, presses: int = 60) -> None:
        """Press Tab until the focused element matches ``selector`` (at most ``presses`` times)."""
        for _ in range(presses):
            if driver.execute_script("return document.activeElement.matches(arguments[0])", selector):
                return
            ActionChains(driver).send_keys(Keys.TAB).perform()
        raise AssertionError(f"Tab never reached {selector}")

    tab_to('[data-key="pass_upcard"]')
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    api.wait_view(game_id, ann, lambda v: v["to_act"] == [1])
    status, _ = api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=created["seats"][1]["token"])
    assert status == 200
    tab_to('[data-key="draw_stock"]')
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="the drawn card")
    tab_to("button.discard")
    card = driver.execute_script("return document.activeElement.dataset.card")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    view = api.wait_view(game_id, ann, lambda v: len(v["hand"]) == 10)
    assert card not in view["hand"] and view["discard_top"] == card
