"""Playing games through the use cases themselves (GameService), no HTTP: commands as they arrive,
and a player that picks each move from the engine's legal_moves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from service.games import CommandRequest, Idempotency
from service.rules import cards, game, melds
from service.rules.commands import Discard, DrawStock, Knock, PassUpcard, command_to_dict


@dataclass
class Sent:
    """A command as a seat sends it (service.games.Incoming): its token, then the request."""

    seat_token: str
    command: Any
    expected_versions: Collection[int] | None = None
    key: str | None = None
    path: str = "/games/g/moves"

    def token(self) -> str:
        return self.seat_token

    def request(self) -> CommandRequest:
        idempotency = (Idempotency(self.key, "POST", self.path, command_to_dict(self.command))
                       if self.key is not None else None)
        return CommandRequest(self.command, self.expected_versions, idempotency)


def short_move(state, seat: int):
    """A legal move of ``seat`` that ends hands soon: knock when allowed, else pass the upcard or
    draw from the stock, else discard the card that leaves the least deadwood."""
    moves = game.legal_moves(state, seat)
    assert moves, f"seat {seat} has no legal move in phase {state.phase}"
    knocks = [m for m in moves if isinstance(m, Knock)]
    if knocks:
        return knocks[0]
    step = next((m for m in moves if isinstance(m, (PassUpcard, DrawStock))), None)
    if step is not None:
        return step
    hand = state.hands[seat]
    discards = [m for m in moves if isinstance(m, Discard)]
    return min(discards, key=lambda m: melds.deadwood_mask(hand & ~(1 << cards.to_index(m.card))))


def play_hand(games, game_id: str, tokens: dict[int, str] | None = None, max_moves: int = 500) -> list:
    """Play the game's hand in play to its end, each seat's move chosen by ``short_move``: a seat
    with a token in ``tokens`` sends it (``play``), any other (a bot's) is played for
    (``play_for_seat``). The moves played, as (seat, command)."""
    tokens = tokens or {}
    state = games.state(game_id)
    hands_before = len(state.results)
    played = []
    while state.status == "playing" and len(state.results) == hands_before:
        assert len(played) < max_moves, "the hand did not end"
        seat = state.to_act[0]
        move = short_move(state, seat)
        if seat in tokens:
            games.play(game_id, Sent(tokens[seat], move))
        else:
            games.play_for_seat(game_id, seat, move)
        played.append((seat, move))
        state = games.state(game_id)
    return played


def play_game(games, game_id: str, tokens: dict[int, str] | None = None, max_hands: int = 50) -> None:
    """Play the game hand after hand until it is over."""
    for _ in range(max_hands):
        if games.state(game_id).status != "playing":
            return
        play_hand(games, game_id, tokens)
    raise AssertionError(f"game {game_id} was not over after {max_hands} hands")
