"""What the table says in three moments: an invitation to a seat someone already took, the first
draw after both players passed the upcard (only the stock may be drawn from), and a move sent while
the server cannot be reached (and the connection coming back)."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from helpers import Api, click_when_ready, css, text_of, wait_for
from screenshots import shoot

SEATS = "ginbox.seats.v1"


def hold_seat(driver, base: str, game_id: str, seat: int, token: str, name: str) -> None:
    """Put a seat's token in the browser's storage, as joining from the lobby does."""
    driver.get(base + "/")
    driver.execute_script(
        "const all = JSON.parse(localStorage.getItem(arguments[0]) || '{}');"
        "all[arguments[1]] = {game_id: arguments[1], variant: 'gin-rami', created: 1,"
        " seats: {[arguments[2]]: {token: arguments[3], name: arguments[4]}}};"
        "localStorage.setItem(arguments[0], JSON.stringify(all));", SEATS, game_id, str(seat), token, name)


def test_an_invitation_to_a_taken_seat_asks_no_name_and_offers_to_watch(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, None],
                                                  "private": True})
    assert status == 201, created
    game_id = created["game_id"]
    secret = next(s["invite"] for s in created["seats"] if s["seat"] == 1)
    status, claimed = api.call("POST", f"/games/{game_id}/seats/1", {"name": "bob", "invite": secret})
    assert status == 201, claimed

    late = new_browser()
    late.get(f"{live_server}/play/{game_id}#seat=1&secret={secret}")
    box = wait_for(late, lambda d: css(d, "#invite-taken"), what="the word on the taken seat")[0]
    # people count seats from 1: the wire's seat 1 is "seat 2"
    assert "Someone has already taken seat 2 of this game" in box.text
    assert not css(late, "#invite-form") and not css(late, "#invite-name")
    watch = late.find_element(By.ID, "invite-watch")
    assert watch.get_attribute("href") == f"{live_server}/watch/{game_id}"
    shoot(late, tmp_path / "invite-taken.png")
    watch.click()
    wait_for(late, lambda d: "(watching)" in text_of(d, "#title"), what="the game watched")
    assert api.view(game_id)["players"][1]["name"] == "bob"


def test_the_first_draw_after_both_passed_offers_only_the_stock_and_says_so(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    for token in (ann, bob):
        assert api.call("POST", f"/games/{game_id}/moves", {"type": "pass_upcard"}, token=token)[0] == 200
    view = api.view(game_id, ann)
    assert view["phase"] == "draw" and [m["type"] for m in view["legal_moves"]] == ["draw_stock"]

    driver = new_browser()
    hold_seat(driver, live_server, game_id, 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: css(d, '[data-key="draw_stock"]'), what="the stock's button")
    assert text_of(driver, "#turn") == "Hand 1. Your turn: draw from the stock."
    assert not css(driver, '[data-key="draw_discard"]')
    # bob, watching ann's turn, is not told which piles she may use
    other = new_browser()
    hold_seat(other, live_server, game_id, 1, bob, "bob")
    other.get(f"{live_server}/play/{game_id}#seat=1")
    wait_for(other, lambda d: text_of(d, "#turn") == "Hand 1. ann to play: draw.", what="bob's line")


def test_a_move_while_the_server_cannot_be_reached_says_so_and_clears_once_back(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1})
    assert status == 201, created
    game_id = created["game_id"]
    ann = created["seats"][0]["token"]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: css(d, '[data-key="pass_upcard"]'), what="the pass button")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live", what="the live stream")

    driver.set_network_conditions(offline=True, latency=0, download_throughput=-1, upload_throughput=-1)
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    wait_for(driver, lambda d: text_of(d, "#message"), what="the word on the failed move")
    said = text_of(driver, "#message")
    assert said == "The server cannot be reached; retrying…"
    assert "Failed to fetch" not in text_of(driver, "main") and "Could not load" not in said
    shoot(driver, tmp_path / "unreachable.png")
    assert api.view(game_id, ann)["phase"] == "upcard"  # the move never arrived

    driver.set_network_conditions(offline=False, latency=0, download_throughput=-1, upload_throughput=-1)
    wait_for(driver, lambda d: text_of(d, "#message") == "", polls=200, what="the message cleared once back")
    assert "Failed to fetch" not in text_of(driver, "main")
    click_when_ready(driver, '[data-key="pass_upcard"]', "the pass button")
    api.wait_view(game_id, ann, lambda v: v["phase"] == "upcard" and v["to_act"] == [1])
