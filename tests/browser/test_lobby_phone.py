"""On a phone's width (390 px) the lobby's games table fits the screen: nothing to scroll sideways
for, and every game's actions (Join, Watch, Replay) in view."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, console_errors, css, serious_violations, texts, wait_for
from screenshots import shoot


def test_the_games_table_fits_a_phone(live_server, new_browser, tmp_path):
    api = Api(live_server)
    made = []
    for body in ({"variant": "three-hand", "seats": [{"name": "Maximiliana Fitzgerald"}, None, None]},
                 {"variant": "gin-rami", "seats": [{"bot": "basic", "name": "Bartholomew"}, {"bot": "random"}]},
                 {"variant": "gin-rami", "seats": [{"name": "ann"}, None]}):
        status, game = api.call("POST", "/games", body)
        assert status == 201, game
        made.append(game["game_id"])

    driver = new_browser(390, 844)
    driver.get(live_server + "/")
    assert driver.execute_script("return window.innerWidth") == 390
    for game_id in made:
        wait_for(driver, lambda d: css(d, f'#games-table tr[data-game="{game_id}"]'), what=f"game {game_id} listed")
    table = driver.find_element(By.ID, "games-table")
    driver.execute_script("arguments[0].scrollIntoView()", table)

    sizes = driver.execute_script(
        "const t = document.getElementById('games-table'), w = t.closest('.table-wrap');"
        "return {table: [t.scrollWidth, t.clientWidth], wrap: [w.scrollWidth, w.clientWidth],"
        " page: [document.documentElement.scrollWidth, window.innerWidth]}")
    assert sizes["table"][0] <= sizes["table"][1], sizes
    assert sizes["wrap"][0] <= sizes["wrap"][1], sizes
    assert sizes["page"][0] <= sizes["page"][1], sizes

    # every action of the games just made is shown, whole, inside the screen's width
    for game_id in made:
        actions = css(driver, f'#games-table tr[data-game="{game_id}"] :is(button, a.button)')
        assert actions, game_id
        for action in actions:
            assert action.is_displayed(), (game_id, action.text)
            left, right = driver.execute_script(
                "const r = arguments[0].getBoundingClientRect(); return [r.left, r.right]", action)
            assert 0 <= left and right <= sizes["page"][1], (game_id, action.text, left, right)
    row = f'#games-table tr[data-game="{made[0]}"]'
    assert texts(driver, f"{row} button.join") == ["Join seat 2", "Join seat 3"]

    shoot(driver, tmp_path / "lobby-phone.png", "#games-table")
    assert serious_violations(driver) == [] and console_errors(driver) == []
