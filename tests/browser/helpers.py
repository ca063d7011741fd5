"""What the browser tests share: waiting on the page, reading cards off it, an API client of their own."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any, Callable

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

CARD_CODE = r"^[A2-9TJQK][CDHS]$"
#: an HTML5 drag of a card (arguments[0]) onto an element (arguments[1]), its events as a mouse makes them
DRAG = """
const [fromSel, toSel] = arguments;
const from = document.querySelector(fromSel), to = document.querySelector(toSel);
if (!from || !to) return false;
const data = new DataTransfer();
from.dispatchEvent(new DragEvent("dragstart", {dataTransfer: data, bubbles: true}));
to.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
to.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
from.dispatchEvent(new DragEvent("dragend", {dataTransfer: data, bubbles: true}));
return true;
"""
#: axe-core, vendored (vendor/README.md says from where and why)
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
_RANKS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def label_of(card: str) -> str:
    """How the pages name a card to a screen reader: "7 of hearts", "queen of spades"."""
    return f"{_RANKS.get(card[0], card[0])} of {_SUITS[card[1]]}"


def wait_for(driver, predicate: Callable[[Any], Any], polls: int = 300, what: str = "the page"):
    """Poll ``predicate(driver)`` every 0.1 s, at most ``polls`` times; its first truthy answer."""
    # the pages re-render on every change, so an element found a moment ago may be gone: look again
    return WebDriverWait(driver, polls * 0.1, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: predicate(d), message=f"waiting for {what}")


def css(driver, selector: str):
    return driver.find_elements(By.CSS_SELECTOR, selector)


def page_version(driver) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-version") or 0)


def codes(driver, selector: str) -> list[str]:
    """The data-card of every element matching ``selector``, read in one go (no stale references)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.dataset.card)", selector)


def texts(driver, selector: str) -> list[str]:
    """The text of every element matching ``selector``, read in one go (no stale references)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0]), e => e.innerText)", selector)


def hand_cards(driver) -> list[str]:
    return codes(driver, "#hand .card")


def text_of(driver, selector: str) -> str:
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''",
                                 selector)


def click_when_ready(driver, selector: str, what: str, polls: int = 300) -> None:
    """Click the first enabled element matching ``selector`` once there is one."""
    def attempt(d):
        for e in css(d, selector):
            if e.is_enabled() and e.is_displayed():
                e.click()
                return True
        return False
    wait_for(driver, attempt, polls=polls, what=what)


def exchanges(driver) -> list[dict]:
    """Every request and stream message the page's API client made or received."""
    return driver.execute_script("return globalThis.ginboxExchanges || []")


class Api:
    """A small JSON client of the server (for setting up games the pages then show)."""

    def __init__(self, base: str):
        self.base = base

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             headers: dict | None = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                text = resp.read().decode()
                return resp.status, json.loads(text) if text and resp.headers.get_content_type().endswith("json") else text
        except urllib.error.HTTPError as err:
            text = err.read().decode()
            return err.code, json.loads(text) if text.startswith("{") else text

    def view(self, game_id: str, token: str | None = None) -> dict:
        status, view = self.call("GET", f"/games/{game_id}", token=token)
        assert status == 200, view
        return view

    def wait_view(self, game_id: str, token: str | None, predicate, polls: int = 300) -> dict:
        """Poll the view every 0.1 s until ``predicate(view)``, at most ``polls`` times."""
        for _ in range(polls):
            view = self.view(game_id, token)
            if predicate(view):
                return view
            time.sleep(0.1)
        raise AssertionError(f"the game never reached the state waited for: {view}")


def serious_violations(driver) -> list[str]:
    """axe-core's serious and critical violations on the page as it stands now."""
    source = AXE.read_text(encoding="utf-8")
    driver.execute_script(source)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations), e => done(String(e)));")
    assert isinstance(result, list), result
    return [f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:5]}"
            for v in result if v["impact"] in ("serious", "critical")]


def console_errors(driver) -> list[str]:
    """The page's console errors since the last call (script errors, refused loads, policy violations)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def register_bot(api: Api, name: str | None = None) -> tuple[str, str]:
    """A new bot account, registered over HTTP under ``name`` (a fresh one by default): (name, token)."""
    name = name or f"b{uuid.uuid4().hex[:10]}"
    status, bot = api.call("POST", "/bots", {"name": name, "description": "answers by hand"})
    assert status == 201, bot
    return name, bot["token"]


def stored(driver, key: str) -> dict:
    """What the page keeps in ``localStorage`` under ``key`` (a JSON object; {} when nothing)."""
    return json.loads(driver.execute_script("return localStorage.getItem(arguments[0]) || '{}'", key))


def create_in_lobby(driver, base: str, deck: list[str]) -> str:
    """ann against the basic bot, the bot dealing first from ``deck``, created in the lobby; the game's id."""
    driver.get(base + "/")
    wait_for(driver, lambda d: css(d, "#seat1-kind"), what="the seat rows")
    driver.find_element(By.ID, "your-name").send_keys("ann")
    Select(driver.find_element(By.ID, "seat1-kind")).select_by_value("bot:basic")
    driver.find_element(By.CSS_SELECTOR, "#create-form details summary").click()
    Select(driver.find_element(By.NAME, "first_dealer")).select_by_value("1")
    driver.find_element(By.ID, "decks").send_keys(json.dumps([deck]))
    driver.find_element(By.ID, "create-button").click()
    wait_for(driver, lambda d: "/play/" in d.current_url, what="the table page")
    return driver.current_url.split("/play/")[1].split("#")[0]
