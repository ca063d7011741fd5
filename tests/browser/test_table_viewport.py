"""A person's whole path against a bot on a laptop's screen (1366×757, the height a browser's bars
leave of 768) and on a phone (390×844): at every step the hand and every move the person may play
(the draw buttons, the cards to discard, the Knock control) are inside the viewport without
scrolling, also once the bot is known to hold a card from the pile; the stock's button coming and
going never moves the discard pile; the bot's discard says who threw it.

The deal is fixed: ann (seat 0, non-dealer) holds three melds and the K♦ (AC 2C 3C, 7C 7D 7H, 4S 5S
6S); the bot (seat 1, dealer) holds 8♠ 9♠, so that the upcard 10♠ makes it a run; the stock's top
is 5♥. Ann passes the upcard, the bot takes it (then it is known to hold it); ann draws 5♥ and may
knock, discarding K♦ (5 deadwood) or 5♥ (10).
"""

from __future__ import annotations

import pytest

from helpers import Api, click_when_ready, css, hand_cards, text_of, wait_for
from support.decks import build_deck
from test_table_person import hold_seat

ANN = ["AC", "2C", "3C", "7C", "7D", "7H", "4S", "5S", "6S", "KD"]
BOT = ["8S", "9S", "JH", "QH", "2D", "4D", "6H", "8C", "TC", "QC"]
DECK = build_deck(ANN, BOT, "TS", stock_top=["5H", "9D", "3H", "KH", "JD"])

SCREENS = {"laptop": (1366, 757), "phone": (390, 844)}

#: every control of a move the person may play now, and every card of the hand
CONTROLS = ("#board button.move:not(:disabled), #hand button.card:not(:disabled), "
            "#knock-offer button:not(:disabled), #knock-offer select")

OUTSIDE = """
const w = innerWidth, h = innerHeight, out = [];
for (const e of document.querySelectorAll(arguments[0])) {
  const r = e.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  if (r.top < 0 || r.left < 0 || r.bottom > h || r.right > w) out.push(`${e.dataset.key || e.dataset.card || e.id}: ${JSON.stringify(r)}`);
}
return out;
"""

#: where an element stands on the felt (the lines above the table may come and go: the table's own parts may not)
RECT = ("const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        " const b = document.getElementById('board').getBoundingClientRect();"
        " return [r.left, r.top - b.top, r.width, r.height];")


def assert_in_view(driver, what: str) -> None:
    """The hand's cards and the person's controls lie inside the viewport, and the page does not scroll."""
    assert driver.execute_script("return scrollY") == 0, what
    assert css(driver, "#hand .card"), what
    assert driver.execute_script(OUTSIDE, "#hand .card") == [], what
    assert driver.execute_script(OUTSIDE, CONTROLS) == [], what
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth"), what


