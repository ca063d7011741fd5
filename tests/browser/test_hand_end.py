"""The hand's end is a moment of its own for every seat: a panel inside the viewport lays out every
hand in its melds, works the points out in words, gives the running score and who deals next, and
waits for "Next hand" (or Escape), whoever ended the hand, the player's own knock included. In box
gin it says the roles of the next hand; at a table of bots alone it goes on by itself; at the
game's end it says who won and how.

The deals (RULES.md §1 and the explicit-deck extension):
- finished.py's: ann (non-dealer) draws 3D and knocks discarding KC with 9H alone (9); bob keeps
  9C TC JC, lays off 4D and 7S, and is left with 35 (46 before laying off): ann scores 35 − 9 = 26.
- GIN_DECK: the dealer holds AC 2C 3C, 4D 5D 6D, 8H 9H TH and QS; the upcard JH completes the run,
  so the dealer takes it and goes gin discarding QS. The other hand (5C 7C 9C TD QD AH 3H 5S 7S 9S)
  melds nothing: 5 + 7 + 9 + 10 + 10 + 1 + 3 + 5 + 7 + 9 = 66. Gin scores the bonus alone in gin
  rami (20, §3) and the bonus and the deadwood in box gin (25 + 66 = 91, §2).
"""

from __future__ import annotations

import time
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from chromium import resize
from finished import DECK as KNOCK_DECK
from helpers import (Api, click_when_ready, codes, create_in_lobby, css, hand_cards, page_version, serious_violations,
                     text_of, wait_for)
from support.decks import build_deck
from test_table_person import hold_seat

GIN_HAND = ["AC", "2C", "3C", "4D", "5D", "6D", "8H", "9H", "TH", "QS"]
NO_MELD = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
GIN_DECK = build_deck(NO_MELD, GIN_HAND, "JH")
GIN_MELDS = [GIN_HAND[:3], GIN_HAND[3:6], GIN_HAND[6:9] + ["JH"]]

IS_OPEN = "const e = document.getElementById('hand-end'); return !!(e && e.open)"


def panel_open(driver) -> bool:
    return driver.execute_script(IS_OPEN)


def inside_viewport(driver, selector: str) -> dict:
    """The element's box and the window's size; asserts that the box lies wholly inside the window."""
    box = driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, left: r.left, bottom: r.bottom, right: r.right, width: r.width, height: r.height,"
        " innerWidth: innerWidth, innerHeight: innerHeight}", selector)
    assert box["width"] > 0 and box["height"] > 0, (selector, box)
    assert box["top"] >= 0 and box["left"] >= 0, (selector, box)
    assert box["bottom"] <= box["innerHeight"] and box["right"] <= box["innerWidth"], (selector, box)
    return box


def groups(driver, seat: int, kind: str) -> list[list[str]]:
    """The cards of each group of ``kind`` ("meld" or "deadwood") of a seat's hand in the panel."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]),"
        " g => Array.from(g.querySelectorAll('.card'), c => c.dataset.card))",
        f'#hand-end .hand-end-seat[data-seat="{seat}"] .group.{kind}')


def as_sets(melds) -> list[list[str]]:
    return sorted(sorted(m) for m in melds)


def phone(driver) -> None:
    """A phone's viewport."""
    resize(driver, 390, 844)


