"""The table says what the game is waiting for and what happened, in the states a first look missed.

The first hand dealt by the creator's own client seed (the lobby's fair deal) shows its melds and
deadwood at once; a game whose seats are all taken waits for named seats' client seeds, not for
"seat open", and shows no empty hands or stock as cards; a game the server does not hold is said
so, without calling the visitor a spectator, and an invitation to it asks for no name; an
invitation says what game it is to; Escape answers no to the resign question; a turn clock that
ran out says what it played.
"""

from __future__ import annotations

import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from helpers import Api, click_when_ready, codes, css, hand_cards, text_of, texts, wait_for
from screenshots import shoot
from test_play_path import ANN, DECK
from test_resign import seat_in_browser
from test_table_wording import hold_seat

UNKNOWN = "AAAAAAAAAAAAAAAA"  # a well-formed game id no game has


def _create(api: Api, body: dict) -> dict:
    status, created = api.call("POST", "/games", body)
    assert status == 201, created
    return created


def test_the_first_hand_dealt_by_the_creators_seed_shows_its_melds(live_server, new_browser, tmp_path):
    # ann's table sends her client seed, the last thing the deal waits for; she is the non-dealer,
    # so the first move (the upcard) is hers and nothing else comes to redraw her hand
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}], "first_dealer": 1,
                            "decks": [DECK], "options": {"client_seed_wait_s": 600}})
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    assert api.view(game_id)["awaiting_client_seeds"] == [0]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="ann's hand")
    assert sorted(hand_cards(driver)) == sorted(ANN)
    # melds 4S-7S and 7C 7D 7H (or the sevens and 4S-6S); deadwood 2C 3H KC = 2 + 3 + 10
    wait_for(driver, lambda d: "deadwood 15" in text_of(d, "#deadwood"), polls=100, what="the deadwood counted")
    assert len(codes(driver, "#hand .group.meld .card")) == 7
    assert "Cards" not in text_of(driver, "#hand")
    shoot(driver, tmp_path / "first-hand.png")


def test_a_full_table_waits_for_named_seeds_and_shows_no_empty_cards(live_server, new_browser, tmp_path):
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                            "options": {"client_seed_wait_s": 600}})
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    watcher = new_browser()
    watcher.get(f"{live_server}/watch/{game_id}")
    wait_for(watcher, lambda d: text_of(d, "#turn"), what="the waiting table")
    assert text_of(watcher, "#turn") == "Waiting for ann and bob to shuffle in (fair deal)\u2026"
    seats = " ".join(texts(watcher, ".opponent"))
    assert "0 cards" not in seats and seats.count("waiting for the deal") == 2, seats
    assert not css(watcher, "#stock .card.back") and not css(watcher, ".opponent .card.back")
    shoot(watcher, tmp_path / "waiting-for-seeds.png")

    # ann's own table sends her seed: then only bob is waited for
    player = new_browser()
    hold_seat(player, live_server, game_id, "gin-rami", 0, ann, "ann")
    player.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(player, lambda d: "shuffle in" in text_of(d, "#turn") and "you" not in text_of(d, "#turn"),
             what="ann's seed sent")
    assert text_of(player, "#turn") == "Waiting for bob to shuffle in (fair deal)\u2026"
    assert api.view(game_id)["awaiting_client_seeds"] == [1]


def test_an_unknown_game_is_not_watched_and_its_invitation_asks_no_name(live_server, new_browser):
    driver = new_browser()
    driver.get(f"{live_server}/play/{UNKNOWN}")
    wait_for(driver, lambda d: text_of(d, "#connection") == "no such game", what="the final state")
    message = text_of(driver, "#message")
    assert message == "There is no such game on this server.", message

    invited = new_browser()
    invited.get(f"{live_server}/play/{UNKNOWN}#seat=1&secret=xyz")
    wait_for(invited, lambda d: text_of(d, "#connection") == "no such game", polls=100, what="the final state")
    assert not css(invited, "#invite-form")
    assert text_of(invited, "#message") == "There is no such game on this server."


