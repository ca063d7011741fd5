"""Claiming an open seat (POST /games/{id}/seats/{seat}), public or by invitation."""

from __future__ import annotations

import hmac
from typing import Callable

from service.errors import Conflict, IdempotencyKeyReused, InviteRequired, SeatNotFound
from service.games.core import CLAIM_ATTEMPTS, Answer, GameCore
from service.rules import commands, game
from service.store.creations import Made
from service.store.errors import ConcurrencyError, IdempotencyConflict
from service.store.tokens import hash_token, issue_token


class SeatClaims(GameCore):
    """The use case ``claim_seat``."""

    def claim_seat(self, game_id: str, seat: int, read_body: Callable[[], dict],
                   made: Made | None = None) -> tuple[str, Answer]:
        """Sit a person at an open seat: (their token, their view).

        ``read_body`` reads the claim once the game is known to exist: ``name``, ``invite`` (a seat by
        invitation), ``client_seed`` (if sent).
        ``made``: the claim's Idempotency-Key made it (service.store.creations.Made).
        A retry whose first answer was lost gets the same token and the view of then, not ``seat_taken``.
        """
        state = self.state(game_id)
        body = read_body()
        name = body["name"]
        # With a key (made), the token is derived from the key.
        # The log records the claim under the key's log_key.
        key, fingerprint = (made.log_key, made.fingerprint) if made is not None else (None, None)
        if made is not None:
            # A first answer may be lost while its write landed (Redis unavailable).
            # The retry then finds the claim there.
            landed = self._landed(game_id, made)
            if landed is not None:
                return self._seated(game_id, seat, made, landed)
        for attempt in range(CLAIM_ATTEMPTS):
            if attempt:
                state = self.state(game_id)
            if not 0 <= seat < len(state.players):
                raise SeatNotFound(f"this game has seats 0 to {len(state.players) - 1}")
            self._check_invite(state, seat, body.get("invite"))
            new_events = game.decide(state, None, commands.ClaimSeat(seat, {"name": name}, body.get("client_seed")))
            try:
                saved = self.repository.save(game_id, state, new_events, key, fingerprint=fingerprint)
            except ConcurrencyError:
                continue  # someone else's command landed first: decide again on the new state
            except IdempotencyConflict as err:
                raise IdempotencyKeyReused() from err
            version, new_state = saved.version, saved.state
            if saved.replayed:
                made.found = True  # a copy of this claim landed first: its answer is this one
                return self._seated(game_id, seat, made, version)
            token = made.token("seat") if made is not None else issue_token()
            self.tokens.claim(game_id, seat, token)
            self.after_append(game_id, new_state)
            return token, Answer(self.render(game_id, new_state, seat), version)
        raise Conflict("the game kept changing while the seat was claimed; retry")

    def _landed(self, game_id: str, made: Made) -> int | None:
        """The version at which the game's log recorded the write ``made`` stands for (None: it did
        not); IdempotencyKeyReused if the log recorded another request under its key."""
        prior = self.store.idempotent_result(game_id, made.log_key)
        if prior is None:
            return None
        fingerprint, version = prior
        if fingerprint != made.fingerprint:
            raise IdempotencyKeyReused()
        made.found = True
        return version

    def _seated(self, game_id: str, seat: int, made: Made, version: int) -> tuple[str, Answer]:
        """The answer of a seat's claim the log recorded at ``version``: its token (written again,
        in case the first request failed before it wrote it) and the seat's view of then."""
        token = made.token("seat")
        self.tokens.claim(game_id, seat, token)
        self.after_append(game_id, self.state(game_id))
        state = self.repository.load_state(game_id, upto=version)
        return token, Answer(self.render(game_id, state, seat), version)

    @staticmethod
    def _check_invite(state, seat: int, presented: str | None) -> None:
        """InviteRequired unless the seat is public or ``presented`` is its invite secret.

        The log keeps only the secret's SHA-256 (GameCreated.invites); it is compared in constant
        time, as seat tokens are.
        """
        stored = (state.invites or {}).get(str(seat))
        if stored is None:
            return
        if not isinstance(presented, str) or not hmac.compare_digest(hash_token(presented), stored):
            raise InviteRequired(f"seat {seat} is by invitation: present its invite secret as 'invite'")
