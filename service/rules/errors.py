"""The one exception the rules engine raises for an illegal command or spec (RULES.md §1-§4)."""

from __future__ import annotations


class RulesError(Exception):
    """An illegal command, spec or option, with a stable code and a human message.

    ``conflict`` is True when the *state* forbids the command, which might be legal at another moment.
    It is False when the command itself is illegal.
    ``forbidden`` is True when the seat's role never allows the command.
    """

    def __init__(self, code: str, message: str, conflict: bool = False, forbidden: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.conflict = conflict
        self.forbidden = forbidden

    def __repr__(self) -> str:
        return (f"RulesError({self.code!r}, {self.message!r}, conflict={self.conflict!r}"
                + (", forbidden=True)" if self.forbidden else ")"))


def conflict(code: str, message: str) -> RulesError:
    """A RulesError raised because of the state of the game."""
    # Such as: not your turn, wrong phase, game over, seat taken, game not started.
    return RulesError(code, message, conflict=True)


def invalid(code: str, message: str) -> RulesError:
    """A RulesError raised because the command itself is illegal."""
    # Such as: a card not in hand, too much deadwood, invalid melds, an unknown command or option.
    return RulesError(code, message, conflict=False)


def forbidden(code: str, message: str) -> RulesError:
    """A RulesError raised because the seat's role never allows the command."""
    # Such as the three-hand advisor's moves: the advisor sits out the hand.
    return RulesError(code, message, forbidden=True)
