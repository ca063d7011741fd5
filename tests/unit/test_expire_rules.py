"""Expired games, an extension of the rules: a game whose seats were never all taken is ended by the
server with no winner (``game_expired``); what the state, the view, the wire form and the audit say."""

from __future__ import annotations

import pytest

from service.rules import audit, views
from service.rules import game as G
from service.rules.commands import RESIGN, ExpireGame
from service.rules.errors import RulesError
from service.rules.events import GameExpired, decode, encode

from support.rules import new_table

SEED = b"rules-test-seed"


def waiting_game():
    return G.start(G.GameSpec("gin-rami", [{"name": "ann"}, None], seed=SEED))


def test_a_game_whose_seats_never_filled_expires_with_no_winner():
    events = waiting_game()
    state, new = G.apply(G.replay(events), None, ExpireGame(86_400))
    assert new == [GameExpired(waited_s=86_400, hand_no=0, scores=(0, 0), seed=SEED.hex())]
    assert state.status == "over" and state.winner is None and state.to_act == ()
    assert views.view_state(state, None)["end"] == {"reason": "expired", "resigned": None, "idle_s": 86_400}
    # the wire form, and the audit of the whole log: its last event reveals the seed
    wire = encode(new[0])
    assert wire == {"type": "game_expired", "v": 1,
                    "data": {"waited_s": 86_400, "hand_no": 0, "scores": [0, 0], "seed": SEED.hex()}}
    assert decode(wire) == new[0]
    report = audit.verify(list(events) + new, SEED)
    assert report["ok"], report


@pytest.mark.parametrize("actor, command", [
    (0, ExpireGame(10)),         # players do not expire a game
    (None, ExpireGame(-1)),
    (None, ExpireGame(True)),
])
def test_expiry_is_the_servers_with_a_whole_wait(actor, command):
    state = G.replay(waiting_game())
    with pytest.raises(RulesError) as err:
        G.decide(state, actor, command)
    assert err.value.code == "invalid_command"
    assert state.status == "waiting"


def test_a_started_or_ended_game_does_not_expire():
    t = new_table("gin-rami", first_dealer=1)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, None, ExpireGame(10))
    assert err.value.code == "invalid_command"
    t.do(0, RESIGN)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, None, ExpireGame(10))
    assert err.value.code == "game_over"
