"""What happened in a game: past-tense events and their versioned wire form (RULES.md §1-§3).

Every event is a frozen dataclass declared with ``@event(type, version)``.
Cards are codes (``"TD"``); sequences are tuples inside the engine and lists on the wire.
:func:`encode` gives ``{"type", "v", "data"}`` (JSON-able).
:func:`decode` reads it back, raising :class:`UnknownEventType` for an unknown type or version.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from .errors import RulesError


def event(type_name: str, version: int = 1):
    """Declare an event: a frozen dataclass with its wire ``TYPE`` and schema version ``V``."""

    def declare(cls):
        cls = dataclass(frozen=True)(cls)
        cls.TYPE, cls.V = type_name, version
        return cls

    return declare


class UnknownEventType(RulesError):
    """An event dict whose type or version is not in the registry."""

    def __init__(self, message: str):
        super().__init__("unknown_event_type", message, conflict=False)


@event("game_created")
class GameCreated:
    """A game was created: variant, every option value, players, the seed and its commitment.

    ``seed`` (hex) and ``decks`` are secrets, which views hide until the game is over.
    ``commitment``, the SHA-256 of the seed, is public from the start.
    ``fairness`` is the derivation of decks and cuts the game uses (fairness module).
    """

    variant: str
    options: dict
    rules_version: str
    commitment: str
    seed: str
    players: tuple
    randomly_dealt: bool
    #: explicit decks for the first hands
    decks: Optional[tuple] = None
    roles: Optional[dict] = None
    first_dealer: Optional[int] = None
    #: the seats only an invited player may claim (an extension): {"<seat>": SHA-256 hex of its invite secret}.
    #: None (and absent on the wire) for a public game, as in games recorded before invites existed.
    invites: Optional[dict] = None
    #: 2 for games with client seeds.
    #: None (absent on the wire) in games recorded before them, which use derivation 1, the server's seed alone.
    fairness: Optional[int] = None
    #: the named rule set the options were expanded from (§5 Presets); None (absent on the wire): none
    rules: Optional[str] = None
    #: where a game imported from another program's record was dealt and played ("openspiel"):
    #: not by this server, so no commitment covers its deal. None (absent on the wire): a game of this server
    imported_from: Optional[str] = None
    #: fields added after version 1 was first written: left out of the wire form while None, so
    #: that events without them encode exactly as they always did
    OMIT_IF_NONE: ClassVar[tuple] = ("invites", "fairness", "rules", "imported_from")

    @property
    def derivation(self) -> int:
        """The derivation of the game's decks and cuts: 1 when the log does not say (older games)."""
        return 1 if self.fairness is None else self.fairness


@event("seat_claimed")
class SeatClaimed:
    """A player sat at an open seat."""

    seat: int
    player: dict


@event("client_seed_sent")
class ClientSeedSent:
    """Seat ``seat`` contributed ``client_seed`` to the deals (fairness derivation 2), after the
    commitment was published and before the first deal or cut."""

    seat: int
    client_seed: str


@event("client_seeds_closed")
class ClientSeedsClosed:
    """The wait for client seeds ran out (rule option client_seed_wait_s): ``seats`` sent none
    and have the default; the start events follow in the same append. ``waited_s`` is the wait
    the server measured since the last seat was filled."""

    seats: tuple
    waited_s: int


@event("cards_cut")
class CardsCut:
    """One round of cutting: ``seats[i]`` cut ``cards[i]`` (§2 Roles, §3 first dealer).

    ``round`` numbers the rounds of the game from 0; the cards derive from the seed
    (fairness.cut_cards). ``purpose`` is "roles" (three-hand) or "first_dealer" (gin-rami).
    """

    purpose: str
    round: int
    seats: tuple
    cards: tuple


@event("roles_assigned")
class RolesAssigned:
    """Three-hand roles for the next hands (§2 Roles, Rotation).

    ``reason``: "cut", "explicit", "box_won" (captain and advisor swapped) or "box_lost".
    """

    box: int
    captain: int
    advisor: int
    reason: str


