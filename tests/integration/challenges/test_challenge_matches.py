"""A person challenges a bot account to a duplicate match, on a real Redis (and real ``ginbox worker``
processes where a clock must run).

The person is no bot account: it is a participant of kind ``person`` whose one token, given by
its challenge, plays the seat it holds at every table of every board. It finds its games and its
turns through the match view and the ordinary game routes, as a client over HTTP would; the
games stay sealed to everyone else while the match runs, and the match is unrated.
"""

from __future__ import annotations

import time

import pytest
from support.arena_fixtures import app, client, settings, workers  # noqa: F401 (fixtures)
from support.arena_http import register, stream_events

from service.rules import duplicate as D






def accepted_by_stream(client, bot_token: str) -> dict:
    """The bot reads its stream, finds the challenge and accepts it: the challenge as accepted."""
    challenges = [data for kind, data in stream_events(client, bot_token) if kind == "challenge"]
    assert len(challenges) == 1
    resp = client.post(f"/challenges/{challenges[0]['challenge_id']}/accept", token=bot_token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp.get_json()


def my_tables(match: dict, name: str) -> list[tuple[str, int]]:
    """(game id, seat) of every started table where ``name`` sits and whose points are not in yet."""
    out = []
    for board in match["board_results"]:
        for table in board["tables"]:
            if table["game_id"] and table["points"] is None and name in table["seats"]:
                out.append((table["game_id"], table["seats"].index(name)))
    return out


def choose(moves: list[dict]) -> dict:
    """A short-game move: knock when allowed, else take the upcard or draw, else the first offered."""
    knock = next((m for m in moves if m["type"] == "knock"), None)
    if knock:
        return knock
    return moves[-1] if moves[0]["type"] == "take_upcard" else moves[0]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_person_plays_a_challenge_match_against_a_bot_account_with_its_one_token(client):
    alpha = register(client, "alpha")
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann", "boards": 2})
    assert made.status_code == 201, made.get_data(as_text=True)
    ann = made.get_json()["token"]
    assert made.get_json()["kind"] == "match" and made.get_json()["from_kind"] == "person"

    match_id = accepted_by_stream(client, alpha)["match_id"]
    match = client.get(f"/matches/{match_id}").get_json()
    assert match["participants"] == [{"name": "ann", "kind": "person"}, {"name": "alpha", "kind": "bot"}]
    assert match["games"] == 4 and match["status"] == "running"
    # the person's token and its hash are nowhere in the match
    assert ann not in str(match)

    tokens = {"ann": ann, "alpha": alpha}
    seen_games: set[str] = set()
    refused_in_bot_seat = 0
    for _ in range(3000):
        match = client.get(f"/matches/{match_id}").get_json()
        if match["status"] == "over":
            break
        moved = False
        for name, token in tokens.items():
            for game_id, seat in my_tables(match, name):
                seen_games.add(game_id)
                view = client.get(f"/games/{game_id}", token=token)
                assert view.status_code == 200, view.get_data(as_text=True)
                view = view.get_json()
                assert view["viewer"] == seat and view["players"][seat]["name"] == name
                if view["status"] != "playing" or seat not in view["to_act"]:
                    continue
                if name == "alpha" and refused_in_bot_seat < 3:
                    # the person's token plays no seat but its own: alpha's turn is refused to it
                    sealed = client.get(f"/games/{game_id}")
                    assert sealed.status_code == 403 and sealed.get_json()["code"] == "match_game_sealed"
                    wrong = client.post(f"/games/{game_id}/moves", json=choose(view["legal_moves"]), token=ann,
                                        headers={"If-Match": f'"{view["version"]}"'})
                    assert wrong.status_code == 409, wrong.get_data(as_text=True)
                    assert wrong.get_json()["code"] == "not_your_turn"
                    after = client.get(f"/games/{game_id}", token=alpha).get_json()
                    assert after["version"] == view["version"] and seat in after["to_act"]
                    refused_in_bot_seat += 1
                played = client.post(f"/games/{game_id}/moves", json=choose(view["legal_moves"]), token=token,
                                     headers={"If-Match": f'"{view["version"]}"'})
                assert played.status_code in (200, 201), played.get_data(as_text=True)
                moved = True
        assert moved or client.get(f"/matches/{match_id}").get_json()["status"] == "over", "nobody could move"
    assert match["status"] == "over"
    assert refused_in_bot_seat >= 1
    assert seen_games == {D.game_id_for(match_id, b, t) for b in range(2) for t in range(2)}

    standings = {s["name"]: s for s in match["standings"]}
    assert set(standings) == {"ann", "alpha"} and standings["ann"]["kind"] == "person"
    assert standings["ann"]["boards"] == standings["alpha"]["boards"] == 2
    assert standings["ann"]["total"] == pytest.approx(-standings["alpha"]["total"])
    for board in match["board_results"]:
        t0, t1 = board["tables"]
        assert t0["seats"] == ["ann", "alpha"] and t1["seats"] == ["alpha", "ann"]
    audit = client.get(f"/matches/{match_id}/audit")
    assert audit.status_code == 200 and audit.get_json()["ok"] is True
    # unrated: a person has no rating, and the bot's does not move (as in a person's game)
    assert client.get("/ratings?variant=gin-rami").get_json()["ratings"] == []
    assert client.get("/bots/alpha").get_json()["matches"] == 1
    assert client.get("/bots/alpha").get_json()["ratings"] == {}
    kinds = [kind for kind, _ in stream_events(client, alpha)]
    assert "match_started" in kinds and "match_over" in kinds


def test_a_person_s_token_reads_only_its_own_seats_of_the_match_while_it_runs(client):
    alpha = register(client, "alpha")
    beta = register(client, "beta")
    ann = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann", "boards": 1}
                      ).get_json()["token"]
    match_id = accepted_by_stream(client, alpha)["match_id"]
    # another match, between bots, in play beside it (beta sends it)
    other = client.post("/matches", json={"variant": "gin-rami", "participants": ["beta", "basic"], "boards": 1},
                        token=beta)
    other_game = D.game_id_for(other.get_json()["match_id"], 0, 0)
    for table, seat in ((0, 0), (1, 1)):
        game_id = D.game_id_for(match_id, 0, table)
        view = client.get(f"/games/{game_id}", token=ann)
        assert view.status_code == 200 and view.get_json()["viewer"] == seat and view.get_json()["hand"]
        for route in ("/events", "/state?version=1", "/stream?once=1"):
            assert client.get(f"/games/{game_id}{route}", token=ann).status_code == 200, route
        for route in ("", "/events", "/audit"):
            resp = client.get(f"/games/{game_id}{route}")
            assert resp.status_code == 403 and resp.get_json()["code"] == "match_game_sealed", route
        # nothing of the person's token enters a game's log
        assert "token_hash" not in str(client.get(f"/games/{game_id}/events?limit=1000", token=ann).get_json())
    # the token holds no seat of the other match's game: sealed to it as to anyone
    resp = client.get(f"/games/{other_game}", token=ann)
    assert resp.status_code == 403 and resp.get_json()["code"] == "match_game_sealed"


