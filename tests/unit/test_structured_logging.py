"""Structured logs: JSON lines that carry the game id and version bound around them."""

from __future__ import annotations

import io
import json
import logging
import threading

import pytest
from flask import Flask, jsonify

from service.logging import ACCESS_LOGGER, JsonFormatter, bind, configure_logging, current_context, init_request_logging


@pytest.fixture
def captured():
    """Every record of the root logger as the JSON line configure_logging writes."""
    root = logging.getLogger()
    saved_handlers, saved_level = list(root.handlers), root.level
    stream = io.StringIO()
    configure_logging("DEBUG", stream)

    def lines() -> list[dict]:
        return [json.loads(line) for line in stream.getvalue().splitlines()]

    yield lines
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in saved_handlers:
        root.addHandler(h)
    root.setLevel(saved_level)


def test_a_line_is_one_json_object_with_the_bound_game_id_and_version(captured):
    log = logging.getLogger("ginbox.test")
    with bind(game_id="g-1", version=7):
        log.info("move recorded for seat %d", 1, extra={"seat": 1})
    log.info("outside")
    inside, outside = captured()
    assert inside["message"] == "move recorded for seat 1"
    assert (inside["game_id"], inside["version"], inside["seat"]) == ("g-1", 7, 1)
    assert (inside["level"], inside["logger"]) == ("info", "ginbox.test")
    assert "game_id" not in outside and "version" not in outside


def test_nested_binds_add_fields_and_each_block_restores_what_was_there():
    with bind(game_id="g-1"):
        with bind(version=3, seat=None):  # None values are not bound
            assert current_context() == {"game_id": "g-1", "version": 3}
        assert current_context() == {"game_id": "g-1"}
    assert current_context() == {}


def test_an_exception_is_logged_with_its_traceback_in_one_field(captured):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("ginbox.test").exception("failed")
    [line] = captured()
    assert line["message"] == "failed" and "ValueError: boom" in line["exc"]


def test_threads_log_their_own_games():
    formatter = JsonFormatter()
    out: dict[str, dict] = {}
    barrier = threading.Barrier(2)

    def work(game_id: str) -> None:
        with bind(game_id=game_id):
            barrier.wait()  # both contexts are bound at the same time
            record = logging.LogRecord("t", logging.INFO, __file__, 1, "hello", None, None)
            out[game_id] = json.loads(formatter.format(record))

    threads = [threading.Thread(target=work, args=(g,)) for g in ("g-a", "g-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out["g-a"]["game_id"] == "g-a" and out["g-b"]["game_id"] == "g-b"


def test_each_request_logs_one_access_line_with_route_game_id_status_and_the_version_answered(captured):
    app = Flask(__name__)
    init_request_logging(app)

    @app.post("/games/<game_id>/moves")
    def move(game_id):
        logging.getLogger("ginbox.test").info("deciding")
        resp = jsonify({"ok": True})
        resp.headers["ETag"] = '"42"'
        return resp

    client = app.test_client()
    resp = client.post("/games/abc-DEF_1/moves", headers={"X-Request-ID": "req-1"})
    assert resp.status_code == 200 and resp.headers["X-Request-ID"] == "req-1"
    resp = client.get("/nowhere")
    assert resp.status_code == 404
    deciding, access, missing = captured()
    assert (deciding["message"], deciding["game_id"], deciding["request_id"]) == ("deciding", "abc-DEF_1", "req-1")
    assert "version" not in deciding  # known only once the answer is made
    assert access["logger"] == ACCESS_LOGGER and access["message"] == "request"
    assert (access["game_id"], access["version"], access["status"], access["route"], access["method"]) == (
        "abc-DEF_1", 42, 200, "/games/<game_id>/moves", "POST")
    assert isinstance(access["duration_ms"], float) and access["duration_ms"] >= 0
    assert missing["status"] == 404 and "route" not in missing  # no route matched: none is bound
    assert "game_id" not in missing and missing["request_id"] != "req-1"
    assert current_context() == {}  # nothing leaks out of a request
