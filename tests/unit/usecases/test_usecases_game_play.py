"""Playing a game through GameService on the in-memory stores: moves to a hand's end, refusals,
idempotent replays.

The hand-made hands are those of the rules tests (tests/support/rules.py), their scores worked out
there by hand; every other move is chosen from the engine's own ``legal_moves``.
"""

from __future__ import annotations

import pytest
from support.rules import P_KNOCK, deck_of
from support.usecase_play import Sent, play_hand, short_move

from service.errors import GameNotFound, IdempotencyKeyReused, Unauthorized, VersionMismatch
from service.rules import game
from service.rules.commands import DrawStock, Knock, PassUpcard, TakeUpcard, command_to_dict
from service.rules.errors import RulesError

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def knock_deck_game(games, variant: str) -> tuple[str, dict[int, str]]:
    """A game dealt P_KNOCK with seat 1 the non-dealer (gin-rami's captain in three-hand): its id and tokens."""
    body = {"variant": variant, "decks": [deck_of(P_KNOCK)]}
    if variant == "gin-rami":
        body.update(seats=[{"name": "ann"}, {"name": "bob"}], first_dealer=0)
    else:
        body.update(seats=[{"name": "ann"}, {"name": "bob"}, {"name": "cat"}], roles=ROLES)
    created = games.create_game(body)
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def two_persons(games) -> tuple[str, dict[int, str]]:
    created = games.create_game({"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_a_knock_after_the_stocks_top_card_scores_the_difference_rules_2_and_3(games, variant):
    game_id, tokens = knock_deck_game(games, variant)
    # §1 Deal: cards 1-20 alternately, the non-dealer first; card 21 the upcard
    non_dealer, dealer = P_KNOCK[0].split(), P_KNOCK[1].split()
    assert sorted(games.view(game_id, 1).view["hand"]) == sorted(non_dealer)
    assert sorted(games.view(game_id, 0).view["hand"]) == sorted(dealer)
    assert games.view(game_id, None).view["discard_top"] == P_KNOCK[2]
    games.play(game_id, Sent(tokens[1], PassUpcard()))
    games.play(game_id, Sent(tokens[0], PassUpcard()))
    drawn = games.play(game_id, Sent(tokens[1], DrawStock()))
    assert P_KNOCK[3] in drawn.view["hand"]
    answer = games.play(game_id, Sent(tokens[1], Knock("9H")))
    # K = 2D = 2; D after lay-offs = KH + KS + 9C = 29: the knocker scores 29 - 2 = 27
    result = answer.view["hand_results"][-1]
    assert (result["outcome"], result["winner"], result["points"]) == ("knock", 1, 27)
    assert answer.view["scores"] == ([0, 27] if variant == "gin-rami" else [0, 27, 0])


def test_a_hand_played_from_the_legal_moves_ends_and_its_points_are_the_scores(games):
    game_id, tokens = two_persons(games)
    state = games.state(game_id)
    while not state.results:
        seat = state.to_act[0]
        view = games.view(game_id, seat).view
        # the legal moves a seat is shown are the engine's
        assert view["legal_moves"] == [command_to_dict(m) for m in game.legal_moves(state, seat)]
        move = short_move(state, seat)
        answer = games.play(game_id, Sent(tokens[seat], move))
        state = games.state(game_id)
        assert answer.version == state.version
    result = state.results[0]
    assert result["outcome"] in ("knock", "gin", "big_gin", "undercut", "drawn")
    # the scores are the points of the hands each seat won
    points = [0, 0]
    for r in state.results:
        if r.get("winner") is not None:
            points[r["winner"]] += r["points"]
    assert list(state.scores) == points


def test_every_command_is_scheduled_after_its_append(use_cases):
    games = use_cases.games
    game_id, tokens = two_persons(games)
    played = play_hand(games, game_id, tokens)
    versions = [v for g, v in use_cases.scheduled if g == game_id]
    assert len(versions) == 1 + len(played)  # the creation, then each command
    assert versions == sorted(versions) and versions[-1] == games.state(game_id).version


# -- refusals -------------------------------------------------------------------------------------


def test_a_token_of_no_seat_is_refused_and_nothing_is_appended(games):
    game_id, _ = two_persons(games)
    version = games.state(game_id).version
    with pytest.raises(Unauthorized):
        games.play(game_id, Sent("no-seat-has-this-token", PassUpcard()))
    assert games.state(game_id).version == version


def test_a_seat_that_is_not_to_act_is_refused_by_the_rules(games):
    game_id, tokens = two_persons(games)
    state = games.state(game_id)
    waiting = next(seat for seat in (0, 1) if seat not in state.to_act)
    assert game.legal_moves(state, waiting) == []
    with pytest.raises(RulesError) as refused:
        games.play(game_id, Sent(tokens[waiting], PassUpcard()))
    assert refused.value.code == "not_your_turn"
    assert games.state(game_id).version == state.version


def test_a_move_the_rules_do_not_allow_now_is_refused(games):
    game_id, tokens = two_persons(games)
    state = games.state(game_id)
    seat = state.to_act[0]
    assert DrawStock() not in game.legal_moves(state, seat)  # the upcard is offered first (§1)
    with pytest.raises(RulesError):
        games.play(game_id, Sent(tokens[seat], DrawStock()))
    assert games.state(game_id).version == state.version


def test_a_move_for_a_version_the_game_has_left_is_a_version_mismatch(games):
    game_id, tokens = two_persons(games)
    state = games.state(game_id)
    seat = state.to_act[0]
    with pytest.raises(VersionMismatch) as refused:
        games.play(game_id, Sent(tokens[seat], PassUpcard(), expected_versions={state.version - 1}))
    assert refused.value.current == state.version
    assert games.state(game_id).version == state.version
    answer = games.play(game_id, Sent(tokens[seat], PassUpcard(), expected_versions={state.version}))
    assert answer.version > state.version


def test_a_game_that_does_not_exist_is_not_found_whoever_asks(games):
    _, tokens = two_persons(games)
    with pytest.raises(GameNotFound):
        games.play("no-such-game", Sent(tokens[0], PassUpcard()))
    with pytest.raises(GameNotFound):
        games.view("no-such-game", None)


# -- idempotency ----------------------------------------------------------------------------------


def test_a_command_sent_again_with_its_key_is_answered_as_the_first_and_appends_nothing(use_cases):
    games = use_cases.games
    game_id, tokens = two_persons(games)
    seat = games.state(game_id).to_act[0]
    first = games.play(game_id, Sent(tokens[seat], TakeUpcard(), key="move-1"))
    scheduled = len(use_cases.scheduled)
    again = games.play(game_id, Sent(tokens[seat], TakeUpcard(), key="move-1"))
    assert again == first
    assert games.state(game_id).version == first.version
    assert len(use_cases.scheduled) == scheduled


def test_a_key_sent_again_with_another_command_is_refused(games):
    game_id, tokens = two_persons(games)
    seat = games.state(game_id).to_act[0]
    games.play(game_id, Sent(tokens[seat], TakeUpcard(), key="move-1"))
    with pytest.raises(IdempotencyKeyReused):
        games.play(game_id, Sent(tokens[seat], PassUpcard(), key="move-1"))


def test_each_seat_chooses_its_keys_for_itself(games):
    game_id, tokens = two_persons(games)
    state = games.state(game_id)
    first = state.to_act[0]
    games.play(game_id, Sent(tokens[first], PassUpcard(), key="same-key"))
    second = games.state(game_id).to_act[0]
    assert second != first
    answer = games.play(game_id, Sent(tokens[second], PassUpcard(), key="same-key"))
    assert answer.view["viewer"] == second and answer.version == games.state(game_id).version
