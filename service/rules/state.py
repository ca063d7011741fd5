"""The state of a game: its fields, each declared once, and its snapshots.

It holds what RULES.md §1 (the deal, the stock, the discard pile, turns, knocking), §2 (roles,
scores, advice) and §3 (the alternating deal, big gin) need to remember between two events.
``FIELDS`` declares each field's value in a new game, a copy and a snapshot.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Callable, NamedTuple

from . import cards, fairness, rulesets
from .cards import DECK, INDEX_OF
from .events import decode, encode
from .variants import ROLE_NAMES

# Phases of a game. "hand_over" only lasts between a hand's end and the next deal, inside one
# list of events, so nobody ever waits in it.
WAITING = "waiting_for_players"
UPCARD = "upcard"
DRAW = "draw"
DISCARD = "discard"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"

#: a new game takes this field's value from the GameCreated event (``new_state``'s arguments)
GIVEN = object()

# How a copy (one per event) gets a field's value.
COPY = "copy"  # the same value: no value is ever changed in place, an evolver sets a new one
NEXT = "next"  # one more: the version
MEMO = "memo"  # cleared: a value worked out from the others and cached; not part of the state


def _same(value: Any) -> Any:
    return value


def _or_none(convert: Callable) -> Callable:
    return lambda value: None if value is None else convert(value)


def _seat_players(players: Any) -> Any:
    return [None if p is None else dict(p) for p in players]


# (to snapshot, from snapshot) for each kind of value: a snapshot is JSON-able, with card codes
_SAME = (_same, _same)
_SEQUENCE = (list, tuple)
_DICT = (dict, dict)
_OPTIONAL_DICT = (_or_none(dict), _or_none(dict))
_PLAYERS = (_seat_players, lambda players: tuple(_seat_players(players)))
_ROLES = (
    _or_none(lambda seats: dict(zip(ROLE_NAMES, seats))),
    _or_none(lambda roles: tuple(roles[name] for name in ROLE_NAMES)),
)
_SEED = (bytes.hex, bytes.fromhex)
_DECKS = (
    lambda decks: [list(d) for d in decks] if decks else None,
    lambda decks: tuple(tuple(d) for d in decks) if decks else None,
)
_CUTS = (
    lambda cuts: [[purpose, r, list(seats), list(cut)] for purpose, r, seats, cut in cuts],
    lambda cuts: tuple((purpose, r, tuple(seats), tuple(cut)) for purpose, r, seats, cut in cuts),
)
_CARD = (
    lambda card: DECK[card] if card >= 0 else None,
    lambda code: INDEX_OF[code] if code is not None else -1,
)
_CARDS = (lambda cs: [DECK[c] for c in cs], lambda codes: tuple(INDEX_OF[c] for c in codes))
_MASKS = (
    lambda masks: [cards.codes_of(m) for m in masks],
    lambda lists: tuple(cards.mask(codes) for codes in lists),
)
_EVENT = (_or_none(encode), _or_none(decode))
_DICTS = (lambda items: [dict(x) for x in items], lambda items: tuple(dict(x) for x in items))


class Field(NamedTuple):
    """One field of GameState: its value in a new game, in a copy and in a snapshot."""

    name: str
    #: in a new game: GIVEN, a constant, or a function of the fields before it
    initial: Any
    #: (to snapshot, from snapshot); None: not stored, worked out again by ``initial``
    snapshot: tuple | None = _SAME
    #: COPY, NEXT or MEMO
    on_copy: str = COPY

    @property
    def key(self) -> str:
        """Its name in a snapshot and in ``new_state``'s arguments."""
        return self.name.lstrip("_")


def _per_seat_zero(s: GameState) -> tuple:
    return (0,) * s.nseats


