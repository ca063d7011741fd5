"""The replay's ending: the last hand of a game explained at the game's last event as every hand is
at its own end (who knocked or went gin, the melds, lay-offs and deadwood, the points worked out),
with the game's end beside it: who won, and how (the target reached, a resignation, an abandonment).
What a reader needs is asserted inside the viewport at 1366×768 and at 390×844."""

from __future__ import annotations

import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import Api, console_errors, serious_violations, text_of, wait_for
from support.randomplay import choose_move
from test_replay_reader import DESKTOP, PHONE, drawn, open_replay, outside_viewport

def _play(api: Api, game_id: str, tokens: dict, rng: random.Random, until) -> dict:
    """Random legal moves by the seats until ``until(public view)``: that view."""
    for _ in range(3000):
        public = api.view(game_id)
        if until(public):
            return public
        seat = public["to_act"][0]
        status, body = api.call("POST", f"/games/{game_id}/moves", choose_move(api.view(game_id, tokens[seat]), rng),
                                token=tokens[seat])
        assert status == 200, body
    raise AssertionError("the game went on for 3000 moves")


def _events(api: Api, game_id: str) -> list[dict]:
    return api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")[1]["events"]


@pytest.fixture(scope="module")
def won(live_server):
    """A game of two people to 40 played to its end with random legal moves: (game id, its events)."""
    api = Api(live_server)
    for rng_seed in range(30, 40):
        status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                      "options": {"target_score": 40}})
        assert status == 201, created
        game_id = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        _play(api, game_id, tokens, random.Random(rng_seed), lambda v: v["status"] == "over")
        events = _events(api, game_id)
        last = [e for e in events if e["type"] == "hand_scored"][-1]["data"]
        if events[-1]["type"] == "game_ended" and last["outcome"] == "knock":
            return game_id, events
    raise AssertionError("ten games, none won by a knock in its last hand")


@pytest.fixture(scope="module")
def resigned(live_server):
    """A game of two people to 100 in which bob resigns in hand 2, once hand 1 is scored: (game id, its events)."""
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "options": {"target_score": 100}})
    assert status == 201, created
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    _play(api, game_id, tokens, random.Random(7), lambda v: v["status"] == "playing" and v["hand_no"] == 2)
    status, body = api.call("POST", f"/games/{game_id}/moves", {"type": "resign"}, token=tokens[1])
    assert status == 200, body
    return game_id, _events(api, game_id)


def _names(events) -> list[str]:
    players = list(events[0]["data"]["players"])
    for e in events:
        if e["type"] == "seat_claimed":
            players[e["data"]["seat"]] = e["data"]["player"]
    return [p["name"] for p in players]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_last_event_explains_the_last_hand_and_says_who_won_the_game(live_server, new_browser, won, tmp_path, size):
    game_id, events = won
    n = len(events)
    last = [e for e in events if e["type"] == "hand_scored"][-1]["data"]
    over = events[-1]["data"]
    names = _names(events)
    winner, loser = names[over["winner"]], names[1 - over["winner"]]
    driver = open_replay(new_browser, live_server, game_id, size)
    # the last hand jumped to, then its last event: the game's end
    Select(driver.find_element(By.ID, "hand-jump")).select_by_value(str(last["hand_no"]))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait_for(driver, lambda d: drawn(d) == n, what="the last event drawn")

    # the game's end: who won, how (the target reached), and the final score
    scores = over["scores"]
    assert text_of(driver, "#result .game-over h2") == "Game over"
    assert text_of(driver, "#game-over") == (
        f"{winner} wins the game, reaching {scores[over['winner']]} (the target is 40). "
        f"Final score: {names[0]} {scores[0]}, {names[1]} {scores[1]}.")
    # and the last hand explained: who knocked, with what deadwood, what the other kept, the points worked out
    assert text_of(driver, "#last-hand-h") == f"Hand {last['hand_no']}: knock"
    knocker, defender = names[last["knocker"]], names[last["defender"]]
    lines = driver.execute_script(
        "return Array.from(document.querySelectorAll('#result .score-lines li'), li => li.innerText)")
    assert lines[0].startswith(f"{knocker} knocked, discarding ") and f"with {last['knocker_deadwood']} deadwood" in lines[0]
    assert lines[-3].startswith(f"{defender} kept ") and f"{last['defender_deadwood']} deadwood" in lines[-3]
    assert lines[-2] == (f"Knock: {names[last['winner']]} scores {last['defender_deadwood']} − "
                         f"{last['knocker_deadwood']} = {last['points']}.")
    assert len(lines) == 4 + len(last["layoffs"])  # one line per lay-off
    # the hands of the last hand on the felt, in the result's melds
    melds = driver.execute_script(
        "return Array.from(document.querySelectorAll(`#board [data-seat='${arguments[0]}'] .group.meld`), "
        "g => Array.from(g.querySelectorAll('.card'), c => c.dataset.card).sort())", last["knocker"])
    assert sorted(melds) == sorted(sorted(m) for m in last["knocker_melds"])
    # all of it in view, beside the moves on a desktop and above the table on a phone
    wanted = ["#event-text", "#result .game-over", "#result .score-lines li"]
    if size == DESKTOP:
        wanted += ["#board .card", "#move-list [aria-current]"]
    for selector in wanted:
        assert outside_viewport(driver, selector) == [], selector
    assert loser != winner
    driver.save_screenshot(str(tmp_path / "end.png"))
    assert serious_violations(driver) == []
    assert console_errors(driver) == []

    # a step back, the game's end is not told yet; the hand's result is
    driver.find_element(By.ID, "prev").click()
    wait_for(driver, lambda d: drawn(d) == n - 1, what="the event before the end")
    assert driver.execute_script("return document.querySelector('#result .game-over')") is None
    assert text_of(driver, "#result-h") == f"Hand {last['hand_no']}: knock"