def test_a_silent_person_in_a_match_with_a_move_time_is_played_for_by_the_turn_clock(client, workers):
    alpha = register(client, "alpha")
    # 5 s a move: the least a challenge (which always seats a bot account) may give
    client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann", "boards": 1,
                                     "move_time_s": 5})
    match_id = accepted_by_stream(client, alpha)["match_id"]
    assert client.get(f"/matches/{match_id}").get_json()["move_time_s"] == 5
    # seat 1 deals first at every table, so the non-dealer at seat 0 is offered the upcard: at
    # table 0 that is ann, who never moves
    game_id = D.game_id_for(match_id, 0, 0)
    view = client.get(f"/games/{game_id}", token=alpha).get_json()
    assert view["options"]["turn_timeout_s"] == 5 and view["to_act"] == [0]
    assert view["players"][0]["name"] == "ann"
    start = view["version"]
    workers.start()
    deadline = time.monotonic() + 60
    events = []
    while time.monotonic() < deadline:
        events = client.get(f"/games/{game_id}/events?limit=1000", token=alpha).get_json()["events"]
        if any(e["type"] == "turn_timed_out" for e in events):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("ann's turn was not played for within 60 s:\n"
                             + "\n".join(w.log_text() for w in workers.workers))
    timed_out = next(i for i, e in enumerate(events) if e["type"] == "turn_timed_out")
    assert events[timed_out]["version"] == start + 1 and events[timed_out]["data"]["seat"] == 0
    assert events[timed_out + 1]["data"]["seat"] == 0


@pytest.mark.parametrize("boards", [1, None])
def test_a_challenge_gives_the_bot_account_at_least_5_s_a_move_as_a_match_does(client, boards):
    alpha = register(client, "alpha")
    body = {"to": "alpha", "variant": "gin-rami", "name": "ann", **({"boards": boards} if boards else {})}
    for fast in (1, 2, 4):
        resp = client.post("/challenges", json={**body, "move_time_s": fast})
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_match", (fast, resp.get_json())
        assert "at least 5 s" in resp.get_json()["detail"]
    # nothing was stored: the bot is told of the one challenge that fits, no other
    resp = client.post("/challenges", json={**body, "move_time_s": 5})
    assert resp.status_code == 201 and resp.get_json()["move_time_s"] == 5
    told = [data for kind, data in stream_events(client, alpha) if kind == "challenge"]
    assert [c["challenge_id"] for c in told] == [resp.get_json()["challenge_id"]]
