"""Rule sets beyond the seeds (RULES.md §5): Oklahoma's knock limit and spade doubling, and the
end-of-game bonuses (box, game, shutout)."""

from __future__ import annotations

from typing import Any, Mapping

from . import cards

#: the suit index of spades (cards.SUITS is "CDHS")
SPADES = cards.SUITS.index("S")


def upcard_limit(upcard: int) -> int:
    """Oklahoma's knock limit for a hand whose upcard is ``upcard``: an ace allows gin only (0),
    2-9 their value, a ten or a face card 10."""
    return 0 if cards.rank(upcard) == 0 else cards.VALUE[upcard]


def hand_knock_limit(options: Mapping[str, Any], deck: tuple) -> int:
    """The knock limit of the hand dealt from ``deck`` (the upcard is its card 21); 0 before a deal."""
    if not options.get("oklahoma"):
        return options["knock_limit"]
    return upcard_limit(deck[20]) if deck else 0


def hand_multiplier(options: Mapping[str, Any], deck: tuple) -> int:
    """2 if every point of the hand dealt from ``deck`` is doubled (Oklahoma, a spade upcard), else 1."""
    if options.get("oklahoma") and options.get("oklahoma_spades_double") and deck and cards.suit(deck[20]) == SPADES:
        return 2
    return 1


def has_bonuses(options: Mapping[str, Any]) -> bool:
    """Whether any end-of-game bonus is on."""
    return bool(options.get("box_bonus") or options.get("game_bonus") or options.get("shutout_bonus")
                or options.get("shutout_doubles"))


def end_bonuses(options: Mapping[str, Any], hand_points: tuple, wins: tuple, winner: int) -> dict:
    """The score sheet of a game won at the target: each line per seat, and the final totals.

    ``hand_points``: each seat's total of hand points; ``wins``: the hands each seat won.
    Box bonuses go to every seat, the game bonus and the shutout to the winner; a shutout's
    doubling comes after its fixed bonus, and doubles the winner's whole total.
    """
    n = len(hand_points)
    box = tuple(options.get("box_bonus", 0) * w for w in wins)
    game = tuple(options.get("game_bonus", 0) if s == winner else 0 for s in range(n))
    shutout = all(wins[s] == 0 for s in range(n) if s != winner)
    fixed = tuple(options.get("shutout_bonus", 0) if shutout and s == winner else 0 for s in range(n))
    before = [hand_points[s] + box[s] + game[s] + fixed[s] for s in range(n)]
    doubled = tuple(before[s] if shutout and options.get("shutout_doubles") and s == winner else 0
                    for s in range(n))
    totals = tuple(before[s] + doubled[s] for s in range(n))
    return {
        "hand_points": list(hand_points),
        "hands_won": list(wins),
        "box_bonus": list(box),
        "game_bonus": list(game),
        "shutout": shutout,
        "shutout_bonus": list(fixed),
        "shutout_doubling": list(doubled),
        "totals": list(totals),
    }
