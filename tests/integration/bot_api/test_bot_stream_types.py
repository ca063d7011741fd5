"""Every message of a bot's stream, of its games' streams and of a match's stream carries its kind as
``type`` in its data, and matches the schema openapi.yaml gives that kind.

Two bot accounts take every path a bot's stream tells of (a challenge declined, one withdrawn, one
accepted and played, a match played), then every stream is read through the validating client, which
checks each message against the spec (tests/support/apiclient.py), and the kinds seen are held to
the kinds the spec lists.
"""

from __future__ import annotations

import yaml

from support.apiclient import SPEC_PATH
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register, short_game_move
from support.gameplay import parse_sse

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def kinds_in_spec(schema: str) -> set[str]:
    return set(SPEC["components"]["schemas"][schema]["discriminator"]["mapping"])


def read(client, path: str, token: str | None = None, once: bool = True) -> list:
    """Every message of a stream read to its end, with once=1 unless ``once`` is false (the
    validating client checks each against the spec)."""
    resp = client.get(path, query_string={"once": "1"} if once else None, token=token)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return parse_sse(resp.get_data(as_text=True))


def play_to_the_end(client, game_id: str, tokens: list[str], on_each=None) -> None:
    """Both bots play the game (each with its own token) until it is over."""
    for _ in range(2000):
        views = [client.get(f"/games/{game_id}", token=t).get_json() for t in tokens]
        if views[0]["status"] == "over":
            return
        if on_each is not None:
            on_each()
        for token, view in zip(tokens, views):
            if view["legal_moves"]:
                move = short_game_move(view["legal_moves"], view.get("hand"))
                resp = client.post(f"/games/{game_id}/moves", json=move, token=token,
                                   headers={"If-Match": f'"{view["version"]}"'})
                assert resp.status_code in (200, 409, 412), resp.get_data(as_text=True)
                break
    raise AssertionError(f"the game {game_id} did not end")


def test_every_stream_message_says_its_type_and_matches_the_spec_for_it(client):  # noqa: F811
    alpha, beta = register(client, "alpha"), register(client, "beta")
    assert client.patch("/bots/me", json={"accepts_matches": True}, token=beta).status_code == 200
    tokens = [alpha, beta]

    def challenge(**more) -> str:
        resp = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", **more}, token=beta)
        assert resp.status_code == 201, resp.get_data(as_text=True)
        return resp.get_json()["challenge_id"]

    assert client.post(f"/challenges/{challenge()}/decline", token=alpha).status_code == 200
    assert client.post(f"/challenges/{challenge()}/withdraw", token=beta).status_code == 200
    accepted = client.post(f"/challenges/{challenge(options={'target_score': 1})}/accept", token=alpha)
    game_id = accepted.get_json()["game_id"]
    play_to_the_end(client, game_id, tokens)

    # a match of one board: two tables, the same deal; the first table's game is sealed while the
    # second is in play, so a seat's stream of it ends with a `sealed` message
    made = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "beta"], "boards": 1},
                       token=alpha)
    assert made.status_code == 201, made.get_data(as_text=True)
    match_id = made.get_json()["match_id"]
    tables = [t["game_id"] for t in client.get(f"/matches/{match_id}").get_json()["board_results"][0]["tables"]]
    play_to_the_end(client, tables[0], tokens)
    sealed_stream = read(client, f"/games/{tables[0]}/stream", alpha)
    assert sealed_stream[-1].event == "sealed" and sealed_stream[-1].id is None
    play_to_the_end(client, tables[1], tokens)
    assert client.get(f"/matches/{match_id}").get_json()["status"] == "over"

    bot_messages = read(client, "/bots/me/stream", alpha) + read(client, "/bots/me/stream", beta)
    game_messages = [m for g in (game_id, *tables) for t in tokens for m in read(client, f"/games/{g}/stream", t)]
    game_messages += sealed_stream + read(client, f"/games/{game_id}/stream")
    match_messages = read(client, f"/matches/{match_id}/stream", once=False)  # it ends with the match

    for message in bot_messages + game_messages + match_messages:
        assert message.json()["type"] == message.event
    # every kind of the bot's stream was sent and checked; the spec lists no kind that never came
    # (clock_moved needs a turn clock to run out: test_bot_clock_notice.py reads it through the same client)
    assert {m.event for m in bot_messages} == kinds_in_spec("BotStreamMessage") - {"clock_moved"}
    assert {m.event for m in match_messages} == {"progress"} == kinds_in_spec("MatchStreamMessage")
    game_kinds = {m.event for m in game_messages}
    assert {"game_created", "hand_dealt", "card_discarded", "hand_scored", "game_ended", "sealed"} <= game_kinds
    assert game_kinds <= kinds_in_spec("GameStreamMessage")
    # the fields each message had before its type came along are still there
    turn = next(m.json() for m in bot_messages if m.event == "your_turn")
    assert set(turn) == {"game_id", "seat", "version", "type", "pending"} and turn["pending"] is False
    over = next(m.json() for m in bot_messages if m.event == "game_over" and m.json()["game_id"] == game_id)
    assert set(over) == {"game_id", "seat", "version", "scores", "type"}
    progress = match_messages[-1].json()
    assert progress["status"] == "over" and progress["boards_done"] == 1 and progress["match_id"] == match_id
