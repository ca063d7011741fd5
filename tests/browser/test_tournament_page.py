"""The tournament page in a real browser: the standings live as the pairings end, every round's
pairings linked to their matches and, once over, to the replays of their games; on a phone too."""

from __future__ import annotations

from helpers import Api, console_errors, css, text_of, wait_for
from screenshots import shoot


def in_viewport(driver, element) -> bool:
    return driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth"
        " && r.top >= 0 && r.bottom <= window.innerHeight", element)


def test_the_tournament_page_shows_live_standings_and_links_every_pairing(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, made = api.call("POST", "/tournaments", {"system": "round_robin", "entries": ["random", "simple", "basic"],
                                                      "boards": 1})
    assert status == 201, made
    tournament_id = made["tournament_id"]
    driver = new_browser()
    driver.get(f"{live_server}/tournament/{tournament_id}")
    wait_for(driver, lambda d: css(d, "#standings tbody tr"), what="the standings")
    assert "Round-robin tournament of 3" in text_of(driver, "#title")
    assert "Sonneborn-Berger" in text_of(driver, "#tie-breaks")
    # live: the page follows the tournament to its end without a reload
    wait_for(driver, lambda d: css(d, '#tournament-status[data-status="over"]'), polls=600, what="the tournament over")
    status, final = api.call("GET", f"/tournaments/{tournament_id}")
    assert final["status"] == "over"
    rows = css(driver, "#standings tbody tr")
    assert [r.get_attribute("data-name") for r in rows] == [s["name"] for s in final["standings"]]
    assert [r.find_element("css selector", ".points").text for r in rows] == [
        str(int(s["points"])) if s["points"] == int(s["points"]) else f"{s['points']:.1f}" for s in final["standings"]]
    assert f"{final['standings'][0]['name']} wins" in text_of(driver, "#tournament-status")
    # a round-robin of 3: three rounds, one pairing and one bye each
    rounds = css(driver, "#rounds section.round")
    assert len(rounds) == 3 and len(css(driver, "#rounds li.bye")) == 3
    for rnd in final["schedule"]:
        for p in rnd["pairings"]:
            item = css(driver, f'li.pairing[data-match="{p["match_id"]}"]')[0]
            assert item.find_element("css selector", "a").get_attribute("href").endswith(f"/match/{p['match_id']}")
            replays = [a.get_attribute("data-game") for a in item.find_elements("css selector", "a.replay")]
            assert replays == p["games"] and len(replays) == 2
    for row in rows:
        assert in_viewport(driver, row), row.get_attribute("data-name")
    assert in_viewport(driver, css(driver, "#tournament-status")[0])
    assert console_errors(driver) == []
    shoot(driver, tmp_path / "tournament.png")

    # on a phone: nothing wider than the screen, the standings in view
    phone = new_browser(390, 844)
    phone.get(f"{live_server}/tournament/{tournament_id}")
    wait_for(phone, lambda d: css(d, '#tournament-status[data-status="over"]'), what="the page on a phone")
    assert phone.execute_script("return window.innerWidth") == 390
    assert phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    for row in css(phone, "#standings tbody tr"):
        assert in_viewport(phone, row), row.get_attribute("data-name")
    phone.save_screenshot(str(tmp_path / "tournament-phone.png"))


def test_an_unknown_tournament_says_so(live_server, new_browser):
    driver = new_browser()
    driver.get(f"{live_server}/tournament/AAAAAAAAAAAAAAAA")
    wait_for(driver, lambda d: css(d, '#tournament-status[data-status="not_found"]'), what="the page saying so")
    assert "no such tournament" in text_of(driver, "#message")
    assert not [s for s in css(driver, "#main > section") if s.is_displayed()]
