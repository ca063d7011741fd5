"""Private games from the lobby: the creator gets an invitation link whose secret rides in the URL
fragment; the guest who opens it takes the seat and plays, and the secret never reaches the server
in a URL. The lobby offers no Join on an invited seat, and a claim without the secret changes nothing."""

from __future__ import annotations

import json
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from helpers import Api, click_when_ready, hand_cards, text_of, wait_for


def test_a_guest_takes_an_invited_seat_through_the_link_and_nobody_else_can(live_server, new_browser):
    api = Api(live_server)
    host = new_browser()
    host.get(live_server + "/")
    wait_for(host, lambda d: d.find_elements(By.ID, "seat1-kind"), what="the lobby")
    host.find_element(By.ID, "your-name").send_keys("ann")
    Select(host.find_element(By.ID, "seat1-kind")).select_by_value("open")
    host.find_element(By.ID, "private").click()
    host.find_element(By.ID, "create-button").click()
    link = wait_for(host, lambda d: d.find_element(By.ID, "invite-1").get_attribute("value"), what="the invitation")
    match = re.fullmatch(re.escape(live_server) + r"/play/([A-Za-z0-9_-]{16})#seat=1&secret=([^&]+)", link)
    assert match, link
    game_id, secret = match.groups()
    assert api.view(game_id)["players"][1] is None

    # a stranger in the lobby is offered no Join on the seat, which it shows by invitation; a
    # claim without the secret is refused, and nothing changes
    stranger = new_browser()
    stranger.get(live_server + "/")
    mark = f'.by-invitation[data-game="{game_id}"][data-seat="1"]'
    wait_for(stranger, lambda d: "by invitation" in text_of(d, mark), what="the seat shown by invitation")
    assert not stranger.find_elements(By.CSS_SELECTOR, f'button.join[data-game="{game_id}"]')
    status, problem = api.call("POST", f"/games/{game_id}/seats/1", {"name": "eve"})
    assert status == 403 and problem["code"] == "invite_required"
    assert api.view(game_id)["players"][1] is None and api.view(game_id)["status"] == "waiting"

    # the host goes to the table and waits there, the link still on show
    click_when_ready(host, "#go-to-table", "the table link")
    wait_for(host, lambda d: "Waiting for players" in text_of(d, "#turn"), what="the waiting table")
    assert link in host.execute_script("return document.getElementById('table-invite-1').value")

    guest = new_browser()
    guest.get(link)
    wait_for(guest, lambda d: d.find_elements(By.ID, "invite-name"), what="the invitation form")
    guest.find_element(By.ID, "invite-name").send_keys("bob")
    guest.find_element(By.CSS_SELECTOR, "#invite-form button").click()
    wait_for(guest, lambda d: len(hand_cards(d)) == 10, what="bob's hand")
    assert "secret" not in guest.current_url  # the secret left the address bar once used
    view = api.view(game_id)
    assert view["players"][1]["name"] == "bob"
    # both browsers mixed a seed of their own into the deal: the host's while waiting, bob's with his claim
    assert all(re.fullmatch(r"[0-9a-f]{32}", seed or "") for seed in view["client_seeds"]), view["client_seeds"]
    wait_for(host, lambda d: len(hand_cards(d)) == 10, what="ann's hand, once bob sat down")

    # no URL the guest's browser requested holds the secret; it went only in the claim's body
    sent = [json.loads(e["message"])["message"] for e in guest.get_log("performance")]
    requests = [m["params"]["request"] for m in sent if m["method"] == "Network.requestWillBeSent"]
    assert requests and not any(secret in r["url"] for r in requests)
    claims = [r for r in requests if r["url"].endswith(f"/games/{game_id}/seats/1")]
    assert len(claims) == 1 and json.loads(claims[0]["postData"])["invite"] == secret
