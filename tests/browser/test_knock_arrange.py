"""Knocking by laying the cards out: "Knock…" opens the 11 cards in a Discard slot, three meld groups
and the deadwood, as the least deadwood lays them; a card moves by dragging it onto a group, by
tapping it and then a card of the group, or by a key (1 to 3, D, 0); a meld that is no set or run
and deadwood over the limit are said in words and keep "Knock" disabled; every group keeps its place;
the knock played ends the hand with the melds laid out (RULES.md §3, knocking).

The deals (RULES.md §1 and the explicit-deck extension):
- finished.py's: ann holds 7C KC AD 2D 7D 7H 9H 4S 5S 6S and draws 3D. Discarding KC leaves 9H (9);
  discarding 9H leaves KC (10): both knock at the limit of 10, KC is offered.
- SEVENS: ann holds 4S 5S 6S 7S 7C 7D 7H 2C 3H KC and draws AD. Only KC may be discarded
  (2C 3H AD = 2 + 3 + 1 = 6 left); the 7S fits the run 4S-7S or the set of sevens.
"""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from finished import DECK
from helpers import DRAG, Api, click_when_ready, codes, css, hand_cards, serious_violations, text_of, texts, wait_for
from support.decks import build_deck
from test_hand_end import panel_open, phone
from test_table_wording import hold_seat, to_first_discard

SEVENS = build_deck(["4S", "5S", "6S", "7S", "7C", "7D", "7H", "2C", "3H", "KC"],
                    ["KH", "QD", "JS", "TD", "8H", "6D", "5H", "3D", "2H", "AH"], "KS", stock_top=["AD"])


#: each group in the page's order: its cards, its heading, whether marked invalid, its place in the panel
#: a finger's drag (pointer events of a touch) from a card to the middle of an element
TOUCH_DRAG = """
const [fromSel, toSel] = arguments;
const from = document.querySelector(fromSel), to = document.querySelector(toSel);
if (!from || !to) return false;
const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
const start = {x: a.left + a.width / 2, y: a.top + a.height / 2}, end = {x: b.left + b.width / 2, y: b.top + b.height / 2};
const ev = (type, p) => new PointerEvent(type, {pointerId: 9, pointerType: "touch", isPrimary: true, button: 0,
  buttons: type === "pointerup" ? 0 : 1, clientX: p.x, clientY: p.y, bubbles: true, cancelable: true});
from.dispatchEvent(ev("pointerdown", start));
for (let i = 1; i <= 5; i += 1) {
  from.dispatchEvent(ev("pointermove", {x: start.x + (end.x - start.x) * i / 5, y: start.y + (end.y - start.y) * i / 5}));
}
from.dispatchEvent(ev("pointerup", end));
from.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true, clientX: end.x, clientY: end.y}));
return true;
"""

GROUPS = """
const p = document.getElementById('knock-panel').getBoundingClientRect();
return Array.from(document.querySelectorAll('#knock-panel .knock-group'), (g) => {
  const r = g.getBoundingClientRect();
  return [g.dataset.group, {cards: Array.from(g.querySelectorAll('.card'), (c) => c.dataset.card),
    head: g.querySelector('.tag').textContent, invalid: g.classList.contains('invalid'),
    top: r.top - p.top, left: r.left - p.left}];
});
"""


def enabled(driver, selector: str) -> bool:
    return driver.execute_script("return !document.querySelector(arguments[0]).disabled", selector)


def kcard(code: str) -> str:
    return f'#knock-panel button.card[data-card="{code}"]'


def group(name) -> str:
    return f'#knock-panel .knock-group[data-group="{name}"]'


def laid_out(driver) -> dict:
    return dict(driver.execute_script(GROUPS))


def meld_of(groups: dict, code: str) -> str:
    return next(g for g, v in groups.items() if code in v["cards"])


def keys(driver, *pressed: str) -> None:
    """Press keys where the focus is (the table, drawn anew, puts the focus back on the same control)."""
    ActionChains(driver).send_keys(*pressed).perform()


def press(driver, selector: str, key: str) -> None:
    """Focus the element and press ``key`` there."""
    driver.execute_script("document.querySelector(arguments[0]).focus()", selector)
    keys(driver, key)


def open_table(driver, base: str, game_id: str, token: str) -> None:
    hold_seat(driver, base, game_id, "gin-rami", 0, token, "ann")
    driver.get(f"{base}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and "after the best discard" in text_of(d, "#deadwood"),
             what="ann's eleven cards, analysed")