@event("dealer_chosen")
class DealerChosen:
    """The first dealer of a gin-rami game (§3); ``reason`` "cut" or "explicit"."""

    dealer: int
    reason: str


@event("hand_dealt")
class HandDealt:
    """A hand was dealt from ``deck`` (52 codes, top first) as §1 Deal says.

    Cards 1-20 go alternately to the non-dealer and the dealer (non-dealer first), card 21 is
    the upcard, cards 22-52 the stock with card 22 on top. ``source`` is "seed"
    (fairness.deck_for_hand(seed, hand_no)) or "explicit" (a deck given at creation).
    """

    hand_no: int
    dealer: int
    non_dealer: int
    # The deal of every hand is recorded in full, so the log of events alone replays a game.
    deck: tuple
    source: str


@event("upcard_taken")
class UpcardTaken:
    """A player took the upcard (§1 First turn); their turn continues with a discard or knock."""

    seat: int
    card: str


@event("upcard_passed")
class UpcardPassed:
    """A player refused the upcard (§1 First turn)."""

    seat: int


@event("card_drawn")
class CardDrawn:
    """A player drew ``card`` from the "stock" or the "discard" pile (§1 A normal turn)."""

    seat: int
    source: str
    card: str


@event("card_discarded")
class CardDiscarded:
    """A player discarded ``card``, ending the turn (§1 A normal turn)."""

    seat: int
    card: str


@event("knocked")
class Knocked:
    """A player knocked (§1 Knocking) and laid out ``melds`` and ``deadwood_cards``.

    ``discard`` is None for big gin (§3). ``kind``: "knock", "gin" or "big_gin".
    """

    seat: int
    discard: Optional[str]
    melds: tuple
    deadwood_cards: tuple
    deadwood: int
    kind: str


@dataclass(frozen=True)
class _HandScoredV1Fields:
    """The fields of a scored hand that every version of HandScored records (see HandScored)."""

    hand_no: int
    knocker: int
    defender: int
    outcome: str
    knocker_deadwood: int
    #: the defender's own melds
    defender_melds: tuple
    #: pairs (card, index of the knocker's meld in ``knocker_melds``), in card order
    layoffs: tuple
    #: the defender's remaining deadwood cards
    defender_deadwood_cards: tuple
    defender_deadwood: int
    winner: int
    points: int
    scores: tuple


@event("hand_scored")
class HandScoredV1(_HandScoredV1Fields):
    """Version 1 of HandScored, as games recorded before version 2 hold it: read, never written.

    :func:`decode` upcasts it to :class:`HandScored` (see :func:`upcast_hand_scored_v1`).
    """


