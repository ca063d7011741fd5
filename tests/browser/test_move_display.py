"""The bot's moves seen at a person's table: its take and its discard shown one after the other, each
for at least the pace (PLAY.md, 700 ms), even when both arrive at once; each card flies from where
it was to where it went, or, for a reader who asked for less motion, is ringed where it landed; the
pile's top card says who threw it, and the card the bot took is marked in its box.

The deal is test_table_viewport's: ann passes the upcard 10♠, the bot (holding 8♠ 9♠) takes it and
discards.
"""

from __future__ import annotations

import pytest

from helpers import Api, click_when_ready, css, hand_cards, text_of, wait_for
from test_table_person import hold_seat
from test_table_viewport import DECK

#: counts the cards that fly (each a .flying element added to the page's body)
COUNT_FLIGHTS = """
globalThis.flights = 0;
new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => {
  if (n.classList && n.classList.contains('flying')) globalThis.flights += 1;
}))).observe(document.body, {childList: true});
"""

#: what this test reads the pace from (table-pace.js's BOT_MOVE_MS, as PLAY.md says)
PACE_MS = 700


@pytest.mark.parametrize("motion", ["full", "reduced"])
def test_the_bots_take_and_discard_are_shown_in_turn_and_marked(live_server, new_browser, motion):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic", "name": "bob"}],
                                                  "first_dealer": 1, "decks": [DECK]})
    assert status == 201, created
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    bot = api.view(game_id, ann)["players"][1]["name"]
    assert bot == "bob"
    driver = new_browser()
    if motion == "reduced":
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    wait_for(driver, lambda d: css(d, '[data-key="pass_upcard"]') and len(hand_cards(d)) == 10, what="the upcard's decision")
    driver.execute_script(COUNT_FLIGHTS)
    # the page is told of both the bot's moves at once (the bot answers in a moment): it shows them in turn
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass")
    wait_for(driver, lambda d: css(d, '[data-key="draw_stock"]'), what="ann's draw, after the bot's turn")
    view = api.view(game_id, ann)
    thrown = view["discard_top"]
    moves = driver.execute_script("return globalThis.ginboxMovesShown")
    bots = [(m["type"], m["card"]) for m in moves if m["seat"] == 1]
    assert bots == [("upcard_taken", "TS"), ("card_discarded", thrown)], moves
    shown = {v["version"]: v["at"] for v in driver.execute_script("return globalThis.ginboxViewsShown")}
    take, discard = (m["version"] for m in moves if m["seat"] == 1)
    assert take in shown and discard in shown, shown
    assert shown[discard] - shown[take] >= PACE_MS - 50, shown

    # the bot's kind said once, in its box (its name does not say it); elsewhere its name alone
    assert text_of(driver, '.opponent[data-seat="1"] h3') == "bob (basic bot)"
    assert text_of(driver, "#recap").startswith("bob deals hand 1. bob took the upcard"), text_of(driver, "#recap")
    assert driver.execute_script("return document.body.innerText.split('(basic bot)').length - 1") == 1
    # who threw the top card, and the card the bot took, in its box
    assert text_of(driver, "#discard-by") == f"thrown by {bot}"
    assert css(driver, '.opponent[data-seat="1"] .known .card.just-taken[data-card="TS"]')
    assert "just taken" in driver.execute_script(
        "return document.querySelector('.opponent[data-seat=\"1\"] .just-taken').textContent")
    flights = driver.execute_script("return globalThis.flights")
    if motion == "full":
        assert flights >= 2 and all(m["animated"] for m in moves if m["seat"] == 1), (flights, moves)
    else:
        assert flights == 0 and not any(m["animated"] for m in moves), (flights, moves)
        assert css(driver, f'#discard-pile .card.top.moved[data-card="{thrown}"]')
