"""Reading a game through GameService on the in-memory stores: views, events, past states, the
live stream, and the export and audit of a finished game."""

from __future__ import annotations

import json

import pytest
from support.rules import P_KNOCK, deck_of
from support.usecase_play import Sent

from service.errors import GameNotOver, InvalidVersion, VersionNotFound
from service.rules.commands import PassUpcard, Resign


def dealt_game(games) -> tuple[str, dict[int, str]]:
    """A gin-rami game dealt P_KNOCK, seat 0 dealing: seat 1 holds the non-dealer's cards."""
    created = games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                 "decks": [deck_of(P_KNOCK)], "first_dealer": 0})
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def dealt(events: list[dict]) -> dict:
    return next(e for e in events if e["type"] == "hand_dealt")["data"]


def test_the_deal_is_shown_to_each_seat_as_its_own_hand_and_to_a_spectator_as_none(games):
    game_id, _ = dealt_game(games)
    version = games.state(game_id).version
    by_seat = {seat: games.events(game_id, seat, 0, 100) for seat in (0, 1, None)}
    assert all(page["next_after"] is None for page in by_seat.values())
    assert [e["version"] for e in by_seat[None]["events"]] == list(range(1, version + 1))
    assert sorted(dealt(by_seat[1]["events"])["hand"]) == sorted(P_KNOCK[0].split())
    assert sorted(dealt(by_seat[0]["events"])["hand"]) == sorted(P_KNOCK[1].split())
    assert dealt(by_seat[None]["events"])["hand"] is None
    assert {dealt(page["events"])["upcard"] for page in by_seat.values()} == {P_KNOCK[2]}


def test_events_are_read_a_page_at_a_time(games):
    game_id, tokens = dealt_game(games)
    games.play(game_id, Sent(tokens[1], PassUpcard()))
    version = games.state(game_id).version
    first = games.events(game_id, None, 0, 2)
    assert [e["version"] for e in first["events"]] == [1, 2] and first["next_after"] == 2
    rest = games.events(game_id, None, 2, 100)
    assert [e["version"] for e in rest["events"]] == list(range(3, version + 1)) and rest["next_after"] is None


def test_a_past_version_is_read_as_it_stood(games):
    game_id, tokens = dealt_game(games)
    before = games.state(game_id).version
    games.play(game_id, Sent(tokens[1], PassUpcard()))
    past = games.state_at(game_id, 1, before)
    assert past.version == before and past.view["to_act"] == [1] and past.view["upcard_passes"] == 0
    assert games.view(game_id, 1).view["upcard_passes"] == 1
    with pytest.raises(InvalidVersion):
        games.state_at(game_id, None, 0)
    with pytest.raises(VersionNotFound):
        games.state_at(game_id, None, games.state(game_id).version + 1)


def test_the_stream_sends_each_event_with_its_version_as_id(games):
    game_id, _ = dealt_game(games)
    version = games.state(game_id).version
    sent = "".join(games.stream(game_id, None, 0, once=True))
    assert sent.startswith(": connected\n\n")
    assert [int(line[4:]) for line in sent.splitlines() if line.startswith("id: ")] == list(range(1, version + 1))
    later = "".join(games.stream(game_id, None, version - 1, once=True))
    assert [line for line in later.splitlines() if line.startswith("id: ")] == [f"id: {version}"]


def test_a_game_in_play_has_no_export_or_audit(games):
    game_id, _ = dealt_game(games)
    with pytest.raises(GameNotOver):
        games.export(game_id)
    with pytest.raises(GameNotOver):
        games.audit(game_id)


def test_a_finished_game_exports_every_event_in_full_and_passes_its_audit(games):
    game_id, tokens = dealt_game(games)
    games.play(game_id, Sent(tokens[0], Resign()))
    state = games.state(game_id)
    assert state.status == "over"
    lines = [json.loads(line) for line in games.export(game_id)]
    assert [line["version"] for line in lines] == list(range(1, state.version + 1))
    # once the game is over nothing is hidden: both hands of the deal, and the seed that dealt them
    deal = dealt(lines)
    assert deal["deck"][:20:2] == P_KNOCK[0].split() and deal["deck"][1:20:2] == P_KNOCK[1].split()
    report = games.audit(game_id)
    assert report["ok"] is True and report["replay_ok"] is True
