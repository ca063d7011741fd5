"""Resigning from the table: asked twice, then the game is over, the other side wins and the
scores stand (the resign extension); saying no changes nothing."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, click_when_ready, hand_cards, text_of, wait_for


def seat_in_browser(driver, base: str, game_id: str, token: str, name: str) -> None:
    """Put the seat's token where the lobby keeps it, then open the table."""
    driver.get(base + "/web/icon.svg")
    driver.execute_script(
        "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
        " variant: 'gin-rami', seats: {0: {token: arguments[1], name: arguments[2]}}, created: 1}}))",
        game_id, token, name)
    driver.get(f"{base}/play/{game_id}")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the table")


def test_resigning_ends_the_game_for_the_other_side_after_a_second_yes(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    version = api.view(game_id)["version"]

    click_when_ready(driver, "#resign", "the resign button")
    click_when_ready(driver, "#resign-no", "the question")
    wait_for(driver, lambda d: d.find_elements(By.ID, "resign"), what="the table again")
    assert api.view(game_id)["version"] == version and api.view(game_id)["status"] == "playing"

    click_when_ready(driver, "#resign", "the resign button")
    click_when_ready(driver, "#resign-yes", "the question")
    wait_for(driver, lambda d: "Game over" in text_of(d, "#turn"), what="the end")
    assert "ann resigned; bob wins" in text_of(driver, "#turn")
    view = api.view(game_id)
    assert view["status"] == "over" and view["winner"] == 1 and view["end"]["reason"] == "resigned"
    assert driver.find_elements(By.ID, "resign") == []  # nothing more to resign


def test_a_move_sent_from_a_stale_table_is_refused_and_the_page_says_so_and_catches_up(live_server, new_browser):
    """The page sends each move with If-Match; when the game moved on unseen (here the stream is
    stopped and bob resigns meanwhile), the 412 is explained and the table shows the game as it is."""
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-key="pass_upcard"]'), what="ann's turn")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live", what="the live stream")
    driver.execute_script("globalThis.ginboxStream.stop()")
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=bob)[0] == 200

    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    wait_for(driver, lambda d: "moved on" in text_of(d, "#message"), what="the explanation")
    wait_for(driver, lambda d: "bob resigned; ann wins" in text_of(d, "#turn"), what="the game as it is")
    refused = [x for x in driver.execute_script("return globalThis.ginboxExchanges") if x["url"].endswith("/moves")]
    assert [x["status"] for x in refused] == [412]
    assert api.view(game_id)["end"]["resigned"] == 1
