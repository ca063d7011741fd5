"""The cards a person handles at the table: every card of the hand is a button at least 44 px square
on a phone, and eleven fit the phone's width in rows; the hand takes the order the person drags or
keys it into (Shift or Alt with an arrow), keeps it across a reload, puts a new card at the end, and
"Sort" brings back the grouping; a card dragged onto the discard pile is still discarded; the
four-colour deck draws clubs green and diamonds blue, legibly, and is remembered.

The deal is finished.py's (RULES.md §1 and the explicit-deck extension): ann (seat 0, non-dealer)
holds 7C KC AD 2D 7D 7H 9H 4S 5S 6S; the upcard is QH; the stock's top card is 3D.
"""

from __future__ import annotations

import json

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from finished import ANN, DECK
from helpers import Api, click_when_ready, codes, css, hand_cards, page_version, text_of, wait_for
from test_hand_end import phone
from test_table_wording import hold_seat, to_first_discard

#: a drag as HTML5 drag and drop makes it: from one element to a point of another (its right or left half)
DRAG = """
const [fromSel, toSel, side] = arguments;
const from = document.querySelector(fromSel), to = document.querySelector(toSel);
if (!from || !to) return false;
const r = to.getBoundingClientRect();
const at = {clientX: side === "right" ? r.right - 3 : r.left + 3, clientY: r.top + r.height / 2};
const data = new DataTransfer();
from.dispatchEvent(new DragEvent("dragstart", {dataTransfer: data, bubbles: true}));
to.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true, ...at}));
to.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true, ...at}));
from.dispatchEvent(new DragEvent("dragend", {dataTransfer: data, bubbles: true}));
return true;
"""

BOXES = """
return Array.from(document.querySelectorAll(arguments[0]), (e) => {
  const r = e.getBoundingClientRect();
  return {card: e.dataset.card, left: r.left, right: r.right, top: r.top, width: r.width, height: r.height,
          font: parseFloat(getComputedStyle(e).fontSize)};
});
"""


def enabled(driver, selector: str) -> bool:
    return driver.execute_script("return !document.querySelector(arguments[0]).disabled", selector)


def card(code: str) -> str:
    return f'#hand button.card[data-card="{code}"]'


def order(driver) -> list[str]:
    return codes(driver, "#hand button.card")


def chord(driver, modifier: str, key: str) -> None:
    """Press ``key`` with ``modifier`` held, where the focus is (the table, drawn anew, keeps it on the same card)."""
    ActionChains(driver).key_down(modifier).send_keys(key).key_up(modifier).perform()


def stored_order(driver, game_id: str) -> dict | None:
    text = driver.execute_script("return localStorage.getItem(arguments[0])", f"ginbox.handOrder.{game_id}.0")
    return json.loads(text) if text else None


def test_on_a_phone_every_card_of_the_hand_is_a_44px_button_and_eleven_fit_the_width(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, DECK)
    driver = new_browser(390, 844)
    phone(driver)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and "after the best discard" in text_of(d, "#deadwood"),
             what="ann's eleven cards, grouped")
    width = driver.execute_script("return innerWidth")
    assert width == 390
    boxes = driver.execute_script(BOXES, "#hand button.card")
    assert len(boxes) == 11
    for box in boxes:
        assert box["width"] >= 44 and box["height"] >= 44, box
        assert box["left"] >= 0 and box["right"] <= width, box
    assert len({round(b["top"]) for b in boxes}) > 1  # eleven do not fit one row: they wrap
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    # the controls beside the hand are as easy to hit
    for selector in ("#hand-sort", ".four-colour-toggle"):
        box = driver.execute_script(BOXES, selector)[0]
        assert box["height"] >= 44 and box["right"] <= width, (selector, box)
    driver.save_screenshot(str(tmp_path / "hand-phone.png"))