def test_a_resigned_game_names_the_winner_and_the_resignation(live_server, new_browser, resigned, tmp_path):
    game_id, events = resigned
    assert events[-1]["type"] == "game_resigned" and events[-1]["data"]["seat"] == 1
    names = _names(events)
    scores = events[-1]["data"]["scores"]
    driver = open_replay(new_browser, live_server, game_id, PHONE, event=len(events))
    assert text_of(driver, "#game-over") == (
        f"{names[1]} resigned, so {names[0]} wins. Final score: {names[0]} {scores[0]}, {names[1]} {scores[1]}.")
    # hand 2 was cut short: no hand's result, the game's end alone
    assert driver.execute_script("return document.querySelector('#result .score-lines')") is None
    for selector in ("#event-text", "#result .game-over"):
        assert outside_viewport(driver, selector) == [], selector
    driver.save_screenshot(str(tmp_path / "resigned.png"))


def test_every_move_has_a_mark_slot_that_fits_its_entry(live_server, new_browser, won):
    game_id, events = won
    driver = open_replay(new_browser, live_server, game_id, DESKTOP)
    hooks = driver.execute_script("""
      return Array.from(document.querySelectorAll('#move-list li.move'), (li) => ({
        version: Number(li.dataset.version), mark: li.getAttribute('data-mark'),
        slot: li.querySelectorAll('.move-mark').length}));""")
    assert hooks == [{"version": e["version"], "mark": "", "slot": 1} for e in events]
    # a mark written into an entry (as an analysis would) shows inside the list's box, on the entry's line;
    # the knock's entry, which every game of the fixture has (a hand may end in a knock with no discard
    # before it, and one such hand may reach 40)
    placed = driver.execute_script("""
      const li = document.querySelector('#move-list li.move[data-type="knocked"]');
      li.dataset.mark = 'mistake';
      li.querySelector('.move-mark').textContent = '?!';
      li.scrollIntoView({block: 'center'});
      const box = document.getElementById('move-list').getBoundingClientRect();
      const entry = li.querySelector('button').getBoundingClientRect();
      const mark = li.querySelector('.move-mark').getBoundingClientRect();
      return {shown: mark.width > 0 && mark.height > 0, inEntry: mark.left >= entry.left && mark.right <= entry.right
              && mark.top >= entry.top && mark.bottom <= entry.bottom, inBox: mark.right <= box.right,
              noScroll: document.getElementById('move-list').scrollWidth <= document.getElementById('move-list').clientWidth};""")
    assert placed == {"shown": True, "inEntry": True, "inBox": True, "noScroll": True}


def test_an_abandoned_game_says_nobody_wins_and_why(live_server, new_browser):
    # a game is abandoned after days without a move, or (bots alone) drawn hands in a row: too slow
    # to play here, so the page's own words are asked of the final view such a game has
    driver = new_browser()
    driver.set_script_timeout(30)
    driver.get(f"{live_server}/healthz")
    said = driver.execute_async_script("""
      const [url, done] = arguments;
      import(url).then((board) => {
        const at = (end) => ({players: [{name: 'ann'}, {name: 'bob'}], scores: [12, 30], winner: null, end,
                              options: {target_score: 100}, viewer: null, variant: 'gin-rami'});
        done([board.gameOverText(at({reason: 'abandoned', resigned: null, idle_s: 604800})),
              board.gameOverText(at({reason: 'abandoned', resigned: null, idle_s: null, drawn_hands: 10}))]);
      }, (err) => done(String(err)));""", f"{live_server}/web/replay-board.js")
    assert said == ["Abandoned after 604800 s without a move: nobody wins. Final score: ann 12, bob 30.",
                    "Abandoned after 10 drawn hands in a row: nobody wins. Final score: ann 12, bob 30."]
