"""For the rules tests: explicit decks, a game driver and hand-made hands (no tests here).

Decks follow RULES.md §1 "Deal" [decision]: cards 1-20 alternately to the non-dealer and the
dealer, non-dealer first, card 21 the upcard, the stock from card 22 (on top) onwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.rules import game
from service.rules.commands import (
    DrawDiscard,
    DrawStock,
    Discard,
    Knock,
    PassUpcard,
    TakeUpcard,
)

from support.decks import ALL_CODES, build_deck

ALL = list(ALL_CODES)


def deck(non_dealer: str, dealer: str, upcard: str, stock: str = "") -> list[str]:
    """A 52-card deck (top first) dealing these hands (card codes separated by spaces), this upcard
    and this top of the stock."""
    return build_deck(non_dealer.split(), dealer.split(), upcard, stock.split())


@dataclass
class Table:
    """A game driven command by command, keeping the whole log."""

    state: game.GameState
    events: list = field(default_factory=list)

    def do(self, seat, command) -> list:
        self.state, new = game.apply(self.state, seat, command)
        self.events += new
        return new

    # short names for the commands of a turn
    def take(self, seat):
        return self.do(seat, TakeUpcard())

    def pass_(self, seat):
        return self.do(seat, PassUpcard())

    def stock(self, seat):
        return self.do(seat, DrawStock())

    def pile(self, seat):
        return self.do(seat, DrawDiscard())

    def discard(self, seat, card):
        return self.do(seat, Discard(card))

    def knock(self, seat, discard, melds=None):
        return self.do(seat, Knock(discard, melds))

    def types(self, events=None) -> list[str]:
        return [type(e).TYPE for e in (self.events if events is None else events)]

    def last(self, cls):
        return [e for e in self.events if isinstance(e, cls)][-1]


def new_table(variant: str, decks=None, options=None, roles=None, first_dealer=None,
              seed: bytes = b"rules-test-seed", players=None, rules=None) -> Table:
    seats = 3 if variant == "three-hand" else 2
    if players is None:
        players = [{"name": name} for name in ("ann", "bob", "cat")[:seats]]
    spec = game.GameSpec(variant, players, options, seed=seed, decks=decks, roles=roles,
                      first_dealer=first_dealer, rules=rules)
    events = game.start(spec)
    return Table(game.replay(events), list(events))


# Hand-made hands (non-dealer, dealer, upcard, stock top) used by several test modules.
# P_KNOCK: the non-dealer draws 2D and knocks discarding 9H.
#   knocker: AC 2C 3C | 7D 7H 7S | 4S 5S 6S, deadwood 2D = 2 -> K = 2
#   defender: own set QD QH QS; lays off 4C on AC-3C, 7C on the 7s, 3S then 2S on 4S-6S;
#   deadwood KH + KS + 9C = 10 + 10 + 9 = 29 -> D = 29
P_KNOCK = ("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H", "2S 3S 4C 7C QD QH QS KH KS 9C", "JC", "2D")
# P_UNDERCUT: the non-dealer draws 2D and knocks discarding 2D, keeping 9H: K = 9.
#   defender: 8C 9C TC | JD QD KD | 5D 5C 5H, deadwood AH = 1 -> D = 1
P_UNDERCUT = ("AC 2C 3C 7D 7H 7S 4S 5S 6S 9H", "8C 9C TC JD QD KD 5D 5C 5H AH", "KS", "2D")
# P_EQUAL: knocker keeps 5H (K = 5); defender 8C 9C TC | JD QD KD | 9D 9S 9H, 5C: D = 5
#   (5C cannot go on AC 2C 3C: only 4C would extend it)
P_EQUAL = ("AC 2C 3C 7D 7H 7S 4S 5S 6S 5H", "8C 9C TC JD QD KD 9D 9S 9H 5C", "KS", "2D")
# P_GIN: knocker AC 2C 3C 4C | 7D 7H 7S | 4S 5S 6S already melded; draws KH, discards it.
#   defender 8C 9C TC | 9D 9S 9H | JD QD KD, 5C: D = 5 (5C would extend AC-4C, but no lay-offs
#   against gin)
P_GIN = ("AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H 5C", "QS", "KH")
# P_BIG_GIN: same knocker draws 7C: AC-4C, 7C 7D 7H 7S, 4S 5S 6S = 11 cards all melded.
P_BIG_GIN = ("AC 2C 3C 4C 7D 7H 7S 4S 5S 6S", "8C 9C TC JD QD KD 9D 9S 9H 5C", "QS", "7C")


def deck_of(pattern) -> list[str]:
    return deck(*pattern)
