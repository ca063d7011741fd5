"""The archived record's format (service/rules/archive.py): it gives back the log it was made of,
costs a few bits a move, and a record it cannot read is refused with a stable code."""

from __future__ import annotations

import math

import pytest
from support.store_behaviour import played_game

from service.rules import archive, codec, game


def log_of(batches, first_ts=1_700_000_000_000):
    """(ts, stored text) per event, each batch appended 1.5 s after the one before."""
    return [(first_ts + 1500 * i, codec.pack(codec.encode(e))) for i, batch in enumerate(batches) for e in batch]


@pytest.fixture(scope="module")
def three_hand():
    return played_game("three-hand", seed=10)


def test_a_record_gives_back_every_event_and_time_of_the_log(three_hand):
    log = log_of(three_hand)
    record, stats = archive.encode(log)
    assert archive.decode(record) == (log, [])
    assert stats.events == len(log)
    # every batch after the creation is one move of the seat to act, found among its legal moves
    assert stats.moves == len(three_hand) - 1 and stats.literals == 1


def test_the_moves_cost_their_information_content(three_hand):
    _, stats = archive.encode(log_of(three_hand))
    state, bits = None, 0.0
    for batch in three_hand:
        if state is not None:
            bits += math.log2(sum(len(game.legal_moves(state, s)) for s in state.to_act))
        for e in batch:
            state = game.evolve(state, e)
    assert stats.move_bits == pytest.approx(bits)


def test_a_log_that_does_not_end_its_game_is_not_archived(three_hand):
    with pytest.raises(archive.NotOver):
        archive.encode(log_of(three_hand[:-1]))


def test_a_record_of_a_newer_format_version_is_refused_with_a_stable_code(three_hand):
    record, _ = archive.encode(log_of(three_hand))
    newer = record[:3] + bytes([archive.FORMAT_VERSION + 1]) + record[4:]
    with pytest.raises(archive.ArchiveFormatError) as refused:
        archive.decode(newer)
    assert refused.value.code == "archive_format_unsupported"
    assert f"format version {archive.FORMAT_VERSION + 1}" in refused.value.message


@pytest.mark.parametrize("damage", ["magic", "truncated", "garbage"])
def test_a_damaged_record_is_refused_as_unreadable(three_hand, damage):
    record, _ = archive.encode(log_of(three_hand))
    damaged = {"magic": b"XYZ" + record[3:], "truncated": record[: len(record) // 2],
               "garbage": record[:4] + bytes(range(200))}[damage]
    with pytest.raises(archive.ArchiveFormatError) as refused:
        archive.decode(damaged)
    assert refused.value.code == "archive_unreadable"


def test_a_creation_whose_commitment_is_not_its_seeds_is_kept_as_it_is(three_hand):
    import json

    log = log_of(three_hand)
    ts, text = log[0]
    packed = json.loads(text)
    assert packed[0] == "gc" and len(packed[5]) == 64  # the packed game_created: its commitment
    packed[5] = "0" * 64  # not the SHA-256 of its seed (a log changed by hand)
    changed = [(ts, json.dumps(packed, separators=(",", ":"), ensure_ascii=False)), *log[1:]]
    record, _ = archive.encode(changed)
    assert archive.decode(record).events == changed
