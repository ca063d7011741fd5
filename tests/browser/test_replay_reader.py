"""The replay as a reader uses it: a game of several hands, jumped through by hand, played by
itself at a chosen speed, read as a list of moves beside the table (below it on a phone), its hands
grouped into the engine's melds and each hand's result explained at its end; and any export file
audited in the page, a tampered one failing on the card it changed. What a reader needs at a moment
is asserted inside the viewport at 1366×768 and at 390×844."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from helpers import Api, console_errors, label_of, serious_violations, text_of, wait_for

DESKTOP = (1366, 768)
PHONE = (390, 844)


def step(driver) -> int:
    return int(driver.execute_script("return document.body.dataset.step || 0"))


def drawn(driver) -> int:
    """The step whose felt is drawn (the page sets it once the server's table at that step is in)."""
    return int(driver.execute_script("return document.body.dataset.drawn || 0"))


def open_replay(new_browser, base: str, game_id: str, size: tuple[int, int], event: int | None = None):
    """The replay in a browser whose viewport is exactly ``size`` (a phone's, touch and all, when narrow)."""
    width, height = size
    driver = new_browser(width, height)
    driver.get(f"{base}/replay/{game_id}" + (f"#event={event}" if event else ""))
    wait_for(driver, lambda d: drawn(d) == (event or 1), what="the replay drawn")
    return driver


def outside_viewport(driver, selector: str) -> list[str]:
    """Each element matching ``selector`` that is not wholly inside the window (none matching is a failure too)."""
    return driver.execute_script("""
      const found = Array.from(document.querySelectorAll(arguments[0]));
      if (!found.length) return [`nothing matches ${arguments[0]}`];
      return found.flatMap((e) => {
        const r = e.getBoundingClientRect();
        const name = e.id || e.dataset.card || e.dataset.index || e.className || e.tagName;
        return r.width && r.height && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight
          ? [] : [`${name}: ${Math.round(r.left)},${Math.round(r.top)} to ${Math.round(r.right)},${Math.round(r.bottom)}`];
      });""", selector)


def current_entry(driver) -> dict:
    """The list's entry marked current: its step, its event's version, its text, and whether the list's box shows it whole."""
    return driver.execute_script("""
      const marked = document.querySelectorAll('#move-list [aria-current]');
      if (marked.length !== 1) return {count: marked.length};
      const b = marked[0], box = document.getElementById('move-list').getBoundingClientRect(), r = b.getBoundingClientRect();
      return {count: 1, index: Number(b.dataset.index), version: Number(b.closest('li').dataset.version),
              text: b.innerText, inBox: r.top >= box.top - 1 && r.bottom <= box.bottom + 1};""")


def groups_of(driver, seat: int) -> list[dict]:
    """A seat's groups on the felt: {kind (meld, laid or deadwood), cards}."""
    return driver.execute_script("""
      return Array.from(document.querySelectorAll(`#board [data-seat="${arguments[0]}"] .group`), (g) => ({
        kind: g.classList.contains('laid') ? 'laid' : g.classList.contains('meld') ? 'meld' : 'deadwood',
        cards: Array.from(g.querySelectorAll('.card'), (c) => c.dataset.card)}));""", seat)


def choose_move(driver, index: int):
    """Scroll the list of moves to the entry of step ``index`` (as a reader scrolls it) and click it: the entry."""
    button = driver.find_element(By.CSS_SELECTOR, f'#move-list button[data-index="{index}"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    return button


def as_sets(melds) -> list[frozenset]:
    return sorted((frozenset(m) for m in melds), key=sorted)


@pytest.fixture(scope="module")
def played(live_server):
    """A game of two basic bots to 100, played to its end over several hands: (game id, its events)."""
    api = Api(live_server)
    for _ in range(5):
        status, created = api.call("POST", "/games", {
            "variant": "gin-rami", "seats": [{"bot": "basic", "name": "ann"}, {"bot": "basic", "name": "bob"}],
            "options": {"target_score": 100}})
        assert status == 201, created
        game_id = created["game_id"]
        api.wait_view(game_id, None, lambda v: v["status"] == "over", polls=1800)
        events = api.call("GET", f"/games/{game_id}/events?after=0&limit=1000")[1]["events"]
        scored = [e for e in events if e["type"] == "hand_scored"]
        if len(scored) >= 4 and events[-1]["type"] == "game_ended" and any(e["data"]["layoffs"] for e in scored):
            return game_id, events
    raise AssertionError("five games of bots to 100, none of four hands or more with a lay-off")


def index_of(events, predicate, nth: int = 0) -> int:
    """The step (0-based) of the ``nth`` event matching ``predicate``."""
    return [i for i, e in enumerate(events) if predicate(e)][nth]


def test_jump_to_hand_three_shows_its_deal_with_the_move_marked_and_in_view(live_server, new_browser, played, tmp_path):
    game_id, events = played
    deal = index_of(events, lambda e: e["type"] == "hand_dealt", nth=2)
    d = events[deal]["data"]
    assert d["hand_no"] == 3
    driver = open_replay(new_browser, live_server, game_id, DESKTOP)
    hands = len([e for e in events if e["type"] == "hand_dealt"])
    options = [o.text for o in Select(driver.find_element(By.ID, "hand-jump")).options]
    assert options == ["start"] + [f"{n} of {hands}" for n in range(1, hands + 1)]

    Select(driver.find_element(By.ID, "hand-jump")).select_by_value("3")
    wait_for(driver, lambda dr: drawn(dr) == deal + 1, what="hand 3's deal")
    assert text_of(driver, "#event-text").startswith("Hand 3: ")
    # both hands as dealt (non-dealer first, alternately), face up
    for seat, first in ((d["non_dealer"], 0), (d["dealer"], 1)):
        shown = driver.execute_script(
            "return Array.from(document.querySelectorAll(`#board [data-seat='${arguments[0]}'] .card`), c => c.dataset.card)", seat)
        assert sorted(shown) == sorted(d["deck"][first:20:2])
    entry = current_entry(driver)
    assert entry["count"] == 1 and entry["index"] == deal and entry["version"] == events[deal]["version"]
    assert "dealt; the upcard was the" in entry["text"] and entry["inBox"]
    assert Select(driver.find_element(By.ID, "hand-jump")).first_selected_option.text == f"3 of {hands}"

    # at 1366×768 the controls, the sentence, every card on the felt and the marked move are in view
    for selector in ("#play", "#hand-jump", "#speed", "#next", "#event-text", "#board .card", "#move-list [aria-current]"):
        assert outside_viewport(driver, selector) == [], selector
    driver.save_screenshot(str(tmp_path / "hand-3-desktop.png"))

    # Page Down goes on to hand 4's deal, Page Up back to hand 3's
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.PAGE_DOWN)
    wait_for(driver, lambda dr: step(dr) == index_of(events, lambda e: e["type"] == "hand_dealt", nth=3) + 1,
             what="hand 4")
    body.send_keys(Keys.PAGE_UP)
    wait_for(driver, lambda dr: step(dr) == deal + 1, what="hand 3 again")
    assert serious_violations(driver) == []
    assert console_errors(driver) == []


def test_autoplay_advances_at_its_speed_pauses_and_stops_at_the_end(live_server, new_browser, played):
    game_id, events = played
    n = len(events)
    second = index_of(events, lambda e: e["type"] == "hand_dealt", nth=1)
    driver = open_replay(new_browser, live_server, game_id, DESKTOP, event=second + 1)
    Select(driver.find_element(By.ID, "speed")).select_by_value("4")
    play = driver.find_element(By.ID, "play")
    assert play.text.endswith("Play")
    play.click()
    assert driver.execute_script("return document.body.dataset.playing") == "true"
    assert play.text.endswith("Pause")
    # four events a second: three events on within about a second (give a slow machine three)
    began = time.monotonic()
    wait_for(driver, lambda d: step(d) >= second + 4, polls=50, what="the autoplay's steps")
    assert time.monotonic() - began >= 0.5  # not all at once
    play.click()
    paused = step(driver)
    assert driver.execute_script("return document.body.dataset.playing") == "false" and play.text.endswith("Play")
    time.sleep(1.0)
    assert step(driver) == paused

    # from four events before the end it plays on to the last one, and stops there
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait_for(driver, lambda d: step(d) == n, what="the end")
    for _ in range(4):
        driver.find_element(By.ID, "prev").click()
    wait_for(driver, lambda d: step(d) == n - 4, what="four events back")
    seen = set()
    play.click()

    def ended(d):
        now = step(d)  # read once: the step seen is the step judged
        seen.add(now)
        return now == n and d.execute_script("return document.body.dataset.playing") == "false"
    wait_for(driver, ended, polls=150, what="the autoplay stopping at the last event")
    assert {n - 3, n - 1, n} <= seen
    assert play.text.endswith("Play")
    time.sleep(0.6)
    assert step(driver) == n
    # the game's last event explains the last hand, as the hand's own end does
    last = [e for e in events if e["type"] == "hand_scored"][-1]["data"]
    wait_for(driver, lambda d: f"Hand {last['hand_no']}:" in text_of(d, "#result"), what="the last hand's result")
    assert f"= {last['points']}." in text_of(driver, "#result .score-lines")


def test_a_move_chosen_in_the_list_is_shown_and_marked_current(live_server, new_browser, played):
    game_id, events = played
    driver = open_replay(new_browser, live_server, game_id, DESKTOP)
    # one entry per event, each with its version, grouped by hand (the events before the first deal apart)
    entries = driver.execute_script(
        "return Array.from(document.querySelectorAll('#move-list li.move'), li => Number(li.dataset.version))")
    assert entries == [e["version"] for e in events]
    hands = driver.execute_script(
        "return Array.from(document.querySelectorAll('#move-list .move-hand h3'), h => h.textContent)")
    assert hands[0] == "Before the first deal"
    assert hands[1:] == [f"Hand {e['data']['hand_no']} — {['ann', 'bob'][e['data']['dealer']]} deals"
                         for e in events if e["type"] == "hand_dealt"]

    target = index_of(events, lambda e: e["type"] == "card_discarded" and e["data"]["seat"] == 1, nth=5)
    card = events[target]["data"]["card"]
    button = choose_move(driver, target)
    assert button.text.endswith(f"bob discarded the {label_of(card)}")
    wait_for(driver, lambda d: drawn(d) == target + 1, what="the move chosen")
    assert text_of(driver, "#event-text") == f"bob discards {label_of(card)}."
    entry = current_entry(driver)
    assert entry == {**entry, "count": 1, "index": target, "version": events[target]["version"], "inBox": True}
    assert driver.execute_script("return location.hash") == f"#event={target + 1}"
    # the card is on the discard pile now, and no longer in bob's hand
    assert driver.execute_script("return document.querySelector('.replay-piles .card').dataset.card") == card
    assert card not in [c for g in groups_of(driver, 1) for c in g["cards"]]

    # a key press moves the mark along, and the list's box keeps it in view
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    wait_for(driver, lambda d: current_entry(d).get("index") == len(events) - 1, what="the last entry marked")
    assert current_entry(driver)["inBox"]


def test_hands_are_grouped_into_the_engines_melds_and_each_hand_ends_explained(live_server, new_browser, played, tmp_path):
    game_id, events = played
    at = index_of(events, lambda e: e["type"] == "hand_scored" and e["data"]["layoffs"])
    r = events[at]["data"]
    driver = open_replay(new_browser, live_server, game_id, DESKTOP, event=at + 1)
    knocker, defender = groups_of(driver, r["knocker"]), groups_of(driver, r["defender"])
    assert as_sets(g["cards"] for g in knocker if g["kind"] == "meld") == as_sets(r["knocker_melds"])
    assert [sorted(g["cards"]) for g in knocker if g["kind"] == "deadwood"] == (
        [sorted(r["knocker_deadwood_cards"])] if r["knocker_deadwood_cards"] else [])
    assert as_sets(g["cards"] for g in defender if g["kind"] == "meld") == as_sets(r["defender_melds"])
    assert [sorted(g["cards"]) for g in defender if g["kind"] == "laid"] == [sorted(c for c, _ in r["layoffs"])]
    assert [sorted(g["cards"]) for g in defender if g["kind"] == "deadwood"] == (
        [sorted(r["defender_deadwood_cards"])] if r["defender_deadwood_cards"] else [])
    lines = text_of(driver, "#result .score-lines")
    assert f"Hand {r['hand_no']}:" in text_of(driver, "#result h2") and f"= {r['points']}." in lines
    assert lines.count("laid off") == len(r["layoffs"])
    # the hand's end and its explanation fit a 1366×768 screen, beside the list of moves
    for selector in ("#event-text", "#board .card", "#result .score-lines li", "#move-list [aria-current]"):
        assert outside_viewport(driver, selector) == [], selector
    driver.save_screenshot(str(tmp_path / "hand-end-desktop.png"))

    # during a hand: each hand in melds and deadwood, as the table shows it (the engine's least deadwood)
    mid = index_of(events, lambda e: e["type"] == "card_discarded", nth=8)
    choose_move(driver, mid)
    wait_for(driver, lambda d: drawn(d) == mid + 1, what="a step in a hand")
    for seat in (0, 1):
        groups = groups_of(driver, seat)
        assert groups and all(g["kind"] in ("meld", "deadwood") for g in groups)
        assert sum(len(g["cards"]) for g in groups) == 10
        for g in groups:
            if g["kind"] == "meld":
                assert len(g["cards"]) >= 3


@pytest.mark.parametrize("moment", ["in a hand", "at a hand's end"])
def test_on_a_phone_the_moment_is_in_view_and_the_moves_follow_the_table(live_server, new_browser, played, tmp_path, moment):
    game_id, events = played
    if moment == "in a hand":
        at = index_of(events, lambda e: e["type"] == "card_drawn", nth=6)
        wanted = ("#play", "#prev", "#next", "#hand-jump", "#speed", "#event-text", "#board .card")
    else:
        at = index_of(events, lambda e: e["type"] == "hand_scored" and e["data"]["layoffs"])
        # the hand's result first, its hands below it
        wanted = ("#play", "#event-text", "#result h2", "#result .score-lines li:nth-child(-n+3)")
    driver = open_replay(new_browser, live_server, game_id, PHONE, event=at + 1)
    for selector in wanted:
        assert outside_viewport(driver, selector) == [], selector
    # nothing wider than the phone, and the list of moves below the table
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth")
    below = driver.execute_script("return document.getElementById('moves').getBoundingClientRect().top"
                                  " >= document.getElementById('board').getBoundingClientRect().bottom")
    assert below
    entry = current_entry(driver)
    assert entry["index"] == at and entry["inBox"]
    driver.save_screenshot(str(tmp_path / f"phone-{moment.replace(' ', '-').replace(chr(39), '')}.png"))


# -- the audit of an export file ------------------------------------------------------------------

def export_lines(live_server: str, game_id: str) -> list[dict]:
    with urllib.request.urlopen(f"{live_server}/games/{game_id}/export", timeout=30) as resp:
        text = resp.read().decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def audit_report(driver) -> dict:
    """The file's report: its summary, whether it is all right, and each check's (passed, text)."""
    return driver.execute_script("""
      const out = document.getElementById('audit-file-report');
      const summary = out.querySelector('p');
      return {summary: summary ? summary.innerText : '', ok: summary ? summary.dataset.ok : null,
              checks: Object.fromEntries(Array.from(out.querySelectorAll('li[data-check]'),
                li => [li.dataset.check, [li.dataset.passed === 'true', li.innerText]]))};""")


def resources(driver) -> list[str]:
    return driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")


def test_an_export_file_picked_from_disk_is_audited_in_the_page_and_a_tampered_one_names_the_card(
        live_server, new_browser, played, tmp_path):
    game_id, _ = played
    lines = export_lines(live_server, game_id)
    good = tmp_path / "game.ndjson"
    good.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    deal = next(ln for ln in lines if ln["type"] == "hand_dealt" and ln["data"]["hand_no"] == 2)
    deck = deal["data"]["deck"]
    deck[50], deck[51] = deck[51], deck[50]  # the stock's last two cards of hand 2 swapped
    bad = tmp_path / "tampered.ndjson"
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    driver = open_replay(new_browser, live_server, game_id, DESKTOP)
    requests_before = len(resources(driver))
    driver.find_element(By.ID, "audit-file").send_keys(str(good))
    wait_for(driver, lambda d: audit_report(d)["ok"] in ("true", "false"), what="the file's report")
    report = audit_report(driver)
    assert report["ok"] == "true", report
    assert report["summary"] == f"game.ndjson: All {len(report['checks'])} checks passed."
    assert {"commitment", "deal_1", "deal_2"} <= set(report["checks"])

    driver.find_element(By.ID, "audit-file").send_keys(str(bad))
    wait_for(driver, lambda d: audit_report(d)["summary"].startswith("tampered.ndjson:") and audit_report(d)["ok"],
             what="the tampered file's report")
    report = audit_report(driver)
    assert report["summary"] == f"tampered.ndjson: 1 of {len(report['checks'])} checks failed (deal_2)."
    assert [name for name, (passed, _) in report["checks"].items() if not passed] == ["deal_2"]
    assert report["checks"]["deal_2"][1] == f"✗ FAILED deal_2: card 51 is {deck[50]} in the log, {deck[51]} from the seed"
    # nothing was sent: the only file fetched since is the auditor's own module
    fetched = resources(driver)[requests_before:]
    assert all(Path(url).name == "audit.js" for url in fetched), fetched
    driver.execute_script("document.getElementById('audit-panel').scrollIntoView()")
    driver.save_screenshot(str(tmp_path / "audit-file.png"))


def test_an_export_file_dropped_on_the_zone_is_audited(live_server, new_browser, played):
    game_id, _ = played
    lines = export_lines(live_server, game_id)
    lines[0]["data"]["seed"] = lines[-1]["data"]["seed"] = "00" * 32
    driver = open_replay(new_browser, live_server, game_id, PHONE)
    # what a browser does when a file is dropped: dragover, then drop, with the file in dataTransfer
    driver.execute_script("""
      const zone = document.getElementById('audit-drop');
      const data = new DataTransfer();
      data.items.add(new File([arguments[0]], 'dropped.ndjson', {type: 'application/x-ndjson'}));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        zone.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true, cancelable: true}));
      }""", "".join(json.dumps(line) + "\n" for line in lines))
    wait_for(driver, lambda d: audit_report(d)["ok"] == "false", what="the dropped file's report")
    report = audit_report(driver)
    assert report["summary"].startswith("dropped.ndjson: ")
    assert not report["checks"]["commitment"][0] and report["checks"]["seed_recorded"][0]
