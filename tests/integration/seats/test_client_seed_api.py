"""Client seeds over the API (service/docs/FAIRNESS.md, RULES.md Extensions): each seat adds one
after the commitment is published and before the first cut or deal, with its seat claim or as
the ``client_seed`` move; the decks then derive from the server's seed and every client seed.
Bad seeds and late seeds are refused with problem+json and change nothing. The wait for seeds
(option ``client_seed_wait_s``) is closed by the worker's sweeper, time given as data."""

from __future__ import annotations

import random
import time

import pytest

from service.config import Settings
from service.rules import fairness
from support.gameplay import create_game
from support.randomplay import choose_move
from workers import jobs
from workers.runner import build_context
from workers.sweeper import Sweeper, client_seed_deadlines


def play_out(game, rng: random.Random, limit: int = 3000) -> dict:
    """Random legal moves (support.randomplay) for whichever seat is to act until the game is over."""
    for _ in range(limit):
        public = game.view(None)
        if public["status"] == "over":
            return public
        seat = public["to_act"][0]
        game.move(seat, choose_move(game.view(seat), rng))
    raise AssertionError("the game did not end")


def claim(api, game, seat: int, name: str, **body):
    resp = api.post(f"/games/{game.game_id}/seats/{seat}", json={"name": name, **body})
    if resp.status_code == 201:
        game.tokens[seat] = resp.get_json()["token"]
    return resp


def export_events(api, game) -> list[dict]:
    resp = api.get(f"/games/{game.game_id}/export")
    assert resp.status_code == 200
    return [__import__("json").loads(line) for line in resp.get_data(as_text=True).splitlines()]


def expected_deck(seed_hex: str, client_seeds: list, hand_no: int) -> list[str]:
    """The deck FAIRNESS.md specifies, from the revealed seed and the client seeds."""
    key = fairness.deal_key(2, bytes.fromhex(seed_hex), client_seeds)
    return fairness.deck_for_hand(key, hand_no)


@pytest.mark.slow
def test_seeds_sent_by_move_and_with_the_claim_make_the_decks_and_the_game_audits_green(api):
    game = create_game(api, "gin-rami", [{"name": "ann"}, None], options={"client_seed_wait_s": 600})
    view = game.view(0)
    assert view["fairness"] == 2 and view["client_seeds"] == [None, None]
    assert view["status"] == "waiting" and view["awaiting_client_seeds"] == [0]
    # the creator's seat sends its seed after the answer that published the commitment
    view = game.move(0, {"type": "client_seed", "client_seed": "ann's lucky words ☘"})
    assert view["client_seeds"] == ["ann's lucky words ☘", None] and view["hand_no"] == 0
    # the joiner sends its seed with the claim: the seats are full, every seed is in, the cards are dealt
    resp = claim(api, game, 1, "bob", client_seed="bob-7f3a")
    assert resp.status_code == 201, resp.get_data(as_text=True)
    view = resp.get_json()["view"]
    assert view["status"] == "playing" and view["hand_no"] == 1
    assert view["client_seeds"] == ["ann's lucky words ☘", "bob-7f3a"] and view["awaiting_client_seeds"] == []
    kinds = [e["type"] for e in game.events()]
    assert kinds[:5] == ["game_created", "client_seed_sent", "seat_claimed", "client_seed_sent", "cards_cut"]

    over = play_out(game, random.Random(5))
    seeds = ["ann's lucky words ☘", "bob-7f3a"]
    log = export_events(api, game)
    deals = [e["data"] for e in log if e["type"] == "hand_dealt"]
    assert deals and all(d["deck"] == expected_deck(over["seed"], seeds, d["hand_no"]) for d in deals)
    # the same seed with other client seeds would have dealt other cards
    assert deals[0]["deck"] != expected_deck(over["seed"], ["ann's lucky words ☘", "bob-7f3b"], 1)
    assert deals[0]["deck"] != fairness.deck_for_hand(bytes.fromhex(over["seed"]), 1)
    cut = next(e["data"] for e in log if e["type"] == "cards_cut")
    key = fairness.deal_key(2, bytes.fromhex(over["seed"]), seeds)
    assert cut["cards"] == fairness.cut_cards(key, 0, 2)
    audit = api.get(f"/games/{game.game_id}/audit").get_json()
    assert audit["ok"], [c for c in audit["checks"] if not c["ok"]]
    names = {c["name"] for c in audit["checks"]}
    assert {"derivation", "client_seeds", "deal_1", "cut_0", "replay"} <= names


def test_without_a_wait_the_last_claim_deals_and_a_later_seed_is_too_late(api):
    game = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert game.view(0)["awaiting_client_seeds"] == []
    resp = claim(api, game, 1, "bob", client_seed="only bob")
    view = resp.get_json()["view"]
    assert view["status"] == "playing" and view["client_seeds"] == [None, "only bob"]
    version = game.version()
    resp = game.post_move(0, {"type": "client_seed", "client_seed": "too late"})
    assert resp.status_code == 409 and resp.get_json()["code"] == "client_seed_too_late"
    assert game.version() == version and game.view(0)["client_seeds"] == [None, "only bob"]
    # ann's default (the empty text) and bob's seed made the deal
    game.move(view["to_act"][0] if view["to_act"][0] == 1 else 0, {"type": "resign"})
    over = game.view(None)
    deal = next(e["data"] for e in export_events(api, game) if e["type"] == "hand_dealt")
    assert deal["deck"] == expected_deck(over["seed"], ["", "only bob"], 1)
    assert api.get(f"/games/{game.game_id}/audit").get_json()["ok"]


