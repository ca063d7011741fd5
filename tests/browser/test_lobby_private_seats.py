"""The lobby's list of games offers Join only on the open seats anyone may take: a private game's
seats are shown "by invitation" (GET /games gives ``private_seats``), with no button that could
only end in 403 invite_required."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, console_errors, css, serious_violations, text_of, wait_for
from screenshots import shoot


def test_the_lobby_shows_a_private_seat_by_invitation_and_offers_join_on_a_public_one(live_server, new_browser,
                                                                                       tmp_path):
    api = Api(live_server)
    status, private = api.call("POST", "/games", {"variant": "three-hand", "private": True,
                                                 "seats": [{"name": "ann"}, None, None]})
    assert status == 201, private
    status, public = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "bob"}, None]})
    assert status == 201, public
    secrets = [s["invite"] for s in private["seats"] if s["kind"] == "open"]
    assert len(secrets) == 2

    driver = new_browser()
    driver.get(live_server + "/")
    private_row = f'#games-table tr[data-game="{private["game_id"]}"]'
    public_row = f'#games-table tr[data-game="{public["game_id"]}"]'
    wait_for(driver, lambda d: css(d, private_row) and css(d, public_row), what="both games listed")

    # the private game: each open seat said to be by invitation, and nothing to press
    assert css(driver, f"{private_row} button.join") == []
    marks = css(driver, f"{private_row} .by-invitation")
    assert [m.get_attribute("data-seat") for m in marks] == ["1", "2"]
    assert [m.text for m in marks] == ["Seat 2 by invitation", "Seat 3 by invitation"]
    assert "Join" not in text_of(driver, private_row)
    # and its players cell says so too, where a public game's says "open" (seats counted from 1)
    assert "seat 2 by invitation, seat 3 by invitation" in text_of(driver, private_row)
    assert "seat 2 open" in text_of(driver, public_row)
    # the public game: its open seat can be joined as before
    joins = css(driver, f"{public_row} button.join")
    assert [b.get_attribute("data-seat") for b in joins] == ["1"] and joins[0].text == "Join seat 2"
    assert css(driver, f"{public_row} .by-invitation") == []
    # the page never saw the invites' secrets
    assert not any(secret in driver.page_source for secret in secrets)

    driver.execute_script("arguments[0].scrollIntoView()", driver.find_element(By.CSS_SELECTOR, private_row))
    shoot(driver, tmp_path / "lobby-private-seats.png", "#games-table")
    assert serious_violations(driver) == [] and console_errors(driver) == []