@event("hand_scored", version=2)
class HandScored(_HandScoredV1Fields):
    """The knocked hand was scored (§2 Scoring, §3), with all a replay needs to explain it.

    ``outcome``: "knock" (the knocker won), "undercut", "gin" or "big_gin".
    ``winner`` scored ``points``; ``scores`` are the cumulative scores per seat afterwards.
    The fields below are version 2's; in an event upcast from version 1 they are None.
    """

    #: the knocker's ``discard``, ``knocker_melds`` and ``knocker_deadwood_cards``, as in Knocked
    discard: Optional[str] = None
    knocker_melds: Optional[tuple] = None
    knocker_deadwood_cards: Optional[tuple] = None
    #: each seat's cards at the end of the hand (null for the seat that sat out)
    hands: Optional[tuple] = None
    #: the turns the hand lasted (§1 A turn: draws, the upcard taken included)
    turns: Optional[int] = None
    #: the defender's deadwood with their own melds only (equal to ``defender_deadwood`` against gin)
    defender_deadwood_before_layoffs: Optional[int] = None
    #: who deals the next hand (null when the hand ended the game)
    next_dealer: Optional[int] = None
    # Version 1 did not record these fields, and an event alone cannot tell them.
    # The evolver works them out from the state when it replays (see evolvers._hand_scored).
    #: the fields version 2 added; an event upcast from version 1 has them all None
    ADDED_IN_V2: ClassVar[tuple] = (
        "discard", "knocker_melds", "knocker_deadwood_cards", "hands", "turns",
        "defender_deadwood_before_layoffs", "next_dealer",
    )
    #: 2 when Oklahoma's spade upcard doubled every point of the hand (§5); None (absent): not doubled
    multiplier: Optional[int] = None
    #: with Hollywood (§5): {"entered": the games (1-3) the hand went into, "games": the three games
    #: after it (rulesets.enter_hand)}; ``scores`` are then the overall scores. None (absent): no Hollywood
    hollywood: Optional[dict] = None
    OMIT_IF_NONE: ClassVar[tuple] = ("multiplier", "hollywood")

    @property
    def upcast(self) -> bool:
        """Whether this event was read from a version 1 record (its version 2 fields unknown)."""
        # a version 2 event always has its turns and the knocker's melds (empty at most)
        return all(getattr(self, name) is None for name in self.ADDED_IN_V2)


def upcast_hand_scored_v1(old: HandScoredV1) -> HandScored:
    """A version 1 HandScored in the version 2 shape, its added fields None."""
    # None rather than values: the upcaster sees one event.
    # What version 2 adds needs the state of the game: the hands, the turns, the defender's deadwood
    # before lay-offs, the next dealer, even the knocker's melds (in the Knocked event before it).
    # The evolver has that state: it works them out when it replays.
    # So views of old games show them all the same.
    # The audit compares an upcast event on its version 1 fields only.
    return HandScored(**{f.name: getattr(old, f.name) for f in dataclasses.fields(HandScoredV1)})


@event("hand_drawn")
class HandDrawn:
    """Nobody knocked: ``reason`` "stock_exhausted" or "turn_limit" (§1 Drawn hand)."""

    hand_no: int
    reason: str


@event("advice_given")
class AdviceGiven:
    """The advisor's message to the captain (§2); seen by the two of them until the game ends."""

    seat: int
    captain: int
    hand_no: int
    text: str


@event("turn_timed_out")
class TurnTimedOut:
    """A seat's turn clock ran out (rule option turn_timeout_s, an extension): the events that
    follow in the same append are the move the server played for that seat."""

    seat: int
    hand_no: int


@event("game_ended")
class GameEnded:
    """A player reached the target score and won (§1 Game); reveals the seed (hex)."""

    winner: int
    scores: tuple
    seed: str
    #: the score sheet of the end-of-game bonuses (§5; rulesets.end_bonuses): ``scores`` are then
    #: its totals. None (absent on the wire) when no bonus is on, as in games recorded before them.
    bonuses: Optional[dict] = None
    #: with Hollywood (§5): {"games": the three games, each with its own winner and bonus sheet};
    #: ``scores`` are then the overall scores, ``winner`` the overall winner. None (absent): no Hollywood
    hollywood: Optional[dict] = None
    OMIT_IF_NONE: ClassVar[tuple] = ("bonuses", "hollywood")


@event("game_resigned")
class GameResigned:
    """``seat`` resigned (an extension): the game is over, ``winner`` (the seat's opponent in the
    hand in play) wins, the hand in play is not scored and ``scores`` stand; reveals the seed (hex)."""

    seat: int
    winner: int
    hand_no: int
    scores: tuple
    seed: str


