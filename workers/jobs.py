"""RQ entry points: play a bot's turn (or its advice), play a human's timed-out turn.

Jobs take only ids (``game_id``, the ``version`` they answer).
They find their connections in the worker's context, built once at start-up (workers/runner.py).
Each is safe to run twice: it does nothing if the game moved on from ``version``.
"""

# A job's move is appended with version as the expected version, so of two runs at most one lands.

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from typing import Any

from service import bots
from service.composition import WorkerComponents
from service.rules.actors import bots_alone, human_clock, is_bot, next_bot_action
from service.errors import AdviceLimitReached, VersionMismatch
from service.bot_metrics import bot_turn
from service.rules import commands, game, views
from service.rules.errors import RulesError
from service.store.errors import ConcurrencyError

from workers.policies import advice_text, basic_move, make_policy, read

log = logging.getLogger(__name__)

#: the expert's time budget per move when the seat does not say (player field "budget_ms")
DEFAULT_BUDGET_S = 0.2


#: what jobs use, built once at worker start-up (service.composition.build_worker)
WorkerContext = WorkerComponents


_context: WorkerContext | None = None


def set_context(ctx: WorkerContext | None) -> None:
    global _context
    _context = ctx


def current_context() -> WorkerContext | None:
    """The worker's context, or None outside a worker."""
    return _context


def context() -> WorkerContext:
    if _context is None:
        raise RuntimeError("the worker context is not set: jobs run inside 'ginbox worker'")
    return _context


# --------------------------------------------------------------------------- reading a game

#: events read back from the end of the log at first to find the deal of the hand in play
TAIL_WINDOW = 64


@dataclass
class Loaded:
    """A game at a version: its state, the hand in play's records and the state before them."""

    state: Any
    records: list
    base: Any

    def seat_events(self, seat: int) -> list[dict]:
        """The events of the hand in play as ``seat`` was shown them (views.view_event)."""
        out = []
        s = self.base
        for r in self.records:
            shown = views.view_event(r.event, seat, s)
            if shown is not None:
                out.append(shown)
            s = game.evolve(s, r.event)
        return out

    def extend(self, new_records: list) -> "Loaded":
        """The game after ``new_records``, the log's records that follow this state, in order.

        A hand dealt among them starts the hand in play anew, as ``load_at`` would find it.
        """
        state, records, base = self.state, list(self.records), self.base
        for r in new_records:
            if r.event.TYPE == "hand_dealt":
                base, records = state, []
            records.append(r)
            state = game.evolve(state, r.event)
        return Loaded(state=state, records=records, base=base)


def load_after(ctx: WorkerContext, game_id: str, held: Loaded) -> Loaded:
    """``held`` brought to the end of the log: one read of the records after its version."""
    new = ctx.store.load(game_id, after=held.state.version)
    return held.extend(new) if new else held


def load_at(ctx: WorkerContext, game_id: str, version: int) -> Loaded | None:
    """The game as it stands at ``version``, or None if it is at another version by now."""
    # The log is read back from the end until the hand's deal is found.
    # That is one read, which also shows whether the game moved on.
    window = TAIL_WINDOW
    while True:
        after = max(0, version - window)
        records = ctx.store.load(game_id, after=after)
        if not records or records[-1].version != version:
            return None
        deal = next((i for i in range(len(records) - 1, -1, -1) if records[i].event.TYPE == "hand_dealt"), None)
        if deal is not None or after == 0:
            break
        window *= 4
    # The state just before the deal comes from the repository (snapshot plus log),
    # and the hand's events are replayed on it.
    # So each can be redacted exactly as the API would redact it for the seat.
    hand = records[deal:] if deal is not None else records
    first = hand[0].version
    base = ctx.repository.load_state(game_id, upto=first - 1) if first > 1 else None
    state = base
    for r in hand:
        state = game.evolve(state, r.event)
    return Loaded(state=state, records=hand, base=base)


def _budget_s(player: dict, settings=None) -> float:
    """The expert's time per move: the seat's ``budget_ms``, else the settings', else the default."""
    for ms in (player.get("budget_ms") if isinstance(player, dict) else None,
               getattr(settings, "bot_budget_ms", None)):
        if isinstance(ms, (int, float)) and not isinstance(ms, bool) and 0 < ms <= 10_000:
            return ms / 1000
    return DEFAULT_BUDGET_S


