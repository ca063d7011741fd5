"""Bot policies: each sees only one seat's view (and its redacted events) and picks a legal move.

``make_policy(name, budget_s=None)`` builds one of ``POLICY_NAMES`` (weakest first: random,
basic, advanced, expert); a policy has ``choose(view, rng, events=None) -> Command``.
``advice_text(command)`` words a move for the three-hand advisor's message to its captain.
"""

from __future__ import annotations

from service.rules.commands import MAX_ADVICE_LENGTH, Command, Discard, Knock
from service.rules.names import BOT_POLICY_NAMES

from .expert import ExpertParams, ExpertPolicy
from .knowledge import Knowledge, owner_moves, read
from .basic import BasicPolicy, RandomPolicy, basic_move
from .simple import SimplePolicy, simple_move

#: the policies make_policy builds: the engine's list of built-in bot names (the wire's enum)
POLICY_NAMES = BOT_POLICY_NAMES


class AdvancedPolicy(ExpertPolicy):
    """The expert's opponent estimate, hand values and knock rule without its playout search.

    It plays every move the rules choose, close calls too. With no search there is no time
    budget to spend, so a move depends only on the view, the events and the random generator.
    """

    name = "advanced"

    def __init__(self, params: ExpertParams | None = None, **overrides):
        super().__init__(params, **{**overrides, "rollouts": False, "budget_s": None})


def make_policy(name: str, budget_s: float | None = None):
    """The policy called ``name``; ``budget_s`` is the expert's time budget per move (the other
    policies, ``advanced`` included, do not search and ignore it)."""
    if name == "random":
        return RandomPolicy()
    if name == "basic":
        return BasicPolicy()
    if name == "simple":
        return SimplePolicy()
    if name == "advanced":
        return AdvancedPolicy()
    if name == "expert":
        return ExpertPolicy() if budget_s is None else ExpertPolicy(budget_s=budget_s)
    raise ValueError(f"unknown bot policy {name!r}: expected one of {', '.join(POLICY_NAMES)}")


def advice_text(command: Command) -> str:
    """A short sentence naming the move the advisor would play, and why when the policy said
    (the expert's moves carry a ``reason``)."""
    text = _move_text(command)
    reason = getattr(command, "reason", None)
    if reason:
        text = f"{text[:-1]}: {reason}."
    return text[:MAX_ADVICE_LENGTH]


def _move_text(command: Command) -> str:
    t = command.TYPE
    if t == "take_upcard":
        return "Take the upcard."
    if t == "pass_upcard":
        return "Pass the upcard."
    if t == "draw_stock":
        return "Draw from the stock."
    if t == "draw_discard":
        return "Take the top card of the discard pile."
    if isinstance(command, Discard):
        return f"Discard {command.card}."
    if isinstance(command, Knock):
        if command.discard is None:
            return "Lay down big gin."
        return f"Knock, discarding {command.discard}."
    return f"Play {t}."


__all__ = [
    "POLICY_NAMES",
    "AdvancedPolicy",
    "BasicPolicy",
    "ExpertParams",
    "ExpertPolicy",
    "Knowledge",
    "RandomPolicy",
    "SimplePolicy",
    "advice_text",
    "basic_move",
    "make_policy",
    "owner_moves",
    "read",
    "simple_move",
]
