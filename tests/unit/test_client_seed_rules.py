"""Client seeds in the engine (service/docs/FAIRNESS.md; RULES.md Extensions, Client seeds): who
may send one and when, when the first cut and deal happen, the key they derive from, the wire
forms, and games recorded before client seeds (derivation 1) unchanged."""

from __future__ import annotations

import hashlib

import pytest

from service.rules import audit, commands, events as E, fairness, game
from service.rules.errors import RulesError

SEED = bytes(range(32))


def start(players, wait=None, variant="gin-rami", derivation=2):
    options = {} if wait is None else {"client_seed_wait_s": wait}
    log = game.start(game.GameSpec(variant=variant, players=players, options=options, seed=SEED, fairness=derivation))
    return log, game.replay(log)


def apply(log, state, actor, command):
    new = game.decide(state, actor, command)
    for e in new:
        state = game.evolve(state, e)
    return log + new, state, new


def kinds(events):
    return [type(e).TYPE for e in events]


def test_the_key_is_the_sha256_of_the_length_prefixed_seed_and_client_seeds():
    # written out from FAIRNESS.md, not from the module's code
    data = (b"ginbox/deal-key/v2" + (32).to_bytes(4, "big") + SEED + bytes([2])
            + (3).to_bytes(2, "big") + b"ann" + (0).to_bytes(2, "big"))
    assert fairness.deal_key(2, SEED, ["ann", None]) == hashlib.sha256(data).digest()
    assert fairness.deal_key(2, SEED, ["ann", ""]) == hashlib.sha256(data).digest()
    assert fairness.deal_key(2, SEED, ["", "ann"]) != hashlib.sha256(data).digest()
    # "é" is two bytes of UTF-8: the length prefix counts bytes
    accented = (b"ginbox/deal-key/v2" + (32).to_bytes(4, "big") + SEED + bytes([2])
                + (2).to_bytes(2, "big") + "é".encode() + (0).to_bytes(2, "big"))
    assert fairness.deal_key(2, SEED, ["é", None]) == hashlib.sha256(accented).digest()
    assert fairness.deal_key(1, SEED, ["ann", None]) == SEED
    with pytest.raises(ValueError):
        fairness.deal_key(3, SEED, [None, None])


@pytest.mark.parametrize("bad", ["", "x" * 65, "tab\there", "nul\x00", "del\x7f", "\ud800", 7, None, b"bytes", ["a"]])
def test_a_client_seed_is_text_of_1_to_64_characters_without_control_characters(bad):
    with pytest.raises(RulesError) as err:
        fairness.check_client_seed(bad)
    assert err.value.code == "invalid_client_seed"
    with pytest.raises(RulesError):
        commands.SendClientSeed(bad)
    if bad is not None:
        with pytest.raises(RulesError):
            commands.ClaimSeat(1, {"name": "bob"}, bad)


@pytest.mark.parametrize("good", ["a", "x" * 64, "trèfle ☘ 🂡", " spaces ", "0" * 64])
def test_good_client_seeds_pass(good):
    assert fairness.check_client_seed(good) == good


def test_with_a_wait_the_deal_waits_for_every_human_seat_then_uses_every_seed():
    log, s = start([{"name": "ann"}, None], wait=60)
    assert s.awaited_seeds == (0,) and s.status == "waiting"
    log, s, new = apply(log, s, 0, commands.SendClientSeed("ann"))
    assert kinds(new) == ["client_seed_sent"] and s.client_seeds == ("ann", None)
    # bob's claim without a seed fills the table, but the deal waits for his seed
    log, s, new = apply(log, s, None, commands.ClaimSeat(1, {"name": "bob"}))
    assert kinds(new) == ["seat_claimed"] and s.awaited_seeds == (1,) and s.hand_no == 0
    with pytest.raises(RulesError) as err:
        game.decide(s, 0, commands.DRAW_STOCK)
    assert err.value.code == "game_not_started"
    log, s, new = apply(log, s, 1, commands.SendClientSeed("bob"))
    assert kinds(new)[:2] == ["client_seed_sent", "cards_cut"] and kinds(new)[-1] == "hand_dealt"
    key = fairness.deal_key(2, SEED, ["ann", "bob"])
    assert list(new[-1].deck) == fairness.deck_for_hand(key, 1)
    assert list(new[1].cards) == fairness.cut_cards(key, 0, 2)
    assert s.status == "playing" and s.awaited_seeds == ()
    assert audit.verify(log, SEED)["ok"]


def test_without_a_wait_the_last_claim_deals_with_the_seeds_in_by_then():
    log, s = start([{"name": "ann"}, None])
    assert s.awaited_seeds == ()
    log, s, new = apply(log, s, None, commands.ClaimSeat(1, {"name": "bob"}, "bob"))
    assert kinds(new)[:3] == ["seat_claimed", "client_seed_sent", "cards_cut"] and s.status == "playing"
    assert list(new[-1].deck) == fairness.deck_for_hand(fairness.deal_key(2, SEED, [None, "bob"]), 1)
    with pytest.raises(RulesError) as err:
        game.decide(s, 0, commands.SendClientSeed("late"))
    assert err.value.code == "client_seed_too_late" and err.value.conflict