def knock_at_first_discard(driver) -> None:
    """ann's first hand of finished.py's deal: pass the upcard, draw 3D, knock discarding KC as the page lays it out."""
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="ann's hand")
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    click_when_ready(driver, '[data-key="draw_stock"]', "the stock, once the bot has passed")
    wait_for(driver, lambda d: "3D" in hand_cards(d), what="the three of diamonds")
    click_when_ready(driver, '[data-key="knock"]', "the Knock button")
    # the discard offered is KC (9H left, 9), not 9H (KC left, 10)
    wait_for(driver, lambda d: "Deadwood: 9" in text_of(d, "#knock-deadwood"), what="the knock arrangement")
    assert codes(driver, '#knock-panel .knock-group[data-group="discard"] .card') == ["KC"]
    click_when_ready(driver, "#knock-confirm", "the knock's confirmation")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_knockers_own_knock_shows_the_hands_end_in_view_until_next_hand(live_server, new_browser, tmp_path, size):
    api = Api(live_server)
    driver = new_browser(1366, 768) if size == "desktop" else new_browser(390, 844)
    if size == "phone":
        phone(driver)
    game_id = create_in_lobby(driver, live_server, KNOCK_DECK)
    knock_at_first_discard(driver)

    # the move's own answer is hand 2 already: the panel shows hand 1 all the same
    wait_for(driver, panel_open, what="the hand-end panel")
    view = api.view(game_id)
    last = view["last_hand"]
    assert view["hand_no"] == 2 and last["hand_no"] == 1 and last["outcome"] == "knock", \
        (view["hand_no"], view["status"], view["phase"], last)
    assert (last["knocker_deadwood"], last["defender_deadwood"], last["points"]) == (9, 35, 26)
    bot = view["players"][1]["name"]  # a name said once, without its kind
    panel = inside_viewport(driver, "#hand-end")
    inside_viewport(driver, "#hand-end-next")
    assert panel["height"] > 200, panel
    assert text_of(driver, "#hand-end-next") == "Next hand"
    assert driver.switch_to.active_element.get_attribute("id") == "hand-end-next"
    driver.save_screenshot(str(tmp_path / f"hand-end-{size}.png"))

    # both hands in their melds: ann's with bob's lay-offs on them, bob's own, and each deadwood
    laid = {card: meld for card, meld in last["layoffs"]}
    assert sorted(laid) == ["4D", "7S"]
    ann_melds = [m + [c for c, j in laid.items() if j == i] for i, m in enumerate(last["knocker_melds"])]
    assert as_sets(groups(driver, 0, "meld")) == as_sets(ann_melds)
    assert groups(driver, 0, "deadwood") == [last["knocker_deadwood_cards"]] == [["9H"]]
    assert as_sets(groups(driver, 1, "meld")) == as_sets(last["defender_melds"])
    assert sorted(groups(driver, 1, "deadwood")[0]) == sorted(last["defender_deadwood_cards"])
    assert sorted(c.get_attribute("data-card") for c in css(driver, "#hand-end .card.laid-off")) == ["4D", "7S"]
    # cards are named in words for a screen reader, a laid-off card with whose it was
    spoken = driver.execute_script("return document.getElementById('hand-end').textContent")
    assert f"4 of diamonds, laid off by {bot}" in spoken and "9 of hearts" in spoken

    # the points in words are the view's
    summary = text_of(driver, "#hand-end-summary")
    assert summary == (f"You knocked with {last['knocker_deadwood']}; {bot} had {last['defender_deadwood']} "
                       f"after laying off 2 cards ({last['defender_deadwood_before_layoffs']} before): "
                       f"you score {last['defender_deadwood']} − {last['knocker_deadwood']} = {last['points']}."), summary
    assert text_of(driver, "#hand-end-h") == "Hand 1: you knocked"
    assert text_of(driver, "#hand-end-score") == \
        f"Score: ann (you) {last['scores'][0]}, {bot} {last['scores'][1]} (a game to 100)."
    assert view["dealer"] == 0 and text_of(driver, "#hand-end-dealer") == "You deal hand 2."
    # and said aloud
    live = driver.find_element(By.ID, "hand-end-live")
    assert live.get_attribute("aria-live") == "polite"
    wait_for(driver, lambda d: summary in d.find_element(By.ID, "hand-end-live").get_attribute("textContent"),
             polls=50, what="the announcement")
    assert serious_violations(driver) == []

    # closed by its button on a desktop, by Escape on a phone; the table of hand 2 is there
    if size == "desktop":
        driver.find_element(By.ID, "hand-end-next").click()
    else:
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(driver, lambda d: not panel_open(d), polls=50, what="the panel closed")
    assert text_of(driver, "#turn").startswith("Hand 2.")
    assert "Hand 1: knock" in text_of(driver, "#result")

    # a reload finds the game where it stands: hand 1's end was before, and no panel opens
    version = page_version(driver)
    driver.refresh()
    wait_for(driver, lambda d: page_version(d) >= version and len(hand_cards(d)) >= 10, what="the table after a reload")
    time.sleep(1)
    assert not panel_open(driver)


