"""Playing a command (a move, a resignation, a client seed) or giving advice, for a seat."""

from __future__ import annotations

from typing import Collection

from service.errors import (
    AdviceLimitReached,
    Conflict,
    DomainError,
    IdempotencyKeyReused,
    VersionMismatch,
)
from service.games.core import CLAIM_ATTEMPTS, Answer, GameCore, Incoming
from service.rules import commands, game
from service.rules.errors import RulesError
from service.store import advice as advice_log
from service.store.errors import ConcurrencyError, IdempotencyConflict


class GameCommands(GameCore):
    """The use cases ``play`` and ``give_advice``, for a token's seat or for a seat the server plays."""

    def _idempotent_answer(self, game_id: str, seat: int | None, key: str, fingerprint: str) -> Answer | None:
        prior = self.store.idempotent_result(game_id, key)
        if prior is None:
            return None
        first_fingerprint, version = prior
        if first_fingerprint != fingerprint:
            raise IdempotencyKeyReused()
        state = self.repository.load_state(game_id, upto=version)
        return Answer(self.render(game_id, state, seat), version)

    def play(self, game_id: str, incoming: Incoming) -> Answer:
        """Play a command for the seat of the token presented; the mover's new view.

        The command is decided on the newest state this process holds of the game, unread: the
        append, which expects that state's version, is what checks it against the log. Else on
        the log's.
        """
        recent = self.repository.recent_state(game_id)
        state, state_read = (recent, False) if recent is not None else (self.state(game_id), True)
        try:
            seat = self._seat_of(game_id, incoming.token())
        except Exception:  # whatever refused the caller (no token, a token of no seat)
            if not state_read:
                self.state(game_id)  # a game the log does not hold is not found, whoever asks
            raise
        req = incoming.request()
        key, fingerprint = req.idempotency.for_seat(seat) if req.idempotency is not None else (None, None)
        return self._play(game_id, seat, req.command, req.expected_versions, key, fingerprint, state, state_read)

    def play_for_seat(self, game_id: str, seat: int, command, *, expected_versions: Collection[int] | None = None,
                      idempotency_key: str | None = None, fingerprint: str | None = None, state=None,
                      whole: bool = False) -> Answer:
        """Play a command for ``seat`` (a bot, a turn clock: no token), decided on the log's state.

        ``state``: the log's state, if the caller has just read it (a bot's turn reads the game once).
        ``whole``: the move is one of the job that plays the game whole (service.bots.BotScheduler).
        """
        return self._play(game_id, seat, command, expected_versions, idempotency_key, fingerprint,
                          state if state is not None else self.state(game_id), True, whole=whole)

    def play_several_for_seats(self, game_id: str, state, moves: list, *, whole: bool = False) -> int:
        """Play ``moves`` ((seat, command) pairs, each decided on the state the one before leaves)
        from ``state``, the log's, in one append; the version reached.

        The moves land together or not at all: ConcurrencyError if the log is no longer at
        ``state``'s version (then nothing is appended), RulesError if the rules refuse one.
        For the job that plays a board game of built-in bots whole (workers/arena_jobs.py).
        """
        new_events: list = []
        after = state
        for seat, command in moves:
            if isinstance(command, commands.Advise):
                raise TypeError("advice is recorded by give_advice, in the advice log, never as an event")
            decided = game.decide(after, seat, command)
            for event in decided:
                after = game.evolve(after, event)
            new_events += decided
        saved = self.repository.save(game_id, state, new_events)
        self.after_append(game_id, saved.state, whole=whole)
        return saved.version

    def _play(self, game_id, seat, command, expected_versions, idempotency_key, fingerprint, state,
              state_read, *, whole: bool = False) -> Answer:
        """Decide ``command`` for ``seat`` on ``state`` and append its events.

        ``expected_versions``: the versions the client accepts (VersionMismatch if the game is
        elsewhere); without them a lost race is a ConcurrencyError.
        ``state_read``: whether ``state`` was read from the log.
        """
        if idempotency_key is not None:
            answer = self._idempotent_answer(game_id, seat, idempotency_key, fingerprint)
            if answer is not None:
                return answer
        while True:
            try:
                return self._decide_and_append(game_id, state, seat, command, expected_versions, idempotency_key,
                                               fingerprint, whole)
            except (DomainError, RulesError, ConcurrencyError):
                # A command decided on a state not read from the log answers nothing the log has not confirmed.
                # Refused in any way while the log is elsewhere, it is decided again on the log's state.
                if not state_read:
                    current = self.state(game_id)
                    if current.version != state.version:
                        # the state this process held was behind the log: only a refusal on the log's counts
                        state, state_read = current, True
                        continue
                # a copy of this very request (same key and body) may have been recorded between our
                # look-up and our decision, so that the state we decided on already had its move:
                # the copy's answer is ours
                if idempotency_key is not None:
                    answer = self._idempotent_answer(game_id, seat, idempotency_key, fingerprint)
                    if answer is not None:
                        return answer
                raise

    def give_advice(self, game_id: str, incoming: Incoming) -> Answer:
        """Record the advice (an Advise command) of the seat of the token presented; the advisor's view."""
        state = self.state(game_id)
        seat = self._seat_of(game_id, incoming.token())
        req = incoming.request()
        key, fingerprint = req.idempotency.for_seat(seat) if req.idempotency is not None else (None, None)
        return self._give_advice(game_id, seat, req.command, req.expected_versions, key, fingerprint, state)

    def give_advice_for_seat(self, game_id: str, seat: int, text: str, *,
                             expected_versions: Collection[int] | None = None) -> Answer:
        """Record advice for ``seat`` (a bot advisor: no token)."""
        return self._give_advice(game_id, seat, commands.Advise(text), expected_versions, None, None,
                                 self.state(game_id))

    def _give_advice(self, game_id, seat, advice: commands.Advise, expected_versions, idempotency_key, fingerprint,
                     state) -> Answer:
        """Record the advisor's advice at the game's current version; the advisor's view (its version unchanged).

        The engine decides whether the advice is allowed on the log's state; the advice log then
        records it only if the game is still at that version and fewer than
        ``MAX_ADVICE_PER_VERSION`` pieces were given there. The game's log is not touched.
        """
        for attempt in range(CLAIM_ATTEMPTS):
            if attempt:
                state = self.state(game_id)
            if expected_versions is not None and state.version not in expected_versions:
                raise VersionMismatch(f"the game is at version {state.version}, not the one in If-Match",
                                      current=state.version)
            entry = game.check_advice(state, seat, advice)
            try:
                self.advice.give(game_id, state.version, entry, commands.MAX_ADVICE_PER_VERSION,
                                 idempotency_key, fingerprint or "")
            except ConcurrencyError:
                continue  # a move landed meanwhile: check the advice again on the new state
            except advice_log.AdviceLimitReached:
                raise AdviceLimitReached(
                    f"at most {commands.MAX_ADVICE_PER_VERSION} pieces of advice between two moves") from None
            except IdempotencyConflict as err:
                raise IdempotencyKeyReused() from err
            return Answer(self.render(game_id, state, seat), state.version)
        raise Conflict("the game kept changing while the advice was recorded; retry")

    def _decide_and_append(self, game_id, state, seat, command, expected_versions, idempotency_key,
                           fingerprint, whole: bool = False) -> Answer:
        if expected_versions is not None and state.version not in expected_versions:
            raise VersionMismatch(f"the game is at version {state.version}, not the one in If-Match",
                                  current=state.version)
        if isinstance(command, commands.Advise):
            raise TypeError("advice is recorded by give_advice, in the advice log, never as an event")
        new_events = game.decide(state, seat, command)
        try:
            saved = self.repository.save(game_id, state, new_events, idempotency_key, fingerprint=fingerprint)
        except ConcurrencyError as err:
            if expected_versions is not None:
                raise VersionMismatch(
                    f"the game moved on to version {err.actual} before this command was recorded") from err
            raise
        except IdempotencyConflict as err:
            raise IdempotencyKeyReused() from err
        version, new_state = saved.version, saved.state
        if saved.replayed:
            # the same key and body raced with us and won: answer what the first request got
            return Answer(self.render(game_id, new_state, seat), version)
        self.after_append(game_id, new_state, whole=whole)
        return Answer(self.render(game_id, new_state, seat), version)
