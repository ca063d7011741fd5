"""The table as a person reads it while playing: beside the turn line, how the last hand ended
(until their next move, or dismissed), who deals, and what the others just did; their own score at
their hand; the captain told of advice as it arrives; and on a phone, the upcard's decision and
the hand on the first screen."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from finished import first_hand_played
from helpers import Api, click_when_ready, css, hand_cards, serious_violations, text_of, wait_for
from screenshots import shoot
from support.decks import build_deck

def hold_seat(driver, base: str, game_id: str, variant: str, seat: int, token: str, name: str) -> None:
    """The seat's token where the lobby keeps it, then the table opened at that seat."""
    driver.get(base + "/web/icon.svg")
    driver.execute_script(
        "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
        " variant: arguments[1], seats: {[arguments[2]]: {token: arguments[3], name: arguments[4]}}, created: 1}}))",
        game_id, variant, str(seat), token, name)
    driver.get(f"{base}/play/{game_id}#seat={seat}")


def move(api: Api, game_id: str, token: str, body: dict) -> dict:
    status, view = api.call("POST", f"/games/{game_id}/moves", body, token=token)
    assert status == 200, view
    return view


def test_the_last_hand_stays_beside_the_turn_line_until_the_players_next_move(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, (ann, bob) = first_hand_played(api, target_score=100)
    view = api.view(game_id, ann)
    assert view["hand_no"] == 2 and view["to_act"] == [1], view
    dealer = "You deal" if view["dealer"] == 0 else "bob deals"
    # bob moves first in hand 2, as a bot would, before ann's page is even open
    move(api, game_id, bob, {"type": "pass_upcard"})
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    wait_for(driver, lambda d: "bob passed the upcard." in text_of(d, "#recap"), what="bob's move told")
    recap = text_of(driver, "#recap")
    assert "Hand 1: ann scored 26 (knock)." in recap and f"{dealer} hand 2." in recap, recap
    assert text_of(driver, "#turn") == "Hand 2. Your turn: take or pass the upcard."
    # ann's own score is at her hand, as the others' are at theirs
    assert text_of(driver, "#hand-score") == "score 26 of 100"
    assert "score 0" in text_of(driver, '.opponent[data-seat="1"]')
    shoot(driver, tmp_path / "recap.png")
    assert serious_violations(driver) == []
    # her own move: the outcome has done its work
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    wait_for(driver, lambda d: "Hand 1" not in text_of(d, "#recap"), what="the outcome gone after ann's move")
    # bob draws from the stock and discards: ann is told so, without the card he drew
    move(api, game_id, bob, {"type": "draw_stock"})
    view = api.view(game_id, bob)
    thrown = view["drawn_card"]
    move(api, game_id, bob, {"type": "discard", "card": thrown})
    wait_for(driver, lambda d: "bob drew from the stock and discarded" in text_of(d, "#recap"), what="bob's turn told")
    assert text_of(driver, "#recap").endswith(f"discarded {short(thrown)}."), text_of(driver, "#recap")


def test_the_outcome_beside_the_turn_line_may_be_dismissed(live_server, new_browser):
    api = Api(live_server)
    game_id, (ann, bob) = first_hand_played(api, target_score=100)
    move(api, game_id, bob, {"type": "pass_upcard"})
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    click_when_ready(driver, "#recap-dismiss", "the dismiss button")
    wait_for(driver, lambda d: "Hand 1" not in text_of(d, "#recap"), what="the outcome dismissed")
    assert "bob passed the upcard." in text_of(driver, "#recap")


SUIT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def short(card: str) -> str:
    return f"{'10' if card[0] == 'T' else card[0]}{SUIT[card[1]]}"


def test_advice_arriving_is_told_to_the_captain_beside_the_turn_line(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}})
    assert status == 201, created
    game_id = created["game_id"]
    captain, advisor = created["seats"][1]["token"], created["seats"][2]["token"]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "three-hand", 1, captain, "cal")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10 and text_of(d, "#connection") == "live", what="the captain's table")
    # no empty advice box before any advice
    assert not driver.find_element(By.ID, "advice-list").is_displayed()
    assert not driver.find_element(By.ID, "advice-notice").is_displayed()
    status, answer = api.call("POST", f"/games/{game_id}/advice", {"text": "Keep 7H, pass the upcard"}, token=advisor)
    assert status in (200, 201), answer
    wait_for(driver, lambda d: "Advice from abe: \u201cKeep 7\u2665, pass the upcard\u201d" in text_of(d, "#advice-notice"),
             what="the advice beside the turn line")
    assert driver.find_element(By.ID, "advice-notice").get_attribute("aria-live") == "polite"
    # the notice is on the first screen, near the turn line
    top = driver.execute_script("return document.getElementById('advice-notice').getBoundingClientRect().bottom")
    assert top < driver.execute_script("return innerHeight")
    assert driver.find_element(By.ID, "advice-list").is_displayed()
    shoot(driver, tmp_path / "advice.png")
    assert serious_violations(driver) == []


def test_on_a_phone_the_stock_and_the_pile_sit_side_by_side_and_the_decision_fits(live_server, new_browser, tmp_path):
    api = Api(live_server)
    # a hand of no meld, with a 10 or two, ten groups' worth of width: the widest a row of ten gets
    deck = build_deck(["TC", "TD", "QH", "KS", "2C", "4D", "6H", "8S", "9C", "JD"],
                      ["AC", "3C", "5C", "7C", "JC", "AH", "3H", "5H", "7H", "9H"], "2S")
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                                  "first_dealer": 1, "decks": [deck]})
    assert status == 201, created
    game_id = created["game_id"]
    phone = new_browser(width=390, height=844)
    hold_seat(phone, live_server, game_id, "gin-rami", 0, created["seats"][0]["token"], "ann")
    wait_for(phone, lambda d: css(d, '[data-key="pass_upcard"]') and len(hand_cards(d)) == 10, what="the upcard's decision")
    rect = "return document.querySelector(arguments[0]).getBoundingClientRect().toJSON()"
    stock, pile = (phone.execute_script(rect, s) for s in ("#stock", "#discard-pile"))
    assert stock["top"] == pile["top"] and stock["right"] <= pile["left"], (stock, pile)
    height = phone.execute_script("return innerHeight")
    assert height == 844
    phone.save_screenshot(str(tmp_path / "phone.png"))
    for selector in ('[data-key="take_upcard"]', '[data-key="pass_upcard"]', "#hand li:last-child .card"):
        assert phone.execute_script(rect, selector)["bottom"] <= height, selector
    assert phone.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    phone.save_screenshot(str(tmp_path / "phone.png"))