@event("game_abandoned")
class GameAbandoned:
    """Nobody moved for ``idle_s`` seconds (an extension): the game is over with no winner.

    The hand in play is not scored and ``scores`` stand; it reveals the seed (hex).
    ``drawn_hands`` (an extension) says the server ended a game of built-in bots alone after that
    many drawn hands in a row (the server's GINBOX_ABANDON_DRAWN_HANDS).
    """

    #: with ``drawn_hands``, the time since the move before, which is short
    idle_s: int
    hand_no: int
    scores: tuple
    seed: str
    # A game of built-in bots alone may redeal for ever.
    #: the drawn hands the game ended on; None, and absent on the wire, otherwise
    drawn_hands: Optional[int] = None
    OMIT_IF_NONE: ClassVar[tuple] = ("drawn_hands",)


@event("game_expired")
class GameExpired:
    """A seat was still free ``waited_s`` seconds after the game was created (an extension): the
    game is over, never started, with no winner; ``scores`` stand (nobody scored) and it reveals the seed (hex)."""

    waited_s: int
    hand_no: int
    scores: tuple
    seed: str


EVENT_CLASSES = (
    GameCreated,
    SeatClaimed,
    ClientSeedSent,
    ClientSeedsClosed,
    CardsCut,
    RolesAssigned,
    DealerChosen,
    HandDealt,
    UpcardTaken,
    UpcardPassed,
    CardDrawn,
    CardDiscarded,
    Knocked,
    HandScored,
    HandDrawn,
    AdviceGiven,
    TurnTimedOut,
    GameEnded,
    GameResigned,
    GameAbandoned,
    GameExpired,
)

#: versions of event types that are still read (games recorded with them replay) but no longer written
LEGACY_CLASSES = (HandScoredV1,)

#: (type, version) -> event class
REGISTRY: dict[tuple[str, int], type] = {(c.TYPE, c.V): c for c in EVENT_CLASSES + LEGACY_CLASSES}

#: legacy class -> the function that turns one of its events into the current version
UPCASTERS: dict[type, Any] = {HandScoredV1: upcast_hand_scored_v1}

Event = Any  # any of EVENT_CLASSES

_FIELDS = {c: tuple(f.name for f in dataclasses.fields(c)) for c in EVENT_CLASSES + LEGACY_CLASSES}


def _to_wire(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_wire(v) for k, v in value.items()}
    return value


def _from_wire(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_wire(v) for v in value)
    if isinstance(value, dict):
        # dicts inside events (players, options, roles) are opaque JSON: they stay plain
        return _to_wire(value)
    return value


def encode(event: Event) -> dict:
    """The event's wire form ``{"type": str, "v": int, "data": dict}``."""
    cls = type(event)
    omit = getattr(cls, "OMIT_IF_NONE", ())
    return {
        "type": cls.TYPE,
        "v": cls.V,
        "data": {
            name: _to_wire(getattr(event, name))
            for name in _FIELDS[cls]
            if not (name in omit and getattr(event, name) is None)
        },
    }


def decode(d: Any) -> Event:
    """The event of a wire dict, in its type's current version (older versions are upcast);
    raises UnknownEventType for an unknown type or version."""
    if not isinstance(d, dict):
        raise UnknownEventType("an event must be an object with type, v and data")
    cls = REGISTRY.get((d.get("type"), d.get("v")))
    if cls is None:
        raise UnknownEventType(f"unknown event type {d.get('type')!r} version {d.get('v')!r}")
    data = d.get("data") or {}
    kwargs = {}
    for name in _FIELDS[cls]:
        if name in data:
            kwargs[name] = _from_wire(data[name])
    added = getattr(cls, "ADDED_IN_V2", ())
    if added and not set(added) <= set(kwargs):
        # defaults exist for the upcaster's sake; a version 2 record must hold every field
        raise RulesError("invalid_event", f"event {cls.TYPE} v{cls.V} lacks a field: needs {', '.join(_FIELDS[cls])}")
    try:
        event = cls(**kwargs)
    except TypeError:
        raise RulesError(
            "invalid_event", f"event {cls.TYPE} v{cls.V} lacks a field: needs {', '.join(_FIELDS[cls])}"
        ) from None
    upcast = UPCASTERS.get(cls)
    return upcast(event) if upcast is not None else event
