"""A scored hand reads as what happened: each lay-off names the knocker's meld as it is then (with
the cards laid off before), the headings say who knocked without a second pair of brackets, the
deadwood is in the order the hand shows cards; the replay's last line names each score; a turn that
allows several knocks offers one Knock control, the discard chosen in the arrangement it opens.

The deal (RULES.md §1 and the explicit-deck extension): ann (seat 0, non-dealer) holds 2D 3D 4D,
7C 7H 7S, 9S TS JS and KC; bob (seat 1, dealer) AD 5D 6D 8C QH KH 3C 5C 9H 4H, no meld. Both pass
the upcard QD; ann draws 2C and knocks discarding KC, with 2C (2) as deadwood. Bob lays off AD, 5D
and 6D on the diamonds (A to 6) and keeps 8C QH KH 3C 5C 9H 4H = 8 + 10 + 10 + 3 + 5 + 9 + 4 = 49:
ann scores 49 − 2 = 47, the end of a game to 1.
"""

from __future__ import annotations

from helpers import Api, click_when_ready, codes, css, text_of, texts, wait_for
from finished import DECK as KNOCK_DECK
from screenshots import shoot
from support.decks import build_deck
from test_table_wording import hold_seat, to_first_discard

ANN = ["2D", "3D", "4D", "7C", "7H", "7S", "9S", "TS", "JS", "KC"]
BOB = ["AD", "5D", "6D", "8C", "QH", "KH", "3C", "5C", "9H", "4H"]
DECK = build_deck(ANN, BOB, "QD", stock_top=["2C"])
MELDS = [["2D", "3D", "4D"], ["7C", "7H", "7S"], ["9S", "TS", "JS"]]


def _knocked_game(api: Api) -> str:
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "decks": [DECK], "options": {"target_score": 1}})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token, move in [(ann, {"type": "pass_upcard"}), (bob, {"type": "pass_upcard"}), (ann, {"type": "draw_stock"}),
                        (ann, {"type": "knock", "discard": "KC", "melds": MELDS})]:
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=token)
        assert status == 200, answer
    return game_id


def test_a_scored_hand_shows_each_meld_as_it_is_and_the_cards_in_order(live_server, new_browser, tmp_path):
    api = Api(live_server)
    game_id = _knocked_game(api)
    view = api.view(game_id)
    r = view["last_hand"]
    assert view["status"] == "over" and r["points"] == 47 and r["defender_deadwood"] == 49
    assert sorted(card for card, meld in r["layoffs"]) == ["5D", "6D", "AD"]

    driver = new_browser()
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: "Hand 1: knock" in text_of(d, "#result"), what="the result")
    lines = text_of(driver, "#result .score-lines")
    # the lay-offs in the server's order, each on the meld as the ones before it left it
    assert [card for card, _ in r["layoffs"]] == ["AD", "5D", "6D"], r["layoffs"]
    assert "bob laid off ace of diamonds on ann's meld 2♦ 3♦ 4♦." in lines, lines
    assert "bob laid off 5 of diamonds on ann's meld A♦ 2♦ 3♦ 4♦." in lines, lines
    assert "bob laid off 6 of diamonds on ann's meld A♦ 2♦ 3♦ 4♦ 5♦." in lines, lines
    # bob's deadwood as a hand is sorted (spades, hearts, clubs, diamonds; ace low)
    assert "bob kept no meld and 49 deadwood (4♥ 9♥ Q♥ K♥ 3♣ 5♣ 8♣)." in lines, lines
    # read in one go: the page re-renders the result as it follows the game, so a heading found a
    # moment ago may be gone
    headings = texts(driver, "#result h3")
    assert headings == ["ann — knocker", "bob — defender"], headings
    assert codes(driver, "#result .hands-grid > div:nth-child(2) .group.deadwood .card") == \
        ["4H", "9H", "QH", "KH", "3C", "5C", "8C"]
    shoot(driver, tmp_path / "result.png", "#result")

    driver.get(f"{live_server}/replay/{game_id}")
    wait_for(driver, lambda d: text_of(d, "#position").startswith("Event 1 of"), what="the replay")
    driver.execute_script("const s = document.getElementById('slider'); s.value = s.max; s.dispatchEvent(new Event('input'))")
    wait_for(driver, lambda d: text_of(d, "#event-text").startswith("Game over"), what="the last event")
    assert text_of(driver, "#event-text") == "Game over: ann wins, ann 47, bob 0."


