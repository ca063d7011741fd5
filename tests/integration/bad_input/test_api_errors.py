"""Every refusal is problem+json with a stable code, and leaves the game as it was.

The validating client already checks that each error answer is declared in openapi.yaml and
is problem+json with ``code`` and ``status``; these tests pin the status and code of each case
and that the game's version and log did not move.
"""

from __future__ import annotations

import pytest

from support.apiclient import ValidatingClient, load_openapi, make_app
from support.cardmath import min_deadwood
from support.decks import build_deck
from support.gameplay import create_game
from support.problems import problem as _problem

# gin rami, seat 0 deals: seat 1 (non-dealer) holds these ten cards, the upcard is TH
NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()
DECK = build_deck(NON_DEALER, DEALER, "TH", ["QS"])


@pytest.fixture
def game(api):
    """A gin-rami game at its first move: seat 1 to take or pass the upcard TH."""
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0, decks=[DECK])




def _unchanged(g, before: int) -> None:
    """The game is still at ``before`` and its log holds exactly ``before`` events."""
    assert g.version() == before
    assert [e["version"] for e in g.events(0)][-1] == before


def test_unknown_game_is_404_game_not_found_on_every_game_route(api, game):
    missing = "no-such-game-000"
    token = game.tokens[0]
    assert api.get("/games/no-such-game-000").status_code == 404
    for method, path, kw in [
        ("GET", f"/games/{missing}", {}),
        ("GET", f"/games/{missing}/events", {}),
        ("GET", f"/games/{missing}/state", {"query_string": {"version": 1}}),
        ("GET", f"/games/{missing}/audit", {}),
        ("GET", f"/games/{missing}/export", {}),
        ("GET", f"/games/{missing}/stream", {"query_string": {"once": 1}}),
        ("POST", f"/games/{missing}/moves", {"json": {"type": "draw_stock"}, "token": token}),
        ("POST", f"/games/{missing}/advice", {"json": {"text": "hi"}, "token": token}),
        ("POST", f"/games/{missing}/seats/0", {"json": {"name": "zed"}}),
    ]:
        _problem(api.open(method, path, **kw), 404, "game_not_found")


def test_missing_or_unknown_token_is_401_unauthorized_and_changes_nothing(api, game):
    before = game.version()
    path = f"/games/{game.game_id}/moves"
    move = {"type": "take_upcard"}
    _problem(api.post(path, json=move), 401, "unauthorized")
    _problem(api.post(path, json=move, token="not-a-token-of-this-game"), 401, "unauthorized")
    _problem(api.post(path, json=move, headers={"Authorization": f"Basic {game.tokens[1]}"}), 401, "unauthorized")
    # a token of another game is no token of this one
    other = create_game(api, "gin-rami", [{"name": "cy"}, {"name": "di"}])
    resp = api.post(path, json=move, token=other.tokens[1])
    _problem(resp, 401, "unauthorized")
    assert "WWW-Authenticate" in resp.headers
    # reading with a bad token is refused too, rather than silently served as a spectator
    _problem(api.get(f"/games/{game.game_id}", token="bogus"), 401, "unauthorized")
    _unchanged(game, before)


