"""The match page on a phone's width: a board's score line breaks between its entries, never
inside a built-in bot's name ("advanced 2.5", not "advance" over "d 2.5")."""

from __future__ import annotations

import time

from helpers import Api, css, wait_for
from screenshots import shoot

#: each word of the first board's score line, with the number of lines it is drawn on
WORD_LINES = """
const node = document.querySelector('#boards .board-scores').firstChild;
const out = [];
for (const m of node.data.matchAll(/\\S+/g)) {
  const r = document.createRange();
  r.setStart(node, m.index);
  r.setEnd(node, m.index + m[0].length);
  out.push([m[0], new Set(Array.from(r.getClientRects(), (x) => Math.round(x.top))).size]);
}
return out;
"""


def test_a_boards_score_line_keeps_each_name_whole_on_a_phone(live_server, new_browser, tmp_path):
    api = Api(live_server)
    status, match = api.call("POST", "/matches", {"variant": "three-hand", "participants": ["advanced", "expert", "basic"],
                                                  "boards": 1})
    assert status == 201, match
    match_id = match["match_id"]
    for _ in range(1200):
        match = api.call("GET", f"/matches/{match_id}")[1]
        if match["status"] == "over":
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the match never ended")
    driver = new_browser(390, 844)
    driver.get(f"{live_server}/match/{match_id}")
    wait_for(driver, lambda d: css(d, "#boards .board-scores"), what="the board's score line")
    assert driver.execute_script("return window.innerWidth") == 390
    words = driver.execute_script(WORD_LINES)
    assert {w for w, _ in words} >= {"advanced", "basic"}, words
    assert [w for w, lines in words if lines != 1] == [], words
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    frame = driver.execute_script("const w = document.getElementById('boards').parentElement;"
                                  "return [w.className, w.scrollWidth, w.clientWidth]")
    assert frame[0] == "table-wrap" and frame[1] <= frame[2], frame
    shoot(driver, tmp_path / "match-phone-scores.png")
