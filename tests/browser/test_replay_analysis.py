"""The replay's analysis panel: a finished game's analysis asked for with one button, its progress
shown while an analysis worker runs it, then each rated move marked with its class in the list of
moves and each seat summed up; checked inside the viewport at a desktop's size."""

from __future__ import annotations

import random
import re
import uuid

import pytest
from selenium.webdriver.common.by import By

from helpers import Api, console_errors, wait_for
from support.randomplay import choose_move
from support.servers import ApiServer, WorkerProcess, service_env

SIGNS = {"best": "✓", "good": "·", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}
ORDER = list(SIGNS)


@pytest.fixture(scope="module")
def analysis_server(redis_url, tmp_path_factory):
    """The app with one worker of the analysis queue alone, at 2 samples a decision."""
    logs = tmp_path_factory.mktemp("analysis-server")
    env = service_env(redis_url, f"gba{uuid.uuid4().hex[:10]}", GINBOX_RATE_LIMIT=100000, GINBOX_ANALYSIS_SAMPLES=2)
    server = ApiServer(env, logs / "api.log", workers=1).start()
    worker = WorkerProcess({**env, "GINBOX_WORKER_QUEUES": "analysis"}, logs / "worker.log").start()
    try:
        yield f"http://{server.host}:{server.port}"
    finally:
        worker.stop()
        server.stop()


def finished_game(api: Api, seed: int) -> str:
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "options": {"target_score": 1}})
    assert status == 201, created
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    rng = random.Random(seed)
    for _ in range(3000):
        public = api.view(game_id)
        if public["status"] == "over":
            return game_id
        seat = public["to_act"][0]
        status, body = api.call("POST", f"/games/{game_id}/moves", choose_move(api.view(game_id, tokens[seat]), rng),
                                token=tokens[seat])
        assert status == 200, body
    raise AssertionError("the game did not end")


def in_viewport(driver, element) -> bool:
    return driver.execute_script("""
      const r = arguments[0].getBoundingClientRect();
      return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
    """, element)


def test_the_replay_requests_an_analysis_shows_its_progress_then_marks_each_rated_move(analysis_server, new_browser,
                                                                                    tmp_path):
    api = Api(analysis_server)
    game_id = finished_game(api, 11)
    driver = new_browser(1366, 900)
    driver.get(f"{analysis_server}/replay/{game_id}")
    button = wait_for(driver, lambda d: d.find_elements(By.ID, "request-analysis"), what="the analysis button")[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    assert in_viewport(driver, button) and button.text == "Request analysis"
    button.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "analysis-status").get_attribute("data-status") == "done",
             what="the analysis done")
    status, analysis = api.call("GET", f"/games/{game_id}/analysis")
    assert status == 200 and analysis["status"] == "done"
    worst: dict[int, str] = {}
    for d in analysis["result"]["decisions"]:
        if d["version"] not in worst or ORDER.index(d["class"]) > ORDER.index(worst[d["version"]]):
            worst[d["version"]] = d["class"]
    assert worst
    marks = driver.execute_script("""
      return Array.from(document.querySelectorAll('li.move')).map((li) => [Number(li.dataset.version), li.dataset.mark,
        li.querySelector('.move-mark').textContent]);""")
    for version, mark, sign in marks:
        if version in worst:
            assert (mark, sign) == (worst[version], SIGNS[worst[version]]), version
        else:
            assert (mark, sign) == ("", ""), version
    # each seat that decided something is summed up, by name
    seats = driver.find_elements(By.CSS_SELECTOR, "#analysis-status .analysis-seats li")
    deciders = [s for s in analysis["result"]["seats"] if s["decisions"]]
    assert len(seats) == len(deciders) and all(s["name"] in li.text for s, li in zip(deciders, seats))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", seats[0])
    assert in_viewport(driver, seats[0])
    driver.save_screenshot(str(tmp_path / "analysis-panel.png"))
    # a rated entry of the list of moves, its mark in view
    first = min(worst)
    entry = driver.find_element(By.CSS_SELECTOR, f'li.move[data-version="{first}"] .move-mark')
    driver.execute_script("arguments[0].closest('li').querySelector('button').click()", entry)
    wait_for(driver, lambda d: in_viewport(d, entry), what="the mark in view")
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(tmp_path / "analysis-marks.png"))
    # a rated entry focused: what it cost and the best move, under it, in view
    costly = max(analysis["result"]["decisions"], key=lambda d: d["loss"])
    button = driver.find_element(By.CSS_SELECTOR, f'li.move[data-version="{costly["version"]}"] button.move-entry')
    driver.execute_script("arguments[0].focus(); arguments[0].scrollIntoView({block: 'center'})", button)
    note = button.find_element(By.XPATH, "..").find_element(By.CSS_SELECTOR, ".move-note")
    wait_for(driver, lambda d: note.is_displayed() and in_viewport(d, note), what="the note of the focused move")
    assert note.text.startswith(costly["class"].capitalize() + ":")
    if costly["loss"] > 0:
        assert "Best: " in note.text
        lost = float(re.search(r"gave away (-?\d+\.\d) points", note.text).group(1))
        assert abs(lost - costly["loss"]) <= 0.051, note.text
        # the page rounds as JavaScript's toFixed does: within 0.05 of each figure
        best, chosen = (float(x) for x in re.search(r"(-?\d+\.\d) points expected against (-?\d+\.\d)", note.text).groups())
        assert abs(best - costly["ev_best"]) <= 0.051 and abs(chosen - costly["ev_chosen"]) <= 0.051, note.text
    driver.save_screenshot(str(tmp_path / "analysis-note.png"))
    # the graph of expected points: a point per decision (an arrangement counts with its knock), the
    # mistakes and blunders ringed; a point chosen shows its move
    rated = [d for d in analysis["result"]["decisions"] if d["kind"] != "arrangement"]
    graph = driver.find_element(By.CSS_SELECTOR, "#ev-graph svg")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", graph)
    assert in_viewport(driver, graph)
    dots = graph.find_elements(By.CSS_SELECTOR, "circle.graph-dot")
    assert [int(d.get_attribute("data-version")) for d in dots] == [d["version"] for d in rated]
    ringed = [int(d.get_attribute("data-version")) for d in graph.find_elements(By.CSS_SELECTOR, "circle.costly")]
    assert ringed == [d["version"] for d in rated if d["class"] in ("mistake", "blunder")]
    names = {s["name"] for s in analysis["result"]["seats"] if s["decisions"]}
    assert {k.text for k in driver.find_elements(By.CSS_SELECTOR, "#ev-graph .graph-key")} == names
    driver.save_screenshot(str(tmp_path / "analysis-graph.png"))
    last = rated[-1]["version"]
    driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", dots[-1])
    wait_for(driver, lambda d: d.find_elements(
        By.CSS_SELECTOR, f'li.move[data-version="{last}"] button.move-entry[aria-current="step"]'),
        what="the move of the point chosen shown")
    # the page read no analysis before it was asked for: nothing in the console
    assert console_errors(driver) == []
    # asked again, the page shows the result at once
    driver.get(f"{analysis_server}/replay/{game_id}")
    wait_for(driver, lambda d: d.find_element(By.ID, "analysis-status").get_attribute("data-status") == "done",
             what="the analysis shown again")
    assert not driver.find_elements(By.ID, "request-analysis")