def test_several_knocks_are_one_control_and_the_discard_is_chosen_in_the_arrangement(live_server, new_browser, tmp_path):
    # finished.py's deal: ann, having drawn 3D, may knock discarding KC (9 left: 9H) or 9H (10 left: KC)
    api = Api(live_server)
    game_id, ann = to_first_discard(api, KNOCK_DECK)
    knocks = sorted(m["discard"] for m in api.view(game_id, ann)["legal_moves"] if m["type"] == "knock")
    assert knocks == ["9H", "KC"]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: css(d, '[data-key="knock"]'), what="the knock control")
    # one Knock button, no button per discard and no menu: the discard is chosen in the arrangement
    assert texts(driver, "#knock-offer button") == ["Knock…"] and not css(driver, "#knock-offer select")
    shoot(driver, tmp_path / "knock-offer.png", "#knock-offer")
    click_when_ready(driver, '[data-key="knock"]', "the knock button")
    wait_for(driver, lambda d: text_of(d, "#knock-h") == "Knock, discarding king of clubs", what="the arrangement")
    # 9H picked up, then put in the Discard slot: KC goes to the deadwood
    click_when_ready(driver, '#knock-panel .card[data-card="9H"]', "the 9H")
    click_when_ready(driver, '#knock-panel .knock-group[data-group="discard"] .knock-to', "the Discard slot's button")
    wait_for(driver, lambda d: text_of(d, "#knock-h") == "Knock, discarding 9 of hearts", what="9H to discard")
    # each meld as the hand shows it (a set by suit, a run by rank), then the deadwood
    melds = [codes(driver, f'#knock-panel .knock-group[data-group="{g}"] .card') for g in "012"]
    assert sorted(map(tuple, melds)) == [("4S", "5S", "6S"), ("7H", "7C", "7D"), ("AD", "2D", "3D")], melds
    assert codes(driver, '#knock-panel .knock-group[data-group="dead"] .card') == ["KC"]


def test_a_finished_box_gin_game_shows_the_advisor_as_sitting_out_and_the_hands_once(live_server, new_browser):
    # the captain (seat 1) takes the upcard JH and goes gin at once, discarding QS: AC 2C 3C, 4D 5D 6D,
    # 8H 9H TH JH; the advisor (seat 2) sat the hand out and holds no card
    captain = ["AC", "2C", "3C", "4D", "5D", "6D", "8H", "9H", "TH", "QS"]
    box = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}, "decks": [build_deck(captain, box, "JH")],
        "options": {"target_score": 1}})
    assert status == 201, created
    game_id, cal = created["game_id"], created["seats"][1]["token"]
    assert api.view(game_id)["to_act"] == [1]
    for move in ({"type": "take_upcard"},
                 {"type": "knock", "discard": "QS", "melds": [captain[:3], captain[3:6], captain[6:9] + ["JH"]]}):
        status, answer = api.call("POST", f"/games/{game_id}/moves", move, token=cal)
        assert status == 200, answer
    assert api.view(game_id)["status"] == "over"

    driver = new_browser()
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: "Game over" in text_of(d, "#turn"), what="the end")
    advisor = text_of(driver, '.opponent[data-seat="2"]')
    assert "sat out the last hand, advising" in advisor and "0 cards" not in advisor, advisor
    board = text_of(driver, "#board")
    assert "Known to hold" not in board, board
    assert sorted(codes(driver, '.opponent[data-seat="1"] .card')) == sorted(captain[:9] + ["JH"])
