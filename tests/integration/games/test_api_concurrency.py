"""Racing clients: optimistic concurrency over HTTP (If-Match -> 412, none -> 409), one winner per version.

Threads share one app (as the worker threads of one server process do) and each has its own
test client; a barrier releases each round's requests together.
"""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

from support.gameplay import create_game, etag_version
from support.randomplay import choose_move

ACTION_EVENTS = {"upcard_taken", "upcard_passed", "card_drawn", "card_discarded", "knocked"}


def _race(fns):
    """Run the callables at the same moment; their results in order."""
    barrier = threading.Barrier(len(fns))

    def run(fn):
        barrier.wait(timeout=10)
        return fn()

    with ThreadPoolExecutor(len(fns)) as pool:
        return list(pool.map(run, fns))


def test_two_clients_racing_the_same_version_with_if_match_exactly_one_wins(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0)
    rng = random.Random(5)
    for _ in range(20):
        view = g.view(None)
        if view["status"] == "over":
            break
        seat = view["to_act"][0]
        mine = g.view(seat)
        a, b = choose_move(mine, rng), choose_move(mine, rng)
        v = mine["version"]
        results = _race([lambda: g.post_move(seat, a, if_match=v), lambda: g.post_move(seat, b, if_match=v)])
        statuses = sorted(r.status_code for r in results)
        assert statuses == [200, 412], [r.get_data(as_text=True) for r in results]
        won = next(r for r in results if r.status_code == 200)
        lost = next(r for r in results if r.status_code == 412)
        assert lost.get_json()["code"] == "version_mismatch"
        assert g.version() == etag_version(won)
        # exactly one move was recorded: one player action after v
        actions = [e for e in g.events(seat, after=v) if e["type"] in ACTION_EVENTS]
        assert len(actions) == 1


def test_concurrent_moves_without_if_match_give_one_success_and_409_to_the_others(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0)
    rng = random.Random(6)
    for _ in range(15):
        view = g.view(None)
        if view["status"] == "over":
            break
        seat = view["to_act"][0]
        mine = g.view(seat)
        cmd = choose_move(mine, rng)
        v = mine["version"]
        results = _race([lambda: g.post_move(seat, cmd) for _ in range(6)])
        ok = [r for r in results if r.status_code == 200]
        others = [r for r in results if r.status_code != 200]
        assert len(ok) == 1, [r.get_data(as_text=True) for r in results]
        # a loser either lost the append race (conflict) or was decided after the winner's move
        # (the engine's own conflict code, e.g. already_drawn, wrong_phase, not_your_turn)
        assert all(r.status_code == 409 for r in others), [r.get_data(as_text=True) for r in others]
        assert g.version() == etag_version(ok[0])
        actions = [e for e in g.events(seat, after=v) if e["type"] in ACTION_EVENTS]
        assert len(actions) == 1


def test_threads_playing_a_whole_game_at_once_record_exactly_one_move_per_success(api):
    """Two threads per seat play the same game without If-Match; every 200 is one recorded move."""
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0,
                    options={"target_score": 10, "max_turns_per_hand": 30})
    start = g.version()
    successes: list[int] = []
    refusals: list[tuple[int, str]] = []
    lock = threading.Lock()
    stop = threading.Event()
    crashed: list[BaseException] = []

    def player(seat: int, seed: int):
        try:
            play(seat, seed)
        except BaseException as exc:  # noqa: BLE001 - a thread's failure must fail the test
            crashed.append(exc)
            stop.set()

    def play(seat: int, seed: int):
        rng = random.Random(seed)
        for _ in range(400):
            if stop.is_set():
                return
            mine = g.view(seat)
            if mine["status"] == "over":
                stop.set()
                return
            if seat not in mine["to_act"]:
                continue
            resp = g.post_move(seat, choose_move(mine, rng))
            with lock:
                if resp.status_code == 200:
                    successes.append(etag_version(resp))
                else:
                    refusals.append((resp.status_code, resp.get_json()["code"]))

    threads = [threading.Thread(target=player, args=(seat, 100 + i)) for i, seat in enumerate([0, 0, 1, 1])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not crashed, crashed
    assert g.view(None)["status"] == "over", "the game did not finish within the move budget"
    # every refusal is a lost race (409) or a move decided on a state that had moved on:
    # 409 for the state's conflicts, 422 for a card the other thread had already discarded
    assert all(status in (409, 422) for status, _ in refusals), refusals
    assert len(set(successes)) == len(successes), "two successes answered the same version"
    log = g.events(0)
    assert [e["version"] for e in log] == list(range(1, log[-1]["version"] + 1))
    actions = [e for e in log if e["version"] > start and e["type"] in ACTION_EVENTS]
    assert len(actions) == len(successes)


def test_concurrent_retries_with_one_idempotency_key_all_get_the_first_answer(api):
    """Same key + same body -> the first answer (same status and body), even when the copies race."""
    for round_no in range(5):
        g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0)
        v = g.version()
        results = _race([lambda: g.post_move(1, {"type": "pass_upcard"}, key=f"retry-{round_no}")
                         for _ in range(8)])
        answers = {(r.status_code, r.get_data()) for r in results}
        assert len(answers) == 1, f"round {round_no}: {sorted((s, b[:80]) for s, b in answers)}"
        assert results[0].status_code == 200
        assert g.version() == v + 1
