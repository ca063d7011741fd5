"""Challenges through ArenaService on the in-memory stores: made, answered (accepted or declined),
withdrawn, expired, capped; and the rated game an accepted challenge starts."""

from __future__ import annotations

import pytest
from support.usecase_play import play_game

from service.arena import CHALLENGE_TTL_MS, made_id
from service.errors import ChallengeNotPending, NotChallenged, NotChallenger, TooManyChallenges
from service.rules.ratings import DEFAULT_RATING

GAME = {"to": "beta", "variant": "gin-rami"}


def register(arena, name: str) -> str:
    return arena.register_bot({"name": name})["token"]


def heard(arena, name: str) -> list[str]:
    """The types of the bot's stream entries, from its first."""
    return [kind for _, kind, _ in arena.store.read_stream(name, "0", count=1000)]


@pytest.fixture
def bots(arena) -> dict[str, str]:
    return {name: register(arena, name) for name in ("alpha", "beta")}


def test_a_challenge_waits_for_its_answer_and_the_challenged_bot_hears_of_it(use_cases, bots):
    arena = use_cases.arena
    made = arena.challenge(GAME, bots["alpha"])
    assert (made["from"], made["to"], made["status"], made["kind"]) == ("alpha", "beta", "pending", "game")
    assert made["expires"] == made["created"] + CHALLENGE_TTL_MS
    assert arena.challenge_view(made["challenge_id"])["status"] == "pending"
    entries = arena.store.read_stream("beta", "0")
    assert [(kind, data["challenge_id"]) for _, kind, data in entries] == [("challenge", made["challenge_id"])]


def test_an_accepted_challenge_starts_its_game_and_the_challenger_hears_of_it(use_cases, bots):
    games, arena = use_cases.games, use_cases.arena
    challenge_id = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    answer = arena.answer_challenge(challenge_id, bots["beta"], accept=True)
    game_id = made_id("game", challenge_id)
    assert (answer["status"], answer["game_id"]) == ("accepted", game_id)
    assert arena.challenge_view(challenge_id)["status"] == "accepted"
    assert {games.seat_for(game_id, bots[name]) for name in ("alpha", "beta")} == {0, 1}
    assert games.state(game_id).status == "playing"
    assert "challenge_accepted" in heard(arena, "alpha")
    assert "game_started" in heard(arena, "alpha") and "game_started" in heard(arena, "beta")


def test_the_game_of_a_challenge_between_bots_is_rated_when_it_ends(use_cases, bots):
    games, arena = use_cases.games, use_cases.arena
    challenge_id = arena.challenge({**GAME, "options": {"target_score": 1}}, bots["alpha"])["challenge_id"]
    game_id = arena.answer_challenge(challenge_id, bots["beta"], accept=True)["game_id"]
    seats = {games.seat_for(game_id, bots[name]): name for name in ("alpha", "beta")}
    play_game(games, game_id, {seat: bots[name] for seat, name in seats.items()})
    state = games.state(game_id)
    winner = seats[max((0, 1), key=lambda seat: state.scores[seat])]
    loser = ({"alpha", "beta"} - {winner}).pop()
    ratings = {row["name"]: row["rating"] for row in arena.leaderboard("gin-rami")["ratings"]}
    # both start as newcomers (1500, service.rules.ratings): a win lifts one above it, a loss the other below
    assert ratings[winner] > DEFAULT_RATING > ratings[loser]


def test_a_declined_challenge_is_answered_once(use_cases, bots):
    arena = use_cases.arena
    challenge_id = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    assert arena.answer_challenge(challenge_id, bots["beta"], accept=False)["status"] == "declined"
    assert "challenge_declined" in heard(arena, "alpha")
    with pytest.raises(ChallengeNotPending):
        arena.answer_challenge(challenge_id, bots["beta"], accept=True)


def test_only_the_challenged_bot_answers(use_cases, bots):
    arena = use_cases.arena
    challenge_id = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    with pytest.raises(NotChallenged):
        arena.answer_challenge(challenge_id, bots["alpha"], accept=True)


def test_the_challenger_withdraws_and_the_challenged_bot_hears_of_it(use_cases, bots):
    arena = use_cases.arena
    challenge_id = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    with pytest.raises(NotChallenger):
        arena.withdraw_challenge(challenge_id, bots["beta"])
    assert arena.withdraw_challenge(challenge_id, bots["alpha"])["status"] == "withdrawn"
    assert heard(arena, "beta") == ["challenge", "challenge_withdrawn"]
    with pytest.raises(ChallengeNotPending):
        arena.answer_challenge(challenge_id, bots["beta"], accept=True)


def test_a_persons_challenge_is_withdrawn_with_the_token_its_answer_gave(use_cases, bots):
    arena = use_cases.arena
    made = arena.challenge({**GAME, "name": "Zed"}, None, address="10.0.0.1")
    assert made["from"] == "Zed" and made["token"]
    with pytest.raises(NotChallenger):
        arena.withdraw_challenge(made["challenge_id"], bots["alpha"])
    assert arena.withdraw_challenge(made["challenge_id"], made["token"])["status"] == "withdrawn"


def test_a_challenge_unanswered_for_its_time_expires(use_cases, bots):
    arena = use_cases.arena
    challenge_id = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    use_cases.clock.advance(CHALLENGE_TTL_MS - 1)
    assert arena.challenge_view(challenge_id)["status"] == "pending"
    use_cases.clock.advance(1)
    assert arena.challenge_view(challenge_id)["status"] == "expired"
    with pytest.raises(ChallengeNotPending):
        arena.answer_challenge(challenge_id, bots["beta"], accept=True)


def test_a_challengers_pending_challenges_are_capped_until_one_is_answered(make_use_cases):
    arena = make_use_cases(challenges_per_challenger=1).arena
    bots = {name: register(arena, name) for name in ("alpha", "beta", "gamma")}
    first = arena.challenge(GAME, bots["alpha"])["challenge_id"]
    with pytest.raises(TooManyChallenges):
        arena.challenge({**GAME, "to": "gamma"}, bots["alpha"])
    arena.answer_challenge(first, bots["beta"], accept=False)
    assert arena.challenge({**GAME, "to": "gamma"}, bots["alpha"])["status"] == "pending"