def policy_for(player: dict, settings=None):
    name = player.get("bot") if isinstance(player, dict) else None
    try:
        return make_policy(name, budget_s=_budget_s(player, settings))
    except ValueError:
        log.warning("unknown bot policy %r: playing basic", name)
        return make_policy("basic")


def choose(loaded: Loaded, game_id: str, seat: int, policy, advise: bool = False, seen: list[dict] | None = None):
    """The command the seat's policy picks from its own view and events (seeded by game and version).

    ``seen``: the seat's events of the hand in play, if the caller keeps them (else read from ``loaded``).
    """
    state = loaded.state
    view = views.view_state(state, seat)
    if seen is None:
        seen = loaded.seat_events(seat)
    rng = random.Random(f"{game_id}:{state.version}:{seat}")
    command = policy.choose(view, rng, seen)
    if advise:
        return commands.Advise(advice_text(command))
    return command


def _append(ctx: WorkerContext, game_id: str, seat: int, command, version: int,
            idempotency_key: str | None = None, state=None, whole: bool = False) -> bool:
    """Play ``command`` for ``seat`` through the service layer, expecting ``version``.

    ``state``: the game at ``version`` as the job read it (so the move is decided without a second
    read). False when someone else moved first (the game is no longer at ``version``).
    """
    try:
        if isinstance(command, commands.Advise):
            ctx.games.give_advice_for_seat(game_id, seat, command.text, expected_versions={version})
        else:
            ctx.games.play_for_seat(game_id, seat, command, expected_versions={version},
                                    idempotency_key=idempotency_key,
                                    fingerprint=None if idempotency_key is None else f"clock:{seat}:{version}",
                                    state=state, whole=whole)
    except (ConcurrencyError, VersionMismatch):
        return False
    except AdviceLimitReached:
        return True  # the captain already has all the advice one version allows
    return True


# --------------------------------------------------------------------------- jobs


#: a game's wait not read yet (play_turn reads it when nobody automatic acts)
UNREAD = object()


def play_bot_turn(game_id: str, version: int, whole: bool = False) -> str:
    """Play the bot's move (or its advice) in ``game_id`` if the game is still at ``version``."""
    ctx = context()
    waiting_since = ctx.scheduler.waiting.since(game_id)
    loaded = load_at(ctx, game_id, version)
    if loaded is None:
        return "moved_on"
    return play_turn(ctx, game_id, loaded, waiting_since, whole=whole)


def play_turn(ctx: WorkerContext, game_id: str, loaded: Loaded, waiting_since, whole: bool = False) -> str:
    """Play the bot's move (or its advice) in the game as ``loaded`` holds it, expecting its version.

    ``waiting_since``: the game's wait, read before ``loaded`` was; UNREAD if it was not.
    ``whole``: the turn is one of the job that plays the game whole (workers/arena_jobs.py).
    """
    version = loaded.state.version
    state = loaded.state
    limit = getattr(ctx.settings, "abandon_drawn_hands", 0)
    if limit and _bots_alone(state) and game.drawn_hands_in_a_row(state) >= limit:
        return end_drawn_out(ctx, game_id, loaded)
    advised = _advisor_is_bot(state) and ctx.games.advice_given_at(game_id, version)
    outcome = "no_bot_to_act"
    # a bot advisor's advice, then (advice moves no version) a bot captain's move at the same version
    for _ in range(2):
        action = next_bot_action(state, advised)
        if action is None:
            break
        kind, seat = action
        player = state.players[seat]
        # one bot turn on /metrics (ginbox_bot_turns, ginbox_bot_turn_duration_seconds): its choice
        # and its append, whether a turn job or a board game's job plays it
        with bot_turn("advice" if kind == "advise" else "move") as turn:
            t0 = time.perf_counter()
            try:
                command = choose(loaded, game_id, seat, policy_for(player, ctx.settings), advise=(kind == "advise"))
            except Exception:  # noqa: BLE001 (a policy bug must not stall the game: the basic move stands in)
                log.exception("policy %r failed in game %s at version %s", player.get("bot"), game_id, version)
                command = fallback_move(state, seat, advise=(kind == "advise"))
            ctx.stats["last_think_s"] = time.perf_counter() - t0
            try:
                appended = _append(ctx, game_id, seat, command, version, state=state, whole=whole)
            except RulesError as err:
                # the engine refused the policy's move at this very version (If-Match is checked before
                # the engine decides, so this is no race): play a move it lists as legal instead, so
                # that the job does not fail (and get retried, then swept) for ever on the same refusal
                log.error("game %s version %s: engine refused %r (%s); playing a listed move", game_id, version,
                          command, err.code)
                appended = _append(ctx, game_id, seat, fallback_move(state, seat, advise=(kind == "advise")), version,
                                   state=state, whole=whole)
            turn["outcome"] = "moved_on" if not appended else "advised" if kind == "advise" else "moved"
        if not appended:
            return "moved_on"
        if kind != "advise":
            return "moved"  # the append scheduled whatever comes next
        advised, outcome = True, "advised"
    # nobody automatic acts here (a human's turn, the game is over, or a human captain now has
    # the bot's advice): stop waiting
    if waiting_since is UNREAD:
        # The wait is read before the log is read again, as play_bot_turn reads them.
        # So a wait begun by an append after this state survives.
        waiting_since = ctx.scheduler.waiting.since(game_id)
        fresh = load_after(ctx, game_id, loaded)
        if fresh.state.version != version:
            return play_turn(ctx, game_id, fresh, waiting_since, whole=whole)
    ctx.scheduler.waiting.stop_if(game_id, waiting_since)
    return outcome


