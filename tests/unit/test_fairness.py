"""Randomness as data: commitment, seed-derived decks and cuts, and the audit of a log.

RULES.md §1 "Deal" (shuffle), §2 "Roles" (random cut), §3 (dealer cut). The deck derivation is
re-implemented here from the specification alone (service/docs/FAIRNESS.md, and the numbered steps
commented in service/rules/fairness.py), as another language would.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random
import struct

import pytest

from service.rules import audit, fairness
from service.rules import game as G
from service.rules.events import CardsCut, GameCreated, GameEnded, HandDealt, encode

from support.rules import P_KNOCK, deck_of, new_table

CODES = [r + s for s in "CDHS" for r in "A23456789TJQK"]


def reference_shuffle(seed: bytes, label: bytes, number: int) -> list[str]:
    """The documented algorithm, written out independently of the engine."""
    blob = b"".join(
        hmac.new(seed, label + struct.pack(">QQ", number, k), hashlib.sha256).digest() for k in range(64)
    )
    pos = 0
    order = list(CODES)
    for i in range(51, 0, -1):
        n = i + 1
        while True:
            b = blob[pos]
            pos += 1
            if b < 256 - 256 % n:
                break
        j = b % n
        order[i], order[j] = order[j], order[i]
    return order


def test_commitment_is_the_sha256_of_the_seed():
    # the FIPS 180-2 test vector for "abc"
    assert fairness.commitment(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.parametrize("seed, hand_no", [(b"abc", 1), (b"abc", 2), (bytes(range(32)), 7), (b"\x00", 123456)])
def test_deck_for_hand_follows_the_documented_algorithm(seed, hand_no):
    assert fairness.deck_for_hand(seed, hand_no) == reference_shuffle(seed, b"ginbox/deck/", hand_no)


def test_cut_cards_follow_the_documented_algorithm():
    for r in range(5):
        assert fairness.cut_cards(b"s", r, 3) == reference_shuffle(b"s", b"ginbox/cut/", r)[:3]


def test_decks_are_permutations_that_differ_by_hand_and_by_seed():
    a1, a2, b1 = (fairness.deck_for_hand(s, n) for s, n in ((b"a", 1), (b"a", 2), (b"b", 1)))
    for d in (a1, a2, b1):
        assert sorted(d) == sorted(CODES)
    assert a1 != a2 and a1 != b1
    assert fairness.deck_for_hand(b"a", 1) == a1


def test_top_card_is_spread_over_the_deck():
    """A loose sanity check of uniformity: 5200 decks put each card on top about 100 times."""
    counts = {c: 0 for c in CODES}
    for n in range(5200):
        counts[fairness.deck_for_hand(b"spread", n)[0]] += 1
    # a binomial(5200, 1/52) count lies in 45..160 with overwhelming probability
    assert min(counts.values()) > 45 and max(counts.values()) < 160


def test_game_created_commits_to_the_seed_and_views_hide_it():
    t = new_table("gin-rami", seed=b"secret")
    created = t.events[0]
    assert isinstance(created, GameCreated)
    assert created.commitment == hashlib.sha256(b"secret").hexdigest() == t.state.commitment
    assert created.seed == b"secret".hex() and created.randomly_dealt is True


def test_seeded_game_deals_from_deck_for_hand():
    t = new_table("gin-rami", seed=b"secret")
    dealt = t.last(HandDealt)
    assert dealt.source == "seed" and list(dealt.deck) == reference_shuffle(b"secret", b"ginbox/deck/", 1)


def random_game(variant: str, seed: bytes, target: int = 30) -> list:
    t = new_table(variant, seed=seed, options={"target_score": target})
    rng = random.Random(seed)
    while t.state.status == "playing":
        seat = t.state.to_act[0]
        t.do(seat, rng.choice(G.legal_moves(t.state, seat)))
    return t.events


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_verify_accepts_an_honest_log(variant):
    events = random_game(variant, b"honest-" + variant.encode())
    report = audit.verify(events, b"honest-" + variant.encode())
    assert report["ok"], [c for c in report["checks"] if not c["ok"]]
    names = {c["name"] for c in report["checks"]}
    assert {"commitment", "replay", "deal_1"} <= names
    assert any(n.startswith("cut_") for n in names)
    # the wire form verifies too, and the seed may be given in hex
    assert audit.verify([encode(e) for e in events], (b"honest-" + variant.encode()).hex())["ok"]


def failed(report) -> set[str]:
    return {c["name"] for c in report["checks"] if not c["ok"]}


def test_verify_rejects_another_seed():
    events = random_game("gin-rami", b"one")
    report = audit.verify(events, b"two")
    assert not report["ok"] and "commitment" in failed(report) and "deal_1" in failed(report)


def test_verify_rejects_a_swapped_deal():
    events = random_game("gin-rami", b"one")
    i = next(i for i, e in enumerate(events) if isinstance(e, HandDealt))
    deck = list(events[i].deck)
    deck[0], deck[30] = deck[30], deck[0]
    events[i] = dataclasses.replace(events[i], deck=tuple(deck))
    report = audit.verify(events, b"one")
    assert not report["ok"] and {"deal_1", "replay"} <= failed(report)


def test_verify_rejects_a_forged_cut():
    events = random_game("three-hand", b"one")
    i = next(i for i, e in enumerate(events) if isinstance(e, CardsCut))
    events[i] = dataclasses.replace(events[i], cards=("KS", "QS", "JS"))
    assert "cut_0" in failed(audit.verify(events, b"one"))


def test_verify_rejects_forged_final_scores():
    events = random_game("gin-rami", b"one")
    end = events[-1]
    assert isinstance(end, GameEnded)
    events[-1] = dataclasses.replace(end, scores=(end.scores[0] + 1, end.scores[1]))
    assert "replay" in failed(audit.verify(events, b"one"))


def test_verify_accepts_explicit_decks_and_flags_them():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, seed=b"x")
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.knock(1, "9H")
    report = audit.verify(t.events, b"x")
    assert report["ok"], failed(report)
    assert t.events[0].randomly_dealt is False
    assert t.last(HandDealt).source == "seed"  # hand 2 comes from the seed again


def test_verify_replays_seats_claimed_after_creation():
    from service.rules.commands import ClaimSeat

    t = new_table("three-hand", seed=b"open", players=[None, {"name": "bob"}, None],
                  options={"target_score": 10})
    t.do(None, ClaimSeat(0, {"name": "ann"}))
    t.do(None, ClaimSeat(2, {"name": "cat", "bot": "basic"}))
    rng = random.Random(3)
    while t.state.status == "playing":
        seat = t.state.to_act[0]
        t.do(seat, rng.choice(G.legal_moves(t.state, seat)))
    report = audit.verify(t.events, b"open")
    assert report["ok"], failed(report)


def test_verify_rejects_a_forged_hand_result():
    events = random_game("gin-rami", b"one", target=10)
    from service.rules.events import HandScored

    i = next(i for i, e in enumerate(events) if isinstance(e, HandScored))
    events[i] = dataclasses.replace(events[i], points=events[i].points + 5)
    assert "replay" in failed(audit.verify(events, b"one"))