# The order is that of a snapshot's keys. Names with "_" are stored as immutable values behind a
# property of the same name without it that returns a fresh list or dict.
# The slots, the copy made for each event, the state of a new game, equality and the snapshot
# dict are all derived from FIELDS.
FIELDS = (
    # what the game is: fixed at creation (§4 options)
    Field("variant", GIVEN),
    Field("_options", GIVEN, _DICT),
    Field("rules_version", GIVEN),
    Field("rules", GIVEN),  # the preset the options came from (§5 Presets), or None
    Field("nseats", lambda s: len(s._players), None),
    Field("max_turns", lambda s: s._options["max_turns_per_hand"], None),
    Field("big_gin", lambda s: s._options["big_gin_bonus"] is not None, None),
    # where the game is
    Field("status", "waiting"),
    Field("version", 1, _SAME, NEXT),
    Field("_players", GIVEN, _PLAYERS),
    Field("_scores", _per_seat_zero, _SEQUENCE),
    Field("hand_no", 0),
    Field("phase", WAITING),
    Field("to_act", (), _SEQUENCE),
    Field("_roles", None, _ROLES),  # (box, captain, advisor) seats in three-hand (§2)
    Field("dealer", None),
    Field("non_dealer", None),
    Field("winner", None),
    # how the game ended: {"reason": "target_score" | "resigned" | "abandoned" | "expired", "resigned", "idle_s"}
    Field("end", None, _OPTIONAL_DICT),
    # the score sheet of the end-of-game bonuses (§5), when the game was won with any of them on
    Field("bonuses", None, _OPTIONAL_DICT),
    # with Hollywood (§5): every hand each seat won, and the three games (rulesets.hollywood_start)
    Field("hollywood", lambda s: rulesets.hollywood_start(s.nseats) if s._options.get("hollywood") else None,
          _OPTIONAL_DICT),
    # randomness as data, and what the creator fixed instead of it (fairness module)
    Field("commitment", GIVEN),
    Field("randomly_dealt", GIVEN),
    Field("seed", GIVEN, _SEED),
    Field("decks", GIVEN, _DECKS),
    Field("spec_roles", GIVEN, _OPTIONAL_DICT),
    Field("spec_first_dealer", GIVEN),
    Field("invites", GIVEN, _OPTIONAL_DICT),  # {"<seat>": SHA-256 of its invite secret}, or None
    Field("fairness", GIVEN),  # the derivation of decks and cuts (fairness module): 1 or 2
    # the program a game imported from its record was dealt and played with ("openspiel"), or None
    Field("imported_from", GIVEN),
    Field("client_seeds", lambda s: (None,) * s.nseats, _SEQUENCE),  # each seat's client seed, or None
    Field("cuts", (), _CUTS),  # (purpose, round, seats, cards) of each cut
    # the hand in play: cards are ints, hands 52-bit masks (cards module)
    Field("hands", _per_seat_zero, _MASKS),
    Field("deck", (), _CARDS),  # the deck of the hand, top first; the stock starts at stock_pos
    Field("stock_pos", 0),
    # the hand's knock limit: the option, or with Oklahoma the upcard's (§5)
    Field("knock_limit", lambda s: rulesets.hand_knock_limit(s._options, s.deck), None),
    Field("pile", (), _CARDS),  # the discard pile, bottom first
    Field("taken", -1, _CARD),  # the card just taken from the discard pile (not to be discarded)
    Field("drawn", -1, _CARD),  # the card just drawn from the stock
    Field("passes", 0),  # upcard passes
    Field("turns", 0),  # draws this hand, the upcard taken included
    Field("known", _per_seat_zero, _MASKS),  # cards each seat took from the discard pile
    Field("knock", None, _EVENT),  # the Knocked event of the hand being scored
    # what was played
    Field("results", (), _DICTS),
    Field("advice", (), _DICTS),  # advice kept as events by older games (§2 Advice)
    # legal.knock_options's answer for this state
    Field("knock_options_memo", None, None, MEMO),
)

#: the fields that make the state's value: two states with the same values are equal
_value_of = attrgetter(*(f.name for f in FIELDS if f.on_copy != MEMO))
_SNAPSHOT_FIELDS = tuple(f for f in FIELDS if f.snapshot is not None)
_GIVEN_KEYS = frozenset(f.key for f in FIELDS if f.initial is GIVEN)