def test_the_bots_gin_shows_the_hands_end_to_the_person(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic", "name": "bob"}],
                                                  "first_dealer": 1, "decks": [GIN_DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, created["seats"][0]["token"], "ann")
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")

    wait_for(driver, panel_open, what="the hand-end panel after the bot's gin")
    last = api.view(game_id)["last_hand"]
    assert last["outcome"] == "gin" and last["knocker"] == 1 and last["points"] == 20, last
    inside_viewport(driver, "#hand-end")
    inside_viewport(driver, "#hand-end-next")
    assert driver.switch_to.active_element.get_attribute("id") == "hand-end-next"
    assert text_of(driver, "#hand-end-h") == "Hand 1: bob went gin"
    assert text_of(driver, "#hand-end-summary") == \
        "bob went gin; you had 66 (nothing is laid off on gin): bob scores the gin bonus, 20."
    assert as_sets(groups(driver, 1, "meld")) == as_sets(GIN_MELDS) == as_sets(last["knocker_melds"])
    assert groups(driver, 0, "meld") == [] and sorted(groups(driver, 0, "deadwood")[0]) == sorted(NO_MELD)
    assert text_of(driver, "#hand-end-dealer") == "You deal hand 2."
    driver.save_screenshot(str(tmp_path / "hand-end-bot.png"))
    driver.find_element(By.ID, "hand-end-next").click()
    wait_for(driver, lambda d: not panel_open(d), polls=50, what="the panel closed")


def test_box_gin_says_the_next_hands_roles_to_the_captain_and_the_advisor(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}, "decks": [build_deck(GIN_HAND, NO_MELD, "JH")]})
    assert status == 201, created
    game_id = created["game_id"]
    captain, advisor = new_browser(1366, 768), new_browser(390, 844)
    phone(advisor)
    hold_seat(captain, live_server, game_id, "three-hand", 1, created["seats"][1]["token"], "cal")
    hold_seat(advisor, live_server, game_id, "three-hand", 2, created["seats"][2]["token"], "abe")
    wait_for(advisor, lambda d: len(hand_cards(d)) == 10 and text_of(d, "#connection") == "live", what="the advisor's table")
    click_when_ready(captain, '[data-key="take_upcard"]', "the captain's take")
    # the captain may also knock discarding 8H (QS left): the arrangement offers the gin, and says so
    click_when_ready(captain, '[data-key="knock"]', "the Knock button")
    wait_for(captain, lambda d: text_of(d, "#knock-h") == "Gin, discarding queen of spades", what="the gin offered")
    assert codes(captain, '#knock-panel .knock-group[data-group="discard"] .card') == ["QS"]
    assert text_of(captain, "#knock-confirm") == "Go gin" and "Ready: gin." in text_of(captain, "#knock-summary")
    click_when_ready(captain, "#knock-confirm", "go gin")

    # the box lost: the captain goes into the box, the advisor becomes captain, the box advises
    view = api.wait_view(game_id, None, lambda v: v["last_hand"] is not None)
    assert view["roles"] == {"box": 1, "captain": 2, "advisor": 0} and view["last_hand"]["points"] == 91, view
    rotation = ("The box lost, so the roles move round: for hand 2, {cal} is the box (and deals), {abe} the captain "
                "and bea the advisor, who sits the hand out and does not score.")
    for driver, names in ((captain, {"cal": "cal (you)", "abe": "abe"}), (advisor, {"cal": "cal", "abe": "abe (you)"})):
        wait_for(driver, panel_open, what="the hand-end panel")
        inside_viewport(driver, "#hand-end")
        inside_viewport(driver, "#hand-end-next")
        assert text_of(driver, "#hand-end-roles") == rotation.format(**names)
        assert "sat this hand out, advising: the advisor does not score." in text_of(driver, "#hand-end")
        assert "91" in text_of(driver, "#hand-end-summary")
        assert [h.text for h in css(driver, "#hand-end h3")] == [f"{names['cal']} — captain, went gin", "bea — box, defender"]
    assert text_of(captain, "#hand-end-summary").startswith("You went gin; bea had 66")
    assert text_of(advisor, "#hand-end-summary").startswith("cal went gin; bea had 66")
    captain.save_screenshot(str(tmp_path / "hand-end-box-captain.png"))
    advisor.save_screenshot(str(tmp_path / "hand-end-box-advisor.png"))


