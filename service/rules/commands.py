"""What a player (or the seating desk) asks the engine to do (RULES.md §1 turns, §2 advice).

Commands are frozen dataclasses named in the imperative.
A command checks its own shape when it is made, and raises RulesError ``invalid_command``.
The wire form is a dict ``{"type": ..., ...fields}``.
:func:`command_from_dict` parses it, raising ``unknown_command`` or ``invalid_command``.
:func:`command_to_dict` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional, Union

from .errors import RulesError
from .fairness import check_client_seed

#: longest accepted advice text, in characters
MAX_ADVICE_LENGTH = 500
#: most pieces of advice the advisor may give at one version of the game (between two moves)
MAX_ADVICE_PER_VERSION = 3


# A command checks its shape when it is made.
# It rejects a card that is not a string, melds that are not lists of strings, advice empty or too long.
# So a command is well formed however it was built: from the wire, by a bot or by a test.
# The deciders then check only whether it is legal now.
def _bad(message: str) -> RulesError:
    return RulesError("invalid_command", message)


def _check_card(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise _bad(f"{name} must be a card code such as 'TD'")


@dataclass(frozen=True)
class ClaimSeat:
    """Sit a player at an open seat (actor None); filling the last seat starts the game.

    ``client_seed``: the seat's client seed (fairness derivation 2), sent with the claim; None
    to send it later, or never (the default).
    """

    seat: int
    player: dict
    client_seed: str | None = None
    TYPE: ClassVar[str] = "claim_seat"

    def __post_init__(self):
        if not isinstance(self.seat, int) or isinstance(self.seat, bool):
            raise _bad("seat must be an integer")
        if not isinstance(self.player, dict):
            raise _bad("player must be an object such as {'name': 'ann'}")
        if self.client_seed is not None:
            check_client_seed(self.client_seed)


@dataclass(frozen=True)
class SendClientSeed:
    """A seated player's client seed, before the first deal (fairness derivation 2)."""

    client_seed: str
    TYPE: ClassVar[str] = "client_seed"

    def __post_init__(self):
        check_client_seed(self.client_seed)


@dataclass(frozen=True)
class CloseClientSeeds:
    """Stop waiting for client seeds and deal (rule option client_seed_wait_s ran out).

    Not a wire command: only the server's sweeper issues it, with the wait it measured.
    """

    waited_s: int


@dataclass(frozen=True)
class TakeUpcard:
    """Take the upcard offered at the start of a hand (§1 First turn)."""

    TYPE: ClassVar[str] = "take_upcard"


@dataclass(frozen=True)
class PassUpcard:
    """Refuse the upcard offered at the start of a hand (§1 First turn)."""

    TYPE: ClassVar[str] = "pass_upcard"


@dataclass(frozen=True)
class DrawStock:
    """Draw the top card of the stock (§1 A normal turn)."""

    TYPE: ClassVar[str] = "draw_stock"


@dataclass(frozen=True)
class DrawDiscard:
    """Draw the top card of the discard pile (§1 A normal turn)."""

    TYPE: ClassVar[str] = "draw_discard"


@dataclass(frozen=True)
class Discard:
    """Discard one card, ending the turn (§1 A normal turn)."""

    card: str
    TYPE: ClassVar[str] = "discard"

    def __post_init__(self):
        _check_card("card", self.card)


@dataclass(frozen=True)
class Knock:
    """Knock (§1 Knocking): discard ``discard`` and lay out ``melds``.

    ``discard`` None is big gin (§3: all 11 cards melded, no discard). ``melds`` None lets the
    engine lay out its canonical least-deadwood arrangement of the knocker's own cards.
    """

    discard: str | None = None
    melds: list | None = None
    TYPE: ClassVar[str] = "knock"

    def __post_init__(self):
        if self.discard is not None:
            _check_card("discard", self.discard)
        if self.melds is not None:
            if not isinstance(self.melds, (list, tuple)) or not all(
                isinstance(m, (list, tuple)) and all(isinstance(c, str) for c in m) for m in self.melds
            ):
                raise _bad("melds must be a list of lists of card codes")


@dataclass(frozen=True)
class Advise:
    """The advisor's message to the captain (§2); it has no effect on play."""

    text: str
    TYPE: ClassVar[str] = "advise"

    def __post_init__(self):
        if not isinstance(self.text, str) or not self.text.strip():
            raise _bad("advice must be a non-empty text")
        if len(self.text) > MAX_ADVICE_LENGTH:
            raise _bad(f"advice is limited to {MAX_ADVICE_LENGTH} characters")


@dataclass(frozen=True)
class Resign:
    """Give up the game (an extension): the opponent in the hand in play wins, the hand is not scored.

    A seated player may resign at any moment of a game in play, on their turn or not; in
    three-hand the advisor may too (RULES.md Extensions, Resigning).
    """

    TYPE: ClassVar[str] = "resign"


