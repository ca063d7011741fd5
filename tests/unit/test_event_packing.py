"""The packed form the store keeps events in (service/rules/codec.py): exact round trips, smaller."""

from __future__ import annotations

import json

import pytest
from support.store_behaviour import played_game

from service.rules import codec, events
from service.rules.errors import RulesError


@pytest.fixture(scope="module")
def game_events():
    return [e for batch in played_game("three-hand", seed=10) for e in batch]


def test_every_event_of_a_whole_game_unpacks_to_its_wire_form(game_events):
    kinds = set()
    for event in game_events:
        wire = events.encode(event)
        assert codec.unpack(codec.pack(wire)) == wire
        kinds.add(wire["type"])
    assert {"game_created", "hand_dealt", "card_discarded", "knocked", "hand_scored", "game_ended"} <= kinds


def test_a_deal_is_kept_as_its_codes_in_one_string():
    deck = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    wire = events.encode(events.HandDealt(hand_no=3, dealer=1, non_dealer=0, deck=tuple(deck), source="seed"))
    # worked out by hand: short type, version, then the fields in the class's order
    assert codec.pack(wire) == '["hd",1,3,1,0,"~' + "".join(deck) + '","seed"]'
    assert len(codec.pack(wire)) < len(json.dumps(wire, separators=(",", ":"))) / 2


def test_a_discard_packs_to_a_short_array():
    wire = events.encode(events.CardDiscarded(seat=1, card="TD"))
    assert codec.pack(wire) == '["di",1,1,"TD"]'


@pytest.mark.parametrize("text", ["~", "~AC", "~~", "plain", "", "naïve ♠"])
def test_strings_that_look_packed_come_back_as_they_were(text):
    wire = {"type": "hand_drawn", "v": 1, "data": {"hand_no": 2, "reason": text}}
    assert codec.unpack(codec.pack(wire)) == wire


def test_lists_of_codes_inside_lists_and_mixed_lists_come_back_as_they_were():
    wire = events.encode(events.Knocked(
        seat=0, discard="KS", melds=(("AC", "2C", "3C"), ("7H", "7S", "7D")), deadwood_cards=(), deadwood=0,
        kind="gin"))
    assert codec.unpack(codec.pack(wire)) == wire
    assert '"~AC2C3C"' in codec.pack(wire) and '"deadwood_cards"' not in codec.pack(wire)


def test_a_stored_object_is_read_as_the_wire_form_it_is():
    wire = events.encode(events.CardDiscarded(seat=0, card="5H"))
    assert codec.unpack(json.dumps(wire)) == wire
    assert codec.unpack(json.dumps(wire).encode()) == wire


@pytest.mark.parametrize("stored", ['["zz",1,0]', '["di",9,0,"TD"]', '["di",1,0,"TD","extra"]', '"text"', "[]"])
def test_a_packed_event_the_registry_cannot_read_is_refused(stored):
    with pytest.raises(RulesError):
        codec.unpack(stored)


def test_the_packed_form_of_a_whole_game_is_under_half_its_json(game_events):
    packed = sum(len(codec.pack(events.encode(e)).encode()) for e in game_events)
    plain = sum(len(json.dumps(events.encode(e), separators=(",", ":")).encode()) for e in game_events)
    assert packed < plain / 2
