"""Regenerate the guides' screenshots (service/docs/img) of the pages from a real game.

    .venv/bin/python tests/browser/screenshots.py [--out service/docs/img]

Starts its own Redis, the API under gunicorn and a bot worker, plays through the pages in headless
Chromium (the same flows as the browser tests), and writes lobby.png, table.png, knock.png,
result.png, phone.png, match.png and replay.png.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from chromium import open_browser, resize  # noqa: E402
from finished import finished_game  # noqa: E402
from helpers import Api, click_when_ready, css, hand_cards, register_bot, stored, text_of, wait_for  # noqa: E402
from support.arena_http import short_game_move  # noqa: E402
from support.servers import ApiServer, WorkerProcess, service_env  # noqa: E402
from test_play_path import click_key, create_game_in_lobby  # noqa: E402

from service.redis_process import RedisServerProcess  # noqa: E402


def shoot(driver, path: Path, selector: str | None = None) -> None:
    """A PNG of the element (or of the whole page, the window grown to its height)."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    # the window grows to the page's height, so that neither the page nor an element is cut off
    width = driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight")
    resize(driver, width, min(max(height, 400), 2400))
    time.sleep(0.2)
    # a card still on its way between a pile and a seat would be caught in mid-air: let it land
    wait_for(driver, lambda d: d.execute_script(
        "return document.getAnimations().every(a => a.playState !== 'running')"), polls=30, what="the moves' animations")
    if selector:
        driver.find_element("css selector", selector).screenshot(str(path))
    else:
        driver.save_screenshot(str(path))
    print(f"{path}: {path.stat().st_size} bytes")