def my_turn(api: Api, game_id: str, token: str, phase: str) -> dict:
    return api.wait_view(game_id, token, lambda v: v["to_act"] == [0] and v["phase"] == phase)


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_hand_and_the_moves_stay_in_view_through_a_hand_against_a_bot(live_server, new_browser, screen, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                                  "first_dealer": 1, "decks": [DECK]})
    assert status == 201, created
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    bot = api.view(game_id, ann)["players"][1]["name"]
    driver = new_browser(*SCREENS[screen])
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")

    # the upcard's decision
    wait_for(driver, lambda d: css(d, '[data-key="pass_upcard"]') and len(hand_cards(d)) == 10, what="the upcard's decision")
    driver.save_screenshot(str(tmp_path / f"{screen}-upcard.png"))
    assert_in_view(driver, "the upcard")
    pile_at_upcard = driver.execute_script(RECT, "#discard-pile")
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass")

    # the bot takes the 10♠ and discards: ann's draw, with the bot's known card in its box
    view = my_turn(api, game_id, ann, "draw")
    assert view["known_cards"][1] == ["TS"], view["known_cards"]
    thrown = view["discard_top"]
    wait_for(driver, lambda d: css(d, '[data-key="draw_stock"]') and css(d, '[data-key="draw_discard"]'), what="ann's draw")
    assert "10♠" in text_of(driver, '.opponent[data-seat="1"] .known')
    # a name that says its kind is said alone, everywhere
    assert text_of(driver, '.opponent[data-seat="1"] h3') == bot == "basic-bot-1"
    assert "(basic bot)" not in driver.execute_script("return document.body.innerText")
    assert text_of(driver, "#discard-by").endswith(f"thrown by {bot}"), text_of(driver, "#discard-by")
    assert css(driver, f'#discard-pile .card.top[data-card="{thrown}"]')
    assert_in_view(driver, "the draw, the bot known to hold a card")
    pile_with_stock_button = driver.execute_script(RECT, "#discard-pile")
    # the upcard's two moves gone, the discard's one come: the pile has not moved, nor changed its size
    assert pile_with_stock_button[0] == pile_at_upcard[0] and pile_with_stock_button[2:] == pile_at_upcard[2:]
    driver.save_screenshot(str(tmp_path / f"{screen}-draw.png"))

    # ann draws the 5♥: she may discard any card but the one drawn... and may knock
    click_when_ready(driver, '[data-key="draw_stock"]', "the stock")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and css(d, "#knock-offer button"), what="the knock offered")
    assert not css(driver, '[data-key="draw_stock"]')
    assert "knock" in text_of(driver, "#turn")
    driver.save_screenshot(str(tmp_path / f"{screen}-knock.png"))
    assert_in_view(driver, "the discard, with a knock offered")
    assert driver.execute_script(RECT, "#discard-pile") == pile_with_stock_button

    # she throws the king back instead; the bot answers, and ann draws again
    click_when_ready(driver, '#hand button.card[data-card="KD"]', "the king's discard")
    view = my_turn(api, game_id, ann, "draw")
    wait_for(driver, lambda d: css(d, '[data-key="draw_stock"]') and len(hand_cards(d)) == 10, what="ann's second draw")
    assert_in_view(driver, "the second draw")
    if view["discard_top"] != "KD":
        assert text_of(driver, "#discard-by").endswith(f"thrown by {bot}")
    assert driver.execute_script(RECT, "#discard-pile") == pile_with_stock_button
    click_when_ready(driver, '[data-key="draw_stock"]', "the stock again")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="the second discard")
    assert_in_view(driver, "the second discard")
    driver.save_screenshot(str(tmp_path / f"{screen}-second.png"))


CAPTAIN = ["AC", "2C", "3C", "4D", "5D", "6D", "8H", "9H", "TH", "KS"]
BOX = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
BOX_DECK = build_deck(CAPTAIN, BOX, "KD", stock_top=["2S", "4H", "6C"])


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_box_gin_keeps_the_captains_hand_and_moves_in_view(live_server, new_browser, screen, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "ann"}, {"bot": "basic"}, {"bot": "basic"}],
        "roles": {"captain": 0, "box": 1, "advisor": 2}, "decks": [BOX_DECK]})
    assert status == 201, created
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    driver = new_browser(*SCREENS[screen])
    hold_seat(driver, live_server, game_id, "three-hand", 0, ann, "ann")
    wait_for(driver, lambda d: css(d, '[data-key="pass_upcard"]') and len(hand_cards(d)) == 10, what="the captain's upcard")
    assert text_of(driver, "#box-gin-summary").startswith("Box gin, hand 1: ")
    assert_in_view(driver, "box gin's upcard")
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass")
    my_turn(api, game_id, ann, "draw")
    wait_for(driver, lambda d: css(d, '[data-key="draw_stock"]'), what="the captain's draw")
    assert_in_view(driver, "box gin's draw")
    click_when_ready(driver, '[data-key="draw_stock"]', "the stock")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and css(d, "#knock-offer button"), what="the knock offered")
    driver.save_screenshot(str(tmp_path / f"{screen}-box-gin.png"))
    assert_in_view(driver, "box gin's discard, with a knock offered")
