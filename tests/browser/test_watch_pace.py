"""A spectator chooses the pace of /watch/<id>: live, or a delay per event, remembered by the browser.
At a delay the page steps through the events one by one (each view the server's own at that
version) however fast they come; back to live, it catches up at once. And box gin at the table:
the roles named under the turn line with a line each (RULES.md §2), the advisor's not scoring said,
and after a hand, how the roles moved.
"""

from __future__ import annotations

from selenium.webdriver.support.ui import Select

from helpers import Api, css, page_version, text_of, wait_for
from support.decks import build_deck
from test_table_person import hold_seat, move
from test_watch import DECK

PACE_KEY = "ginbox.watchPace.v1"


def test_a_spectator_steps_through_the_events_at_the_pace_chosen_and_back_to_live(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "decks": [DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    driver = new_browser()
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live" and css(d, "#watch-pace"), what="the pace control")
    assert Select(css(driver, "#watch-pace")[0]).first_selected_option.text == "live"
    Select(css(driver, "#watch-pace")[0]).select_by_value("1000")
    assert driver.execute_script("return localStorage.getItem(arguments[0])", PACE_KEY) == "1000"
    start = page_version(driver)

    # four moves in a moment: the page shows each, one a second, in order
    driver.execute_script("globalThis.ginboxViewsShown.length = 0")
    move(api, game_id, ann, {"type": "pass_upcard"})
    move(api, game_id, bob, {"type": "pass_upcard"})
    move(api, game_id, ann, {"type": "draw_stock"})
    drawn = api.view(game_id, ann)["drawn_card"]
    move(api, game_id, ann, {"type": "discard", "card": drawn})
    last = api.view(game_id)["version"]
    assert last == start + 4
    wait_for(driver, lambda d: "behind live" in text_of(d, "#watch-behind"), what="the page behind the game")
    driver.save_screenshot(str(tmp_path / "watch-behind.png"))
    # the view shown is the game as it stood then, and so is what is said of it
    wait_for(driver, lambda d: page_version(d) == start + 2, polls=60, what="both passes shown")
    assert text_of(driver, "#turn") == "Hand 1. ann to play: draw."  # which piles is the player's to see
    assert text_of(driver, "#recap").endswith("Last move: bob passed the upcard."), text_of(driver, "#recap")
    wait_for(driver, lambda d: page_version(d) == last, polls=150, what="every event shown")
    shown = driver.execute_script("return globalThis.ginboxViewsShown")
    assert [v["version"] for v in shown] == list(range(start + 1, last + 1)), shown
    gaps = [b["at"] - a["at"] for a, b in zip(shown, shown[1:])]
    assert all(gap >= 950 for gap in gaps), gaps
    assert text_of(driver, "#watch-behind") == "up to date"

    # the pace is remembered; back to live, two moves come as fast as they are made
    driver.refresh()
    wait_for(driver, lambda d: css(d, "#watch-pace") and text_of(d, "#connection") == "live", what="the page again")
    assert Select(css(driver, "#watch-pace")[0]).first_selected_option.get_attribute("value") == "1000"
    Select(css(driver, "#watch-pace")[0]).select_by_value("0")
    assert driver.execute_script("return localStorage.getItem(arguments[0])", PACE_KEY) == "0"
    driver.execute_script("globalThis.ginboxViewsShown.length = 0")
    move(api, game_id, bob, {"type": "draw_stock"})
    drawn = api.view(game_id, bob)["drawn_card"]
    move(api, game_id, bob, {"type": "discard", "card": drawn})
    wait_for(driver, lambda d: page_version(d) == last + 2, what="the live page caught up")
    shown = [v["version"] for v in driver.execute_script("return globalThis.ginboxViewsShown")]
    assert shown[-1] == last + 2 and text_of(driver, "#watch-behind") == "", shown


CAPTAIN = ["AC", "2C", "3C", "4D", "5D", "6D", "8H", "9H", "TH", "KS"]
BOX = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
BOX_DECK = build_deck(CAPTAIN, BOX, "KD", stock_top=["2S"])


def test_box_gin_roles_are_explained_at_the_table_and_their_rotation_told(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "three-hand", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}],
                                                  "roles": {"box": 0, "captain": 1, "advisor": 2}, "decks": [BOX_DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = created["seats"][0]["token"], created["seats"][1]["token"]
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "three-hand", 0, ann, "ann")
    wait_for(driver, lambda d: text_of(d, "#box-gin-summary"), what="the roles")
    assert text_of(driver, "#box-gin-summary") == \
        "Box gin, hand 1: you are the box, bob the captain, cy the advisor (sits out, does not score)."
    lines = driver.execute_script("return Array.from(document.querySelectorAll('#box-gin-roles li'), e => e.textContent)")
    assert lines == ["Box (you): deals every hand and plays it alone against the captain.",
                     "Captain (bob): plays the hand against the box, for the captain's side.",
                     "Advisor (cy): sits this hand out and may advise the captain; the advisor does not score this hand."]
    assert not css(driver, "#box-gin-rotation")

    # bob, the captain, knocks with 2 (the 2♠ alone): the box lost, so the roles move round
    move(api, game_id, bob, {"type": "pass_upcard"})
    move(api, game_id, ann, {"type": "pass_upcard"})
    move(api, game_id, bob, {"type": "draw_stock"})
    move(api, game_id, bob, {"type": "knock", "discard": "KS",
                             "melds": [["AC", "2C", "3C"], ["4D", "5D", "6D"], ["8H", "9H", "TH"]]})
    wait_for(driver, lambda d: text_of(d, "#box-gin-rotation"), what="the rotation told")
    assert text_of(driver, "#box-gin-rotation") == (
        "The box lost, so the roles move round: for hand 2, bob is the box (and deals), cy the captain and "
        "ann (you) the advisor, who sits the hand out and does not score.")
    assert text_of(driver, "#box-gin-summary") == \
        "Box gin, hand 2: bob is the box, cy the captain, you the advisor (sits out, does not score)."
