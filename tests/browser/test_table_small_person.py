"""The smaller things a person noticed: a finished game offers its replay, not a table to resume,
and its scores name their players; the card just drawn is marked otherwise than the focus ring, and
the arrow keys move between the cards that may be discarded; the advisor's hand is called the
captain's, and "Advise your captain" goes with the game's end; a board of a match over at its table
shows the opponent's last hand face up, as its result does."""

from __future__ import annotations

from selenium.webdriver.common.keys import Keys

from finished import first_hand_played
from helpers import Api, click_when_ready, codes, css, hand_cards, register_bot, text_of, wait_for
from test_match_game_table import SEATS, play_out
from test_table_person import hold_seat

FOCUS_RING = "rgb(245, 180, 0)"

def test_a_finished_game_offers_its_replay_and_names_the_scores(live_server, new_browser):
    api = Api(live_server)
    game_id, (ann, _) = first_hand_played(api, target_score=1)
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    wait_for(driver, lambda d: text_of(d, "#turn").startswith("Game over"), what="the game over")
    driver.get(live_server + "/")
    row = f'#games-table tr[data-game="{game_id}"]'
    wait_for(driver, lambda d: css(d, row), what="the finished game listed")
    # the winner, then the scores, the winner's first: ann's 26 to bob's 0
    assert text_of(driver, f'{row} td[data-label="Status"]') == "over — ann won 26 to 0"
    actions = text_of(driver, f'{row} td[data-label="Actions"]')
    assert "Replay" in actions and "Resume" not in actions, actions
    wait_for(driver, lambda d: css(d, f'#my-games a.replay[data-game="{game_id}"]'), what="Your games' replay")
    assert not css(driver, f'#my-games a.resume[data-game="{game_id}"]')
    assert css(driver, f'#my-games a.replay[data-game="{game_id}"]')[0].get_attribute("href") \
        == f"{live_server}/replay/{game_id}"

def test_the_drawn_card_is_not_ringed_like_the_focus_and_arrows_move_between_cards(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token in (ann, bob):
        assert api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=token)[0] == 200
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    click_when_ready(driver, '[data-key="draw_stock"]', "the stock")
    wait_for(driver, lambda d: len(hand_cards(d)) == 11 and css(d, "#hand button.card.drawn"), what="the drawn card")
    drawn = css(driver, "#hand button.card.drawn")[0]
    look = driver.execute_script(
        "const e = arguments[0]; return [getComputedStyle(e).boxShadow, getComputedStyle(e, '::before').content]", drawn)
    assert FOCUS_RING not in look[0] and look[1] == '"new"', look
    # the focus is on the drawn card; the arrows walk the hand's buttons, wrapping round
    wait_for(driver, lambda d: d.execute_script("return document.activeElement.classList.contains('drawn')"),
             what="the focus on the drawn card")
    order = codes(driver, "#hand button.card")
    at = order.index(drawn.get_attribute("data-card"))
    driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert driver.execute_script("return document.activeElement.dataset.card") == order[(at + 1) % len(order)]
    driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert driver.execute_script("return document.activeElement.dataset.card") == order[(at - 1) % len(order)]

def test_the_advisor_reads_the_captains_hand_and_advises_only_while_the_game_runs(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}})
    assert status == 201, created
    game_id = created["game_id"]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "three-hand", 2, created["seats"][2]["token"], "abe")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10 and text_of(d, "#advice-h"), what="the advisor's page")
    assert text_of(driver, "#hand-h").startswith("cal's hand — captain (you advise)")
    assert text_of(driver, "#advice-h") == "Advise your captain"
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=created["seats"][0]["token"])[0] == 200
    wait_for(driver, lambda d: text_of(d, "#turn").startswith("Game over"), what="the game over")
    wait_for(driver, lambda d: text_of(d, "#advice-h") == "Advice" and not css(d, "#advice-form"), what="no more advising")

def test_a_match_board_over_shows_the_opponents_last_hand_face_up(live_server, new_browser):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    status, challenge = api.call("POST", "/challenges", {"to": bot, "variant": "gin-rami", "name": "ann", "boards": 1})
    assert status == 201, challenge
    ann = challenge["token"]
    status, accepted = api.call("POST", f"/challenges/{challenge['challenge_id']}/accept", token=bot_token)
    assert status == 200, accepted
    match_id = accepted["match_id"]
    table0 = api.call("GET", f"/matches/{match_id}")[1]["board_results"][0]["tables"][0]["game_id"]
    # a drawn board is dealt again: the odd board takes longer than one round of play_out
    for _ in range(5):
        try:
            play_out(api, table0, [ann, bot_token])
            break
        except AssertionError:
            continue
    view = api.view(table0, ann)
    assert view["all_hands"] is None  # sealed: the other table is dealt these cards too
    last = view["last_hand"]
    driver = new_browser()
    driver.get(live_server + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", SEATS,
                          f'{{"{table0}": {{"game_id": "{table0}", "variant": "gin-rami", "created": 1, '
                          f'"seats": {{"0": {{"token": "{ann}", "name": "ann"}}}}, "match": "{match_id}", '
                          '"board": 0, "table": 0}}')
    driver.get(f"{live_server}/play/{table0}#seat=0")
    wait_for(driver, lambda d: text_of(d, "#turn").startswith("Game over"), what="the game over")
    if last["outcome"] == "drawn":
        return  # a drawn hand's result shows no hands, and neither does the table
    shown = wait_for(driver, lambda d: codes(d, '.opponent[data-seat="1"] .card:not(.back)'), what="the hand face up")
    assert sorted(shown) == sorted(last["hands"][1])
    assert "the last hand, face up" in text_of(driver, '.opponent[data-seat="1"]')
