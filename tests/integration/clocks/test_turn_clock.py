"""Turn clocks end to end: a human seat that does not move in time is played for by the server."""

from __future__ import annotations

import time

from service.app import create_app
from service.composition import make_bot_scheduler
from service.config import Settings
from support.apiclient import ValidatingClient
from support.servers import WorkerProcess, service_env


def test_a_silent_human_seat_is_played_for_after_its_turn_timeout_and_the_log_says_so(redis_url, key_prefix, tmp_path):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots",
                        rate_limit_per_minute=100000)
    app = create_app(settings, bot_scheduler=make_bot_scheduler(settings))
    client = ValidatingClient(app)
    created = client.post("/games", json={"variant": "gin-rami", "options": {"turn_timeout_s": 1},
                                          "seats": [{"name": "ann"}, {"bot": "basic"}], "first_dealer": 1})
    assert created.status_code == 201, created.get_json()
    body = created.get_json()
    game_id = body["game_id"]
    assert body["view"]["options"]["turn_timeout_s"] == 1
    start_version = body["view"]["version"]
    assert body["view"]["to_act"] == [0]          # ann, the non-dealer, is offered the upcard

    worker = WorkerProcess(service_env(redis_url, key_prefix), tmp_path / "worker.log").start()
    try:
        deadline = time.monotonic() + 60
        events = []
        while time.monotonic() < deadline:
            events = client.get(f"/games/{game_id}/events?limit=1000").get_json()["events"]
            if any(e["type"] == "turn_timed_out" for e in events):
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"no turn was played for ann within 60 s; worker log:\n{worker.log_text()}")
    finally:
        worker.stop()
    timed_out = next(i for i, e in enumerate(events) if e["type"] == "turn_timed_out")
    assert events[timed_out]["version"] == start_version + 1
    assert events[timed_out]["data"]["seat"] == 0
    # the very next event is ann's move, chosen for her: the upcard taken or passed
    assert events[timed_out + 1]["type"] in ("upcard_taken", "upcard_passed")
    assert events[timed_out + 1]["data"]["seat"] == 0