def test_later_hands_derive_from_the_same_key():
    log, s = start([{"name": "ann"}, {"name": "bob"}])
    key = fairness.deal_key(2, SEED, [None, None])
    assert s.deal_seed == key
    from service.rules.setup import deal

    assert list(deal(s.deal_seed, None, 2, 0, 1).deck) == fairness.deck_for_hand(key, 2)
    assert fairness.deck_for_hand(key, 2) != fairness.deck_for_hand(SEED, 2)


def test_a_seat_sends_one_seed_and_only_a_seated_player_sends_it():
    log, s = start([{"name": "ann"}, None], wait=60)
    log, s, _ = apply(log, s, 0, commands.SendClientSeed("ann"))
    for actor, code in [(0, "client_seed_already_sent"), (1, "not_a_player"), (5, "not_a_player"), (None, "not_a_player")]:
        with pytest.raises(RulesError) as err:
            game.decide(s, actor, commands.SendClientSeed("again"))
        assert err.value.code == code


def test_closing_the_wait_deals_with_the_default_for_the_seats_missing():
    log, s = start([{"name": "ann"}, {"name": "bob"}, {"name": "cat"}], wait=60, variant="three-hand")
    log, s, _ = apply(log, s, 1, commands.SendClientSeed("bob"))
    with pytest.raises(RulesError):
        game.decide(s, 0, commands.CloseClientSeeds(60))  # a player may not close it
    log, s, new = apply(log, s, None, commands.CloseClientSeeds(61))
    assert kinds(new)[0] == "client_seeds_closed" and new[0].seats == (0, 2) and new[0].waited_s == 61
    assert kinds(new)[-2:] == ["roles_assigned", "hand_dealt"]
    assert s.client_seeds == ("", "bob", "")
    assert list(new[-1].deck) == fairness.deck_for_hand(fairness.deal_key(2, SEED, [None, "bob", None]), 1)
    with pytest.raises(RulesError) as err:
        game.decide(s, None, commands.CloseClientSeeds(70))
    assert err.value.code == "client_seeds_not_awaited"
    assert audit.verify(log, SEED)["ok"]


def test_the_wait_is_not_closed_while_a_seat_is_open_or_nothing_is_awaited():
    _, s = start([{"name": "ann"}, None], wait=60)
    with pytest.raises(RulesError) as err:
        game.decide(s, None, commands.CloseClientSeeds(61))
    assert err.value.code == "client_seeds_not_awaited"


def test_bots_send_no_seed_and_a_table_of_bots_is_dealt_at_once():
    log, s = start([{"name": "bot-a", "bot": "basic"}, {"name": "bot-b", "bot": "random"}], wait=60)
    assert s.status == "playing" and kinds(log)[-1] == "hand_dealt"
    log, s = start([{"name": "ann"}, {"name": "bot", "bot": "basic"}], wait=60)
    assert s.awaited_seeds == (0,)


def test_a_game_recorded_before_client_seeds_has_derivation_1_and_encodes_as_it_always_did():
    log, s = start([{"name": "ann"}, {"name": "bob"}], derivation=None)
    wire = E.encode(log[0])
    assert "fairness" not in wire["data"] and log[0].derivation == 1 and s.fairness == 1
    assert s.deal_seed == SEED and list(log[-1].deck) == fairness.deck_for_hand(SEED, 1)
    with pytest.raises(RulesError) as err:
        start([{"name": "ann"}, None], wait=60, derivation=None)
    assert err.value.code == "invalid_option"
    log, s = start([{"name": "ann"}, None], derivation=None)
    with pytest.raises(RulesError) as err:
        game.decide(s, 0, commands.SendClientSeed("ann"))
    assert err.value.code == "client_seeds_not_used"
    with pytest.raises(RulesError) as err:
        game.decide(s, None, commands.ClaimSeat(1, {"name": "bob"}, "bob"))
    assert err.value.code == "client_seeds_not_used"


def test_new_events_and_commands_go_over_the_wire_and_back():
    created = start([{"name": "ann"}, None], wait=60)[0][0]
    assert E.encode(created)["data"]["fairness"] == 2 and E.decode(E.encode(created)) == created
    for e in (E.ClientSeedSent(1, "bob ☘"), E.ClientSeedsClosed((0, 2), 31)):
        assert E.decode(E.encode(e)) == e
    for c in (commands.SendClientSeed("x"), commands.ClaimSeat(1, {"name": "b"}, "y"), commands.ClaimSeat(1, {"name": "b"})):
        assert commands.command_from_dict(commands.command_to_dict(c)) == c
    assert "client_seed" not in commands.command_to_dict(commands.ClaimSeat(1, {"name": "b"}))
    assert "client_seed" in commands.MOVE_TYPES


def test_the_audit_rejects_a_seed_sent_after_the_deal_or_twice():
    log, s = start([{"name": "ann"}, None])
    log, s, _ = apply(log, s, None, commands.ClaimSeat(1, {"name": "bob"}, "bob"))
    log, s, _ = apply(log, s, 0, commands.RESIGN)
    assert audit.verify(log, SEED)["ok"]
    late = log[:-1] + [E.ClientSeedSent(0, "ann")] + log[-1:]
    failed = {c["name"] for c in audit.verify(late, SEED)["checks"] if not c["ok"]}
    assert {"client_seeds", "replay"} <= failed
    twice = log[:3] + [E.ClientSeedSent(1, "bob2")] + log[3:]
    failed = {c["name"] for c in audit.verify(twice, SEED)["checks"] if not c["ok"]}
    assert {"client_seeds", "replay"} <= failed
