"""A person's whole path through the pages: create a gin rami game against the basic bot in the
lobby, play a hand (pass, draw, discard, draw, knock with a card dragged to another meld than offered),
read the hand's result, and come back after a reload.

The deal is fixed (RULES.md §1 and the explicit-deck extension) so that the hand goes the same way
every run: ann (seat 0, non-dealer) holds 4S 5S 6S 7S 7C 7D 7H 2C 3H KC; the bot (seat 1, dealer)
holds ten unrelated cards; the upcard is KS. Ann draws QS (and throws it back), then AD, and knocks
discarding KC with 2C 3H AD = 2 + 3 + 1 = 6 deadwood. The 7S fits either the run 4S-7S or the set
of sevens, so two arrangements leave 6: the test lays out the one the page did not offer.
"""

from __future__ import annotations

from helpers import (DRAG, Api, click_when_ready, codes, create_in_lobby, css, hand_cards, page_version, serious_violations,
                     text_of, wait_for)
from support.decks import build_deck

ANN = ["4S", "5S", "6S", "7S", "7C", "7D", "7H", "2C", "3H", "KC"]
BOT = ["KH", "QD", "JS", "TD", "8H", "6D", "5H", "3D", "2H", "AH"]
DECK = build_deck(ANN, BOT, "KS", stock_top=["QS", "9H", "AD"])



def click_key(driver, key: str, what: str):
    click_when_ready(driver, f'[data-key="{key}"]', what)


def create_game_in_lobby(driver, base: str) -> str:
    """ann against the basic bot, dealt from DECK, created in the lobby; the game's id."""
    return create_in_lobby(driver, base, DECK)


def test_a_whole_hand_against_the_basic_bot_from_the_lobby_to_the_result_and_back(live_server, new_browser):
    api = Api(live_server)
    driver = new_browser()
    game_id = create_game_in_lobby(driver, live_server)

    # the hand shows the ten dealt cards, sorted, with the melds the server's analysis finds
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="ann's hand")
    assert sorted(hand_cards(driver)) == sorted(ANN)
    wait_for(driver, lambda d: "deadwood 15" in text_of(d, "#deadwood"), what="the deadwood")  # 2C 3H KC: 2 + 3 + 10
    assert codes(driver, "#hand .group.meld .card")  # the melds are marked as groups
    assert "KS" in codes(driver, "#discard-pile .card")

    click_key(driver, "pass_upcard", "the pass button")
    click_key(driver, "draw_stock", "ann's first draw")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11, what="eleven cards")
    assert "QS" in hand_cards(driver)
    click_key(driver, "discard:QS", "the QS discard button")
    wait_for(driver, lambda d: "QS" not in hand_cards(d), what="the discard")

    click_key(driver, "draw_stock", "ann's second draw (after the bot's turn)")
    wait_for(driver, lambda d: "AD" in hand_cards(d), what="the ace of diamonds")
    click_key(driver, "knock", "the knock button")

    # the arrangement offers a least-deadwood layout, KC in the Discard slot; drag the 7S to the other meld
    wait_for(driver, lambda d: css(d, "#knock-panel .knock-group"), what="the knock arrangement")
    assert codes(driver, '#knock-panel .knock-group[data-group="discard"] .card') == ["KC"]
    where = driver.execute_script(
        "return Object.fromEntries(['4S', '7C', '7S'].map(c => [c, document.querySelector("
        "`#knock-panel .card[data-card='${c}']`).closest('.knock-group').dataset.group]))")
    assert where["4S"] != where["7C"] and "dead" not in (where["4S"], where["7C"])
    target = where["7C"] if where["7S"] == where["4S"] else where["4S"]
    chosen_set = ["7C", "7D", "7H", "7S"] if target == where["7C"] else ["7C", "7D", "7H"]
    assert driver.execute_script(DRAG, '#knock-panel .card[data-card="7S"]', f'#knock-panel .knock-group[data-group="{target}"]')
    wait_for(driver, lambda d: "Deadwood: 6" in text_of(d, "#knock-deadwood"), what="the live deadwood")
    wait_for(driver, lambda d: codes(d, f'#knock-panel .knock-group[data-group="{target}"] .card').count("7S") == 1,
             what="the 7S in the other meld")
    summary = text_of(driver, "#knock-summary")
    assert serious_violations(driver) == []  # the knock arrangement too
    assert "not a set or a run" not in summary and "Ready to knock." in summary
    click_when_ready(driver, "#knock-confirm", "the knock button")

    # the result: both hands laid out and the score explained
    wait_for(driver, lambda d: "Hand 1" in text_of(d, "#result"), what="the hand's result")
    result = text_of(driver, "#result")
    assert serious_violations(driver) == []  # and the result
    assert "Hand 1: knock" in result
    spectator = api.view(game_id)
    last = spectator["last_hand"]
    assert last["outcome"] == "knock" and last["knocker"] == 0 and last["knocker_deadwood"] == 6
    assert sorted(map(sorted, last["knocker_melds"])) == sorted([sorted(chosen_set), sorted(
        ["4S", "5S", "6S", "7S"] if len(chosen_set) == 3 else ["4S", "5S", "6S"])])
    assert last["points"] == last["defender_deadwood"] - 6
    lines = text_of(driver, "#result .score-lines").splitlines()
    assert any(f"scores {last['defender_deadwood']} − 6 = {last['points']}" in line for line in lines), lines
    sheet = text_of(driver, "#score-sheet")
    assert f"knock: ann +{last['points']}" in sheet

    # a reload finds the seat again (its token is in this browser) and the game where it stands
    version = page_version(driver)
    driver.refresh()
    wait_for(driver, lambda d: page_version(d) >= version and len(hand_cards(d)) >= 10, what="the table after a reload")
    assert "ann, seat 1" in text_of(driver, "#whoami")
    assert "Hand 1: knock" in text_of(driver, "#result")
    assert spectator["hand_no"] == 2

    # the lobby offers to resume it
    driver.get(live_server + "/")
    click_when_ready(driver, f'a.resume[data-game="{game_id}"]', "the resume link")
    wait_for(driver, lambda d: len(hand_cards(d)) >= 10, what="the resumed table")