def test_at_a_table_of_bots_alone_the_spectators_panel_goes_on_by_itself(live_server, new_browser):
    # two bot accounts, played here over HTTP, so that the hand ends while the spectator watches
    api = Api(live_server)
    tokens = []
    for name in ("hal", "kit"):
        name = f"{name}{uuid.uuid4().hex[:8]}"
        status, bot = api.call("POST", "/bots", {"name": name, "accepts_matches": True})
        assert status == 201, bot
        tokens.append((name, bot["token"]))
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "first_dealer": 1, "decks": [GIN_DECK],
                                                  "seats": [{"account": tokens[0][0]}, {"account": tokens[1][0]}]},
                               token=tokens[0][1])
    assert status == 201, created
    game_id = created["game_id"]
    driver = new_browser(1366, 768)
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live", what="the live stream")
    for token, move in ((tokens[0][1], {"type": "pass_upcard"}), (tokens[1][1], {"type": "take_upcard"}),
                        (tokens[1][1], {"type": "knock", "discard": "QS", "melds": GIN_MELDS})):
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=token)
        assert status == 200, answer

    wait_for(driver, panel_open, what="the hand-end panel")
    opened = time.monotonic()
    inside_viewport(driver, "#hand-end")
    assert "goes on by itself" in text_of(driver, "#hand-end-auto")
    assert text_of(driver, "#hand-end-summary").endswith("scores the gin bonus, 20.")
    wait_for(driver, lambda d: not panel_open(d), polls=120, what="the panel going on by itself")
    assert time.monotonic() - opened >= 3  # long enough to be read
    assert text_of(driver, "#turn").startswith("Hand 2.")


def test_the_games_end_shows_the_last_hand_and_who_won(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic", "name": "bob"}],
                                                  "first_dealer": 1, "decks": [KNOCK_DECK],
                                                  "options": {"target_score": 20}})
    assert status == 201, created
    game_id = created["game_id"]
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, created["seats"][0]["token"], "ann")
    knock_at_first_discard(driver)

    wait_for(driver, panel_open, what="the panel at the game's end")
    view = api.view(game_id)
    assert view["status"] == "over" and view["winner"] == 0 and view["last_hand"]["points"] == 26
    inside_viewport(driver, "#hand-end")
    inside_viewport(driver, "#hand-end-next")
    assert text_of(driver, "#hand-end-h") == "Hand 1: you knocked"
    assert text_of(driver, "#hand-end-summary").endswith("you score 35 − 9 = 26.")
    assert text_of(driver, "#hand-end-final") == \
        "Game over. You win the game, reaching 26 (the target is 20). Final score: ann (you) 26, bob 0."
    assert not css(driver, "#hand-end-dealer") and not css(driver, "#hand-end-score")
    assert text_of(driver, "#hand-end-next") == "Close"
    driver.save_screenshot(str(tmp_path / "hand-end-over.png"))
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(driver, lambda d: not panel_open(d), polls=50, what="the panel closed")
    assert text_of(driver, "#turn").startswith("Game over")


def test_a_resignation_ends_the_game_in_the_same_panel(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201, created
    game_id = created["game_id"]
    driver = new_browser(1366, 768)
    hold_seat(driver, live_server, game_id, "gin-rami", 0, created["seats"][0]["token"], "ann")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10 and text_of(d, "#connection") == "live", what="ann's table")
    status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=created["seats"][1]["token"])
    assert status == 200, answer

    # no hand was scored: the panel says who won and how
    wait_for(driver, panel_open, what="the panel at the game's end")
    inside_viewport(driver, "#hand-end-next")
    assert text_of(driver, "#hand-end-h") == "Game over"
    assert text_of(driver, "#hand-end-summary") == "bob resigned, so you win. Final score: ann (you) 0, bob 0."
    assert not css(driver, "#hand-end .hand-end-seat")
