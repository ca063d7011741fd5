"""The table's smaller promises: cards can be dragged (stock to hand, hand to discard pile), the turn
clock is shown when the game has one, and bad input in the lobby is answered with the server's
problem code and creates nothing."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from finished import first_hand_played
from helpers import Api, click_when_ready, codes, hand_cards, page_version, serious_violations, text_of, wait_for
from test_resign import seat_in_browser

DRAG = """
const [fromSel, toSel] = arguments;
const data = new DataTransfer();
const from = document.querySelector(fromSel), to = document.querySelector(toSel);
if (!from || !to) return false;
from.dispatchEvent(new DragEvent("dragstart", {dataTransfer: data, bubbles: true}));
to.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
to.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
return true;
"""


def test_dragging_the_stock_onto_the_hand_draws_and_a_card_onto_the_pile_discards_it(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token in (ann, bob):
        assert api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=token)[0] == 200
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#stock .card[draggable="true"]'), what="a draggable stock")

    assert driver.execute_script(DRAG, '#stock .card[draggable="true"]', "#hand")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="the drawn card")
    card = driver.execute_script("return document.querySelector('#hand button.discard').dataset.card")
    assert driver.execute_script(DRAG, f'#hand button.discard[data-card="{card}"]', "#discard-pile")
    view = api.wait_view(game_id, ann, lambda v: len(v["hand"]) == 10)
    assert card not in view["hand"] and view["discard_top"] == card


def test_the_turn_clock_is_shown_when_the_game_has_one(live_server, new_browser):
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: d.find_elements(By.ID, "seat1-kind"), what="the lobby")
    driver.find_element(By.ID, "your-name").send_keys("ann")
    driver.find_element(By.NAME, "turn_timeout_s").send_keys("600")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table")
    game_id = driver.current_url.split("/play/")[1].split("#")[0]
    assert Api(live_server).view(game_id)["options"]["turn_timeout_s"] == 600
    wait_for(driver, lambda d: "of 600 s" in text_of(d, "#clock"), what="the clock")
    assert text_of(driver, "#clock").startswith("Turn clock: ")


def test_bad_input_in_the_lobby_shows_the_problem_and_creates_nothing(live_server, new_browser):
    api = Api(live_server)
    before = api.call("GET", "/games?limit=1")[1]["games"]
    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: d.find_elements(By.ID, "seat1-kind"), what="the lobby")
    # a knock limit over 100: refused by the form in its label's words, as the server would refuse
    # it (decks that are no deck the form stops itself too: test_lobby_errors.py)
    status, problem = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                                  "options": {"knock_limit": 500}})
    assert status in (400, 422), problem
    driver.find_element(By.NAME, "knock_limit").send_keys("500")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "Knock limit: at most 100." in text_of(d, "#create-error"), what="the form's refusal")
    driver.find_element(By.NAME, "knock_limit").clear()
    driver.find_element(By.CSS_SELECTOR, "#create-form details summary").click()
    driver.find_element(By.ID, "decks").send_keys('[["AC", "AC"]]')
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "The deck lists 2 cards" in text_of(d, "#create-error"), what="the form's own check")
    driver.find_element(By.ID, "decks").clear()
    driver.find_element(By.ID, "decks").send_keys("not json")
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "not JSON" in text_of(d, "#create-error"), what="the page's own check")
    assert "/play/" not in driver.current_url
    assert api.call("GET", "/games?limit=1")[1]["games"] == before
    assert serious_violations(driver) == []


def test_the_next_hand_begins_by_saying_how_the_last_one_ended(live_server, new_browser):
    """Beside the turn line, read out as it changes, who scored what in the hand just ended (the
    the API tour's hand: ann knocks with 9 against bob's 35 after lay-offs and scores 26)."""
    api = Api(live_server)
    game_id, (ann, bob) = first_hand_played(api, target_score=100)
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    wait_for(driver, lambda d: "Hand 2" in text_of(d, "#turn") and "Hand 1" in text_of(d, "#recap"), what="the second hand")
    assert text_of(driver, "#turn") == "Hand 2. bob to play: take or pass the upcard."
    assert text_of(driver, "#recap").startswith("Hand 1: ann scored 26 (knock).")
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=bob)[0] == 200
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=ann)[0] == 200
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "draw_stock"}, token=bob)[0] == 200
    # once ann has moved in hand 2 the news is gone
    wait_for(driver, lambda d: text_of(d, "#turn") == "Hand 2. bob to play: discard."
             and "Hand 1" not in text_of(d, "#recap"), what="the news gone")


def test_the_unfolded_discard_pile_stays_unfolded_while_the_game_moves(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])

    def move(token, body):
        status, answer = api.call("POST", f"/games/{game_id}/moves", body, token=token)
        assert status == 200, answer
        return answer

    move(ann, {"type": "pass_upcard"})
    move(bob, {"type": "pass_upcard"})
    drawn = move(ann, {"type": "draw_stock"})
    move(ann, {"type": "discard", "card": drawn["drawn_card"]})
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    click_when_ready(driver, "#discard-pile details summary", "the whole pile")
    version = page_version(driver)
    move(bob, {"type": "draw_stock"})
    wait_for(driver, lambda d: page_version(d) > version, what="the table redrawn after bob's draw")
    assert driver.execute_script("return document.querySelector('#discard-pile details').open")
    assert len(codes(driver, "#discard-pile details .card")) == 2