def test_an_invitation_says_what_game_it_is_to(live_server, new_browser, tmp_path):
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": True,
                            "options": {"target_score": 50}})
    game_id, secret = created["game_id"], created["seats"][1]["invite"]
    guest = new_browser(width=390, height=800)
    guest.get(f"{live_server}/play/{game_id}#seat=1&secret={secret}")
    wait_for(guest, lambda d: css(d, "#invite-form"), what="the invitation form")
    assert text_of(guest, "#invite-context") == f"A game of gin rami (two players), a game to 50, game {game_id}. Seated: ann."
    # no empty felt under the form while the table is not drawn
    assert not guest.find_element(By.ID, "board").is_displayed()
    shoot(guest, tmp_path / "invitation-phone.png")


def test_escape_answers_no_to_the_resign_question(live_server, new_browser):
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    driver = new_browser()
    seat_in_browser(driver, live_server, game_id, ann, "ann")
    version = api.view(game_id)["version"]
    click_when_ready(driver, "#resign", "the resign button")
    wait_for(driver, lambda d: d.switch_to.active_element.get_attribute("id") == "resign-yes", what="the question")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(driver, lambda d: not css(d, "[role=alertdialog]"), polls=50, what="the question dismissed")
    assert driver.switch_to.active_element.get_attribute("id") == "resign"
    view = api.view(game_id)
    assert view["version"] == version and view["status"] == "playing"


#: what the clock's move may be, said in words: a pass, the upcard, a draw and a discard, a knock
_CLOCK_MOVE = (r"passed the upcard|took the upcard, \S+|drew \S+ from the stock|took \S+ from the discard pile"
               r"|discarded \S+|knocked, discarding \S+|went gin|went big gin")
_CLOCK_NOTICE = re.compile(rf"Time ran out: the basic move was played for you: (?:{_CLOCK_MOVE})"
                           rf"(?:(?:, | and )(?:{_CLOCK_MOVE}))*\.")


def test_a_turn_clock_that_runs_out_says_what_it_played(live_server, new_browser, tmp_path):
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}], "first_dealer": 1,
                            "decks": [DECK], "options": {"turn_timeout_s": 2}})
    game_id, ann = created["game_id"], created["seats"][0]["token"]
    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: "moves for you" in text_of(d, "#clock"), what="the clock")
    assert re.fullmatch(r"Turn clock: \d+ s left of 2 s \(then the basic bot moves for you\)\.", text_of(driver, "#clock"))
    wait_for(driver, lambda d: text_of(d, "#notice"), polls=200, what="the clock's notice")
    notice = text_of(driver, "#notice")
    assert _CLOCK_NOTICE.fullmatch(notice), notice
    shoot(driver, tmp_path / "clock-notice.png")
    events = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000", token=ann)[1]["events"]
    assert any(e["type"] == "turn_timed_out" and e["data"]["seat"] == 0 for e in events)
    # the clock would go on playing for ann: the game ends here
    status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=ann)
    assert status == 200, answer


def test_a_table_opened_after_the_clock_played_for_you_says_so(live_server, new_browser):
    # ann's clock (1 s) runs out on the upcard while no page of hers is open; then bob resigns, so
    # nothing more happens: the page, opened now, finds the clock's move among the last events
    api = Api(live_server)
    created = _create(api, {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}], "first_dealer": 1,
                            "decks": [DECK], "options": {"turn_timeout_s": 1}})
    game_id, ann, bob = created["game_id"], created["seats"][0]["token"], created["seats"][1]["token"]
    api.wait_view(game_id, ann, lambda v: 0 not in v["to_act"])
    status, answer = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=bob)
    assert status == 200, answer
    events = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000", token=ann)[1]["events"]
    assert 0 in [e["data"]["seat"] for e in events if e["type"] == "turn_timed_out"]

    driver = new_browser()
    hold_seat(driver, live_server, game_id, "gin-rami", 0, ann, "ann")
    driver.get(f"{live_server}/play/{game_id}#seat=0")
    wait_for(driver, lambda d: "Game over" in text_of(d, "#turn"), what="the table")
    wait_for(driver, lambda d: text_of(d, "#notice"), polls=50, what="the clock's notice")
    notice = text_of(driver, "#notice")
    assert _CLOCK_NOTICE.fullmatch(notice), notice
