"""Names the engine shares with the wire and the bots: a game's statuses (RULES.md §1 turns: a game
waits for its players, is played, is over) and the server's built-in bot policies.

Declared once here; the wire schemas, openapi.yaml (checked by a contract test) and the bot
policy registry take them from this module.
"""

from __future__ import annotations

WAITING = "waiting"
PLAYING = "playing"
OVER = "over"
#: every status of a game, in the order of its life
STATUSES: tuple[str, ...] = (WAITING, PLAYING, OVER)

#: the bot policies the server plays a seat with (workers.policies.make_policy builds each), weakest
#: first: ``simple`` is the AAAI/EAAI challenge's reference player (RULES.md §5), ``advanced`` is the
#: expert's estimate and rules without its playout search
BOT_POLICY_NAMES: tuple[str, ...] = ("random", "simple", "basic", "advanced", "expert")