def test_on_a_laptop_the_cards_are_large_and_the_hand_within_the_window(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, DECK)
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="ann's eleven cards")
    width = driver.execute_script("return innerWidth")
    for box in driver.execute_script(BOXES, "#hand button.card"):
        assert box["width"] >= 48 and box["height"] >= 64 and box["font"] >= 22, box
        assert box["left"] >= 0 and box["right"] <= width, box
    driver.save_screenshot(str(tmp_path / "hand-laptop.png"))


def test_the_hand_keeps_the_order_dragged_and_keyed_into_across_a_reload_and_sort_undoes_it(live_server, new_browser,
                                                                                             tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "decks": [DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10 and css(d, "#hand .group.meld"), what="ann's grouped hand")
    first = order(driver)
    assert sorted(first) == sorted(ANN)
    assert not enabled(driver, "#hand-sort")  # the grouping is already shown

    # a drag: the first card onto the right half of the sixth lands just after it
    moved = first[0]
    assert driver.execute_script(DRAG, card(moved), card(first[5]), "right")
    expected = first[1:6] + [moved] + first[6:]
    wait_for(driver, lambda d: order(d) == expected, what="the dragged card in its new place")
    # a drag onto a card's left half lands just before it
    assert driver.execute_script(DRAG, card(expected[9]), card(expected[0]), "left")
    expected = [expected[9]] + expected[:9]
    wait_for(driver, lambda d: order(d) == expected, what="the card dragged to the front")

    # the keys: Shift+Left twice, then Alt+Right once, the focus staying on the card moved
    keyed = expected[4]
    driver.execute_script("document.querySelector(arguments[0]).focus()", card(keyed))
    chord(driver, Keys.SHIFT, Keys.ARROW_LEFT)
    expected = expected[:3] + [keyed] + expected[3:4] + expected[5:]
    wait_for(driver, lambda d: order(d) == expected, what="one place to the left")
    assert driver.execute_script("return document.activeElement.dataset.card") == keyed
    chord(driver, Keys.SHIFT, Keys.ARROW_LEFT)
    expected = expected[:2] + [keyed] + expected[2:3] + expected[4:]
    wait_for(driver, lambda d: order(d) == expected, what="two places to the left")
    chord(driver, Keys.ALT, Keys.ARROW_RIGHT)
    i = expected.index(keyed)
    expected = expected[:i] + [expected[i + 1], keyed] + expected[i + 2:]
    wait_for(driver, lambda d: order(d) == expected, what="one place back to the right")
    assert f"/play/{game_id}" in driver.current_url  # Alt+Right went nowhere but the card
    assert stored_order(driver, game_id) == {"hand_no": 1, "order": expected}
    driver.save_screenshot(str(tmp_path / "own-order.png"))

    # a reload keeps the order
    driver.refresh()
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the table after the reload")
    assert order(driver) == expected
    assert enabled(driver, "#hand-sort")

    # the card drawn goes at the end
    version = page_version(driver)
    for token, move in [(ann, {"type": "pass_upcard"}), (bob, {"type": "pass_upcard"}), (ann, {"type": "draw_stock"})]:
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=token)
        assert status == 200, answer
    wait_for(driver, lambda d: page_version(d) > version and len(hand_cards(d)) == 11, what="the drawn card")
    assert order(driver) == expected + ["3D"]

    # a card dragged onto the discard pile is discarded, not moved; the rest keep their places
    thrown = "9H"
    assert driver.execute_script(DRAG, card(thrown), "#discard-pile", "left")
    view = api.wait_view(game_id, ann, lambda v: len(v["hand"]) == 10)
    assert view["discard_top"] == thrown
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the discard")
    assert order(driver) == [c for c in expected + ["3D"] if c != thrown]

    # Sort: the grouping again, melds first, and nothing kept
    click_when_ready(driver, "#hand-sort", "hand-sort")
    wait_for(driver, lambda d: stored_order(d, game_id) is None, what="the order forgotten")
    groups = driver.execute_script(
        "return Array.from(document.querySelectorAll('#hand .group'), g => [g.classList.contains('meld'),"
        " Array.from(g.querySelectorAll('.card'), c => c.dataset.card)])")
    kinds = [meld for meld, _ in groups]
    assert kinds == sorted(kinds, reverse=True) and kinds[0], groups  # the melds, then the deadwood
    melds = sorted(sorted(cards) for meld, cards in groups if meld)
    # ann's ten now: 7C 7D 7H, 4S 5S 6S and AD 2D 3D meld; KC is left
    assert melds == [["2D", "3D", "AD"], ["4S", "5S", "6S"], ["7C", "7D", "7H"]], groups
    assert groups[-1] == [False, ["KC"]]


