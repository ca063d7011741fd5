"""Bots on a real Redis with a real ``ginbox worker`` process.

Games are created through the HTTP API (the Flask app with the bot scheduler wired in); a
worker process started by the test (REDIS_URL, GINBOX_KEY_PREFIX, GINBOX_QUEUE in its
environment) plays every bot turn. Each finished log is checked move by move: versions
contiguous, every group of events exactly what the engine decides for one legal command of the
seat whose turn it was (so no turn was played twice or out of turn), and a replay of the stored
JSON gives the final scores.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from service.rules import game as G
from service.rules.commands import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS_UPCARD,
    TAKE_UPCARD,
    Advise,
    Discard,
    Knock,
)
from service.rules.events import (
    AdviceGiven,
    CardDiscarded,
    CardDrawn,
    Knocked,
    UpcardPassed,
    UpcardTaken,
)
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)

REPO = Path(__file__).resolve().parents[3]
GAME_DEADLINE_S = 240






def create(client, variant: str, seats: list, **options) -> str:
    resp = client.post("/games", json={"variant": variant, "options": options, "seats": seats})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["game_id"]


def spectate(client, game_id: str) -> dict:
    resp = client.get(f"/games/{game_id}")
    assert resp.status_code == 200
    return resp.get_json()


def wait_until(client, game_id: str, pred, deadline_s: float = GAME_DEADLINE_S) -> dict:
    end = time.monotonic() + deadline_s
    while True:
        view = spectate(client, game_id)
        if pred(view):
            return view
        assert time.monotonic() < end, f"game {game_id} stuck at version {view['version']} ({view['phase']})"
        time.sleep(0.2)


def command_of(event):
    """The one command that produces ``event`` as the first event of its group."""
    t = type(event)
    if t is UpcardTaken:
        return TAKE_UPCARD
    if t is UpcardPassed:
        return PASS_UPCARD
    if t is CardDrawn:
        return DRAW_STOCK if event.source == "stock" else DRAW_DISCARD
    if t is CardDiscarded:
        return Discard(event.card)
    if t is Knocked:
        return Knock(event.discard, [list(m) for m in event.melds])
    if t is AdviceGiven:
        return Advise(event.text)
    return None


def check_log(app, game_id: str) -> dict:
    """Walk the stored log: contiguous versions, one legal command per group; counts per kind."""
    store = app.extensions["ginbox"].store
    records = store.load(game_id)
    assert [r.version for r in records] == list(range(1, len(records) + 1))
    state = None
    i = 0
    moves = advice = 0
    last_was_advice = False
    while i < len(records):
        event = records[i].event
        command = command_of(event)
        if command is None:
            # only the game's creation and its start events come before the first command
            assert state is None or state.status == "waiting" or moves == 0 and advice == 0, event
            state = G.evolve(state, event)
            i += 1
            continue
        seat = event.seat
        if isinstance(command, Advise):
            assert seat == state.roles["advisor"] and state.roles["captain"] in state.to_act
            assert not last_was_advice, "the advisor advised twice for one decision"
            advice += 1
        else:
            assert seat in state.to_act, f"seat {seat} acted out of turn at version {records[i].version}"
            moves += 1
        expected = G.decide(state, seat, command)
        got = [r.event for r in records[i:i + len(expected)]]
        assert got == expected, f"events at version {records[i].version} are not one command of seat {seat}"
        for e in got:
            state = G.evolve(state, e)
        last_was_advice = isinstance(command, Advise)
        i += len(expected)
    replayed = G.replay([{k: r.raw[k] for k in ("type", "v", "data")} for r in records])
    # advice is in the advice log, not the game's: at most one piece from a bot advisor per
    # version, each at a version where its captain was to act
    states = {}
    s = None
    for r in records:
        s = G.evolve(s, r.event)
        states[r.version] = s
    given = app.extensions["ginbox"].games.advice.read(game_id)
    assert len({a.version for a in given}) == len(given), "the bot advisor advised twice for one decision"
    for a in given:
        at = states[a.version]
        assert a.entry["advisor"] == at.roles["advisor"] and at.roles["captain"] in at.to_act
    return {"state": replayed, "moves": moves, "advice": advice + len(given), "records": records,
            "advice_texts": [a.entry["text"] for a in given]}


@pytest.mark.slow
def test_a_gin_rami_game_of_bots_finishes_by_itself_and_replays_to_its_scores(app, client, workers):
    game_id = create(client, "gin-rami", [{"bot": "expert"}, {"bot": "basic"}], target_score=40)
    workers.start()
    final = wait_until(client, game_id, lambda v: v["status"] == "over")
    checked = check_log(app, game_id)
    assert checked["state"].status == "over"
    assert checked["state"].scores == final["scores"]
    assert max(final["scores"]) >= 40 and final["scores"][final["winner"]] >= 40
    assert checked["moves"] > 0 and checked["advice"] == 0


@pytest.mark.slow
def test_a_three_hand_game_of_bots_finishes_and_the_bot_advisor_advises_its_captain(app, client, workers):
    game_id = create(client, "three-hand", [{"bot": "expert"}, {"bot": "basic"}, {"bot": "random"}],
                     target_score=30)
    workers.start()
    final = wait_until(client, game_id, lambda v: v["status"] == "over")
    checked = check_log(app, game_id)
    assert checked["state"].scores == final["scores"]
    assert final["scores"][final["winner"]] >= 30
    assert checked["advice"] > 0
    # advice texts name a move the captain could play
    texts = checked["advice_texts"]
    assert all(t.split()[0] in ("Take", "Pass", "Draw", "Discard", "Knock,", "Lay") for t in texts)


@pytest.mark.slow
def test_a_game_survives_its_worker_killed_with_sigkill_and_no_turn_is_played_twice(app, client, workers):
    game_id = create(client, "gin-rami", [{"bot": "expert"}, {"bot": "expert"}], target_score=60)
    first = workers.start()
    at_kill = wait_until(client, game_id, lambda v: v["version"] >= 14)
    workers.kill9(first)
    assert at_kill["status"] == "playing"
    stalled = spectate(client, game_id)
    time.sleep(1.0)
    assert spectate(client, game_id)["version"] == stalled["version"], "nothing plays without a worker"
    workers.start()
    final = wait_until(client, game_id, lambda v: v["status"] == "over")
    checked = check_log(app, game_id)
    assert checked["state"].scores == final["scores"]
    assert final["scores"][final["winner"]] >= 60


@pytest.mark.parametrize("bot", ["basic", "advanced"])
def test_a_human_seat_waits_for_its_player_while_the_bot_answers_each_move(app, client, workers, bot):
    """gin-rami, seat 0 human, seat 1 a built-in bot: the bot moves only when its turn comes."""
    resp = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": bot}],
                                       "first_dealer": 1})
    assert resp.status_code == 201
    body = resp.get_json()
    game_id = body["game_id"]
    assert spectate(client, game_id)["players"][1]["bot"] == bot
    token = next(s["token"] for s in body["seats"] if s["seat"] == 0)
    workers.start()
    auth = {"Authorization": f"Bearer {token}"}
    # seat 0 is the non-dealer: the upcard is offered to it first; it passes, the bot decides
    resp = client.post(f"/games/{game_id}/moves", json={"type": "pass_upcard"}, headers=auth)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    passed_at = resp.get_json()["version"]
    view = wait_until(client, game_id, lambda v: v["version"] > passed_at, deadline_s=30)
    # the bot played once (took or passed the upcard, or took it and discarded) and then waits
    time.sleep(1.0)
    after = spectate(client, game_id)
    assert after["version"] == view["version"] or 0 in after["to_act"]
    assert 0 in after["to_act"]
    checked = check_log(app, game_id)
    assert checked["moves"] >= 2
