"""The replay page of a game imported over HTTP from an OpenSpiel record (POST /games/import): it
replays to the end, and says under its title, inside the viewport, that the game was imported from
OpenSpiel and not dealt by this server, beside the final scores."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from helpers import Api, console_errors, serious_violations, text_of, wait_for
from test_audit_imported_file import PLAYTHROUGH
from test_replay_reader import DESKTOP, PHONE, drawn, open_replay, outside_viewport


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_an_imported_game_replays_to_its_end_and_says_it_was_not_dealt_here(live_server, new_browser, tmp_path,
                                                                             size):
    # OpenSpiel's own recorded game, as OpenSpiel writes it: its actions alone
    status, imported = Api(live_server).call("POST", "/games/import", {"actions": PLAYTHROUGH})
    assert status == 201, imported
    game_id, n = imported["game_id"], imported["view"]["version"]
    driver = open_replay(new_browser, live_server, game_id, size)
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait_for(driver, lambda d: drawn(d) == n, what="the last event drawn")
    note = text_of(driver, "#origin-note")
    assert note.startswith("Imported from OpenSpiel: dealt and played there, not dealt by this server"), note
    # OpenSpiel's playthrough: player 1 (seat 1) wins the one hand with 33 points
    assert text_of(driver, "#game-over").endswith("Final score: player 0 0, player 1 33.")
    # the title, the note and the final scores in one view, at the top of the page
    driver.execute_script("window.scrollTo(0, 0)")
    for selector in ("#title", "#origin-note", "#game-over"):
        assert outside_viewport(driver, selector) == [], selector
    driver.save_screenshot(str(tmp_path / f"imported-{size[0]}.png"))
    assert serious_violations(driver) == []
    assert console_errors(driver) == []


def test_the_lobby_says_an_imported_game_was_dealt_by_openspiel_not_by_a_creator(live_server, new_browser, tmp_path):
    status, imported = Api(live_server).call("POST", "/games/import", {"actions": PLAYTHROUGH})
    assert status == 201, imported
    driver = new_browser()
    driver.get(live_server + "/")
    row = f'tr[data-game="{imported["game_id"]}"]'
    wait_for(driver, lambda d: "Imported" in text_of(d, row), what="the imported game's note in its row")
    text = text_of(driver, row)
    assert "Imported: OpenSpiel dealt and played this game" in text, text
    assert "creator" not in text, text
    note = f"{row} .not-random"
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", note)
    assert outside_viewport(driver, note) == [], note
    driver.save_screenshot(str(tmp_path / "lobby-imported.png"))
    assert console_errors(driver) == []
