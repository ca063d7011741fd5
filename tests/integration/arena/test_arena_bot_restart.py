"""workers/arena_bot.py started again for an account with a past: its stream then holds everything
the bot was ever told. The new process counts for ``--exit-after-matches`` only the matches that end
while it runs, plays the turns its past leaves waiting, accepts the challenges still pending and
leaves alone those answered before it started. Two bot accounts play each other over a real socket.
And the stream's start points: ``once=1`` sends its whole past; a bad one is treated as on a game's stream."""

from __future__ import annotations

import threading
import time

import pytest

from support.apiclient import ValidatingClient
from support.arena_fixtures import app, arena_settings, base  # noqa: F401 (fixtures)
from support.arena_http import register
from workers.arena_bot import ArenaBot

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def settings(redis_url, key_prefix):
    return arena_settings(redis_url, key_prefix, extra={"stream_keepalive_s": 0.5, "stream_max_s": 20.0})


def start(bot: ArenaBot, exit_after_matches: int | None = None) -> tuple[threading.Thread, dict]:
    """Run ``bot`` on a thread; the dict gets its exit code under "code"."""
    out: dict = {}
    thread = threading.Thread(target=lambda: out.setdefault("code", bot.run(exit_after_matches)), daemon=True)
    thread.start()
    return thread, out


def wait_until(what: str, check, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, f"never: {what}"
        time.sleep(0.1)


def test_a_restarted_arena_bot_counts_only_new_matches_and_plays_what_its_past_left_waiting(app, base, capsys):  # noqa: F811
    client = ValidatingClient(app)
    alpha, beta = register(client, "alpha"), register(client, "beta")
    # consent to the matches below: alpha sends them, beta accepts matches
    assert client.patch("/bots/me", json={"accepts_matches": True}, token=beta).status_code == 200
    opponent = ArenaBot(base, beta, threads=4, deadline_s=240)
    opponent_thread, _ = start(opponent)
    first = ArenaBot(base, alpha, threads=4, accept_challenges=True, deadline_s=240)
    first_thread, first_out = start(first, 1)
    try:
        # the first process accepts a person's challenge and plays one match to its end
        answered = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}).get_json()
        wait_until("the first process accepted ann's challenge",
                   lambda: client.get(f"/challenges/{answered['challenge_id']}").get_json()["status"] == "accepted")
        old_match = client.post("/matches", json={"variant": "gin-rami", "participants": ["alpha", "beta"],
                                                  "boards": 1}, token=alpha).get_json()["match_id"]
        first_thread.join(timeout=120)
        assert not first_thread.is_alive() and first_out["code"] == 0
        assert first.matches_over == {old_match} and first.errors == []

        # while no process plays alpha: a game where it is to act, and a challenge to it
        waiting = client.post("/games", json={"variant": "gin-rami", "first_dealer": 1,
                                              "seats": [{"account": "alpha"}, {"name": "bob"}]},
                              token=alpha).get_json()
        assert waiting["view"]["to_act"] == [0]
        pending = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "cy"}).get_json()
        capsys.readouterr()

        second = ArenaBot(base, alpha, threads=4, accept_challenges=True, deadline_s=240)
        second_thread, second_out = start(second, 1)
        wait_until("the turn left waiting was played",
                   lambda: client.get(f"/games/{waiting['game_id']}").get_json()["version"] > waiting["view"]["version"])
        wait_until("the challenge left pending was accepted",
                   lambda: client.get(f"/challenges/{pending['challenge_id']}").get_json()["status"] == "accepted")
        wait_until("the stream's past was read", lambda: second.past_events_read)
        time.sleep(0.5)
        # the match over before it started does not count: it waits for one that ends now
        assert second_thread.is_alive(), f"exited at once with {second_out}"
        assert second.matches_over == set()
        # and the past cost little: a look at each of the two games not over (ann's and bob's), the
        # accept of cy's challenge, a look at cy's new game, and in bob's and cy's games the upcard
        # taken or passed (taken, the discard after it): at most 1 + 3 + 1 + 3 = 8 (one look per
        # past turn was dozens: every turn of the match's games)
        assert second.requests <= 8, second.requests
        new_match = client.post("/matches", json={"variant": "gin-rami", "participants": ["beta", "alpha"],
                                                  "boards": 1}, token=alpha).get_json()["match_id"]
        second_thread.join(timeout=120)
        assert not second_thread.is_alive() and second_out["code"] == 0
        assert second.matches_over == {new_match}
        assert second.errors == []
        # the challenge the first process accepted is not accepted again
        assert "challenge_not_pending" not in capsys.readouterr().err
    finally:
        opponent.stop.set()
        first.stop.set()
        opponent_thread.join(timeout=60)


def test_once_sends_the_whole_past_of_the_stream_not_one_batch_of_it(app):  # noqa: F811
    client = ValidatingClient(app)
    token = register(client, "gamma")
    store = app.extensions["ginbox"].arena.store
    for n in range(300):  # more than one read of the stream holds (256)
        store.notify("gamma", "game_over", {"game_id": f"g{n}", "version": 1, "seat": 0, "scores": [0, 0]})
    text = client.get("/bots/me/stream?once=1", token=token).get_data(as_text=True)
    ids = [line[4:] for line in text.splitlines() if line.startswith("id: ")]
    assert len(ids) == 300 and len(set(ids)) == 300
    assert text.count("event: game_over") == 300
    # and from the middle: the 100 after the 200th
    rest = client.get(f"/bots/me/stream?once=1&after={ids[199]}", token=token).get_data(as_text=True)
    assert [line[4:] for line in rest.splitlines() if line.startswith("id: ")] == ids[200:]


def test_a_bad_start_point_is_treated_as_on_a_games_stream(app):  # noqa: F811
    client = ValidatingClient(app)
    token = register(client, "delta")
    client.post("/challenges", json={"to": "delta", "variant": "gin-rami", "name": "ann"})
    game_id = client.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
                          ).get_json()["game_id"]
    whole = client.get("/bots/me/stream?once=1", token=token).get_data(as_text=True)
    assert whole.count("event: challenge") == 1
    # a Last-Event-ID that is no id of the stream is ignored on both streams: each starts from its beginning
    assert client.get("/bots/me/stream?once=1", token=token,
                      headers={"Last-Event-ID": "garbage"}).get_data(as_text=True) == whole
    game_whole = client.get(f"/games/{game_id}/stream?once=1").get_data(as_text=True)
    assert client.get(f"/games/{game_id}/stream?once=1",
                      headers={"Last-Event-ID": "garbage"}).get_data(as_text=True) == game_whole
    # a bad `after` is a bad query on both: 400 invalid_query naming it
    for path, who in (("/bots/me/stream?once=1&after=abc", token), ("/bots/me/stream?once=1&after=1-2-3", token),
                      (f"/games/{game_id}/stream?once=1&after=abc", None)):
        bad = client.get(path, token=who)
        assert bad.status_code == 400, path
        assert bad.get_json()["code"] == "invalid_query" and list(bad.get_json()["errors"]) == ["after"], path
    assert client.get("/bots/me/stream?once=1&after=0", token=token).get_data(as_text=True) == whole