def test_a_seat_whose_role_may_not_move_is_403_forbidden(api):
    """RULES.md §2: the advisor sits out the hand (no moves)."""
    g = create_game(api, "three-hand", [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                    roles={"box": 0, "captain": 1, "advisor": 2})
    before = g.version()
    _problem(g.post_move(2, {"type": "take_upcard"}), 403, "forbidden")
    _unchanged(g, before)


def test_advice_from_a_seat_that_is_not_the_advisor_is_409_not_advisor(api):
    """RULES.md §2: only the advisor of the hand in play advises (the roles move between hands);
    gin rami has no advisor. The engine's code, as openapi.yaml lists it."""
    g = create_game(api, "three-hand", [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                    roles={"box": 0, "captain": 1, "advisor": 2})
    before = g.version()
    for seat in (0, 1):
        _problem(api.post(f"/games/{g.game_id}/advice", json={"text": "take it"}, token=g.tokens[seat]),
                 409, "not_advisor")
    _unchanged(g, before)
    assert api.get(f"/games/{g.game_id}/advice", token=g.tokens[1]).get_json() == {"advice": []}
    r = create_game(api, "gin-rami", [{"name": "a"}, {"name": "b"}])
    before = r.version()
    _problem(api.post(f"/games/{r.game_id}/advice", json={"text": "hello"}, token=r.tokens[0]), 409, "not_advisor")
    _unchanged(r, before)


def test_moves_the_state_forbids_are_409_with_the_engine_code(api, game):
    """Seat 0 is not to act; seat 1 must take or pass the upcard before drawing (RULES.md §1 First turn)."""
    before = game.version()
    _problem(game.post_move(0, {"type": "take_upcard"}), 409, "not_your_turn")
    _problem(game.post_move(1, {"type": "draw_stock"}), 409, "wrong_phase")
    _unchanged(game, before)
    game.move(1, {"type": "take_upcard"})
    before = game.version()
    _problem(game.post_move(1, {"type": "draw_stock"}), 409, "already_drawn")
    _unchanged(game, before)


def test_illegal_moves_are_422_with_the_engine_code_and_change_nothing(api, game):
    game.move(1, {"type": "take_upcard"})  # seat 1 now holds NON_DEALER + TH
    before = game.version()
    # RULES.md §1 A normal turn: a card not held cannot be discarded
    _problem(game.post_move(1, {"type": "discard", "card": "QS"}), 422, "card_not_in_hand")
    # RULES.md §1 [decision]: the card just taken from the discard pile may not be discarded
    _problem(game.post_move(1, {"type": "discard", "card": "TH"}), 422, "cannot_discard_taken_card")
    # RULES.md §1 Knocking: after discarding AC, 4D 4H 4S and 7H-8H-9H-TH are melds and the
    # deadwood is 2C 2 + 3C 3 + KS 10 = 15 > 10
    assert min_deadwood([c for c in NON_DEALER + ["TH"] if c != "AC"]) == 15
    _problem(game.post_move(1, {"type": "knock", "discard": "AC", "melds": None}), 422, "knock_deadwood_too_high")
    # melds that are no meld: A-2-3 of clubs is a run, A-2 plus 4D is not
    _problem(game.post_move(1, {"type": "knock", "discard": "KS", "melds": [["AC", "2C", "4D"]]}),
             422, "invalid_melds")
    # RULES.md §3: big gin needs all eleven cards melded
    _problem(game.post_move(1, {"type": "knock", "discard": None, "melds": None}), 422, "not_big_gin")
    _unchanged(game, before)


@pytest.mark.parametrize("body,field", [
    ({"type": "draw_stock", "extra": 1}, "extra"),
    ({"type": "discard", "card": "TH", "colour": "red"}, "colour"),
    ({"type": "teleport"}, "type"),
    ({"type": "discard", "card": "11X"}, "card"),
    ({"type": "discard"}, "card"),
])
def test_unknown_or_malformed_move_fields_are_400_invalid_body(api, game, body, field):
    before = game.version()
    problem = _problem(game.post_move(1, body), 400, "invalid_body")
    assert field in problem["errors"], problem
    _unchanged(game, before)


def test_unknown_fields_when_creating_a_game_are_400_invalid_body_with_per_field_errors(api):
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}], "colour": "red"})
    problem = _problem(resp, 400, "invalid_body")
    assert "colour" in problem["errors"]
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}],
                                    "options": {"target_score": 50, "speed": 3}})
    problem = _problem(resp, 400, "invalid_body")
    assert "options" in problem["errors"]
    resp = api.post("/games", json={"variant": "poker", "seats": [{"name": "a"}, {"name": "b"}]})
    assert "variant" in _problem(resp, 400, "invalid_body")["errors"]
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "a"}, {"name": "b"}],
                                    "decks": [DECK[:51] + DECK[:1]]})
    assert "decks" in _problem(resp, 400, "invalid_body")["errors"]


