"""A game of a duplicate match at the table and in the replay, while the match runs and after.

A match's game reports randomly_dealt false (the match fixes the roles and the first dealer), but
its cards come from the board's seed, which nobody chose: the table gives no "not randomly dealt"
warning there. A finished game of a match still being played is sealed (its deal is the other
table's too): the table offers no replay but the way back to the match, and the replay page, sent
the seat token this browser holds, says why there is nothing to replay yet and links to the match.
Once the match is over, both offer the replay.
"""

from __future__ import annotations

import time

from helpers import Api, console_errors, css, register_bot, text_of, wait_for
from screenshots import shoot
from support.arena_http import short_game_move

SEATS = "ginbox.seats.v1"


def play_out(api: Api, game_id: str, tokens: list[str]) -> None:
    """Play ``game_id`` over HTTP with both seats' tokens (knocking when allowed) until it is over."""
    for _ in range(500):
        moved = False
        for token in tokens:
            view = api.view(game_id, token)
            if view["status"] == "over":
                return
            if view["viewer"] in view["to_act"]:
                status, answer = api.call("POST", f"/games/{game_id}/moves", short_game_move(view["legal_moves"], view["hand"]),
                                          token=token, headers={"If-Match": f'"{view["version"]}"'})
                assert status == 200, answer
                moved = True
        if not moved:
            api.wait_view(game_id, tokens[0], lambda v: v["status"] == "over" or bool(v["to_act"]))
    raise AssertionError(f"{game_id} never ended")


def test_a_match_game_is_not_called_dealt_by_its_creator_and_its_replay_waits_for_the_match(
        live_server, new_browser, tmp_path):
    api = Api(live_server)
    bot, bot_token = register_bot(api)
    status, challenge = api.call("POST", "/challenges", {"to": bot, "variant": "gin-rami", "name": "ann", "boards": 1})
    assert status == 201, challenge
    ann = challenge["token"]
    status, accepted = api.call("POST", f"/challenges/{challenge['challenge_id']}/accept", token=bot_token)
    assert status == 200, accepted
    match_id = accepted["match_id"]
    match = api.call("GET", f"/matches/{match_id}")[1]
    table0, table1 = (t["game_id"] for t in match["board_results"][0]["tables"])
    assert match["board_results"][0]["tables"][0]["seats"] == ["ann", bot]
    # what the server says of the game: not randomly dealt (the match chose the first dealer), a board of the match
    view = api.view(table0, ann)
    assert view["randomly_dealt"] is False and view["players"][0]["match"] == match_id

    # this browser holds ann's seat at table 0, as the match page saves it
    driver = new_browser()
    driver.get(live_server + "/")
    driver.execute_script("localStorage.setItem(arguments[0], arguments[1])", SEATS,
                          f'{{"{table0}": {{"game_id": "{table0}", "variant": "gin-rami", "created": 1, '
                          f'"seats": {{"0": {{"token": "{ann}", "name": "ann"}}}}, "match": "{match_id}", '
                          '"board": 0, "table": 0}}')
    driver.get(f"{live_server}/play/{table0}#seat=0")
    wait_for(driver, lambda d: len(css(d, "#hand .card")) == 10, what="ann's hand")
    assert not css(driver, "#not-random")
    assert "randomly dealt" not in text_of(driver, "main")
    shoot(driver, tmp_path / "match-game-table.png")

    # table 0 is played out; table 1 is still in play, so the match runs and table 0 is sealed
    play_out(api, table0, [ann, bot_token])
    assert api.call("GET", f"/games/{table0}")[1]["code"] == "match_game_sealed"
    wait_for(driver, lambda d: text_of(d, "#turn").startswith("Game over"), what="the game's end at the table")
    wait_for(driver, lambda d: text_of(d, "#connection") == "game over", what="the stream's end")
    # (the table is drawn anew as the game moves: what it shows is read in one go)
    wait_for(driver, lambda d: css(d, "#replay-later"), what="the word on the replay")
    assert not css(driver, "#replay-link") and "Replay this game" not in text_of(driver, "#board")
    assert "once the whole match is over" in text_of(driver, "#replay-later")
    back = driver.execute_script("const a = document.querySelector('#replay-later a'); return [a.textContent, a.href]")
    assert back == ["Back to the match", f"{live_server}/match/{match_id}"]
    shoot(driver, tmp_path / "match-game-over-sealed.png")

    # the replay page, in the browser that holds the seat: why it waits, and the way to the match
    driver.get(f"{live_server}/replay/{table0}")
    link = wait_for(driver, lambda d: css(d, "#match-link-replay"), what="the replay's link to the match")[0]
    assert link.get_attribute("href") == f"{live_server}/match/{match_id}"
    message = text_of(driver, "#message")
    assert "match still being played" in message and "only its seats" not in message
    sent = driver.execute_script("return globalThis.ginboxExchanges.map(e => [e.method, e.url, e.status])")
    # the seat token was sent: the game's view was read (200), not refused as sealed (403)
    assert ["GET", f"/games/{table0}", 200] in sent, sent
    assert driver.execute_script("return document.body.dataset.replay") == "none"
    shoot(driver, tmp_path / "replay-sealed.png")
    assert console_errors(driver) == []

    # a browser without the seat is refused as sealed, and told to come back
    stranger = new_browser()
    stranger.get(f"{live_server}/replay/{table0}")
    wait_for(stranger, lambda d: "match still being played" in text_of(d, "#message"), what="the stranger's message")
    assert "Come back once the match is over" in text_of(stranger, "#message")

    # the match ends: the table offers the replay, and the replay page shows the game
    play_out(api, table1, [bot_token, ann])
    for _ in range(300):
        if api.call("GET", f"/matches/{match_id}")[1]["status"] == "over":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the match never ended")
    driver.get(f"{live_server}/play/{table0}#seat=0")
    wait_for(driver, lambda d: css(d, "#replay-link"), what="the replay link once the match is over")
    assert not css(driver, "#replay-later") and not css(driver, "#not-random")
    driver.get(f"{live_server}/replay/{table0}")
    wait_for(driver, lambda d: d.execute_script("return document.body.dataset.step") == "1", what="the replay")

    # the lobby lists the match's games once it is over, with no word of a creator's deal either
    driver.get(live_server + "/")
    wait_for(driver, lambda d: css(d, f'#games-table tr[data-game="{table0}"]'), what="the match's game listed")
    assert not css(driver, f'.not-random[data-game="{table0}"]') and not css(driver, f'.not-random[data-game="{table1}"]')