def test_knocking_by_dragging_and_tapping_cards_between_groups_on_a_phone(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, DECK)
    driver = new_browser(390, 844)
    phone(driver)
    open_table(driver, live_server, game_id, ann)
    # one control, whatever the discards that allow a knock
    assert texts(driver, "#knock-offer button") == ["Knock…"]
    assert not css(driver, "#knock-offer select")
    driver.execute_script("document.querySelector('[data-key=\"knock\"]').click()")
    wait_for(driver, lambda d: css(d, "#knock-panel .knock-group"), what="the arrangement")

    # offered: discard KC (9 left, against 10 for 9H), the three melds, 9H as deadwood
    start = laid_out(driver)
    assert list(start) == ["discard", "0", "1", "2", "dead"]
    assert start["discard"]["cards"] == ["KC"] and start["dead"]["cards"] == ["9H"]
    assert sorted(sorted(start[g]["cards"]) for g in "012") == [["2D", "3D", "AD"], ["4S", "5S", "6S"], ["7C", "7D", "7H"]]
    assert text_of(driver, "#knock-h") == "Knock, discarding king of clubs"
    assert "Deadwood: 9" in text_of(driver, "#knock-deadwood")
    assert enabled(driver, "#knock-confirm")
    assert not css(driver, "#knock-panel select")
    # every card a button a finger can hit, inside the phone's width
    width = driver.execute_script("return innerWidth")
    boxes = driver.execute_script("return Array.from(document.querySelectorAll('#knock-panel button.card'),"
                                  " e => e.getBoundingClientRect().toJSON())")
    assert len(boxes) == 11
    assert all(b["width"] >= 44 and b["height"] >= 44 and b["left"] >= 0 and b["right"] <= width for b in boxes), boxes
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    assert serious_violations(driver) == []

    # 9H dragged into the Discard slot: KC goes to the deadwood (10, the limit: still a knock)
    assert driver.execute_script(DRAG, kcard("9H"), group("discard"))
    wait_for(driver, lambda d: laid_out(d)["discard"]["cards"] == ["9H"], what="9H in the Discard slot")
    assert laid_out(driver)["dead"]["cards"] == ["KC"]
    assert text_of(driver, "#knock-h") == "Knock, discarding 9 of hearts"
    assert "Deadwood: 10" in text_of(driver, "#knock-deadwood")
    assert enabled(driver, "#knock-confirm")

    # 7H dragged out of its set into the deadwood: the set is broken (red, in words), the deadwood 17
    sevens = meld_of(laid_out(driver), "7C")
    assert driver.execute_script(DRAG, kcard("7H"), group("dead"))
    wait_for(driver, lambda d: "7H" in laid_out(d)["dead"]["cards"], what="7H in the deadwood")
    now = laid_out(driver)
    assert now[sevens]["invalid"] and now[sevens]["head"] == f"Meld {int(sevens) + 1} — not a set or a run"
    assert driver.execute_script(f"return getComputedStyle(document.querySelector('{group(sevens)}')).borderColor") \
        == "rgb(140, 29, 24)"
    summary = text_of(driver, "#knock-summary")
    assert f"Meld {int(sevens) + 1} is not a set or a run." in summary
    assert "The deadwood, 17, is more than the limit of 10." in summary
    assert "more than the limit of 10" in text_of(driver, "#knock-deadwood")
    assert not enabled(driver, "#knock-confirm")
    # the groups kept their places
    assert all((now[g]["top"], now[g]["left"]) == (start[g]["top"], start[g]["left"]) for g in start), (start, now)
    driver.save_screenshot(str(tmp_path / "knock-invalid-phone.png"))

    # a tap picks 7H up, a tap on a card of its set puts it back
    click_when_ready(driver, kcard("7H"), "7H")
    wait_for(driver, lambda d: d.execute_script("return document.querySelector(arguments[0]).ariaPressed", kcard("7H")) == "true",
             what="7H picked")
    assert text_of(driver, f'{group(sevens)} .knock-to') == "Put 7♥ here"
    driver.save_screenshot(str(tmp_path / "knock-picked-phone.png"))
    click_when_ready(driver, kcard("7C"), "7C")
    wait_for(driver, lambda d: "7H" in laid_out(d)[sevens]["cards"], what="7H back in its set")
    assert not laid_out(driver)[sevens]["invalid"]
    assert enabled(driver, "#knock-confirm")

    # a finger drags KC back into the Discard slot: 9H goes to the deadwood, 9
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", group("discard"))
    assert driver.execute_script(TOUCH_DRAG, kcard("KC"), group("discard"))
    wait_for(driver, lambda d: laid_out(d)["discard"]["cards"] == ["KC"], what="KC dragged to the Discard slot")
    assert laid_out(driver)["dead"]["cards"] == ["9H"] and "Deadwood: 9" in text_of(driver, "#knock-deadwood")

    click_when_ready(driver, "#knock-confirm", "knock-confirm")
    view = api.wait_view(game_id, ann, lambda v: v["last_hand"] is not None)
    last = view["last_hand"]
    assert last["outcome"] == "knock" and last["knocker"] == 0
    assert last["knocker_deadwood"] == 9 and last["knocker_deadwood_cards"] == ["9H"]
    wait_for(driver, panel_open, what="the hand's end")
    assert text_of(driver, "#hand-end-h") == "Hand 1: you knocked"


