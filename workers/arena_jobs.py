"""The RQ job that plays a whole board game of built-in policies: one job per game, not one per turn.

The arena schedules it for a board's game whose every seat is a built-in policy.
It does nothing if the game is no longer at ``version``.
A worker asked to stop (SIGTERM, Ctrl-C) stops it after the current turn.
"""

# It is as safe as the turn jobs.
# service.arena marks each player of such a game with its match.
# The game needs nobody outside the worker, so one job plays it rather than one play_bot_turn job per turn:
# RQ's own bookkeeping of a job costs several times the turn itself.
# Each move is appended with the version it was decided on.
# A worker killed mid-game leaves the game in the bot queue's waiting set.
# From there the sweeper enqueues its board job again, on the board queue.
# A job a live worker runs is never taken for lost, and it marks the wait fresh as it moves.

from __future__ import annotations

import time

from rq import get_current_job

from workers import batches, jobs


def play_board_game(game_id: str, version: int) -> str:
    """Play the game's bot turns from ``version`` to its end; then, for up to GINBOX_BOARD_CHAIN_S,
    the games its end started."""
    ctx = jobs.context()
    job = get_current_job()
    started = time.monotonic()
    chain_s = ctx.settings.board_chain_s
    # The end of a game starts its match's next one (service.arena), here in the job.
    # The job keeps that game and plays it on, rather than enqueue it (service/bots/chains.py).
    # It gives the game back to the queue once its time is up, when a bot turn waits in the turn
    # queue (a person's game waits on it), or when its worker is asked to stop.
    # With no time for a chain, it keeps nothing (a chain of no worker never keeps).
    worker = job.worker_name if job is not None and chain_s > 0 else None
    with ctx.scheduler.keeping(worker, job.id if job else None) as chain:
        outcome = play_one(ctx, game_id, version)
        more = 0
        while chain.kept is not None and not ctx.stopping.is_set() and time.monotonic() - started < chain_s:
            if ctx.scheduler.turns_waiting():
                break
            play_one(ctx, *chain.take())
            more += 1
    return outcome if not more else f"{outcome}; then {more} more game(s) of the chain"


def play_one(ctx, game_id: str, version: int) -> str:
    """Play one game's bot turns from ``version`` to its end (or until it moves on elsewhere)."""
    turns = 0
    # The job plays the turns one after another, each exactly as play_bot_turn plays one:
    # the same policy, view, seeded generator and expected version.
    # Each of its appends says so (whole), and the scheduler then schedules nothing for it (service.bots).
    # The job keeps the game's state between turns.
    # After each append it reads only the log's records after that state: its own moves', and any
    # other writer's.
    # So an append costs two commands: that read and the append.
    # Quick turns are appended together (see batches.py): one append, one read, however many turns.
    held = jobs.load_at(ctx, game_id, version)
    outcome = "moved_on"
    while held is not None:
        moves = batches.decide_turns(ctx, game_id, held)
        if len(moves) > 1:
            outcome = batches.append_turns(ctx, game_id, held, moves)
            played = len(moves)
        else:
            # one turn, advice, a turn the policy got wrong, a game to end: as a turn job plays it
            outcome = jobs.play_turn(ctx, game_id, held, jobs.UNREAD, whole=True)
            played = 1
        if outcome != "moved":
            break
        turns += played
        held = jobs.load_after(ctx, game_id, held)
        if held.state.status == "over":
            # The append that ended the game told the scheduler (which stopped the game's wait)
            # and the arena (which moved the match on), and queued the game's archive.
            # Telling them again would only repeat those writes.
            return f"over after {turns} turns"
        # A worker asked to stop does not wait for a whole game, which may take minutes.
        # The game's board job is enqueued again at the version it reached, for the next worker.
        # Each turn was appended as it was played: nothing is lost.
        if ctx.stopping.is_set():
            outcome = "stopped"  # the scheduler below enqueues the game again at this version
            break
    # Should two board jobs of one game run at once all the same, one of them wins each version,
    # and the other ends "moved_on".
    # The one that ends leaves the game to the other, as long as a live worker runs that one.
    # Enqueuing a third instead would race it again.
    if outcome == "moved_on" and played_by_another(ctx, game_id):
        # another board job plays this game on: its own end schedules what comes after it
        return f"{outcome} after {turns} turns, left to the job playing the game"
    # the last append scheduled nothing: let the scheduler see the game as it stands (a game over
    # leaves the waiting set; a game still waiting on a bot, if any, gets its job)
    state = ctx.games.state(game_id)
    ctx.games.after_append(game_id, state)
    return f"{outcome} after {turns} turns"


def played_by_another(ctx, game_id: str) -> bool:
    """Whether a live worker other than this job's own runs a board job of the game."""
    job = get_current_job()
    me = job.worker_name if job is not None else None
    return ctx.scheduler.board_game_run_elsewhere(game_id, me, int(time.time() * 1000))
