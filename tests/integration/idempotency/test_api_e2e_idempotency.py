"""Idempotency-Key over HTTP: a retried move changes nothing and gets the first answer again."""

from __future__ import annotations

from support.decks import build_deck
from support.gameplay import create_game, etag_version

NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()
DECK = build_deck(NON_DEALER, DEALER, "TH", ["QS", "JS"])


def _game(api):
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0, decks=[DECK])


def test_a_retried_move_with_the_same_key_changes_nothing_and_gets_the_same_answer(api):
    g = _game(api)
    v0 = g.version()
    first = g.post_move(1, {"type": "take_upcard"}, key="take-1")
    assert first.status_code == 200
    assert etag_version(first) == v0 + 1
    events_after_first = g.events(1)

    again = g.post_move(1, {"type": "take_upcard"}, key="take-1")
    assert again.status_code == first.status_code
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert g.version() == v0 + 1
    assert g.events(1) == events_after_first

    # the game moves on; the retry still answers what the first request got, and moves nothing
    g.move(1, {"type": "discard", "card": "KS"})
    v2 = g.version()
    late = g.post_move(1, {"type": "take_upcard"}, key="take-1")
    assert late.status_code == 200
    assert late.get_json() == first.get_json()
    assert g.version() == v2


def test_the_same_key_with_another_body_is_422_idempotency_key_reused(api):
    g = _game(api)
    g.move(1, {"type": "take_upcard"}, key="k-1")
    v = g.version()
    resp = g.post_move(1, {"type": "discard", "card": "KS"}, key="k-1")
    assert resp.status_code == 422
    assert resp.get_json()["code"] == "idempotency_key_reused"
    assert g.version() == v
    # the key is not burnt for its own body
    assert g.post_move(1, {"type": "take_upcard"}, key="k-1").status_code == 200
    assert g.version() == v


def test_another_seat_sending_the_same_key_makes_its_own_request_and_never_gets_the_first_view(api):
    g = _game(api)
    first = g.move(1, {"type": "take_upcard"}, key="shared")
    v = g.version()
    resp = g.post_move(0, {"type": "take_upcard"}, key="shared")
    # keys belong to the seat that sends them: seat 0's request is decided as its own (it is not
    # seat 0's turn), neither answered with seat 1's view (its hand) nor refused as a reused key
    assert resp.status_code == 409 and resp.get_json()["code"] == "not_your_turn"
    assert sorted(first["hand"]) == sorted(NON_DEALER + ["TH"])
    assert g.version() == v
    # and seat 1's key still answers seat 1's first request
    assert g.post_move(1, {"type": "take_upcard"}, key="shared").get_json() == first


def test_a_retried_refused_move_gets_the_same_refusal_and_changes_nothing(api):
    g = _game(api)
    v = g.version()
    bad = g.post_move(1, {"type": "draw_stock"}, key="early")
    assert bad.status_code == 409 and bad.get_json()["code"] == "wrong_phase"
    again = g.post_move(1, {"type": "draw_stock"}, key="early")
    assert again.status_code == 409 and again.get_json() == bad.get_json()
    assert g.version() == v
