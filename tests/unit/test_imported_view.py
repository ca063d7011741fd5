"""An imported game's state and view say where it was dealt (``imported_from``), from its first event
to its end, and a snapshot keeps it; a snapshot written before the field existed reads as a game of
this server's."""

from __future__ import annotations

import json

from service.rules import game, openspiel, views
from support.decks import build_deck
from support.openspiel_play import PLAYTHROUGH


def test_every_state_of_an_imported_game_and_its_views_say_openspiel():
    log = openspiel.from_record(PLAYTHROUGH)
    for n in range(1, len(log) + 1):
        state = game.replay(log[:n])
        assert state.imported_from == "openspiel"
        assert views.view_state(state, None)["imported_from"] == "openspiel"
        assert views.view_state(state, 0)["imported_from"] == "openspiel"
    snapshot = json.loads(json.dumps(game.state_to_dict(state)))
    assert snapshot["imported_from"] == "openspiel"
    assert game.state_from_dict(snapshot) == state


def test_a_game_of_this_server_says_none_and_an_older_snapshot_reads_as_one():
    deck = build_deck("AS 2S 3S 4C 5C 6C 7H 7D 7C QD".split(), "2C 3C 9H 9D 9S TH JH KS 5D 8S".split(), "4S")
    log = game.start(game.GameSpec("gin-rami", [{"name": "ann"}, {"name": "bob"}], None, seed=b"s" * 32,
                                   decks=[deck], first_dealer=1))
    state = game.replay(log)
    assert state.imported_from is None and views.view_state(state, None)["imported_from"] is None
    older = game.state_to_dict(state)
    del older["imported_from"]
    assert game.state_from_dict(older) == state