@pytest.mark.parametrize("bad", [
    "x" * 65,                      # too long
    "",                            # empty: the default is not sent, it is what a seat that sends none has
    "line\nbreak",                 # a control character
    123, 1.5, True, ["seed"], {"seed": "x"}, None,  # not text
])
def test_bad_client_seeds_are_refused_and_change_nothing(api, bad):
    game = create_game(api, "gin-rami", [{"name": "ann"}, None], options={"client_seed_wait_s": 60})
    version = game.version()
    resp = game.post_move(0, {"type": "client_seed", "client_seed": bad})
    assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_client_seed", resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    if bad is not None:
        resp = claim(api, game, 1, "bob", client_seed=bad)
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_client_seed"
    view = game.view(None)
    assert view["version"] == version and view["players"][1] is None and view["client_seeds"] == [None, None]


def test_a_seat_sends_one_seed_and_only_a_seated_player_sends_it(api):
    game = create_game(api, "gin-rami", [{"name": "ann"}, None], options={"client_seed_wait_s": 60})
    game.move(0, {"type": "client_seed", "client_seed": "first"})
    version = game.version()
    resp = game.post_move(0, {"type": "client_seed", "client_seed": "second"})
    assert resp.status_code == 409 and resp.get_json()["code"] == "client_seed_already_sent"
    resp = game.post_move(0, {"type": "client_seed", "client_seed": "x"}, token="not-a-token")
    assert resp.status_code == 401
    assert game.version() == version and game.view(None)["client_seeds"] == ["first", None]


@pytest.fixture
def ctx(redis_url, key_prefix):
    settings = Settings(redis_url=redis_url, key_prefix=key_prefix, queue_name=f"{key_prefix}-bots")
    context = build_context(settings)
    jobs.set_context(context)
    yield context
    jobs.set_context(None)


def test_the_sweeper_deals_with_the_default_once_the_wait_runs_out(ctx, api):
    created = ctx.games.create_game({"variant": "three-hand", "seats": [{"name": "ann"}, {"name": "bob"}, None],
                                     "options": {"client_seed_wait_s": 30}})
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if s.get("token")}
    api.post(f"/games/{game_id}/moves", json={"type": "client_seed", "client_seed": "ann"}, token=tokens[0])
    resp = api.post(f"/games/{game_id}/seats/2", json={"name": "cat"})
    assert resp.status_code == 201 and resp.get_json()["view"]["awaiting_client_seeds"] == [1, 2]
    version = ctx.store.version(game_id)
    seated_at = ctx.store.load(game_id, after=version - 1)[-1].ts
    # not yet: 29 s after the last seat was taken
    assert client_seed_deadlines(ctx, now_ms=seated_at + 29_000) == []
    assert ctx.store.version(game_id) == version
    assert client_seed_deadlines(ctx, now_ms=seated_at + 31_500) == [game_id]
    added = [r.event for r in ctx.store.load(game_id, after=version)]
    assert type(added[0]).TYPE == "client_seeds_closed" and added[0].seats == (1, 2) and added[0].waited_s == 31
    assert [type(e).TYPE for e in added[1:]][-2:] == ["roles_assigned", "hand_dealt"]
    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "playing" and view["client_seeds"] == ["ann", "", ""]  # the default
    # nothing is left to close, and a seed now is too late
    assert client_seed_deadlines(ctx, now_ms=seated_at + 60_000) == []
    # whatever their role (the advisor's included): the engine answers that it is too late
    cat_token = resp.get_json()["token"]
    for token in (tokens[1], cat_token):
        late = api.post(f"/games/{game_id}/moves", json={"type": "client_seed", "client_seed": "late"}, token=token)
        assert late.status_code == 409 and late.get_json()["code"] == "client_seed_too_late"
    state = ctx.repository.load_state(game_id)
    assert list(state.deck) != [] and state.deal_seed == fairness.deal_key(2, state.seed, ["ann", None, None])


def test_a_bot_seat_sends_no_seed_and_the_deal_waits_only_for_the_humans(ctx, api):
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}],
                                     "options": {"client_seed_wait_s": 30}})
    game_id = created["game_id"]
    token = created["seats"][0]["token"]
    view = api.get(f"/games/{game_id}").get_json()
    assert view["status"] == "waiting" and view["awaiting_client_seeds"] == [0]
    resp = api.post(f"/games/{game_id}/moves", json={"type": "client_seed", "client_seed": "ann"}, token=token)
    assert resp.status_code == 200 and resp.get_json()["status"] == "playing"
    assert resp.get_json()["client_seeds"] == ["ann", None]


def test_a_game_of_bots_alone_is_dealt_at_once_even_with_a_wait(ctx):
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"bot": "basic"}, {"bot": "random"}],
                                     "options": {"client_seed_wait_s": 30}})
    assert created["view"]["status"] == "playing" and created["view"]["hand_no"] == 1


@pytest.mark.slow
def test_the_worker_sweeper_thread_deals_by_itself_once_the_wait_runs_out(ctx):
    """The thread of ``ginbox worker`` looks every second; the game waits 1 s for seats 0 and 1."""
    created = ctx.games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                     "options": {"client_seed_wait_s": 1}})
    game_id = created["game_id"]
    assert ctx.repository.load_state(game_id).awaited_seeds == (0, 1)
    sweeper = Sweeper(ctx, tick_s=0.1)
    sweeper.start()
    try:
        deadline = time.monotonic() + 30
        while ctx.repository.load_state(game_id).status != "playing" and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        sweeper.stop()
        sweeper.join(timeout=10)
    state = ctx.repository.load_state(game_id)
    assert state.status == "playing" and state.client_seeds == ("", "")
    closed = [r.event for r in ctx.store.load(game_id) if type(r.event).TYPE == "client_seeds_closed"]
    assert len(closed) == 1 and closed[0].seats == (0, 1) and closed[0].waited_s >= 1