def test_the_four_colour_deck_draws_clubs_green_and_diamonds_blue_and_is_remembered(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, DECK)
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="ann's hand")
    colours = "return ['7C', '7D', '7H', '4S'].map(c => getComputedStyle(document.querySelector(" \
              "`#hand .card[data-card='${c}']`)).color)"
    two = driver.execute_script(colours)
    assert two[1] == two[2] and two[0] == two[3], two  # red and black only
    assert not driver.execute_script("return document.getElementById('four-colours').checked")
    click_when_ready(driver, "#four-colours", "the four-colour switch")
    wait_for(driver, lambda d: d.execute_script("return document.body.classList.contains('four-colours')"),
             what="the four colours")
    four = driver.execute_script(colours)
    assert len(set(four)) == 4, four
    assert four[0] == "rgb(11, 110, 42)" and four[1] == "rgb(6, 69, 173)", four
    # each suit's colour against the card's face: at least 4.5:1 (WCAG AA for text)
    ratios = driver.execute_script("""
      const lum = (rgb) => { const [r, g, b] = rgb.match(/\\d+/g).slice(0, 3).map(Number).map((v) => {
        v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
      return ['7C', '7D', '7H', '4S'].map((c) => {
        const s = getComputedStyle(document.querySelector(`#hand .card[data-card='${c}']`));
        const [a, b] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05); });""")
    assert all(r >= 4.5 for r in ratios), ratios
    driver.save_screenshot(str(tmp_path / "four-colours.png"))
    driver.refresh()
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="the table after the reload")
    assert driver.execute_script(colours) == four
    assert driver.execute_script("return document.getElementById(\'four-colours\').checked")
    click_when_ready(driver, "#four-colours", "four-colours")
    wait_for(driver, lambda d: d.execute_script(colours) == two, what="two colours again")


TOUCH_DRAG = """
const [fromSel, toSel] = arguments;
const from = document.querySelector(fromSel), to = document.querySelector(toSel);
const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
const start = {x: a.left + a.width / 2, y: a.top + a.height / 2}, end = {x: b.right - 3, y: b.top + b.height / 2};
const ev = (type, p) => new PointerEvent(type, {pointerId: 7, pointerType: "touch", isPrimary: true, button: 0,
  buttons: type === "pointerup" ? 0 : 1, clientX: p.x, clientY: p.y, bubbles: true, cancelable: true});
from.dispatchEvent(ev("pointerdown", start));
for (let i = 1; i <= 5; i += 1) {
  from.dispatchEvent(ev("pointermove", {x: start.x + (end.x - start.x) * i / 5, y: start.y + (end.y - start.y) * i / 5}));
}
from.dispatchEvent(ev("pointerup", end));
from.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, clientX: end.x, clientY: end.y}));
return true;
"""


def test_a_finger_drags_a_card_to_another_place_without_discarding_it(live_server, new_browser):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, DECK)
    driver = new_browser(390, 844)
    phone(driver)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and css(d, "#hand .group.meld"), what="ann's hand")
    first = order(driver)
    version = page_version(driver)
    # a discardable card, dragged by a finger onto the right half of the last card: moved, not discarded
    moved = first[0]
    assert driver.execute_script(TOUCH_DRAG, card(moved), card(first[-1]))
    wait_for(driver, lambda d: order(d) == first[1:] + [moved], what="the card moved to the end")
    assert page_version(driver) == version and len(api.view(game_id, ann)["hand"]) == 11