def _bots_alone(state) -> bool:
    """Whether every seat of a game in play is a built-in bot (no person, no bot account)."""
    return state.status == "playing" and bots_alone(state)


def end_drawn_out(ctx: WorkerContext, game_id: str, loaded: Loaded) -> str:
    """End a game of built-in bots alone whose last hands were all drawn (GameService.end_drawn_out)."""
    last_ts = loaded.records[-1].ts if loaded.records else None
    ended = ctx.games.end_drawn_out(game_id, loaded.state, last_ts, int(time.time() * 1000))
    return "abandoned" if ended else "moved_on"


def _advisor_is_bot(state) -> bool:
    roles = getattr(state, "roles", None)
    return bool(roles) and is_bot(state.players[roles["advisor"]])


def fallback_move(state, seat: int, advise: bool = False):
    """A move the engine lists as legal for ``seat`` (the basic policy's pick among them)."""
    if advise:
        return commands.Advise("Play as you see fit.")
    try:
        return basic_move(read(views.view_state(state, seat)))
    except Exception:  # noqa: BLE001
        return game.legal_moves(state, seat)[0]


def play_timed_out_turn(game_id: str, version: int, attempt: int = 0) -> str:
    """A human seat's clock ran out: if the game is still at ``version``, play the basic move for it.

    The events start with TurnTimedOut (the log says the clock played).
    It never plays before the deadline the view showed (``turn_deadline_ms``).
    Run earlier, it plays nothing and schedules the clock again for the deadline, as attempt ``attempt + 1``.
    """
    ctx = context()
    state = ctx.repository.load_state(game_id)
    if state.version != version or state.status != "playing":
        return "moved_on"
    timeout_s = human_clock(state)
    if timeout_s is not None:
        last = ctx.store.load(game_id, after=version - 1, upto=version)
        deadline = bots.clock_deadline_ms(last[-1].ts, timeout_s) if last else None
        now_ms = int(time.time() * 1000)
        # The deadline is the ts of the event at version plus the timeout.
        # A job runs earlier by this worker's clock when the host that stamped the event runs ahead of it.
        # Its next attempt has an id of its own: this job's id is still taken while it runs.
        if deadline is not None and now_ms < deadline:
            ctx.scheduler.clock_again(game_id, version, timeout_s, deadline, attempt + 1)
            log.info("turn clock of game %s at version %s ran %d ms before its deadline: scheduled again",
                     game_id, version, deadline - now_ms)
            return "early"
    for seat in state.to_act:
        if is_bot(state.players[seat]):
            continue
        # wrapped so that the log itself says the clock played this move (a TurnTimedOut event first)
        with bot_turn("clock") as turn:
            command = commands.PlayTimedOutTurn(basic_move(read(views.view_state(state, seat))))
            # the idempotency key clock-<version>: a second run of the clock answers the first one's result
            appended = _append(ctx, game_id, seat, command, version, idempotency_key=f"clock-{version}")
            turn["outcome"] = "auto_played" if appended else "moved_on"
        return turn["outcome"]
    return "no_human_to_act"


def analyse_game(game_id: str) -> str:
    """Run the decision analysis of a finished game and store its result once (service.games.analysis)."""
    return context().analyses.run(game_id)


def archive_game(game_id: str) -> str:
    """Archive a finished game's log (service.games.archive); what became of it. Safe to run twice:
    a second run finds the game archived and changes nothing."""
    return context().archives.archive(game_id)
