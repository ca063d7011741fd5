"""Seats by invitation, an extension (RULES.md Extensions, Private games): the log records only the
hash of each open seat's invite secret, hides it from views while the game runs, and replays."""

from __future__ import annotations

import hashlib

import pytest

from service.rules import audit, views
from service.rules import game as G
from service.rules.commands import ClaimSeat
from service.rules.errors import RulesError
from service.rules.events import GameCreated, decode, encode

SEED = b"invite-test-seed"
SECRET_HASH = hashlib.sha256(b"the secret of seat 1").hexdigest()


def private_game(invites=None):
    spec = G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED, first_dealer=0,
                      invites={1: SECRET_HASH} if invites is None else invites)
    return G.start(spec)


def test_the_creation_event_records_the_hash_of_each_invited_seat():
    created = private_game()[0]
    assert created.invites == {"1": SECRET_HASH}
    assert encode(created)["data"]["invites"] == {"1": SECRET_HASH}
    state = G.replay(private_game())
    assert state.invites == {"1": SECRET_HASH} and state.status == "waiting"


def test_a_public_games_creation_event_is_written_as_before_invites_existed():
    created = G.start(G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED))[0]
    wire = encode(created)
    assert "invites" not in wire["data"]
    # and a v1 event written before invites existed reads back with none
    assert decode(wire).invites is None and decode(wire) == created


@pytest.mark.parametrize("invites", [
    {0: SECRET_HASH},               # seat 0 is taken by ann: only open seats are by invitation
    {2: SECRET_HASH},               # gin-rami has seats 0 and 1
    {1: "not-a-hash"},
    {1: SECRET_HASH.upper()},       # hex digests are written in lower case
    ["1"],
])
def test_invites_name_open_seats_with_sha256_hex_digests(invites):
    with pytest.raises(RulesError) as err:
        private_game(invites)
    assert err.value.code == "invalid_invites"


def test_views_show_which_seats_are_private_but_not_the_hashes_until_the_game_is_over():
    events = private_game()
    state = G.replay(events)
    for viewer in (None, 0):
        assert views.view_state(state, viewer)["private_seats"] == [1]
        shown = views.view_event(events[0], viewer, None)
        assert shown["data"]["invites"] == {"1": None}
    public = G.replay(G.start(G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED)))
    assert views.view_state(public, None)["private_seats"] == []


def test_the_engine_seats_a_claim_of_a_private_seat_the_service_checked_and_the_audit_replays_it():
    """The secret is the service's to check (the engine never sees one): a claim reaches the engine
    only once the secret matched, and replays like any claim."""
    log = private_game()
    state = G.replay(log)
    state, new = G.apply(state, None, ClaimSeat(1, {"name": "bob"}))
    log += new
    assert state.status == "playing"
    report = audit.verify(log, SEED)
    assert report["ok"], report
    assert isinstance(log[0], GameCreated) and log[0].invites == {"1": SECRET_HASH}
