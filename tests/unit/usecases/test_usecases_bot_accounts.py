"""Bot accounts through ArenaService on the in-memory stores: registration, settings, and a game
that seats an account, which plays its seat with its own token and hears of it on its stream."""

from __future__ import annotations

import pytest
from support.usecase_play import Sent, play_game, short_move

from service.errors import BotNameTaken, BotNotFound, BotTokenRequired, InvalidBotName, MatchNotConsented


def register(arena, name: str, **more) -> str:
    return arena.register_bot({"name": name, **more})["token"]


def stream(arena, name: str) -> list[tuple[str, dict]]:
    """The bot's stream as (type, data), from its first entry."""
    return [(kind, data) for _, kind, data in arena.store.read_stream(name, "0", count=1000)]


def test_a_registered_bot_is_known_by_its_token_and_has_a_profile(arena):
    answer = arena.register_bot({"name": "Alpha", "description": "plays fast", "owner": "ann"})
    assert answer["name"] == "Alpha" and answer["token"]
    assert arena.bot_of(answer["token"]) == "Alpha"
    profile = arena.profile("alpha")  # a name is found in any case
    assert (profile["name"], profile["description"], profile["owner"]) == ("Alpha", "plays fast", "ann")
    assert (profile["games"], profile["matches"], profile["ratings"]) == (0, 0, {})


def test_a_name_is_taken_in_any_case(arena):
    register(arena, "Alpha")
    with pytest.raises(BotNameTaken):
        arena.register_bot({"name": "ALPHA"})


@pytest.mark.parametrize("name", ["basic", "Expert", "me", "basic-bot-0", "random_2", "x", "a b"])
def test_a_name_of_the_servers_own_players_or_out_of_shape_is_refused(arena, name):
    with pytest.raises(InvalidBotName):
        arena.register_bot({"name": name})


def test_a_token_of_no_bot_is_refused(arena):
    with pytest.raises(BotTokenRequired):
        arena.bot_of("not-a-bot-token")
    with pytest.raises(BotTokenRequired):
        arena.bot_of(None)
    with pytest.raises(BotNotFound):
        arena.profile("nobody")


def test_a_bot_sets_whether_it_accepts_matches(arena):
    token = register(arena, "alpha")
    assert arena.profile("alpha")["accepts_matches"] is False
    assert arena.update_bot(token, {"accepts_matches": True})["accepts_matches"] is True
    assert arena.profile("alpha")["accepts_matches"] is True


def test_a_game_seats_a_bot_account_that_sends_it_and_the_bot_plays_with_its_token(use_cases):
    games, arena = use_cases.games, use_cases.arena
    token = register(arena, "alpha")
    created = games.create_game({"variant": "gin-rami", "seats": [{"account": "ALPHA"}, {"bot": "basic"}]}, token)
    game_id = created["game_id"]
    assert created["seats"][0] == {"seat": 0, "name": "alpha", "kind": "account", "account": "alpha"}
    assert games.seat_for(game_id, token) == 0
    assert stream(arena, "alpha")[0] == ("game_started", {"game_id": game_id, "seat": 0})
    state = games.state(game_id)
    while 0 not in state.to_act:  # the built-in bot's turns, played as its worker would
        games.play_for_seat(game_id, state.to_act[0], short_move(state, state.to_act[0]))
        state = games.state(game_id)
    assert ("your_turn", {"game_id": game_id, "version": state.version, "seat": 0}) in stream(arena, "alpha")
    answer = games.play(game_id, Sent(token, short_move(state, 0)))
    assert answer.view["viewer"] == 0 and answer.version > state.version
    assert arena.profile("alpha")["recent_games"] == [game_id]


def test_a_bot_account_hears_of_its_games_end(use_cases):
    games, arena = use_cases.games, use_cases.arena
    token = register(arena, "alpha")
    body = {"variant": "gin-rami", "seats": [{"account": "alpha"}, {"bot": "basic"}], "options": {"target_score": 1}}
    game_id = games.create_game(body, token)["game_id"]
    play_game(games, game_id, {0: token})
    state = games.state(game_id)
    assert stream(arena, "alpha")[-1] == ("game_over", {"game_id": game_id, "version": state.version, "seat": 0,
                                                        "scores": list(state.scores)})


def test_a_bot_account_is_seated_by_another_only_if_it_accepts_matches(use_cases):
    games, arena = use_cases.games, use_cases.arena
    alpha = register(arena, "alpha")
    beta = register(arena, "beta")
    body = {"variant": "gin-rami", "seats": [{"account": "alpha"}, {"name": "ann"}]}
    with pytest.raises(MatchNotConsented):
        games.create_game(body, beta)
    with pytest.raises(MatchNotConsented):
        games.create_game(body, None)
    assert games.list_games(None, None, None, 10)[0] == []
    assert stream(arena, "alpha") == []
    arena.update_bot(alpha, {"accepts_matches": True})
    game_id = games.create_game(body, beta)["game_id"]
    assert games.seat_for(game_id, alpha) == 0
