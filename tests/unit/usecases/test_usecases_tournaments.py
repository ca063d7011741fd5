"""Tournaments through ArenaService on the in-memory stores: each pairing's match made once, whoever
moves the tournament on and however often, rounds paired as each ends, each round rated once."""

from __future__ import annotations

from support.usecase_play import play_game

from service.rules import duplicate as D
from service.rules import tournament as T
from service.rules.ratings import rate_period

SWISS = {"system": "swiss", "entries": ["basic", "simple", "random", "simple"], "rounds": 2, "boards": 1}


def pairing_games(tournament_id: str, round_no: int, pairing: int) -> list[str]:
    match_id = T.pairing_match_id(tournament_id, round_no, pairing)
    return [D.game_id_for(match_id, 0, table) for table in range(2)]


def test_a_swiss_makes_each_pairings_match_once_and_rates_each_round_once(use_cases):
    games, arena = use_cases.games, use_cases.arena
    view = arena.create_tournament(SWISS)
    tournament_id = view["tournament_id"]
    assert [p["entries"] for p in view["schedule"][0]["pairings"]] == [["basic", "simple"], ["random", "simple-2"]]
    for round_no in range(2):
        for _ in range(3):  # moved on again and again: nothing is made or recorded twice
            arena.advance_tournament(tournament_id)
            arena.advance_tournaments()
        for pairing in range(2):
            match_id = T.pairing_match_id(tournament_id, round_no, pairing)
            assert [r.event["type"] for r in arena.matches.load(match_id)].count("match_created") == 1
            for game_id in pairing_games(tournament_id, round_no, pairing):
                play_game(games, game_id)
    final = arena.tournament_view(tournament_id)
    assert final["status"] == "over" and final["rounds_done"] == 2
    log = [r.event for r in arena.tournament_log.load(tournament_id)]
    assert [e["type"] for e in log].count(T.PAIRING_PLAYED) == 4
    assert [e["type"] for e in log].count(T.ROUND_PAIRED) == 2
    # one rating period per round, in round order, each board a game between two rating names
    ratings: dict = {}
    state = T.replay(log)
    for round_no in range(2):
        ratings = {**ratings, **rate_period(ratings, T.round_games(state, round_no))}
    board = {r["name"]: r["rating"] for r in arena.leaderboard("gin-rami")["ratings"]}
    assert board == {name: round(r.rating, 2) for name, r in ratings.items()}
    arena.advance_tournament(tournament_id)  # over: moving it on again rates nothing twice
    assert {r["name"]: r["rating"] for r in arena.leaderboard("gin-rami")["ratings"]} == board
    assert arena.tournament_keys.in_play() == []