def test_knocking_with_the_keyboard_moves_cards_by_number_d_and_0(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id, ann = to_first_discard(api, SEVENS)
    driver = new_browser(1366, 768)
    open_table(driver, live_server, game_id, ann)
    press(driver, '[data-key="knock"]', Keys.ENTER)
    wait_for(driver, lambda d: css(d, "#knock-panel .knock-group"), what="the arrangement")
    # the focus is in the arrangement, on a card
    assert driver.execute_script("return document.activeElement.closest('#knock-panel') !== null"
                                 " && document.activeElement.classList.contains('card')")
    start = laid_out(driver)
    assert start["discard"]["cards"] == ["KC"] and sorted(start["dead"]["cards"]) == ["2C", "3H", "AD"]
    # the arrows go from card to card, group after group (the focus starts on the first)
    in_order = [c for g in start.values() for c in g["cards"]]
    assert driver.execute_script("return document.activeElement.dataset.card") == in_order[0]
    keys(driver, Keys.ARROW_RIGHT)
    assert driver.execute_script("return document.activeElement.dataset.card") == in_order[1]
    keys(driver, Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert driver.execute_script("return document.activeElement.dataset.card") == in_order[-1]
    run, sevens = meld_of(start, "4S"), meld_of(start, "7C")
    assert run != sevens and "dead" not in (run, sevens)
    other = sevens if meld_of(start, "7S") == run else run

    # D puts 2C in the Discard slot: KC goes to the deadwood, 3 + 1 + 10 = 14, over the limit
    press(driver, kcard("2C"), "d")
    wait_for(driver, lambda d: laid_out(d)["discard"]["cards"] == ["2C"], what="2C to discard")
    assert driver.execute_script("return document.activeElement.dataset.card") == "2C"  # the focus follows the card
    assert sorted(laid_out(driver)["dead"]["cards"]) == ["3H", "AD", "KC"]
    assert "The deadwood, 14, is more than the limit of 10." in text_of(driver, "#knock-summary")
    assert not enabled(driver, "#knock-confirm")
    # D on KC: back as it was
    press(driver, kcard("KC"), "D")
    wait_for(driver, lambda d: laid_out(d)["discard"]["cards"] == ["KC"], what="KC to discard")
    assert sorted(laid_out(driver)["dead"]["cards"]) == ["2C", "3H", "AD"]
    # 0 sends 5S to the deadwood (the run breaks), its number brings it back
    press(driver, kcard("5S"), "0")
    wait_for(driver, lambda d: "5S" in laid_out(d)["dead"]["cards"], what="5S in the deadwood")
    assert laid_out(driver)[run]["invalid"]
    press(driver, kcard("5S"), str(int(run) + 1))
    wait_for(driver, lambda d: "5S" in laid_out(d)[run]["cards"], what="5S back in the run")
    # the 7S to the other meld: still 6 deadwood
    press(driver, kcard("7S"), str(int(other) + 1))
    wait_for(driver, lambda d: "7S" in laid_out(d)[other]["cards"], what="7S in the other meld")
    now = laid_out(driver)
    assert not now[run]["invalid"] and not now[sevens]["invalid"]
    assert "Deadwood: 6" in text_of(driver, "#knock-deadwood")
    assert all((now[g]["top"], now[g]["left"]) == (start[g]["top"], start[g]["left"]) for g in start), (start, now)
    chosen = [sorted(now[run]["cards"]), sorted(now[sevens]["cards"])]
    driver.save_screenshot(str(tmp_path / "knock-keys-laptop.png"))
    assert serious_violations(driver) == []

    press(driver, "#knock-confirm", Keys.ENTER)
    view = api.wait_view(game_id, ann, lambda v: v["last_hand"] is not None)
    last = view["last_hand"]
    assert last["outcome"] == "knock" and last["knocker_deadwood"] == 6
    assert sorted(map(sorted, last["knocker_melds"])) == sorted(chosen)
    assert sorted(last["knocker_deadwood_cards"]) == ["2C", "3H", "AD"]
    wait_for(driver, panel_open, what="the hand's end")
    assert codes(driver, "#hand-end .card")
