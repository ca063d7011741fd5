"""The two variants and their rule options (RULES.md §2, §3 and §4).

``three-hand`` is three-handed box gin (§2): three seats, roles box / captain / advisor, the box
deals every hand. ``gin-rami`` is two-player gin rami (§3): two seats, the deal alternates.
Every option of §4 has a per-variant default; :func:`normalise_options` validates a caller's
options and fills in the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RulesError

THREE_HAND = "three-hand"
GIN_RAMI = "gin-rami"

#: bumped whenever a rule changes the outcome of some game
RULES_VERSION = "ginbox-rules/1"

ROLE_NAMES = ("box", "captain", "advisor")


@dataclass(frozen=True)
class Variant:
    """A variant's name, seat count and option defaults (§4)."""

    name: str
    seats: int
    defaults: Mapping[str, Any]


_COMMON = {
    "target_score": 100,
    "knock_limit": 10,
    "undercut_bonus": 10,
    "max_turns_per_hand": 200,
    # extension: seconds a human seat has to move before the server plays for it; None = no clock
    "turn_timeout_s": None,
    # extension: seconds the first deal waits for the human seats' client seeds once every seat
    # is taken; None = no wait (seeds sent with a seat claim, or before the last seat fills, count)
    "client_seed_wait_s": None,
    # extensions (§5): the end-of-game bonuses, all off by default
    "box_bonus": 0,
    "game_bonus": 0,
    "shutout_bonus": 0,
    "shutout_doubles": False,
    # extension (§5): Oklahoma, the upcard sets each hand's knock limit
    "oklahoma": False,
    "oklahoma_spades_double": False,
    # extension (§5): Hollywood, three games scored at once (gin-rami only)
    "hollywood": False,
}

#: options a game recorded before they existed reads as their default (the evolver fills them in)
LATER_OPTIONS: Mapping[str, Any] = MappingProxyType({name: _COMMON[name] for name in (
    "client_seed_wait_s", "box_bonus", "game_bonus", "shutout_bonus", "shutout_doubles", "oklahoma",
    "oklahoma_spades_double", "hollywood")})

VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        THREE_HAND: Variant(
            THREE_HAND,
            3,
            MappingProxyType(
                dict(_COMMON, gin_bonus=25, big_gin_bonus=None, gin_adds_deadwood=True)
            ),
        ),
        GIN_RAMI: Variant(
            GIN_RAMI,
            2,
            MappingProxyType(
                dict(_COMMON, gin_bonus=20, big_gin_bonus=30, gin_adds_deadwood=False)
            ),
        ),
    }
)

#: the names of the variants, in the order the API lists them
VARIANT_NAMES: tuple[str, ...] = tuple(VARIANTS)

#: (smallest, largest) accepted value of each integer option (the wire schemas and openapi.yaml
#: state these very bounds). The bounds only keep values meaningful (a knock limit above 100
#: cannot bind: ten cards never hold more than 100 points of deadwood) and integers small.
INT_OPTION_BOUNDS: Mapping[str, tuple[int, int]] = MappingProxyType({
    "target_score": (1, 100_000),
    "knock_limit": (0, 100),
    "gin_bonus": (0, 10_000),
    "big_gin_bonus": (0, 10_000),
    "undercut_bonus": (0, 10_000),
    "max_turns_per_hand": (1, 100_000),
    "turn_timeout_s": (1, 86_400),
    "client_seed_wait_s": (1, 86_400),
    "box_bonus": (0, 10_000),
    "game_bonus": (0, 10_000),
    "shutout_bonus": (0, 10_000),
})
#: integer options that may also be null: big gin is not allowed; no turn clock; no wait for seeds
NULLABLE_OPTIONS = frozenset({"big_gin_bonus", "turn_timeout_s", "client_seed_wait_s"})
BOOL_OPTIONS = frozenset({"gin_adds_deadwood", "shutout_doubles", "oklahoma", "oklahoma_spades_double",
                          "hollywood"})
#: options a variant cannot play: per option, the only value it accepts and why
NOT_FOR_VARIANT: Mapping[str, Mapping[str, tuple]] = MappingProxyType({
    # §5 Hollywood [decision]: two players only
    THREE_HAND: MappingProxyType({"hollywood": (False, "three-hand's rotation has no agreed Hollywood "
                                                      "scoring, so Hollywood is for gin-rami only")}),
    GIN_RAMI: MappingProxyType({}),
})

OPTION_NAMES = tuple(sorted(set(INT_OPTION_BOUNDS) | BOOL_OPTIONS))


def get_variant(name: Any) -> Variant:
    """The variant of that name; raises RulesError invalid_variant."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise RulesError(
            "invalid_variant", f"unknown variant {name!r}: expected one of {', '.join(VARIANTS)}"
        ) from None


def normalise_options(variant: str, options: Mapping[str, Any] | None) -> dict:
    """Every option of the variant, the caller's values validated; raises RulesError invalid_option,
    or option_not_for_variant for an option the variant cannot play (§5 Hollywood in three-hand)."""
    out = dict(get_variant(variant).defaults)
    if options is None:
        return out
    if not isinstance(options, Mapping):
        raise RulesError("invalid_option", "options must be an object of option names to values")
    for name, value in options.items():
        if name not in out:
            raise RulesError(
                "invalid_option",
                f"unknown option {name!r}: expected one of {', '.join(OPTION_NAMES)}",
            )
        if name in BOOL_OPTIONS:
            if not isinstance(value, bool):
                raise RulesError("invalid_option", f"option {name} must be true or false")
        elif value is None and (name in NULLABLE_OPTIONS or name == "knock_limit"):
            pass  # a null knock_limit goes only with oklahoma (_consistent)
        else:
            lo, hi = INT_OPTION_BOUNDS[name]
            if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
                null = " or null" if name in NULLABLE_OPTIONS else ""
                raise RulesError(
                    "invalid_option", f"option {name} must be an integer from {lo} to {hi}{null}"
                )
        out[name] = value
    return _consistent(variant, options, out)


def _consistent(variant: str, given: Mapping[str, Any], out: dict) -> dict:
    """The options once checked against each other and the variant (§5 Oklahoma): ``oklahoma``
    replaces ``knock_limit``, which then reads null; §5 Hollywood is for two players only."""
    for name, (only, why) in NOT_FOR_VARIANT[variant].items():
        if out[name] != only:
            raise RulesError("option_not_for_variant", f"option {name} is not played in {variant}: {why}")
    if out["oklahoma"]:
        if given.get("knock_limit") is not None:
            raise RulesError("invalid_option", "knock_limit may not be given with oklahoma: the upcard sets it")
        out["knock_limit"] = None
    elif "knock_limit" in given and given["knock_limit"] is None:
        raise RulesError("invalid_option", "option knock_limit must be an integer from 0 to 100")
    return out
