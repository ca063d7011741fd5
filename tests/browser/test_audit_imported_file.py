"""The replay page's audit panel on a game imported from OpenSpiel (OPENSPIEL.md): the file picked
from disk passes, and the panel says, inside the viewport, that its deals were not made by this
server instead of failing a commitment it never had."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from helpers import Api, console_errors, wait_for
from test_replay_reader import open_replay
from service.rules import openspiel
from support.decks import build_deck
from support.openspiel_play import PLAYTHROUGH

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DESKTOP = (1366, 768)
# a server game over in two moves, for a replay page to open: seat 0 takes 4S and goes gin
GIN_DECK = build_deck("AS 2S 3S 4C 5C 6C 7H 7D 7C QD".split(), "2C 3C 9H 9D 9S TH JH KS 5D 8S".split(), "4S")


def finished_game(live_server: str) -> str:
    api = Api(live_server)
    status, made = api.call("POST", "/games", {"variant": "gin-rami", "rules": "openspiel", "decks": [GIN_DECK],
                                               "first_dealer": 1, "options": {"target_score": 1},
                                               "seats": [{"name": "ann"}, {"name": "bob"}]})
    assert status == 201, made
    token = made["seats"][0]["token"]
    for move in ({"type": "take_upcard"}, {"type": "knock", "discard": "QD"}):
        status, answer = api.call("POST", f"/games/{made['game_id']}/moves", move, token=token)
        assert status == 200, answer
    return made["game_id"]


def test_an_imported_file_passes_and_says_its_deals_were_not_made_here(live_server, new_browser, tmp_path):
    imported = tmp_path / "openspiel-game.ndjson"
    imported.write_text("".join(openspiel.export_lines(openspiel.from_record(PLAYTHROUGH))), encoding="utf-8")
    game_id = finished_game(live_server)
    # the replay drawn first, as a reader finds it: its first draw changes the height of what is above the panel
    driver = open_replay(new_browser, live_server, game_id, DESKTOP)
    wait_for(driver, lambda d: d.find_elements(By.ID, "audit-file"), what="the audit panel")
    driver.find_element(By.ID, "audit-file").send_keys(str(imported))
    wait_for(driver, lambda d: d.execute_script(
        "const p = document.querySelector('#audit-file-report p'); return p && p.dataset.ok"), what="the report")
    # the passed checks are folded away: open them, as a reader would to see why
    driver.execute_script("document.querySelector('#audit-file-report details').open = true")
    driver.execute_script("document.getElementById('audit-file-report').scrollIntoView({block: 'start'})")
    report = driver.execute_script("""
      const out = document.getElementById('audit-file-report');
      const box = (el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; };
      const summary = out.querySelector('p');
      const origin = out.querySelector('li[data-check="origin"]');
      return {summary: summary.innerText, ok: summary.dataset.ok, summaryInView: box(summary),
              origin: origin && origin.innerText, originInView: origin && box(origin),
              checks: Array.from(out.querySelectorAll('li[data-check]'), (li) => li.dataset.check)};""")
    driver.save_screenshot(str(tmp_path / "audit-imported.png"))
    assert report["ok"] == "true" and report["summary"] == "openspiel-game.ndjson: All 2 checks passed.", report
    assert report["checks"] == ["log", "origin"]
    assert report["origin"].startswith("✓ passed origin: imported from openspiel: dealt and played there, not by "
                                       "this server"), report["origin"]
    assert report["summaryInView"] and report["originInView"], report
    assert console_errors(driver) == []
