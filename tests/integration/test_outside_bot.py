"""The README's outside bot plays a whole game through the public HTTP API only."""

from __future__ import annotations

import threading

from werkzeug.serving import make_server

from support.apiclient import ValidatingClient
from workers import outside_bot


def test_two_outside_bots_finish_a_gin_rami_game_over_http(api_app):
    server = make_server("127.0.0.1", 0, api_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        client = ValidatingClient(api_app)
        created = client.post("/games", json={"variant": "gin-rami", "options": {"target_score": 25},
                                              "seats": [{"name": "ann"}, {"name": "bob"}]}).get_json()
        game_id = created["game_id"]
        tokens = [s["token"] for s in created["seats"]]
        finals: dict[int, dict] = {}

        def run(seat):
            finals[seat] = outside_bot.play(base, game_id, tokens[seat], poll_s=0.02, deadline_s=240)

        bots = [threading.Thread(target=run, args=(seat,)) for seat in (0, 1)]
        for b in bots:
            b.start()
        for b in bots:
            b.join(260)
        assert set(finals) == {0, 1}, "a bot did not reach the end of the game"
        final = client.get(f"/games/{game_id}").get_json()
        assert final["status"] == "over"
        assert max(final["scores"]) >= 25
        assert final["scores"][final["winner"]] == max(final["scores"])
        # every move went through the API with If-Match: the log has no gap
        events = client.get(f"/games/{game_id}/events?limit=1000").get_json()["events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    finally:
        server.shutdown()
