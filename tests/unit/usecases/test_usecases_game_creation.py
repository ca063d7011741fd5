"""Creating games and claiming seats, through GameService on the in-memory stores.

Counts come from RULES.md §1 "Deal" (ten cards each, one upcard, the stock the rest of 52) and §2
(three-hand: the box and the captain hold cards, the advisor none).
"""

from __future__ import annotations

import pytest
from service.errors import InviteRequired, SeatNotFound, TooManyBotGames, Unauthorized
from service.rules.commands import Resign
from service.rules.errors import RulesError

GIN_RAMI = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
THREE_HAND = {"variant": "three-hand", "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "cat"}]}
BOTS_ALONE = {"variant": "gin-rami", "seats": [{"bot": "basic"}, {"bot": "random"}]}


def test_a_gin_rami_game_of_two_persons_starts_dealt_with_a_token_for_each_seat(use_cases):
    games = use_cases.games
    created = games.create_game(GIN_RAMI)
    game_id = created["game_id"]
    assert [(s["seat"], s["name"], s["kind"]) for s in created["seats"]] == [(0, "ann", "human"), (1, "bob", "human")]
    tokens = [s["token"] for s in created["seats"]]
    assert len(set(tokens)) == 2
    assert [games.seat_for(game_id, token) for token in tokens] == [0, 1]
    view = created["view"]  # the spectator's
    assert view["status"] == "playing" and view["hand"] is None
    # §1: ten cards each, one upcard, the other 31 in the stock
    assert view["hand_sizes"] == [10, 10] and len(view["discard_pile"]) == 1 and view["stock_size"] == 52 - 21
    # the bot scheduler is told of the new game, at its version
    assert use_cases.scheduled == [(game_id, view["version"])]


def test_each_seat_sees_its_own_ten_cards_and_not_the_others(games):
    created = games.create_game(GIN_RAMI)
    game_id = created["game_id"]
    hands = [games.view(game_id, seat).view["hand"] for seat in (0, 1)]
    assert [len(hand) for hand in hands] == [10, 10]
    assert not set(hands[0]) & set(hands[1])
    assert created["view"]["discard_top"] not in hands[0] + hands[1]


def test_a_three_hand_game_deals_to_the_box_and_the_captain_only(games):
    created = games.create_game(THREE_HAND)
    view = created["view"]
    roles = view["roles"]
    assert sorted(roles.values()) == [0, 1, 2]
    sizes = view["hand_sizes"]
    assert (sizes[roles["box"]], sizes[roles["captain"]], sizes[roles["advisor"]]) == (10, 10, 0)
    assert view["stock_size"] == 52 - 21
    # the box deals; the captain acts first (§2)
    assert view["dealer"] == roles["box"] and view["to_act"] == [roles["captain"]]


def test_an_open_seat_waits_for_its_claim_and_the_claim_starts_the_game(games):
    created = games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, None]})
    game_id = created["game_id"]
    assert created["view"]["status"] == "waiting"
    assert created["seats"][1] == {"seat": 1, "name": None, "kind": "open"}
    token, answer = games.claim_seat(game_id, 1, lambda: {"name": "bob"})
    assert games.seat_for(game_id, token) == 1
    assert answer.view["status"] == "playing" and answer.view["viewer"] == 1 and len(answer.view["hand"]) == 10
    with pytest.raises(RulesError) as taken:
        games.claim_seat(game_id, 1, lambda: {"name": "cat"})
    assert taken.value.code == "seat_taken"
    with pytest.raises(SeatNotFound):
        games.claim_seat(game_id, 2, lambda: {"name": "cat"})


def test_a_private_seat_is_claimed_with_its_invite_only(games):
    created = games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, None], "private": True})
    game_id, invite = created["game_id"], created["seats"][1]["invite"]
    with pytest.raises(InviteRequired):
        games.claim_seat(game_id, 1, lambda: {"name": "bob"})
    with pytest.raises(InviteRequired):
        games.claim_seat(game_id, 1, lambda: {"name": "bob", "invite": invite + "x"})
    token, answer = games.claim_seat(game_id, 1, lambda: {"name": "bob", "invite": invite})
    assert games.seat_for(game_id, token) == 1 and answer.view["status"] == "playing"


def test_a_token_of_another_game_holds_no_seat_here(games):
    mine = games.create_game(GIN_RAMI)
    other = games.create_game(GIN_RAMI)
    with pytest.raises(Unauthorized):
        games.seat_for(other["game_id"], mine["seats"][0]["token"])


def test_a_new_game_is_listed_with_its_status_and_players(games):
    created = games.create_game(GIN_RAMI)
    listed, cursor = games.list_games(None, None, None, 10)
    assert cursor is None
    assert [(g["game_id"], g["status"], g["variant"]) for g in listed] == [(created["game_id"], "playing", "gin-rami")]


def test_a_callers_games_of_bots_alone_are_capped_until_one_is_over(make_use_cases):
    games = make_use_cases(bot_games_per_caller=1, bot_games_in_play=10).games
    first = games.create_game(BOTS_ALONE, caller="addr:10.0.0.1")
    with pytest.raises(TooManyBotGames):
        games.create_game(BOTS_ALONE, caller="addr:10.0.0.1")
    games.create_game(BOTS_ALONE, caller="addr:10.0.0.2")  # another caller counts apart
    games.create_game(GIN_RAMI, caller="addr:10.0.0.1")  # a person's game is not counted
    seat = games.state(first["game_id"]).to_act[0]
    games.play_for_seat(first["game_id"], seat, Resign())
    assert games.state(first["game_id"]).status == "over"
    games.create_game(BOTS_ALONE, caller="addr:10.0.0.1")


def test_the_servers_games_of_bots_alone_are_capped(make_use_cases):
    games = make_use_cases(bot_games_per_caller=5, bot_games_in_play=2).games
    games.create_game(BOTS_ALONE, caller="addr:a")
    games.create_game(BOTS_ALONE, caller="addr:b")
    with pytest.raises(TooManyBotGames) as refused:
        games.create_game(BOTS_ALONE, caller="addr:c")
    assert "server" in refused.value.detail

