"""Pages that cannot show what their address names end in a clear state, and say why.

A sealed game of a running match, a game or a match that does not exist: the table page's status
pill says so in a word (never "connecting…" for ever) and no empty table is left on the page; the
match and replay pages likewise. An address whose id is malformed, or that no route serves, answers a browser with an HTML
page in the site's style (status 404 kept, a link back to the lobby) and any other client with
problem+json. The site's icon is served at /favicon.ico too, so that no page logs a 404 for it.
"""

from __future__ import annotations

import urllib.request
import uuid

from selenium.webdriver.common.by import By

from helpers import Api, console_errors, css, register_bot, text_of, wait_for
from screenshots import shoot

#: what Chromium sends for a page it is asked to open
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


def fresh_id() -> str:
    """A well-formed id (16 letters and digits) that names nothing on the server."""
    return uuid.uuid4().hex[:16]


def running_match(api: Api) -> tuple[str, list[str]]:
    """A one-board match of a bot account (which never moves: the match stays running) against
    the built-in basic bot: its id and its games' ids."""
    bot, token = register_bot(api)
    status, made = api.call("POST", "/matches", {"variant": "gin-rami", "participants": [bot, "basic"], "boards": 1},
                            token=token)
    assert status == 201, made
    status, match = api.call("GET", f"/matches/{made['match_id']}")
    assert status == 200 and match["status"] == "running", match
    return made["match_id"], [t["game_id"] for t in match["board_results"][0]["tables"]]


def felt_shown(driver) -> bool:
    return driver.execute_script("const b = document.querySelector('#board'); return !!b && b.offsetHeight > 0")


def test_watching_a_sealed_match_game_ends_in_a_sealed_state(live_server, new_browser, tmp_path):
    api = Api(live_server)
    _, games = running_match(api)
    status, problem = api.call("GET", f"/games/{games[0]}")
    assert status == 403 and problem["code"] == "match_game_sealed"
    driver = new_browser()
    driver.get(f"{live_server}/watch/{games[0]}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "sealed", what="the pill saying sealed")
    assert driver.find_element(By.ID, "connection").get_attribute("data-state") == "failed"
    assert text_of(driver, "#message")  # the reason, from the server's problem
    assert not felt_shown(driver)  # no empty green bar under the message
    assert "sealed" in driver.title
    shoot(driver, tmp_path / "watch-sealed.png")


def test_a_game_that_does_not_exist_ends_in_a_no_such_game_state(live_server, new_browser, tmp_path):
    driver = new_browser()
    for mode in ("watch", "play"):
        driver.get(f"{live_server}/{mode}/{fresh_id()}")
        wait_for(driver, lambda d: text_of(d, "#connection") == "no such game", what=f"the {mode} page's pill")
        assert "There is no such game on this server." in text_of(driver, "#message")
        assert not felt_shown(driver)
    shoot(driver, tmp_path / "play-no-such-game.png")


def test_the_match_page_of_no_match_says_so_and_stops_loading(live_server, new_browser, tmp_path):
    driver = new_browser()
    driver.get(f"{live_server}/match/{fresh_id()}")
    wait_for(driver, lambda d: text_of(d, "#match-status") == "Check the address, or go back to the lobby.", what="the match status")
    assert "There is no such match on this server." in text_of(driver, "#message")
    assert not [s for s in css(driver, "#main > section") if s.is_displayed()]  # no empty tables
    shoot(driver, tmp_path / "match-not-found.png")


def test_the_replay_of_no_game_shows_no_controls(live_server, new_browser, tmp_path):
    driver = new_browser()
    driver.get(f"{live_server}/replay/{fresh_id()}")
    wait_for(driver, lambda d: "There is no such game" in text_of(d, "#message"), what="the replay's message")
    assert not [s for s in css(driver, "#main > section") if s.is_displayed()]  # no controls over an empty table
    shoot(driver, tmp_path / "replay-not-found.png")


def fetch(url: str, accept: str) -> tuple[int, str, str]:
    """(status, media type, body) of a GET sent with this Accept header."""
    req = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.headers.get_content_type(), resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get_content_type(), err.read().decode()


def test_a_malformed_page_address_gives_a_browser_an_html_page_and_a_client_json(live_server, new_browser, tmp_path):
    paths = ["/replay/nosuchgame", "/play/short", "/watch/not-sixteen-chars", "/match/nosuchmatch",
             "/no-such-page", "/games/x/y/z"]  # the last two: addresses no route serves
    for path in paths:
        status, media, body = fetch(live_server + path, BROWSER_ACCEPT)
        assert (status, media) == (404, "text/html"), path
        assert '<a href="/">' in body and 'href="/web/style.css"' in body and 'href="/web/icon.svg"' in body, path
        for accept in ("application/json", "application/problem+json", "*/*"):
            status, media, body = fetch(live_server + path, accept)
            assert (status, media) == (404, "application/problem+json"), (path, accept)
            assert '"code": "not_found"' in body or '"code":"not_found"' in body, (path, accept)
    driver = new_browser()
    driver.get(live_server + "/replay/nosuchgame")
    wait_for(driver, lambda d: text_of(d, "#title") == "Not found", what="the error page")
    assert "There is no such game on this server." in text_of(driver, "#message")
    # styled as the other pages are (the site's style sheet applies), and a way back to the lobby
    assert driver.execute_script("return getComputedStyle(document.querySelector('header.top')).display") == "flex"
    links = [a.get_attribute("href") for a in css(driver, "a")]
    assert links and all(h == f"{live_server}/" for h in links)
    shoot(driver, tmp_path / "replay-malformed.png")
    driver.find_element(By.CSS_SELECTOR, "main a").click()
    wait_for(driver, lambda d: css(d, "#your-name"), what="the lobby")
    driver.get(live_server + "/match/nosuchmatch")
    wait_for(driver, lambda d: "There is no such match" in text_of(d, "#message"), what="the match error page")


def test_the_icon_is_served_at_favicon_ico_and_no_page_logs_a_missing_one(live_server, new_browser):
    status, media, body = fetch(live_server + "/favicon.ico", "image/avif,image/webp,image/svg+xml,image/*,*/*;q=0.8")
    assert (status, media) == (200, "image/svg+xml") and body.lstrip().startswith("<svg")
    driver = new_browser()
    for path in ("/", "/replay/nosuchgame", f"/watch/{fresh_id()}"):
        driver.get(live_server + path)
        wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete", what=path)
        errors = [e for e in console_errors(driver) if "favicon" in e]
        assert errors == [], (path, errors)