@pytest.mark.parametrize("budget", [9, 5001, "500", 500.5, True, None])
def test_a_bot_seats_budget_outside_10_to_5000_whole_ms_is_400_invalid_body(api, budget):
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"bot": "expert", "budget_ms": budget},
                                                                      {"name": "b"}]})
    assert "seats" in _problem(resp, 400, "invalid_body")["errors"]


def test_a_bot_seats_budget_is_kept_in_the_game_and_shown_to_players(api):
    resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"bot": "expert", "budget_ms": 750},
                                                                      {"name": "b"}]})
    assert resp.status_code == 201, resp.get_json()
    view = api.get(f"/games/{resp.get_json()['game_id']}").get_json()
    assert view["players"][0] == {"name": "expert-bot-0", "bot": "expert", "budget_ms": 750}
    assert view["players"][1] == {"name": "b"}


def test_a_body_over_the_size_limit_is_413_body_too_large(api, game):
    before = game.version()
    big = '{"type": "draw_stock", "pad": "' + "x" * (70 * 1024) + '"}'
    resp = api.post(f"/games/{game.game_id}/moves", data=big, content_type="application/json",
                    token=game.tokens[1])
    _problem(resp, 413, "body_too_large")
    _problem(api.post("/games", data=big, content_type="application/json"), 413, "body_too_large")
    _unchanged(game, before)


def test_a_body_that_is_not_json_is_400_invalid_json_or_415(api, game):
    before = game.version()
    path = f"/games/{game.game_id}/moves"
    _problem(api.post(path, data="{not json", content_type="application/json", token=game.tokens[1]),
             400, "invalid_json")
    _problem(api.post(path, data=b"\xff\xfe\x00", content_type="application/json", token=game.tokens[1]),
             400, "invalid_json")
    _problem(api.post(path, data="type=draw_stock", content_type="application/x-www-form-urlencoded",
                      token=game.tokens[1]), 415, "unsupported_media_type")
    _problem(api.post(path, data='{"type": "take_upcard"}', content_type="text/plain", token=game.tokens[1]),
             415, "unsupported_media_type")
    _problem(api.post("/games", data="[1, 2", content_type="application/json"), 400, "invalid_json")
    _unchanged(game, before)


def test_a_stale_if_match_is_412_version_mismatch_with_the_current_etag(api, game):
    before = game.version()
    resp = game.post_move(1, {"type": "take_upcard"}, if_match=before - 1)
    _problem(resp, 412, "version_mismatch")
    assert resp.headers["ETag"] == f'"{before}"'
    _problem(game.post_move(1, {"type": "take_upcard"}, if_match=before + 5), 412, "version_mismatch")
    _unchanged(game, before)
    # the right version is accepted
    assert game.move(1, {"type": "take_upcard"}, if_match=before)["version"] == before + 1


def test_time_travel_to_a_version_that_does_not_exist_is_refused(api, game):
    current = game.version()
    _problem(game.state_at(current + 1), 404, "version_not_found")
    _problem(game.state_at(0), 422, "invalid_version")
    _problem(api.get(f"/games/{game.game_id}/state", query_string={"version": "abc"}), 400, "invalid_query")
    _problem(api.get(f"/games/{game.game_id}/state"), 400, "invalid_query")


def test_bad_query_parameters_are_400_invalid_query(api, game):
    _problem(api.get(f"/games/{game.game_id}/events", query_string={"limit": 0}), 400, "invalid_query")
    _problem(api.get(f"/games/{game.game_id}/events", query_string={"after": -1}), 400, "invalid_query")
    _problem(api.get("/games", query_string={"status": "sleeping"}), 400, "invalid_query")
    _problem(api.get("/games", query_string={"limit": 101}), 400, "invalid_query")
    _problem(api.get("/games", query_string={"cursor": "not-a-cursor"}), 400, "invalid_query")


