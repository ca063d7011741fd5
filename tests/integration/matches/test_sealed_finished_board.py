"""A finished game of a match in play reads for its own seats as if it were not over, on a real Redis.

Every table of a board is dealt from the board's seed: a seat that learnt the seed, the stock
or the deck of its finished table would know the deal its other table is still playing. So
until the match is over, a seat's view (at any version), its events and its stream of a finished
board show no seed, no stock, no deck and no hand the rules keep hidden, and the match's summary
shows no table's points before every table of the board is over; three-hand advice stays between
the advisor and the captain it was given to. Once the match is over they read like any finished
game.

No worker runs: the built-in bot never moves, and the bot account alpha, which sits at both
tables (seat 0 of table 0, seat 1 of table 1), moves only when the test moves for it.
"""

from __future__ import annotations

import json

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)

from service.rules import duplicate as D

SECRETS = ("seed", "all_hands", "stock", "decks")


def register(client, name: str) -> str:
    resp = client.post("/bots", json={"name": name, "description": "plays by hand", "owner": "tests"})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()["token"]


def resign(client, game_id: str, token: str) -> dict:
    resp = client.post(f"/games/{game_id}/moves", json={"type": "resign"}, token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def stream_entries(text: str) -> list[dict]:
    """The data of every event of a stream's text."""
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def reads(client, game_id: str, token: str, advice: bool = True) -> dict[str, object]:
    """Everything the seat of ``token`` can read of the game: route -> parsed answer (its advice
    too if ``advice``)."""
    out: dict[str, object] = {}
    view = client.get(f"/games/{game_id}", token=token)
    assert view.status_code == 200, view.get_data(as_text=True)
    out["view"] = view.get_json()
    for version in range(1, out["view"]["version"] + 1):
        resp = client.get(f"/games/{game_id}/state?version={version}", token=token)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        out[f"state {version}"] = resp.get_json()
    for route in ("/events?limit=1000", f"/events?after={out['view']['version'] - 1}", *(["/advice"] if advice else [])):
        resp = client.get(f"/games/{game_id}{route}", token=token)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        out[route] = resp.get_json()
    stream = client.get(f"/games/{game_id}/stream?once=1", token=token)
    assert stream.status_code == 200
    out["stream"] = stream_entries(stream.get_data(as_text=True))
    return out


def lists_in(value) -> list[list]:
    """Every list anywhere in a parsed JSON value."""
    if isinstance(value, list):
        return [value, *[x for v in value for x in lists_in(v)]]
    if isinstance(value, dict):
        return [x for v in value.values() for x in lists_in(v)]
    return []


def holds_run(lst: list, run: list) -> bool:
    return any(lst[i:i + len(run)] == run for i in range(len(lst) - len(run) + 1))


@pytest.mark.timeout(300)
def test_a_finished_board_hides_its_deal_from_its_seats_until_the_match_is_over(app, client):
    alpha = register(client, "alpha")
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "basic"], "boards": 1,
                                         "rated": False}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    table0, table1 = (D.game_id_for(match_id, 0, table) for table in range(2))

    # alpha resigns table 0: that game is over, table 1 plays on, and so does the match
    answer = resign(client, table0, alpha)
    assert answer["status"] == "over"
    match = client.get(f"/matches/{match_id}").get_json()
    assert match["status"] == "running" and match["games_done"] == 1
    tables = match["board_results"][0]["tables"]
    assert [t["over"] for t in tables] == [True, False]
    # the board is not complete: no table's points yet, and no board score
    assert [t["points"] for t in tables] == [None, None] and match["board_results"][0]["scores"] is None

    # alpha's seat of table 0 reads it as a game not over: none of its secrets anywhere
    sealed = {"alpha": reads(client, table0, alpha)}
    for name, got in sealed.items():
        for key, view in [("move answer", answer)] + [(k, v) for k, v in got.items() if k.startswith(("view", "state"))]:
            assert all(view[s] is None for s in SECRETS), (name, key, {s: view[s] for s in SECRETS})
        assert got["view"]["status"] == "over" and got["view"]["end"]["resigned"] == 0
        for key in ("/events?limit=1000", "stream"):
            events = got[key]["events"] if key != "stream" else got[key]
            by_type = {e["type"]: e["data"] for e in events}
            assert by_type["game_created"]["seed"] is None and by_type["game_created"]["decks"] is None, (name, key)
            assert by_type["hand_dealt"]["deck"] is None, (name, key)
            assert by_type["game_resigned"]["seed"] is None, (name, key)
            assert by_type["game_resigned"]["winner"] == 1
        last = got[f"/events?after={got['view']['version'] - 1}"]["events"]
        assert [e["type"] for e in last] == ["game_resigned"] and last[0]["data"]["seed"] is None
        assert got["/advice"] == {"advice": []}
    for route in ("/audit", "/export"):
        resp = client.get(f"/games/{table0}{route}", token=alpha)
        assert resp.status_code == 403 and resp.get_json()["code"] == "match_game_sealed", route

    # alpha resigns table 1 too: the match is over
    resign(client, table1, alpha)
    match = client.get(f"/matches/{match_id}").get_json()
    assert match["status"] == "over"
    # the board is complete: each table's points are shown, and alpha, which resigned both, won none
    tables = match["board_results"][0]["tables"]
    assert [t["over"] for t in tables] == [True, True] and match["board_results"][0]["scores"] is not None
    assert tables[0]["points"][0] == 0 and tables[1]["points"][1] == 0

    # now table 0 reads as any finished game, for its seats too
    opened = reads(client, table0, alpha)
    view = opened["view"]
    seed, stock = view["seed"], view["stock"]
    assert seed and len(stock) == 52 - 21 and len(view["all_hands"]) == 2
    assert client.get(f"/games/{table0}/audit").get_json()["seed"] == seed
    events = {e["type"]: e["data"] for e in opened["/events?limit=1000"]["events"]}
    deck = events["hand_dealt"]["deck"]
    assert events["game_created"]["seed"] == seed and events["game_resigned"]["seed"] == seed
    assert len(deck) == 52 and sorted(deck[21:]) == sorted(stock)
    assert {e["type"]: e["data"] for e in opened["stream"]}["hand_dealt"]["deck"] == deck
    assert opened[f"state {view['version']}"]["stock"] == stock
    # what the seal kept: table 1 was dealt the very same cards (its upcard is table 0's)
    other = client.get(f"/games/{table1}").get_json()
    assert other["hand_results"] == [] and other["discard_pile"][0] == deck[20]

    # and none of it was in anything the seats read while the match ran
    for name, got in sealed.items():
        texts = json.dumps(got) + json.dumps(answer)
        assert seed not in texts, name
        for value in [answer, *got.values()]:
            for lst in lists_in(value):
                assert not holds_run(lst, stock[:3]) and not holds_run(lst, deck[21:24]), (name, lst)