@dataclass(frozen=True)
class ExpireGame:
    """End a game whose seats were still not all taken ``waited_s`` seconds after it was created (an extension).

    Not a wire command (absent from COMMAND_TYPES); only the server's sweeper issues it.
    """

    waited_s: int


@dataclass(frozen=True)
class AbandonGame:
    """End a game nobody has moved in for ``idle_s`` seconds, with no winner (an extension).

    Not a wire command (absent from COMMAND_TYPES).
    Only the server's sweeper issues it, with the idle time it measured.
    With ``drawn_hands``, the server's bot worker ends a game of built-in bots alone whose last
    ``drawn_hands`` hands were all drawn.
    """

    # The engine knows no clock: time comes in as data.
    idle_s: int
    # exactly as many drawn hands as the game's results end with
    drawn_hands: Optional[int] = None


@dataclass(frozen=True)
class PlayTimedOutTurn:
    """The server plays ``move`` for a seat whose turn clock ran out (rule option turn_timeout_s).

    Not a wire command (absent from COMMAND_TYPES): only the turn clock issues it.
    """

    move: Any


Command = Union[
    ClaimSeat, TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock, Resign, Advise, SendClientSeed
]

COMMAND_TYPES: dict[str, type] = {
    c.TYPE: c
    for c in (
        ClaimSeat, TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock, Resign, Advise, SendClientSeed
    )
}

#: the commands a seat plays (the wire's moves); claim_seat and advise have their own routes
MOVE_TYPES: tuple[str, ...] = tuple(
    c.TYPE for c in (TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Discard, Knock, Resign, SendClientSeed)
)

# Commands without fields are shared singletons; nothing about them can differ.
TAKE_UPCARD = TakeUpcard()
PASS_UPCARD = PassUpcard()
DRAW_STOCK = DrawStock()
DRAW_DISCARD = DrawDiscard()
RESIGN = Resign()


def command_from_dict(wire: Any) -> Command:
    """Parse a command's wire form; raises RulesError unknown_command / invalid_command.

    The command checks its fields' shapes as it is made; whether a code names a card, and
    whether the player holds it, is checked by ``game.decide`` (code ``invalid_card`` /
    ``card_not_in_hand``).
    """
    if not isinstance(wire, dict):
        raise _bad("a command must be an object with a 'type'")
    kind = wire.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RulesError(
            "unknown_command",
            f"unknown command type {kind!r}: expected one of {', '.join(COMMAND_TYPES)}",
        )
    allowed = {"type"} | {
        "claim_seat": {"seat", "player", "client_seed"},
        "discard": {"card"},
        "knock": {"discard", "melds"},
        "advise": {"text"},
        "client_seed": {"client_seed"},
    }.get(kind, set())
    extra = set(wire) - allowed
    if extra:
        raise _bad(f"unexpected field(s) for {kind}: {', '.join(sorted(map(str, extra)))}")
    if cls is ClaimSeat:
        return ClaimSeat(wire.get("seat"), wire.get("player"), wire.get("client_seed"))
    if cls is SendClientSeed:
        return SendClientSeed(wire.get("client_seed"))
    if cls is Discard:
        return Discard(wire.get("card"))
    if cls is Knock:
        melds = wire.get("melds")
        return Knock(wire.get("discard"), [list(m) for m in melds] if isinstance(melds, list) else melds)
    if cls is Advise:
        return Advise(wire.get("text"))
    return {
        TakeUpcard: TAKE_UPCARD,
        PassUpcard: PASS_UPCARD,
        DrawStock: DRAW_STOCK,
        DrawDiscard: DRAW_DISCARD,
        Resign: RESIGN,
    }[cls]


def command_to_dict(command: Command) -> dict:
    """The wire form of a command."""
    cls = type(command)
    if cls is Discard:
        return {"type": "discard", "card": command.card}
    if cls is Knock:
        melds = None if command.melds is None else [list(m) for m in command.melds]
        return {"type": "knock", "discard": command.discard, "melds": melds}
    if cls is ClaimSeat:
        wire = {"type": "claim_seat", "seat": command.seat, "player": dict(command.player)}
        if command.client_seed is not None:
            wire["client_seed"] = command.client_seed
        return wire
    if cls is Advise:
        return {"type": "advise", "text": command.text}
    if cls is SendClientSeed:
        return {"type": "client_seed", "client_seed": command.client_seed}
    if cls in (TakeUpcard, PassUpcard, DrawStock, DrawDiscard, Resign):
        return {"type": cls.TYPE}
    raise RulesError("unknown_command", f"{command!r} is not a command")
