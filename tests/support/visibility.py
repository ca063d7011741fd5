"""What each viewer may know of a game's cards, worked out apart from the engine (RULES.md §1-§2).

From the decks and the moves actually played, :class:`HandKnowledge` follows one hand the
way a person at the table would: who holds which card, what lies face up. A viewer may see

- the cards their own seat held at any moment of the hand (dealt, drawn, taken);
- in three-hand, the advisor: every card the captain held (§2: "may see the captain's hand");
- every card that lay face up: the upcard and each card discarded (so also the cards the
  opponent took from the discard pile);
- both hands once a knock ends the hand (cards laid down at the hand's end).

Nothing else until the game is over: not the stock, not the opponent's hand, not a drawn
hand's cards, not the deck order or the seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CARD_RE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])")

#: keys whose string values are opaque identifiers, never card notation
OPAQUE_KEYS = frozenset({"token", "game_id", "commitment", "seed", "ts", "created", "next_cursor",
                         "rules_version", "type", "title", "instance"})


class HandKnowledge:
    """One hand followed card by card from its deck and the moves played."""

    def __init__(self, deck: list[str], dealer: int, non_dealer: int, advisor: int | None):
        self.dealer, self.non_dealer, self.advisor = dealer, non_dealer, advisor
        self.hands = {non_dealer: set(deck[0:20:2]), dealer: set(deck[1:20:2])}
        self.held = {seat: set(cards) for seat, cards in self.hands.items()}
        self.pile = [deck[20]]
        self.public = {deck[20]}
        self.stock = list(deck[21:])
        self.ended = False

    def apply(self, seat: int, cmd: dict) -> None:
        """Follow one command that the server accepted."""
        kind = cmd["type"]
        if kind in ("take_upcard", "draw_discard"):
            self._take(seat, self.pile.pop())
        elif kind == "draw_stock":
            self._take(seat, self.stock.pop(0))
        elif kind == "discard":
            self._discard(seat, cmd["card"])
        elif kind == "knock":
            if cmd.get("discard"):
                self._discard(seat, cmd["discard"])
            # the hand ends with both hands laid down face up
            for cards in self.hands.values():
                self.public |= cards
            self.ended = True
        elif kind == "pass_upcard":
            pass
        else:  # pragma: no cover - the random clients only send the commands above
            raise ValueError(f"unexpected command {cmd!r}")

    def _take(self, seat: int, card: str) -> None:
        self.hands[seat].add(card)
        self.held[seat].add(card)

    def _discard(self, seat: int, card: str) -> None:
        self.hands[seat].remove(card)
        self.pile.append(card)
        self.public.add(card)

    def visible(self, viewer: int | None) -> frozenset:
        """The cards ``viewer`` (a seat, or None for a spectator) may know of this hand so far."""
        seen = set(self.public)
        if viewer is None:
            return frozenset(seen)
        owner = self.non_dealer if viewer == self.advisor else viewer
        return frozenset(seen | self.held.get(owner, set()))


@dataclass
class MoveRecord:
    """A command accepted by the server: the versions it created and the hand after it."""

    version_before: int
    version_after: int
    seat: int | None
    cmd: dict | None
    hand_no: int
    dealer: int | None
    non_dealer: int | None
    advisor: int | None
    over: bool


@dataclass
class GameKnowledge:
    """Per-version allowance of every viewer, from the moves recorded while playing.

    ``allowed(viewer, v, history=...)`` is what ``viewer`` may see at version ``v``: the
    current hand's visible cards after the move that produced ``v`` (for the move that ends a
    hand and deals the next, both hands'), plus, with ``history``, the public cards of the
    hands already finished (a view may show earlier results). After the game is over: all.
    """

    deck_for_hand: dict[int, list[str]]
    moves: list[MoveRecord] = field(default_factory=list)
    _by_version: dict = field(default_factory=dict)
    _history: dict = field(default_factory=dict)
    end_version: int | None = None

    def build(self, viewers: list[int | None]) -> None:
        """Replay the recorded moves over the decks and tabulate each viewer's allowance."""
        hand: HandKnowledge | None = None
        hand_no = 0
        finished_public: set = set()
        for rec in self.moves:
            before = {x: hand.visible(x) for x in viewers} if hand is not None else {x: frozenset() for x in viewers}
            if hand is not None and rec.seat is not None and rec.cmd is not None:
                hand.apply(rec.seat, rec.cmd)
            old_after = {x: hand.visible(x) for x in viewers} if hand is not None else {x: frozenset() for x in viewers}
            if rec.hand_no != hand_no:
                if hand is not None:
                    finished_public |= hand.public
                hand = HandKnowledge(self.deck_for_hand[rec.hand_no], rec.dealer, rec.non_dealer, rec.advisor)
                hand_no = rec.hand_no
                new = {x: hand.visible(x) for x in viewers}
                # the move spans two hands: its versions may show the end of one and the deal of the next
                allowed = {x: old_after[x] | new[x] | before[x] for x in viewers}
            else:
                allowed = {x: old_after[x] | before[x] for x in viewers}
            for v in range(rec.version_before + 1, rec.version_after + 1):
                self._by_version[v] = allowed
                self._history[v] = frozenset(finished_public)
            if rec.over:
                self.end_version = rec.version_after

    def is_over_at(self, v: int) -> bool:
        return self.end_version is not None and v >= self.end_version

    def allowed(self, viewer: int | None, v: int, history: bool = True) -> frozenset | None:
        """Cards ``viewer`` may see at version ``v`` (None: everything, the game is over)."""
        if self.is_over_at(v):
            return None
        base = self._by_version[v][viewer]
        return base | self._history[v] if history else base


def cards_in(payload, key: str | None = None) -> set[str]:
    """Every card code found in a JSON value's strings (skipping opaque identifiers)."""
    out: set[str] = set()
    if isinstance(payload, dict):
        for k, val in payload.items():
            out |= cards_in(val, k)
    elif isinstance(payload, list):
        for val in payload:
            out |= cards_in(val, key)
    elif isinstance(payload, str) and key not in OPAQUE_KEYS:
        out |= set(CARD_RE.findall(payload))
    return out
