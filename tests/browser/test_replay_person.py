"""The replay as a person uses it: box gin's advice at the event it was given at (public once the
game is over), the place kept in the address (#event=N) so that a reload returns there, events
told in sentences ("ann sends a client seed …"), and the game's log to download from the replay
and from the finished table."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, css, serious_violations, text_of, wait_for
from screenshots import shoot
from test_table_person import hold_seat


def step(driver) -> int:
    return int(driver.execute_script("return document.body.dataset.step || 0"))


def go_to(driver, index: int) -> None:
    driver.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                          "s.dispatchEvent(new Event('input'))", index)


def test_box_gins_advice_is_replayed_where_it_was_given(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {
        "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
        "roles": {"box": 0, "captain": 1, "advisor": 2}})
    assert status == 201, created
    game_id = created["game_id"]
    box, captain, advisor = (s["token"] for s in created["seats"])
    view = api.view(game_id, captain)
    status, answer = api.call("POST", f"/games/{game_id}/advice", {"text": "Take the upcard"}, token=advisor)
    assert status in (200, 201), answer
    given_at = view["version"]
    status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=box)
    assert status == 200, answer
    status, log = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")
    events = log["events"]
    # advice is no event of the log: the replay puts it after the event it was given at
    assert "advice_given" not in [e["type"] for e in events]
    place = [e["version"] for e in events].index(given_at) + 1

    driver = new_browser()
    driver.get(f"{live_server}/replay/{game_id}")
    wait_for(driver, lambda d: step(d) == 1, what="the replay")
    # the steps are the log's events, advice adding none
    assert text_of(driver, "#position") == f"Event 1 of {len(events)}"
    assert not driver.find_element(By.ID, "step-advice").is_displayed()
    go_to(driver, place)
    wait_for(driver, lambda d: step(d) == place and text_of(d, "#step-advice"), what="the advice's step")
    assert text_of(driver, "#step-advice") == "abe advises cal, the captain: \u201cTake the upcard\u201d"
    go_to(driver, place + 1)
    wait_for(driver, lambda d: step(d) == place + 1 and "resigns" in text_of(d, "#event-text"), what="the resignation")
    assert not driver.find_element(By.ID, "step-advice").is_displayed()
    go_to(driver, place)
    wait_for(driver, lambda d: step(d) == place and text_of(d, "#step-advice"), what="the advice again")
    shoot(driver, tmp_path / "replay.png")
    assert serious_violations(driver) == []


def test_the_replay_keeps_its_place_in_the_address_and_speaks_in_sentences(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "options": {"client_seed_wait_s": 30}})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token, seed in ((ann, "a1" * 16), (bob, "b2" * 16)):
        version = api.view(game_id, token)["version"]
        status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "client_seed", "client_seed": seed},
                                  token=token, headers={"If-Match": f'"{version}"'})
        assert status == 200, answer
    status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=bob)
    assert status == 200, answer
    events = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")[1]["events"]
    seeded = [e["type"] for e in events].index("client_seed_sent") + 1

    driver = new_browser()
    driver.get(f"{live_server}/replay/{game_id}#event={seeded}")
    wait_for(driver, lambda d: step(d) == seeded, what="the event named in the address")
    assert text_of(driver, "#event-text").startswith("ann sends a client seed (a1a1a1a1\u2026)")
    driver.find_element(By.ID, "next").click()
    wait_for(driver, lambda d: step(d) == seeded + 1 and d.current_url.endswith(f"#event={seeded + 1}"),
             what="the address following the step")
    driver.refresh()
    wait_for(driver, lambda d: step(d) == seeded + 1, what="the same event after a reload")
    assert text_of(driver, "#event-text").startswith("bob sends a client seed")
    link = wait_for(driver, lambda d: css(d, "#export-link"), what="the log's link")[0]
    assert link.get_attribute("href") == f"{live_server}/games/{game_id}/export"

    # the finished table links to the log as well
    table = new_browser()
    hold_seat(table, live_server, game_id, "gin-rami", 0, ann, "ann")
    # (the table is drawn anew as the game's stream ends: the link is read in one go)
    wait_for(table, lambda d: d.execute_script("const a = document.getElementById('export-link'); return a && a.href")
             == f"{live_server}/games/{game_id}/export", what="the log's link at the table")
