"""'Play again' at the end of a game: one click makes a game with the same variant, rules and seats
(the same bots, this browser in the same seat under the same name), and opens its table; another
person's seat is open, by invitation, its link on the new table; a game dealt from decks is played
again with a random deal, as the button's title says."""

from __future__ import annotations

from lobby_and_end import close_hand_end, hold_seats, in_view
from finished import first_hand_played
from helpers import Api, click_when_ready, console_errors, css, hand_cards, stored, text_of, wait_for


def play_again(driver, base: str, game_id: str, shots) -> str:
    """Press Play again at the finished game's table (a picture of it in ``shots``); the new game's id."""
    driver.get(f"{base}/play/{game_id}")
    wait_for(driver, lambda d: css(d, "#play-again"), what="Play again")
    close_hand_end(driver)
    in_view(driver, "#play-again")
    driver.save_screenshot(str(shots / f"play-again-{game_id}.png"))
    click_when_ready(driver, "#play-again", "Play again")
    wait_for(driver, lambda d: "/play/" in d.current_url and game_id not in d.current_url, what="the new table")
    return driver.current_url.split("/play/")[1].split("#")[0]


def test_play_again_against_a_bot_keeps_the_rules_the_bot_and_your_seat(live_server, new_browser, tmp_path):
    api = Api(live_server)
    options = {"target_score": 50, "knock_limit": 8, "turn_timeout_s": 600}
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "options": options,
                                                  "seats": [{"bot": "advanced", "name": "Ada"}, {"name": "ann"}]})
    assert status == 201, created
    game_id, ann = created["game_id"], created["seats"][1]["token"]
    assert api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=ann)[0] == 200
    old = api.view(game_id)
    driver = new_browser()
    hold_seats(driver, live_server, game_id, "gin-rami", {1: (ann, "ann")})

    new_id = play_again(driver, live_server, game_id, tmp_path)
    assert driver.current_url.endswith("#seat=1")
    wait_for(driver, lambda d: len(hand_cards(d)) in (10, 11), what="ann's hand at the new table")
    in_view(driver, "#hand")
    new = api.view(new_id)
    assert new["variant"] == "gin-rami" and new["options"] == old["options"]
    assert new["options"]["target_score"] == 50 and new["options"]["knock_limit"] == 8
    assert new["players"] == [{"name": "Ada", "bot": "advanced"}, {"name": "ann"}]
    assert new["randomly_dealt"] is True and new["private_seats"] == []
    # this browser holds the same seat of the new game, and its token plays it
    held = stored(driver, "ginbox.seats.v1")[new_id]["seats"]
    assert list(held) == ["1"] and held["1"]["name"] == "ann"
    assert api.view(new_id, held["1"]["token"])["viewer"] == 1
    assert console_errors(driver) == []


def test_play_again_with_another_person_opens_their_seat_by_invitation_and_deals_at_random(live_server, new_browser,
                                                                                            tmp_path):
    api = Api(live_server)
    # dealt from decks, with bob at seat 1: over at once (ann's 26 reaches the target of 1)
    game_id, (ann, _bob) = first_hand_played(api, target_score=1)
    old = api.view(game_id)
    assert old["status"] == "over" and old["decks_given"] is True
    driver = new_browser()
    hold_seats(driver, live_server, game_id, "gin-rami", {0: (ann, "ann")})
    driver.get(f"{live_server}/play/{game_id}")
    wait_for(driver, lambda d: css(d, "#play-again"), what="Play again")
    # (the table redraws as it goes: read it in one go)
    title = driver.execute_script("return document.getElementById('play-again').title")
    assert "dealt at random" in title and "invitation links" in title, title

    new_id = play_again(driver, live_server, game_id, tmp_path)
    new = api.view(new_id)
    assert new["variant"] == "gin-rami" and new["options"] == old["options"] and new["options"]["target_score"] == 1
    assert new["players"] == [{"name": "ann"}, None]
    assert new["private_seats"] == [1] and new["status"] == "waiting"
    assert new["randomly_dealt"] is True and new["decks_given"] is False
    # bob's seat: its invitation link is on the new table, to send him
    wait_for(driver, lambda d: css(d, "#table-invite-1"), what="the invitation to bob's seat")
    link = driver.execute_script("return document.getElementById('table-invite-1').value")
    assert link.startswith(f"{live_server}/play/{new_id}#seat=1&secret=")
    in_view(driver, "#table-invite-1")
    driver.save_screenshot(str(tmp_path / "play-again-invite.png"))
    assert "Waiting for your guests" in text_of(driver, "#board")
    assert list(stored(driver, "ginbox.seats.v1")[new_id]["seats"]) == ["0"]
