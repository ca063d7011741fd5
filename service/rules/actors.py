"""Who acts now, as the bots and the clocks see it (RULES.md §2 for the advisor's turn).

It names the bot seat to move or advise, the human seat whose turn clock runs, and the games
that bots play alone.
Each is a pure function of a game's state: its players, roles, ``to_act`` and options.
"""

from __future__ import annotations

from typing import Any

# The scheduler (service.bots) and the bot jobs (workers.jobs) decide with these functions.


def is_bot(player: Any) -> bool:
    """A seat played by a policy: its player dict names one under "bot"."""
    return isinstance(player, dict) and bool(player.get("bot"))


def next_bot_action(state, advised: bool = False) -> tuple[str, int] | None:
    """("advise", advisor seat) or ("move", seat) for the bot that acts now in ``state``, or None.

    A bot advisor advises its captain once per decision, before the captain plays: not again
    when advice was already given at this version (``advised``, from the advice log: the state
    does not say which event came last).
    """
    if getattr(state, "status", None) != "playing":
        return None
    players = state.players
    roles = state.roles
    if roles and is_bot(players[roles["advisor"]]) and roles["captain"] in state.to_act:
        if not advised:
            return ("advise", roles["advisor"])
    for seat in state.to_act:
        if is_bot(players[seat]):
            return ("move", seat)
    return None


def bots_alone(state) -> bool:
    """Whether every seat of ``state`` is a built-in bot: a game nobody waits on (no person, no bot account)."""
    players = getattr(state, "players", None) or ()
    return bool(players) and all(is_bot(p) for p in players)


def bot_to_act(state) -> bool:
    """True when a bot has something to do in ``state``: a move, or advice for its captain.

    Whether a bot advisor already advised is for the job to read (``next_bot_action``): here a
    bot advisor whose captain is to act always counts.
    """
    return next_bot_action(state) is not None


def human_clock(state) -> float | None:
    """Seconds a human seat to act has before the basic policy plays for it (None: no clock)."""
    timeout = (state.options or {}).get("turn_timeout_s") if getattr(state, "status", None) == "playing" else None
    if not timeout:
        return None
    players = state.players
    if any(not is_bot(players[s]) for s in state.to_act):
        return float(timeout)
    return None


def plays_whole(state) -> bool:
    """Whether a job plays this game whole: a match's board game whose every seat is a built-in policy."""
    players = getattr(state, "players", None) or ()
    return (getattr(state, "status", None) == "playing" and bool(players)
            and all(isinstance(p, dict) and p.get("bot") and p.get("match") for p in players))
