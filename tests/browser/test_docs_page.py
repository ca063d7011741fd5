"""GET /docs: the interactive page keeps working under the pages' security headers, and a token
typed into its Authorize dialog is not kept in the browser's storage (the origin where the web
pages keep seat tokens)."""

from __future__ import annotations

import os
import urllib.request

from helpers import click_when_ready, console_errors, css, wait_for
from selenium.webdriver.common.by import By


def test_docs_is_sent_with_a_csp_no_framing_and_nosniff(live_server):
    with urllib.request.urlopen(live_server + "/docs", timeout=30) as resp:
        headers = resp.headers
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "object-src 'none'" in csp
    assert "script-src" not in csp  # scripts fall under default-src 'self': no inline or foreign script runs
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    for asset in ("docs.js", "swagger-ui.css", "swagger-ui-bundle.js"):
        with urllib.request.urlopen(f"{live_server}/docs/{asset}", timeout=30) as resp:
            assert resp.headers["X-Content-Type-Options"] == "nosniff", asset


def test_docs_renders_under_its_csp_and_keeps_no_typed_token(live_server, new_browser):
    driver = new_browser()
    driver.get(live_server + "/docs")
    # the Swagger UI rendered the document: its operations are listed (createGame among them)
    try:
        wait_for(driver, lambda d: len(css(d, ".opblock")) > 10, polls=150, what="the operations to be listed")
    except Exception as err:
        driver.save_screenshot(os.environ.get("GINBOX_DOCS_SCREENSHOT") or os.devnull)
        raise AssertionError(f"not rendered; the console: {console_errors(driver)}") from err
    assert driver.find_elements(By.ID, "operations-games-createGame")
    assert not [e for e in console_errors(driver) if "Content Security Policy" in e or "Refused" in e]

    click_when_ready(driver, "button.authorize", "the Authorize button")
    field = wait_for(driver, lambda d: next(iter(css(d, ".modal-ux input[type=text], .modal-ux input")), None),
                     what="the token field")
    field.send_keys("typed-token-that-must-not-stay")
    click_when_ready(driver, ".modal-ux .auth-btn-wrapper button.authorize", "the dialog's Authorize")
    wait_for(driver, lambda d: any(b.text == "Logout" for b in css(d, ".modal-ux button")),
             what="the token to be taken")
    shot = os.environ.get("GINBOX_DOCS_SCREENSHOT")
    if shot:
        driver.save_screenshot(shot)
    stored = driver.execute_script(
        "return Object.keys(localStorage).map(k => k + '=' + localStorage.getItem(k)).join('\\n')"
        " + '\\n' + Object.keys(sessionStorage).map(k => k + '=' + sessionStorage.getItem(k)).join('\\n')")
    assert "typed-token-that-must-not-stay" not in stored
    assert "authorized" not in stored
    # the page still runs: nothing was refused while it did
    assert not [e for e in console_errors(driver) if "Content Security Policy" in e]
