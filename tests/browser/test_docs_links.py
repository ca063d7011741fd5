"""The documentation page at /docs/ too, with its way back to the lobby and to the specification
as text; and when the specification cannot be parsed, it says so and links to the text."""

from __future__ import annotations

import functools
import http.server
import threading
import urllib.request

from selenium.webdriver.common.by import By

from helpers import css, text_of, wait_for
from screenshots import shoot


def test_docs_with_a_slash_renders_and_links_to_the_lobby_and_the_text(live_server, new_browser):
    with urllib.request.urlopen(live_server + "/docs/", timeout=30) as resp:
        assert resp.status == 200 and resp.headers.get_content_type() == "text/html"
        assert "frame-ancestors 'none'" in resp.headers["Content-Security-Policy"]
    driver = new_browser()
    driver.get(live_server + "/docs/")
    wait_for(driver, lambda d: len(css(d, ".opblock")) > 10, polls=150, what="the operations listed at /docs/")
    assert driver.current_url == live_server + "/docs/"
    lobby = driver.find_element(By.ID, "lobby-link")
    assert lobby.get_attribute("href") == live_server + "/" and lobby.text == "Back to the lobby"
    assert driver.find_element(By.ID, "raw-spec").get_attribute("href") == live_server + "/openapi.yaml"
    assert not driver.find_element(By.ID, "spec-error").is_displayed()
    lobby.click()
    wait_for(driver, lambda d: css(d, "#challenge-form"), what="the lobby")


def test_a_specification_that_cannot_be_parsed_is_offered_as_text(live_server, new_browser, tmp_path):
    # the page and its assets as the app serves them, beside a document that is not YAML
    (tmp_path / "docs").mkdir()
    for name in ("docs.js", "swagger-ui.css", "swagger-ui-bundle.js"):
        with urllib.request.urlopen(f"{live_server}/docs/{name}", timeout=30) as resp:
            (tmp_path / "docs" / name).write_bytes(resp.read())
    with urllib.request.urlopen(f"{live_server}/docs", timeout=30) as resp:
        (tmp_path / "docs.html").write_bytes(resp.read())
    (tmp_path / "openapi.yaml").write_text("openapi: 3.1.0\npaths:\n  /a: {get: {}}\n  /a: [unclosed\n", encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        driver = new_browser()
        driver.get(base + "/docs.html")
        note = wait_for(driver, lambda d: [e for e in css(d, "#spec-error") if e.is_displayed()], polls=150,
                        what="the word on the unparsed document")[0]
        assert note.text.startswith("This page could not render the API's specification (")
        link = driver.find_element(By.ID, "spec-error-link")
        assert link.get_attribute("href") == base + "/openapi.yaml" and link.text == "Read openapi.yaml as text"
        assert "Back to the lobby" in text_of(driver, "#docs-top")
        shoot(driver, tmp_path / "docs-unparsed.png")
    finally:
        server.shutdown()
        server.server_close()
