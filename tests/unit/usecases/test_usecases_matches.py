"""Duplicate matches through ArenaService on the in-memory stores: made, their board games started,
sealed while the match runs, moved on as each game ends, finished, rated and capped.

What a match is made of comes from service/rules/duplicate.py's account of the rules: a gin-rami
board is played at two tables, the second with the seats swapped, each to the first hand that
scores; a board's scores sum to zero.
"""

from __future__ import annotations

import pytest
from support.usecase_play import play_game

from service.errors import MatchGameSealed, TooManyMatches
from service.rules import duplicate as D

POLICIES = {"variant": "gin-rami", "participants": ["basic", "random"], "boards": 1}


def board_games(match_id: str, view: dict) -> list[str]:
    tables = D.TABLES[view["variant"]]
    return [D.game_id_for(match_id, board, table) for board in range(view["boards"]) for table in range(tables)]


def test_a_match_starts_a_game_per_table_with_the_seats_swapped_at_the_second(use_cases):
    games, arena = use_cases.games, use_cases.arena
    view = arena.create_match(POLICIES, address="10.0.0.1")
    match_id = view["match_id"]
    assert (view["status"], view["boards"], view["games"]) == ("running", 1, 2)
    first, second = (games.state(game_id) for game_id in board_games(match_id, view))
    assert [p["bot"] for p in first.players] == ["basic", "random"]
    assert [p["bot"] for p in second.players] == ["random", "basic"]
    # each table plays to the first hand that scores
    assert first.options["target_score"] == second.options["target_score"] == 1


def test_a_board_game_reads_for_nobody_but_its_seats_while_the_match_runs(use_cases):
    games, arena = use_cases.games, use_cases.arena
    view = arena.create_match(POLICIES, address="10.0.0.1")
    game_id = board_games(view["match_id"], view)[0]
    with pytest.raises(MatchGameSealed):
        games.seat_for(game_id, None)
    assert game_id not in [g["game_id"] for g in games.list_games(None, None, None, 50)[0]]


def test_a_match_moves_on_as_its_games_end_and_finishes_with_the_last(use_cases):
    games, arena = use_cases.games, use_cases.arena
    view = arena.create_match(POLICIES, address="10.0.0.1")
    match_id = view["match_id"]
    first, second = board_games(match_id, view)
    play_game(games, first)
    after_one = arena.match_view(match_id)
    assert (after_one["status"], after_one["games_done"], after_one["boards_done"]) == ("running", 1, 0)
    play_game(games, second)
    done = arena.match_view(match_id)
    assert (done["status"], done["games_done"], done["boards_done"]) == ("over", 2, 1)
    assert done["seed"] is not None  # revealed once the match is over
    # a board's scores sum to zero: who did better with the same cards scores above it
    assert sum(row["total"] for row in done["standings"]) == pytest.approx(0)
    # the games read like any finished game now, and the match's audit holds
    assert games.seat_for(first, None) is None
    assert arena.audit(match_id)["ok"] is True
    names = {row["name"] for row in arena.leaderboard("gin-rami")["ratings"]}
    assert names == {"basic", "random"}


def test_a_bot_account_that_accepts_matches_plays_its_seats_with_its_token(use_cases):
    games, arena = use_cases.games, use_cases.arena
    token = arena.register_bot({"name": "alpha", "accepts_matches": True})["token"]
    view = arena.create_match({**POLICIES, "participants": ["alpha", "basic"]}, address="10.0.0.1")
    match_id = view["match_id"]
    kinds = [kind for _, kind, _ in arena.store.read_stream("alpha", "0")]
    assert kinds[0] == "match_started" and kinds.count("game_started") == 2
    for game_id in board_games(match_id, view):
        seat = games.seat_for(game_id, token)
        play_game(games, game_id, {seat: token})
    assert arena.match_view(match_id)["status"] == "over"
    assert [kind for _, kind, _ in arena.store.read_stream("alpha", "0", count=1000)][-1] == "match_over"


def test_a_callers_matches_in_play_are_capped(make_use_cases):
    arena = make_use_cases(matches_per_caller=1).arena
    arena.create_match(POLICIES, address="10.0.0.1")
    with pytest.raises(TooManyMatches):
        arena.create_match(POLICIES, address="10.0.0.1")
    assert arena.create_match(POLICIES, address="10.0.0.2")["status"] == "running"
