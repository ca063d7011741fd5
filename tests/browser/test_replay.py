"""The replay page steps through a finished game event by event (buttons, slider, arrow keys) with
every hand face up, explains the hand's result, and audits the game in the browser."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from finished import ANN, BOB, finished_game
from helpers import Api, codes, text_of, wait_for


def step(driver) -> int:
    return int(driver.execute_script("return document.body.dataset.step || 0"))


def hand_of(driver, seat: int) -> list[str]:
    return codes(driver, f'#board [data-seat="{seat}"] .card')


def test_a_finished_game_replays_event_by_event_with_the_hands_face_up(live_server, new_browser):
    api = Api(live_server)
    game_id = finished_game(api)
    status, log = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")
    types = [e["type"] for e in log["events"]]
    # created, dealer chosen, dealt, two passes, a draw, the knock, the score, the end
    assert types == ["game_created", "dealer_chosen", "hand_dealt", "upcard_passed", "upcard_passed",
                     "card_drawn", "knocked", "hand_scored", "game_ended"]

    driver = new_browser()
    driver.get(f"{live_server}/replay/{game_id}")
    wait_for(driver, lambda d: step(d) == 1 and "created" in text_of(d, "#event-text"), what="the first event")
    assert text_of(driver, "#position") == "Event 1 of 9"

    # buttons: the deal shows both hands face up
    driver.find_element(By.ID, "next").click()
    driver.find_element(By.ID, "next").click()
    wait_for(driver, lambda d: step(d) == 3 and sorted(hand_of(d, 0)) == sorted(ANN), what="the deal")
    assert sorted(hand_of(driver, 1)) == sorted(BOB)
    assert "upcard is queen of hearts" in text_of(driver, "#event-text")

    # arrow keys: three events on, ann has drawn the 3D
    body = driver.find_element(By.TAG_NAME, "body")
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: step(d) == 6 and "3D" in hand_of(d, 0), what="ann's draw")
    assert "ann draws 3 of diamonds from the stock" in text_of(driver, "#event-text")
    body.send_keys(Keys.ARROW_LEFT)
    wait_for(driver, lambda d: step(d) == 5 and "3D" not in hand_of(d, 0), what="one step back")

    # the slider: the scored hand, explained
    driver.execute_script("const s = document.getElementById('slider'); s.value = 8;"
                          "s.dispatchEvent(new Event('input'))")
    wait_for(driver, lambda d: step(d) == 8 and "Hand 1: knock" in text_of(d, "#result"), what="the score")
    lines = text_of(driver, "#result .score-lines")
    assert "laid off 4 of diamonds" in lines and "laid off 7 of spades" in lines
    assert "35 − 9 = 26" in lines

    body.send_keys(Keys.END)
    wait_for(driver, lambda d: step(d) == 9, what="the last event")
    assert "Game over: ann wins" in text_of(driver, "#event-text")
    body.send_keys(Keys.HOME)
    wait_for(driver, lambda d: step(d) == 1, what="the first event again")

    # the audit panel: the browser re-derives the deal and checks the commitment
    driver.find_element(By.ID, "audit-run").click()
    wait_for(driver, lambda d: "checks" in text_of(d, "#audit-report"), what="the audit report")
    assert "checks passed" in text_of(driver, "#audit-report") and "FAILED" not in text_of(driver, "#audit-report")


def test_a_game_in_play_is_not_replayed(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201
    driver = new_browser()
    driver.get(f"{live_server}/replay/{created['game_id']}")
    wait_for(driver, lambda d: "not over yet" in text_of(d, "#message"), what="the refusal")
    assert codes(driver, "#board .card") == []


@pytest.mark.parametrize("variant,seats", [("gin-rami", 2), ("three-hand", 3)])
def test_the_replays_hands_are_the_servers_final_hands_at_every_scored_hand(live_server, new_browser, variant, seats):
    """The page follows each hand from its deal through every draw and discard; at each scored hand
    what it shows must be the hands the server recorded in hand_scored (version 2's ``hands``)."""
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": variant, "seats": [{"bot": "basic"}] * seats,
                                                  "options": {"target_score": 30}})
    assert status == 201, created
    game_id = created["game_id"]
    api.wait_view(game_id, None, lambda v: v["status"] == "over", polls=1200)
    events = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")[1]["events"]
    scored = [(i, e) for i, e in enumerate(events) if e["type"] == "hand_scored"]
    assert scored

    driver = new_browser()
    driver.get(f"{live_server}/replay/{game_id}")
    wait_for(driver, lambda d: step(d) == 1, what="the replay")
    for index, event in scored:
        driver.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                              "s.dispatchEvent(new Event('input'))", index + 1)
        wait_for(driver, lambda d: step(d) == index + 1 and "scored" in text_of(d, "#event-text"), what="the step")
        for seat, hand in enumerate(event["data"]["hands"]):
            wait_for(driver, lambda d: sorted(hand_of(d, seat)) == sorted(hand or []),
                     what=f"seat {seat}'s hand at version {event['version']}")
