"""A game created with explicit decks (randomly_dealt false) says so wherever someone may sit down
in it: the listing's summary, the lobby's row (whose Join asks first), the invitation page and the
table. Its creator chose every card: whoever joins may be playing against open cards."""

from __future__ import annotations

import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait
from support.decks import ALL_CODES

from helpers import Api, click_when_ready, css, hand_cards, text_of, wait_for

DECK = list(ALL_CODES)  # any order of the 52 cards: the creator knows it
WARNING = "Not randomly dealt"
SHOTS = os.environ.get("GINBOX_SCREENSHOTS_DIR")


def shot(driver, name: str) -> None:
    if SHOTS:
        driver.save_screenshot(os.path.join(SHOTS, name))


def create(api: Api, **extra) -> dict:
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None], **extra})
    assert status == 201, created
    return created


def summary_of(api: Api, game_id: str) -> dict:
    status, page = api.call("GET", "/games?status=waiting&limit=100")
    assert status == 200, page
    return next(g for g in page["games"] if g["game_id"] == game_id)


def question(driver):
    """The dialog the page opened (window.confirm), once it is open."""
    return WebDriverWait(driver, 30).until(EC.alert_is_present(), message="the question before joining")


def test_the_lobby_marks_a_dealt_game_and_asks_before_joining_it(live_server, new_browser):
    api = Api(live_server)
    dealt = create(api, decks=[DECK])
    fair = create(api)
    assert dealt["randomly_dealt"] is False and fair["randomly_dealt"] is True
    assert summary_of(api, dealt["game_id"])["randomly_dealt"] is False
    assert summary_of(api, fair["game_id"])["randomly_dealt"] is True

    driver = new_browser()
    driver.get(live_server + "/")
    row = f'tr[data-game="{dealt["game_id"]}"]'
    wait_for(driver, lambda d: WARNING in text_of(d, row), what="the dealt game's warning")
    assert "may know every card" in text_of(driver, row)
    wait_for(driver, lambda d: css(d, f'tr[data-game="{fair["game_id"]}"]'), what="the fair game's row")
    assert WARNING not in text_of(driver, f'tr[data-game="{fair["game_id"]}"]')
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", row)
    shot(driver, "lobby-not-random.png")

    # Join asks first; declined, nobody sits down
    driver.find_element(By.CSS_SELECTOR, f'button.join[data-game="{dealt["game_id"]}"]').click()
    asked = question(driver)
    assert WARNING in asked.text and "may know every card" in asked.text
    asked.dismiss()
    wait_for(driver, lambda d: "did not join" in text_of(d, "#lobby-message"), what="the word that nothing was done")
    assert api.view(dealt["game_id"])["players"][1] is None

    # accepted, the seat is taken and the table says it again
    driver.find_element(By.CSS_SELECTOR, f'button.join[data-game="{dealt["game_id"]}"]').click()
    question(driver).accept()
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the hand at the table")
    assert api.view(dealt["game_id"])["players"][1] is not None
    wait_for(driver, lambda d: "may know every card" in text_of(d, "#not-random"), what="the table's warning")
    shot(driver, "table-not-random.png")

    # a randomly dealt game's Join asks nothing, and its table says nothing of it
    other = new_browser()
    other.get(live_server + "/")
    click_when_ready(other, f'button.join[data-game="{fair["game_id"]}"]', "the fair game's Join")
    wait_for(other, lambda d: len(hand_cards(d)) == 10, what="the hand at the fair table")
    assert not css(other, "#not-random")


def test_an_invitation_to_a_dealt_game_says_so_before_the_seat_is_taken(live_server, new_browser):
    api = Api(live_server)
    created = create(api, decks=[DECK], private=True)
    game_id, secret = created["game_id"], created["seats"][1]["invite"]
    guest = new_browser()
    guest.get(f"{live_server}/play/{game_id}#seat=1&secret={secret}")
    wait_for(guest, lambda d: d.find_elements(By.ID, "invite-name"), what="the invitation form")
    assert WARNING in text_of(guest, "#invite-not-random") and "may know every card" in text_of(guest, "#invite-not-random")
    assert text_of(guest, "#invite-form button") == "Take the seat anyway"
    shot(guest, "invitation-not-random.png")
    guest.find_element(By.ID, "invite-name").send_keys("bob")
    guest.find_element(By.CSS_SELECTOR, "#invite-form button").click()
    wait_for(guest, lambda d: len(hand_cards(d)) == 10, what="bob's hand")
    assert "may know every card" in text_of(guest, "#not-random")

    fair = create(api, private=True)
    guest.get(f"{live_server}/play/{fair['game_id']}#seat=1&secret={fair['seats'][1]['invite']}")
    wait_for(guest, lambda d: d.find_elements(By.ID, "invite-name"), what="the fair invitation form")
    assert not css(guest, "#invite-not-random")
    assert text_of(guest, "#invite-form button") == "Take the seat"
