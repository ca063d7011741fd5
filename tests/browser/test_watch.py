"""A spectator watches a game live (/watch/<id>) and never receives a hidden card: not in the page,
not in any answer or stream message it gets (read both from the page's own exchange log and,
independently of the page's code, from Chromium's network log), and its token-less requests are
the documented ones. A dropped stream is shown, comes back by itself with Last-Event-ID, and
what happened meanwhile appears.
"""

from __future__ import annotations

import json
import re

from helpers import Api, codes, exchanges, label_of, text_of, wait_for
from support.decks import ALL_CODES, build_deck

ANN = ["AC", "2C", "3C", "4D", "6D", "8H", "9H", "JS", "QS", "KS"]
BOB = ["5C", "7C", "9C", "TD", "QD", "AH", "3H", "5S", "7S", "9S"]
UPCARD = "KD"
DECK = build_deck(ANN, BOB, UPCARD, stock_top=["2S", "4S", "6S"])
CARD = re.compile(r"^[A2-9TJQK][CDHS]$")


def cards_in(value) -> set[str]:
    """Every string in a JSON value that is exactly a card code."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def body_cards(text: str) -> set[str]:
    found = set()
    for line in text.splitlines() or [text]:
        try:
            found |= cards_in(json.loads(line))
        except ValueError:
            continue
    return found


def network_log(driver) -> list[dict]:
    return [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]


def test_a_spectator_sees_the_game_live_and_never_a_hidden_card(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "decks": [DECK]})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])

    driver = new_browser()
    driver.get(f"{live_server}/watch/{game_id}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "live", what="the live stream")
    assert codes(driver, "#discard-pile .card.top") == [UPCARD]
    assert codes(driver, "#hand .card") == []  # a spectator has no hand to see
    assert "spectator" in text_of(driver, "#whoami")

    def move(token, body):
        status, answer = api.call("POST", f"/games/{game_id}/moves", body, token=token)
        assert status == 200, answer

    move(ann, {"type": "pass_upcard"})
    move(bob, {"type": "pass_upcard"})
    move(ann, {"type": "draw_stock"})  # 2S
    move(ann, {"type": "discard", "card": "KS"})
    wait_for(driver, lambda d: codes(d, "#discard-pile .card.top") == ["KS"], what="ann's discard, live")
    assert "30 cards" in text_of(driver, "#stock-size")  # 31 after the deal, one drawn

    # the stream drops; the page says so, reconnects by itself, and shows what happened meanwhile
    driver.execute_script("globalThis.ginboxStream.drop()")
    move(bob, {"type": "draw_stock"})  # 4S
    move(bob, {"type": "discard", "card": "QD"})
    wait_for(driver, lambda d: codes(d, "#discard-pile .card.top") == ["QD"], what="bob's discard after the drop")
    states = driver.execute_script("return globalThis.ginboxConnectionStates")
    assert "reconnecting" in states and states[-1] == "live", states
    move(ann, {"type": "draw_stock"})  # 6S
    move(ann, {"type": "discard", "card": "QS"})
    wait_for(driver, lambda d: codes(d, "#discard-pile .card.top") == ["QS"], what="ann's second discard")

    public = {UPCARD, "KS", "QD", "QS"}
    hidden = set(ALL_CODES) - public
    # the page: no hidden card shown, by code or by its spoken label
    assert set(codes(driver, "[data-card]")) <= public
    page_text = driver.execute_script("return document.body.innerText")
    spoken = driver.execute_script(
        "return Array.from(document.querySelectorAll('[aria-label]'), e => e.getAttribute('aria-label')).join(' ')")
    for card in hidden:
        assert label_of(card) not in page_text and label_of(card) not in spoken, card

    # everything the page's client received
    got = exchanges(driver)
    assert any(x["method"] == "SSE" for x in got)
    for x in got:
        assert body_cards(x["body"]) <= public, (x["url"], body_cards(x["body"]) - public)

    # and, read by Chromium itself, every request the page made and every answer it got
    log = network_log(driver)
    sent = [m["params"]["request"] for m in log if m["method"] == "Network.requestWillBeSent"]
    paths = [re.sub(r"^https?://[^/]+", "", r["url"]) for r in sent]
    assert [p for p in paths if not re.match(r"^/(watch/|web/|games/|analysis/)", p)] == []
    assert not any("token=" in p for p in paths)
    assert not any("Authorization" in r.get("headers", {}) for r in sent)
    streams = [r for r, p in zip(sent, paths) if p.endswith("/stream")]
    assert len(streams) >= 2 and streams[0]["headers"].get("Last-Event-ID")
    assert int(streams[-1]["headers"]["Last-Event-ID"]) >= int(streams[0]["headers"]["Last-Event-ID"]) + 2
    finished = {m["params"]["requestId"] for m in log if m["method"] == "Network.loadingFinished"}
    read = 0
    for m in log:
        if m["method"] == "Network.responseReceived" and m["params"]["requestId"] in finished \
                and "/games/" in m["params"]["response"]["url"]:
            body = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": m["params"]["requestId"]})
            assert body_cards(body["body"]) <= public, m["params"]["response"]["url"]
            read += 1
    assert read >= 3