def match_in_progress(driver, base: str, api: Api) -> str:
    """A person's 2-board match against a bot account, challenged from the lobby: board 1 played
    out over HTTP, board 2 dealt with the person to act; the match's id."""
    # imported here: the test module imports shoot from this one
    from test_challenge_lobby import CHALLENGES, send_challenge

    bot, bot_token = register_bot(api, "rook")
    challenge_id = send_challenge(driver, base, bot, "ann", "2")
    token = stored(driver, CHALLENGES)[challenge_id]["token"]
    status, accepted = api.call("POST", f"/challenges/{challenge_id}/accept", token=bot_token)
    assert status == 200, accepted
    match_id = accepted["match_id"]
    status, match = api.call("GET", f"/matches/{match_id}")
    assert status == 200, match
    board1 = [t["game_id"] for t in match["board_results"][0]["tables"]]
    # both seats of board 1's tables, knocking when allowed, until both games are over; at table 2
    # the person throws the last card offered instead of the first, so that (most likely) the two
    # tables end differently and the board's scores are not even
    for _ in range(3000):
        views = [(game_id, seat_token, api.view(game_id, seat_token))
                 for game_id in board1 for seat_token in (token, bot_token)]
        if all(view["status"] == "over" for _, _, view in views):
            break
        for game_id, seat_token, view in views:
            if view["status"] == "playing" and view["viewer"] in view["to_act"]:
                move = short_game_move(view["legal_moves"], view["hand"])
                if move["type"] == "discard" and game_id == board1[1] and seat_token == token:
                    move = [m for m in view["legal_moves"] if m["type"] == "discard"][-1]
                status, moved = api.call("POST", f"/games/{game_id}/moves", move,
                                         token=seat_token, headers={"If-Match": f'"{view["version"]}"'})
                assert status == 200, moved
    else:
        raise AssertionError("board 1 never ended")
    # the lobby, asking after its pending challenge, links to the match
    click_when_ready(driver, f'#my-challenges a.match-link[data-match="{match_id}"]', "the match link")
    wait_for(driver, lambda d: css(d, "#turn-list li[data-game]") and len(css(d, "#boards tbody tr")) == 4
             and "1 of 2 boards scored" in text_of(d, "#match-status"), what="the match page with a turn listed")
    return match_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(HERE.parents[1] / "service" / "docs" / "img"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisServerProcess(Path(tmp) / "redis").start()
        env = service_env(redis.url, f"shots{uuid.uuid4().hex[:8]}", GINBOX_RATE_LIMIT=100000)
        server = ApiServer(env, Path(tmp) / "api.log").start()
        worker = WorkerProcess(env, Path(tmp) / "worker.log").start()
        base = f"http://{server.host}:{server.port}"
        driver = open_browser(960, 800)
        try:
            api = Api(base)
            replay_id = finished_game(api)
            api.call("POST", "/games", {"variant": "three-hand", "seats": [{"name": "bea"}, None, {"bot": "expert"}]})

            create_game_in_lobby(driver, base)
            wait_for(driver, lambda d: len(hand_cards(d)) == 10, what="the hand")
            click_key(driver, "pass_upcard", "pass")
            click_key(driver, "draw_stock", "draw")
            click_key(driver, "discard:QS", "discard")
            click_key(driver, "draw_stock", "second draw")
            wait_for(driver, lambda d: "AD" in hand_cards(d) and "6 after the best discard" in text_of(d, "#deadwood"),
                     what="the ace")
            shoot(driver, out / "table.png")
            click_key(driver, "knock", "knock")
            wait_for(driver, lambda d: d.find_elements("css selector", "#knock-panel .knock-group"), what="the knock arrangement")
            resize(driver, 960, 800)
            shoot(driver, out / "knock.png", "#knock-panel")
            click_when_ready(driver, "#knock-confirm", "confirm")
            # the hand's end opens over the table: its panel is the result a player sees
            wait_for(driver, lambda d: d.execute_script(
                "const e = document.getElementById('hand-end'); return !!(e && e.open)"), what="the hand's end")
            time.sleep(0.3)  # the panel's entrance
            shoot(driver, out / "result.png", "#hand-end")
            click_when_ready(driver, "#hand-end-next", "next hand")

            # box gin on a phone, as the advisor: the captain's hand, and advice sent
            status, three = api.call("POST", "/games", {
                "variant": "three-hand", "seats": [{"name": "bea"}, {"name": "cal"}, {"name": "abe"}],
                "roles": {"box": 0, "captain": 1, "advisor": 2}})
            assert status == 201, three
            advisor_token = three["seats"][2]["token"]
            api.call("POST", f"/games/{three['game_id']}/advice", {"text": "Pass: the upcard fits nothing."},
                     token=advisor_token)
            phone = open_browser(390, 844)
            phone.get(f"{base}/web/icon.svg")
            phone.execute_script(
                "localStorage.setItem('ginbox.seats.v1', JSON.stringify({[arguments[0]]: {game_id: arguments[0],"
                " variant: 'three-hand', seats: {2: {token: arguments[1], name: 'abe'}}, created: 1}}))",
                three["game_id"], advisor_token)
            phone.get(f"{base}/play/{three['game_id']}")
            wait_for(phone, lambda d: "fits nothing" in text_of(d, "#advice-list") and text_of(d, "#connection") == "live",
                     what="the advisor's page")
            shoot(phone, out / "phone.png")
            phone.quit()

            resize(driver, 960, 800)
            match_in_progress(driver, base, api)
            shoot(driver, out / "match.png")

            resize(driver, 960, 800)
            driver.get(base + "/")
            wait_for(driver, lambda d: d.find_elements("css selector", "#games-table tbody tr[data-game]"),
                     what="the games list")
            # the challenge form as it reads for box gin: the third player shows
            driver.find_element("css selector", "#challenge-variant-three-hand").click()
            driver.find_element("css selector", "#challenge-to").send_keys("rook")
            wait_for(driver, lambda d: d.find_element("css selector", "#challenge-with").is_displayed(),
                     what="the third player's field")
            driver.execute_script("window.scrollTo(0, 0)")  # the click scrolled the form into view
            # the pointer rests on the page's title, not on a field it would draw hovered
            ActionChains(driver).move_to_element(driver.find_element("css selector", "header")).perform()
            shoot(driver, out / "lobby.png")

            resize(driver, 960, 800)
            driver.get(f"{base}/replay/{replay_id}")
            wait_for(driver, lambda d: "created" in text_of(d, "#event-text"), what="the replay")
            driver.execute_script("const s = document.getElementById('slider'); s.value = 8;"
                                  "s.dispatchEvent(new Event('input'))")
            wait_for(driver, lambda d: "Hand 1: knock" in text_of(d, "#result"), what="the scored hand")
            shoot(driver, out / "replay.png")
        finally:
            driver.quit()
            worker.stop()
            server.stop()
            redis.stop()


if __name__ == "__main__":
    main()
