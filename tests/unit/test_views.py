"""What each viewer sees of states and events (hidden information; RULES.md §1, §2 advice)."""

from __future__ import annotations

import json

from service.rules import cards
from service.rules import game as G
from service.rules.commands import Advise, command_to_dict
from service.rules.events import HandDealt
from service.rules.views import view_event, view_state

from support.rules import P_GIN, P_KNOCK, deck_of, new_table

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def all_codes(obj) -> set[str]:
    """Every card code appearing anywhere in a JSON-able value."""
    found = set()
    if isinstance(obj, str):
        if obj in cards.DECK:
            found.add(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            found |= all_codes(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            found |= all_codes(v)
    return found


def views_of_events(t, viewer, reveal=False):
    state, out = None, []
    for e in t.events:
        out.append(view_event(e, viewer, state, reveal=reveal))
        state = G.evolve(state, e)
    return out


def test_seated_player_sees_own_hand_and_not_the_opponents():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    v = view_state(t.state, 1)
    json.dumps(v)
    assert set(v["hand"]) == set(P_KNOCK[0].split()) and v["hand_owner"] == 1
    assert v["hand_sizes"] == [10, 10] and v["stock_size"] == 31
    assert v["discard_pile"] == ["JC"] and v["viewer_role"] == "player"
    assert not all_codes(v) & set(P_KNOCK[1].split())  # nothing of the dealer's hand
    assert v["seed"] is None and v["stock"] is None and v["all_hands"] is None
    assert v["legal_moves"] == [{"type": "take_upcard"}, {"type": "pass_upcard"}]
    assert view_state(t.state, 0)["legal_moves"] == []


def test_spectator_sees_only_public_information():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    v = view_state(t.state, None)
    assert v["hand"] is None and v["viewer"] is None and v["viewer_role"] == "spectator"
    assert all_codes(v) == {"JC"}
    assert v["legal_moves"] == []


def test_cards_taken_from_the_discard_pile_are_known_to_everyone():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.take(1)  # the upcard JC
    for viewer in (0, 1, None):
        assert view_state(t.state, viewer)["known_cards"] == [[], ["JC"]]
    t.discard(1, "9H")
    t.pile(0)  # the dealer takes 9H
    assert view_state(t.state, None)["known_cards"] == [["9H"], ["JC"]]
    assert view_state(t.state, 1)["taken_card"] == "9H"


def test_stock_draw_is_shown_only_to_the_drawer():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    before = t.state
    (drawn,) = t.stock(1)
    assert view_event(drawn, 1, before)["data"]["card"] == "2D"
    assert view_event(drawn, 0, before)["data"]["card"] is None
    assert view_event(drawn, None, before)["data"]["card"] is None
    assert view_state(t.state, 1)["drawn_card"] == "2D"
    assert "2D" not in all_codes(view_state(t.state, 0))


def test_hand_dealt_shows_each_player_only_their_own_cards_and_the_upcard():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    i = next(i for i, e in enumerate(t.events) if isinstance(e, HandDealt))
    before = G.replay(t.events[:i])
    for viewer, own in ((1, P_KNOCK[0]), (0, P_KNOCK[1])):
        data = view_event(t.events[i], viewer, before)["data"]
        assert data["deck"] is None and data["upcard"] == "JC"
        assert set(data["hand"]) == set(own.split())
        assert all_codes(data) == set(own.split()) | {"JC"}
    assert all_codes(view_event(t.events[i], None, before)["data"]) == {"JC"}


def test_game_created_hides_the_seed_and_explicit_decks_until_the_game_is_over():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, seed=b"hidden")
    for viewer in (0, 1, None):
        data = view_event(t.events[0], viewer, None)["data"]
        assert data["seed"] is None and data["decks"] is None
        assert data["commitment"] == t.state.commitment
    full = view_event(t.events[0], None, None, reveal=True)["data"]
    assert full["seed"] == b"hidden".hex() and full["decks"][0] == deck_of(P_KNOCK)


def test_three_hand_advisor_sees_the_captains_hand_and_draws():
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    v = view_state(t.state, 2)
    assert v["viewer_role"] == "advisor" and v["hand_owner"] == 1
    assert set(v["hand"]) == set(P_KNOCK[0].split())
    assert v["legal_moves"] == []  # the advisor does not play
    box = view_state(t.state, 0)
    assert set(box["hand"]) == set(P_KNOCK[1].split()) and box["viewer_role"] == "box"
    t.pass_(1)
    t.pass_(0)
    before = t.state
    (drawn,) = t.stock(1)
    assert view_event(drawn, 2, before)["data"]["card"] == "2D"
    assert view_event(drawn, 0, before)["data"]["card"] is None
    assert view_state(t.state, 2)["drawn_card"] == "2D"


def test_box_stock_draw_is_hidden_from_the_advisor():
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    t.take(1)
    t.discard(1, "9H")
    before = t.state
    (drawn,) = t.stock(0)
    assert view_event(drawn, 0, before)["data"]["card"] is not None
    assert view_event(drawn, 2, before)["data"]["card"] is None


def test_advice_is_seen_by_captain_and_advisor_only_until_the_game_is_over():
    t = new_table("three-hand", decks=[deck_of(P_GIN)], roles=ROLES, options={"target_score": 10})
    before = t.state
    (advice,) = t.do(2, Advise("wait for the king"))
    assert view_event(advice, 1, before)["data"]["text"] == "wait for the king"
    assert view_event(advice, 2, before)["data"]["text"] == "wait for the king"
    assert view_event(advice, 0, before) is None
    assert view_event(advice, None, before) is None
    assert [a["text"] for a in view_state(t.state, 1)["advice"]] == ["wait for the king"]
    assert view_state(t.state, 2)["advice"] and not view_state(t.state, 0)["advice"]
    # the captain goes gin (25 + 5 >= 10): the game is over, everyone sees everything
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.knock(1, "KH")
    assert t.state.status == "over"
    for viewer in (0, 1, 2, None):
        v = view_state(t.state, viewer)
        assert [a["text"] for a in v["advice"]] == ["wait for the king"]
        assert v["seed"] == b"rules-test-seed".hex()
        assert len(v["all_hands"]) == 3 and v["stock"] is not None
    assert view_event(advice, 0, before, reveal=True)["data"]["text"] == "wait for the king"


def test_cards_laid_down_at_the_end_of_a_hand_are_public():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.knock(1, "9H")
    last = view_state(t.state, None)["last_hand"]
    assert last["knocker"] == 1 and last["points"] == 27
    assert last["knocker_melds"] == [["AC", "2C", "3C"], ["7D", "7H", "7S"], ["4S", "5S", "6S"]]
    assert sorted(last["defender_deadwood_cards"]) == ["9C", "KH", "KS"]
    # the knock events themselves are public
    before = G.replay(t.events[:-3])
    assert view_event(t.events[-3], None, before) is not None


def test_game_ended_reveals_the_seed_to_everyone():
    t = new_table("gin-rami", decks=[deck_of(P_GIN)], first_dealer=0, options={"target_score": 5}, seed=b"s3")
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.knock(1, "KH")
    for viewer in (0, 1, None):
        assert views_of_events(t, viewer)[-1]["data"]["seed"] == b"s3".hex()


def test_view_legal_moves_are_the_wire_form_of_legal_moves():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    v = view_state(t.state, 1)
    assert v["legal_moves"] == [command_to_dict(c) for c in G.legal_moves(t.state, 1)]
    assert {"type": "knock", "discard": "9H", "melds": None} in v["legal_moves"]


def test_views_of_a_game_waiting_for_players_show_no_cards():
    t = new_table("three-hand", players=[{"name": "ann"}, None, None])
    for viewer in (0, 1, None):
        v = view_state(t.state, viewer)
        json.dumps(v)
        assert v["status"] == "waiting" and v["hand"] is None and v["legal_moves"] == []
        assert all_codes(v) == set()
