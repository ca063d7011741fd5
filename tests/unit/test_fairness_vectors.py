"""The published fairness vectors (service/docs/fairness-vectors.json): the file is what the
independent generator computes from the specification, it covers the edge cases, it ships in
the package, and the engine's fairness module agrees with every vector."""

from __future__ import annotations

import fnmatch
import importlib.resources
import itertools
import json
import tomllib
from pathlib import Path

import pytest

from service.rules import commands, events, fairness, game
from support import fairness_vectors

REPO = Path(__file__).resolve().parents[2]
VECTORS_PATH = REPO / "service" / "docs" / "fairness-vectors.json"
VECTORS = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
SEEDS = {s["name"]: bytes.fromhex(s["seed"]) for s in VECTORS["seeds"]}


def _id(v: dict) -> str:
    return "-".join(str(v[k]) for k in ("seed", "label", "number", "hand_no", "round", "count", "n") if k in v)


def test_the_file_is_exactly_what_the_generator_computes_from_the_specification():
    assert VECTORS_PATH.read_text(encoding="utf-8") == fairness_vectors.render(), (
        "regenerate: python tests/support/fairness_vectors.py > service/docs/fairness-vectors.json"
    )


def test_the_vectors_cover_the_edge_cases():
    hands = [v["hand_no"] for v in VECTORS["decks"]]
    assert any(255 < h < 2**32 for h in hands), "a hand number needing a second byte"
    assert any(h >= 2**32 for h in hands), "a hand number needing more than four bytes"
    assert any(r > 255 for r in (v["round"] for v in VECTORS["cuts"])), "a cut round needing a second byte"
    assert {v["count"] for v in VECTORS["cuts"]} == {2, 3}, "gin-rami and three-hand cuts"
    assert any(len(s) > 64 for s in SEEDS.values()), "a seed longer than HMAC-SHA256's block"
    assert any(len(s) == 1 for s in SEEDS.values())
    assert all(len(v["first_bytes"]) // 2 > 64 for v in VECTORS["byte_streams"]), "streams run into block 2"
    draws = VECTORS["uniform_draws"]
    assert any(d["rejected_bytes"][:2] and d["bytes_read"] - len(d["values"]) >= 2 for d in draws)
    assert any(d["n"] == 3 and 255 in d["rejected_bytes"] for d in draws), "255 is the one byte n=3 rejects"
    assert any(256 % d["n"] == 0 for d in draws), "an n that never rejects"
    assert all(v["rejected_bytes"] for v in VECTORS["decks"][:2]), "shuffles that read past rejected bytes"


@pytest.mark.parametrize("draw", VECTORS["uniform_draws"], ids=_id)
def test_each_uniform_draw_is_in_range_and_every_rejected_byte_was_at_or_over_the_limit(draw):
    # rule 2 restated on the file itself: what a draw rejects and what it returns
    n, limit = draw["n"], 256 - 256 % draw["n"]
    assert all(0 <= x < n for x in draw["values"])
    assert all(b >= limit for b in draw["rejected_bytes"])
    assert draw["bytes_read"] == len(draw["values"]) + len(draw["rejected_bytes"])


@pytest.mark.parametrize("v", VECTORS["decks"], ids=_id)
def test_each_deck_is_the_52_cards_once(v):
    assert sorted(v["deck"]) == sorted(r + s for r in "A23456789TJQK" for s in "CDHS")


def test_the_block_messages_are_label_then_number_and_counter_as_eight_bytes_big_endian():
    v = next(v for v in VECTORS["byte_streams"] if v["number"] == 2**32 + 1)
    assert v["block_messages"][2] == b"ginbox/deck/".hex() + "0000000100000001" + "0000000000000002"


# -- the engine agrees -------------------------------------------------------------------------


@pytest.mark.parametrize("v", VECTORS["seeds"], ids=lambda v: v["name"])
def test_fairness_commitment_matches_the_vector(v):
    assert fairness.commitment(bytes.fromhex(v["seed"])) == v["commitment"]


@pytest.mark.parametrize("v", VECTORS["byte_streams"], ids=_id)
def test_fairness_byte_stream_matches_the_vector(v):
    stream = fairness._byte_stream(SEEDS[v["seed"]], v["label"].encode("ascii"), v["number"])
    count = len(v["first_bytes"]) // 2
    assert bytes(itertools.islice(stream, count)).hex() == v["first_bytes"]


@pytest.mark.parametrize("v", VECTORS["decks"], ids=_id)
def test_fairness_deck_for_hand_matches_the_vector(v):
    assert fairness.deck_for_hand(SEEDS[v["seed"]], v["hand_no"]) == v["deck"]


@pytest.mark.parametrize("v", VECTORS["cuts"], ids=_id)
def test_fairness_cut_cards_match_the_vector(v):
    assert fairness.cut_cards(SEEDS[v["seed"]], v["round"], v["count"]) == v["cards"]


@pytest.mark.parametrize("v", VECTORS["cuttings"], ids=lambda v: v["seed"])
def test_the_engines_cuts_at_the_start_of_a_game_match_the_cutting_vector(v):
    variant = "three-hand" if len(v["seats"]) == 3 else "gin-rami"
    players = [{"name": f"p{seat}"} for seat in v["seats"]]
    started = game.start(game.GameSpec(variant=variant, players=players, seed=SEEDS[v["seed"]]))
    cuts = [{"round": e.round, "seats": list(e.seats), "cards": list(e.cards)}
            for e in started if type(e) is events.CardsCut]
    assert cuts == v["rounds"]
    if variant == "three-hand":
        roles = next(e for e in started if type(e) is events.RolesAssigned)
        assert [roles.box, roles.captain, roles.advisor] == v["order"]  # §2: highest box, lowest advisor
    else:
        chosen = next(e for e in started if type(e) is events.DealerChosen)
        assert chosen.dealer == v["order"][-1]  # §3: the lower card deals


def test_the_cutting_vectors_hold_every_kind_of_tie():
    shapes = {(len(v["seats"]), tuple(len(r["seats"]) for r in v["rounds"])) for v in VECTORS["cuttings"]}
    assert {(3, (3,)), (3, (3, 2)), (3, (3, 3)), (3, (3, 2, 2)), (2, (2,)), (2, (2, 2)), (2, (2, 2, 2))} <= shapes
    for v in VECTORS["cuttings"]:
        ranks = ["A23456789TJQK".index(c[0]) for c in v["rounds"][0]["cards"]]
        # the seat with the single highest first cut (if any) heads the order
        if ranks.count(max(ranks)) == 1:
            assert v["order"][0] == v["rounds"][0]["seats"][ranks.index(max(ranks))]


def test_the_labels_are_the_engines():
    assert {fairness_vectors.DECK_LABEL.encode(), fairness_vectors.CUT_LABEL.encode()} == {
        fairness.DECK_LABEL, fairness.CUT_LABEL}


# -- shipped -----------------------------------------------------------------------------------


def test_the_vectors_ship_in_the_package():
    globs = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["service"]
    assert any(fnmatch.fnmatch("docs/fairness-vectors.json", g) for g in globs), globs
    shipped = importlib.resources.files("service") / "docs" / "fairness-vectors.json"
    assert json.loads(shipped.read_text(encoding="utf-8")) == VECTORS


# -- client seeds (derivation 2) ---------------------------------------------------------------


@pytest.mark.parametrize("v", VECTORS["client_seed_keys"], ids=lambda v: f"{v['seed']}-{len(v['client_seeds'])}")
def test_the_engines_deal_key_and_its_decks_and_cut_match_the_client_seed_vector(v):
    key = fairness.deal_key(2, SEEDS[v["seed"]], v["client_seeds"])
    assert key.hex() == v["key"]
    assert fairness.deck_for_hand(key, 1) == v["deck_1"] and fairness.deck_for_hand(key, 2) == v["deck_2"]
    assert fairness.cut_cards(key, 0, len(v["client_seeds"])) == v["cut_0"]


def test_a_seat_that_sends_none_has_the_empty_text_and_derivation_1_is_the_seed_itself():
    v = next(v for v in VECTORS["client_seed_keys"] if v["client_seeds"] == ["", ""])
    assert fairness.deal_key(2, SEEDS[v["seed"]], [None, None]).hex() == v["key"]
    assert fairness.deal_key(1, SEEDS["counting"], ["ignored", "too"]) == SEEDS["counting"]


def test_the_client_seed_vectors_cover_order_text_and_length():
    cases = {tuple(v["client_seeds"]): v for v in VECTORS["client_seed_keys"]}
    # the same seed on another seat gives another key: the seats' order is part of the input
    assert cases[("alice", "")]["key"] != cases[("", "alice")]["key"]
    assert any(any(len(c.encode()) > len(c) for c in v["client_seeds"]) for v in VECTORS["client_seed_keys"])
    assert any(len(c) == fairness.MAX_CLIENT_SEED_LENGTH for v in VECTORS["client_seed_keys"] for c in v["client_seeds"])
    assert {len(v["client_seeds"]) for v in VECTORS["client_seed_keys"]} == {2, 3}
    # the published key input starts with the label, then the seed's length as 4 bytes
    v = cases[("alice", "")]
    assert v["key_input"].startswith(b"ginbox/deal-key/v2".hex() + "00000020" + SEEDS["counting"].hex() + "02")
    assert v["key_input"].endswith("0005" + b"alice".hex() + "0000")


def test_a_game_with_client_seeds_deals_the_vectors_decks():
    v = next(v for v in VECTORS["client_seed_keys"] if v["client_seeds"] == ["alice", "bob", "carol"])
    spec = game.GameSpec(variant="three-hand", players=[None, None, None], seed=SEEDS[v["seed"]], fairness=2)
    log = game.start(spec)
    state = game.replay(log)
    for seat, text in enumerate(v["client_seeds"]):
        new = game.decide(state, None, commands.ClaimSeat(seat, {"name": f"p{seat}"}, text))
        log += new
        for e in new:
            state = game.evolve(state, e)
    cut = next(e for e in log if type(e) is events.CardsCut)
    dealt = next(e for e in log if type(e) is events.HandDealt)
    assert cut.round == 0 and list(cut.cards) == v["cut_0"]
    assert list(dealt.deck) == v["deck_1"]


@pytest.mark.parametrize("v", VECTORS["board_seeds"], ids=lambda v: f"{v['match_seed']}-{v['board']}")
def test_a_matchs_board_seeds_match_the_vectors(v):
    from service.rules import duplicate

    match_seed = SEEDS[v["match_seed"]]
    assert duplicate.board_seed(match_seed, v["board"]).hex() == v["board_seed"]
    assert fairness.commitment(bytes.fromhex(v["board_seed"])) == v["commitment"]
    # a board's games are dealt as derivation 1, the board's seed being the key
    assert fairness.deck_for_hand(bytes.fromhex(v["board_seed"]), 1) == v["deck_1"]


def test_the_board_vectors_cover_the_edges():
    boards = [v["board"] for v in VECTORS["board_seeds"]]
    assert 0 in boards and any(b > 255 for b in boards) and 2**32 - 1 in boards
