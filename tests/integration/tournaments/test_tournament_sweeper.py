"""A pairing whose match ended while no process told its tournament is recorded by the workers' sweeper.

The tournament's marks of its pairings' matches are deleted before a worker plays them: the end of
each match then tells no tournament (as when a worker dies between the two). Nobody reads the
tournament through the API meanwhile (a read moves it on too): its log is read directly.
"""

from __future__ import annotations

import time

import pytest

from service.rules import tournament as T
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)


@pytest.mark.slow
def test_the_sweeper_records_a_pairing_no_match_end_told(app, client, settings, workers):
    made = client.post("/tournaments", json={"system": "round_robin", "entries": ["simple", "basic"], "boards": 1})
    tournament_id = made.get_json()["tournament_id"]
    arena = app.extensions["ginbox"].arena
    match_id = T.pairing_match_id(tournament_id, 0, 0)
    assert arena.tournament_keys.tournament_of(match_id) == tournament_id
    arena.tournament_keys.redis.delete(arena.tournament_keys._k("of-match"))
    assert arena.tournament_keys.tournament_of(match_id) is None
    workers.start()
    deadline = time.monotonic() + 120
    while True:
        log = [r.event for r in arena.tournament_log.load(tournament_id)]
        if log[-1]["type"] == T.TOURNAMENT_FINISHED:
            break
        assert time.monotonic() < deadline, [e["type"] for e in log]
        time.sleep(0.3)
    assert [e["type"] for e in log] == [T.TOURNAMENT_CREATED, T.ROUND_PAIRED, T.PAIRING_PLAYED, T.TOURNAMENT_FINISHED]
    assert arena.matches.load(match_id)[-1].event["type"] == "match_finished"
    assert arena.tournament_keys.in_play() == []  # no longer counted in play