def test_audit_and_export_before_the_end_are_409_game_not_over(api, game):
    _problem(api.get(f"/games/{game.game_id}/audit"), 409, "game_not_over")
    _problem(api.get(f"/games/{game.game_id}/export"), 409, "game_not_over")


def test_claiming_a_taken_or_missing_seat_is_refused(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert g.view(None)["status"] == "waiting"
    before = g.version()
    _problem(api.post(f"/games/{g.game_id}/seats/0", json={"name": "eve"}), 409, "seat_taken")
    _problem(api.post(f"/games/{g.game_id}/seats/5", json={"name": "eve"}), 404, "seat_not_found")
    _problem(api.post(f"/games/{g.game_id}/seats/1", json={"name": ""}), 400, "invalid_body")
    _unchanged(g, before)
    resp = api.post(f"/games/{g.game_id}/seats/1", json={"name": "eve"})
    assert resp.status_code == 201
    assert resp.get_json()["view"]["status"] == "playing"
    _problem(api.post(f"/games/{g.game_id}/seats/1", json={"name": "fay"}), 409, "seat_taken")


def test_unknown_routes_and_methods_are_problems_too(api):
    _problem(api.get("/no/such/route"), 404, "not_found")
    resp = api.delete("/games")
    _problem(resp, 405, "method_not_allowed")
    assert "POST" in resp.headers["Allow"]


def test_over_the_rate_limit_is_429_rate_limited_with_retry_after(redis_url, key_prefix):
    strict = ValidatingClient(make_app(redis_url, key_prefix, rate_limit_per_minute=3), load_openapi())
    answers = [strict.get("/games") for _ in range(4)]
    assert [r.status_code for r in answers[:3]] == [200, 200, 200]
    problem = _problem(answers[3], 429, "rate_limited")
    assert int(answers[3].headers["Retry-After"]) >= 1
    assert problem["detail"]
    # the probes are never limited: an orchestrator must always reach them
    assert strict.get("/healthz").status_code == 200



def _hit_until_refused(client, forwarded_for: str | None, n: int = 4) -> list[int]:
    headers = {} if forwarded_for is None else {"X-Forwarded-For": forwarded_for}
    return [client.get("/games", headers=headers, environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code
            for _ in range(n)]


def test_without_trusted_proxies_x_forwarded_for_is_ignored_so_a_client_cannot_dodge_the_limit(redis_url,
                                                                                                key_prefix):
    client = make_app(redis_url, key_prefix, rate_limit_per_minute=3).test_client()
    assert _hit_until_refused(client, "1.1.1.1", 3) == [200, 200, 200]
    # another forwarded address from the same peer is the same client
    assert _hit_until_refused(client, "2.2.2.2", 1) == [429]


def test_behind_one_trusted_proxy_each_forwarded_client_has_its_own_limit(redis_url, key_prefix):
    client = make_app(redis_url, key_prefix, rate_limit_per_minute=3, proxy_hops=1).test_client()
    assert _hit_until_refused(client, "1.1.1.1") == [200, 200, 200, 429]
    assert _hit_until_refused(client, "2.2.2.2", 3) == [200, 200, 200]
    # what a client wrote into the header itself comes before the proxy's entry and is not believed
    assert _hit_until_refused(client, "2.2.2.2, 1.1.1.1", 1) == [429]
    assert _hit_until_refused(client, "1.1.1.1, 3.3.3.3", 1) == [200]


def test_a_negative_number_of_proxies_is_refused_at_start(redis_url, key_prefix):
    with pytest.raises(ValueError, match="GINBOX_PROXY_HOPS"):
        make_app(redis_url, key_prefix, proxy_hops=-1)