class GameState:
    """The state of a game: a snapshot built only by ``evolve``; treat it as immutable.

    Cards are ints (cards module), hands are 52-bit masks, sequences are tuples, so that a copy
    per event is cheap. Every field is in ``FIELDS``.
    """

    __slots__ = tuple(f.name for f in FIELDS)

    # --- read as fresh lists / dicts, so that callers cannot alter the state
    @property
    def options(self) -> dict:
        return dict(self._options)

    @property
    def players(self) -> list:
        return list(self._players)

    @property
    def scores(self) -> list:
        return list(self._scores)

    @property
    def roles(self) -> dict | None:
        if self._roles is None:
            return None
        return dict(zip(ROLE_NAMES, self._roles))

    # --- the seat of each role of three-hand (§2); None in gin-rami or before the cut
    @property
    def box(self) -> int | None:
        return None if self._roles is None else self._roles[0]

    @property
    def captain(self) -> int | None:
        return None if self._roles is None else self._roles[1]

    @property
    def advisor(self) -> int | None:
        return None if self._roles is None else self._roles[2]

    # --- randomness (fairness module)
    @property
    def deal_seed(self) -> bytes:
        """The key every deck and cut of this game derives from: the server's seed (derivation 1),
        or the server's seed with every seat's client seed (derivation 2)."""
        return fairness.deal_key(self.fairness, self.seed, self.client_seeds)

    @property
    def awaited_seeds(self) -> tuple:
        """The seats whose client seed the first deal waits for (rule option client_seed_wait_s):
        human seats (a bot sends none) that have not sent one; empty once the game has started."""
        if self.fairness < 2 or self._options.get("client_seed_wait_s") is None or self.status != "waiting":
            return ()
        return tuple(
            seat for seat, p in enumerate(self._players)
            if p is not None and not p.get("bot") and self.client_seeds[seat] is None
        )

    # --- conveniences
    @property
    def stock_size(self) -> int:
        return 52 - self.stock_pos if self.deck else 0

    @property
    def stock(self) -> tuple:
        """The stock's cards, top first."""
        return self.deck[self.stock_pos :] if self.deck else ()

    @property
    def active_seats(self) -> tuple:
        """(non-dealer, dealer) of the current hand."""
        return (self.non_dealer, self.dealer)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return _value_of(self) == _value_of(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"GameState(variant={self.variant!r}, status={self.status!r}, version={self.version}, "
            f"hand_no={self.hand_no}, phase={self.phase!r}, to_act={self.to_act}, "
            f"scores={list(self._scores)})"
        )


_new = GameState.__new__


def _fill(s: GameState, fields: Any) -> GameState:
    for f in fields:
        setattr(s, f.name, f.initial(s) if callable(f.initial) else f.initial)
    return s


def new_state(**given: Any) -> GameState:
    """The state of a new game, from the GIVEN fields (by their snapshot names)."""
    if set(given) != _GIVEN_KEYS:
        raise TypeError(f"a new state needs exactly {sorted(_GIVEN_KEYS)}, not {sorted(given)}")
    s = _new(GameState)
    for f in FIELDS:
        if f.initial is GIVEN:
            setattr(s, f.name, given[f.key])
    return _fill(s, (f for f in FIELDS if f.initial is not GIVEN))


def _clone_source() -> str:
    """``clone`` written out field by field: as fast as a hand-written copy (one per event)."""
    value = {COPY: "s.{}", NEXT: "s.{} + 1", MEMO: "None"}
    lines = ["def clone(s):", "    n = new(GameState)"]
    lines += [f"    n.{f.name} = {value[f.on_copy].format(f.name)}" for f in FIELDS]
    lines.append("    return n")
    return "\n".join(lines)


_namespace: dict = {"__name__": __name__, "new": _new, "GameState": GameState}
# as dataclasses do for __init__: the source is built above from FIELDS alone
exec(_clone_source(), _namespace)
clone: Callable[[GameState], GameState] = _namespace["clone"]
clone.__doc__ = "A copy of ``s`` at the next version, for an evolver to change."


def state_to_dict(state: GameState) -> dict:
    """A JSON-able snapshot of the whole state (secrets included: it is for storage)."""
    return {f.key: f.snapshot[0](getattr(state, f.name)) for f in _SNAPSHOT_FIELDS}


#: the fields added after snapshots were first written, and their value in a snapshot without them
LATER_FIELDS = {"imported_from": None}


def state_from_dict(d: dict) -> GameState:
    """The state of a snapshot made by state_to_dict."""
    s = _new(GameState)
    for f in _SNAPSHOT_FIELDS:
        # a snapshot written before a later field existed holds that field's old value
        setattr(s, f.name, f.snapshot[1](d[f.key] if f.key in d or f.key not in LATER_FIELDS else LATER_FIELDS[f.key]))
    return _fill(s, (f for f in FIELDS if f.snapshot is None))