@pytest.mark.timeout(300)
def test_a_finished_three_hand_board_keeps_its_advice_and_deal_to_the_roles_until_the_match_is_over(app, client):
    alpha = register(client, "alpha")
    made = client.post("/matches", json={"variant": "three-hand", "participants": ["alpha", "basic", "basic"],
                                         "boards": 1, "rated": False}, token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    games = [D.game_id_for(match_id, 0, table) for table in range(3)]
    # the participants rotate: alpha is the box (seat 0) at table 0, the advisor (seat 2) at table 1
    # and the captain (seat 1) at table 2
    box, advisor = (client.get(f"/games/{g}", token=alpha).get_json() for g in games[:2])
    assert (box["viewer_role"], advisor["viewer_role"]) == ("box", "advisor")

    given = client.post(f"/games/{games[1]}/advice", json={"text": "keep the clubs"}, token=alpha)
    assert given.status_code == 200, given.get_data(as_text=True)
    for game_id in games[:2]:
        assert resign(client, game_id, alpha)["status"] == "over"
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "running"  # table 2 plays on

    # the box of finished table 0 reads it as a game in play: no advice, none of the deal's secrets
    resp = client.get(f"/games/{games[0]}/advice", token=alpha)
    assert resp.status_code == 403 and resp.get_json()["code"] == "forbidden", resp.get_data(as_text=True)
    got = reads(client, games[0], alpha, advice=False)
    for key, view in got.items():
        if key.startswith(("view", "state")):
            assert all(view[s] is None for s in SECRETS) and view["advice"] == [], key
    for events in (got["/events?limit=1000"]["events"], got["stream"]):
        by_type = {e["type"]: e["data"] for e in events}
        assert by_type["game_created"]["seed"] is None and by_type["hand_dealt"]["deck"] is None
        assert by_type["game_resigned"]["seed"] is None
    # the advisor of finished table 1 reads its own advice, as while the hand was in play
    mine = client.get(f"/games/{games[1]}/advice", token=alpha)
    assert mine.status_code == 200 and [a["text"] for a in mine.get_json()["advice"]] == ["keep the clubs"]

    # alpha resigns table 2 too: the match is over, and every finished table reads in full
    resign(client, games[2], alpha)
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "over"
    resp = client.get(f"/games/{games[0]}/advice", token=alpha)
    assert resp.status_code == 200 and resp.get_json() == {"advice": []}
    shown = client.get(f"/games/{games[1]}/advice")  # a spectator, once the match is over
    assert shown.status_code == 200 and [a["text"] for a in shown.get_json()["advice"]] == ["keep the clubs"]
    view = client.get(f"/games/{games[0]}", token=alpha).get_json()
    assert view["seed"] and view["stock"] and len(view["all_hands"]) == 3

