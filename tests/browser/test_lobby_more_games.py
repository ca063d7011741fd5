"""The lobby's "More games" button pages through the list by the cursor each page gives: it shows
only while the server says more games follow, and no game is listed twice."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import Api, console_errors, exchanges, serious_violations, wait_for
from screenshots import shoot


def listings(driver) -> list[tuple[dict, dict]]:
    """Every GET /games the page made: (its query, the page of games the server answered)."""
    return [({k: v[0] for k, v in parse_qs(urlsplit(e["url"]).query).items()}, json.loads(e["body"]))
            for e in exchanges(driver) if e["method"] == "GET" and urlsplit(e["url"]).path == "/games"]


def rows(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#games-table tbody tr[data-game]'), tr => tr.dataset.game)")


def settled(driver, count: int) -> bool:
    """The page made ``count`` listings and has drawn the last one (its button usable again or hidden)."""
    if len(listings(driver)) != count:
        return False
    return driver.execute_script(
        "const b = document.getElementById('more-games'); return b.hidden || !b.disabled")


def test_more_games_follows_the_cursor_and_hides_on_the_last_page(live_server, new_browser, tmp_path):
    api = Api(live_server)
    made = []
    for i in range(21):  # more than one page (the lobby asks for 20 at a time)
        status, game = api.call("POST", "/games", {"variant": "three-hand", "seats": [{"name": f"m{i}"}, None, None]})
        assert status == 201, game
        made.append(game["game_id"])

    driver = new_browser()
    driver.get(live_server + "/")
    wait_for(driver, lambda d: settled(d, 1), what="the first listing")
    Select(driver.find_element(By.CSS_SELECTOR, "#filter-form select[name=status]")).select_by_visible_text("waiting")
    driver.find_element(By.CSS_SELECTOR, "#filter-form button[type=submit]").click()
    wait_for(driver, lambda d: settled(d, 2), what="the waiting games")

    more = driver.find_element(By.ID, "more-games")
    pages = [listings(driver)[-1]]
    assert pages[0][0]["status"] == "waiting" and "cursor" not in pages[0][0]
    while True:
        cursor = pages[-1][1]["next_cursor"]
        # the button shows exactly while the server says more games follow
        assert more.is_displayed() == (cursor is not None), (cursor, more.is_displayed())
        if cursor is None:
            break
        more.click()
        wait_for(driver, lambda d: settled(d, len(pages) + 2), what="the next page")
        pages.append(listings(driver)[-1])
        query = pages[-1][0]
        # the next page is asked for after the last one, with the same filter
        assert query["cursor"] == cursor and query["status"] == "waiting", query
    assert len(pages) >= 2

    listed = [g["game_id"] for _, page in pages for g in page["games"]]
    assert rows(driver) == listed
    assert len(set(listed)) == len(listed), "a game is listed twice"
    assert set(made) <= set(listed)
    assert all(g["status"] == "waiting" for _, page in pages for g in page["games"])

    # on the last page the button is gone and does nothing even if clicked from a script
    assert not more.is_displayed() and more.get_attribute("hidden") is not None
    driver.execute_script("document.getElementById('more-games').click()")
    assert len(listings(driver)) == len(pages) + 1
    assert rows(driver) == listed

    shoot(driver, tmp_path / "lobby-more-games.png", "#games-table")
    assert serious_violations(driver) == [] and console_errors(driver) == []
