"""Named rule sets (RULES.md §5 Presets): ``"rules": NAME`` on creation stands for a variant and options.

:func:`resolve` expands a preset under the caller's own options, which override it, and refuses a
preset unknown, one not for the variant, or an option that contradicts it.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from .errors import RulesError
from .variants import GIN_RAMI, THREE_HAND, normalise_options


@dataclass(frozen=True)
class Preset:
    """A preset's variant and the options it sets (the others keep the variant's defaults)."""

    variant: str
    options: Mapping[str, Any]


#: the AAAI/EAAI gin rummy challenge: gin 25 + deadwood, no big gin, undercut 25, knock 10, to 100
_EAAI = {
    "target_score": 100, "knock_limit": 10, "gin_bonus": 25, "big_gin_bonus": None,
    "gin_adds_deadwood": True, "undercut_bonus": 25,
    "box_bonus": 0, "game_bonus": 0, "shutout_bonus": 0, "shutout_doubles": False,
}
_STANDARD = dict(_EAAI, box_bonus=25, game_bonus=100, shutout_doubles=True)
_OKLAHOMA = dict(_STANDARD, knock_limit=None, oklahoma=True, oklahoma_spades_double=True, target_score=150)
_HOLLYWOOD = dict(_STANDARD, hollywood=True)

PRESETS: Mapping[str, Preset] = MappingProxyType({
    "gin-rami": Preset(GIN_RAMI, MappingProxyType({})),
    "box-gin": Preset(THREE_HAND, MappingProxyType({})),
    "eaai": Preset(GIN_RAMI, MappingProxyType(_EAAI)),
    "openspiel": Preset(GIN_RAMI, MappingProxyType(_EAAI)),
    "standard": Preset(GIN_RAMI, MappingProxyType(_STANDARD)),
    "oklahoma": Preset(GIN_RAMI, MappingProxyType(_OKLAHOMA)),
    "hollywood": Preset(GIN_RAMI, MappingProxyType(_HOLLYWOOD)),
})

#: the preset names, in the order the API lists them
PRESET_NAMES: tuple[str, ...] = tuple(PRESETS)

#: (preset option, given option): a preset setting the first true refuses the second given (non-null)
_CONTRADICTIONS = (("oklahoma", "knock_limit"),)


def resolve(variant: str, rules: Any, options: Mapping[str, Any] | None) -> dict:
    """Every option of a game of ``rules`` (None: no preset) with the caller's ``options`` over it.

    Raises RulesError ``unknown_rules``, ``rules_not_for_variant``, ``rules_conflict``,
    ``invalid_option`` or ``option_not_for_variant``.
    """
    if rules is None:
        return normalise_options(variant, options)
    preset = PRESETS.get(rules) if isinstance(rules, str) else None
    if preset is None:
        raise RulesError("unknown_rules", f"unknown rules {rules!r}: expected one of {', '.join(PRESETS)}")
    if preset.variant != variant:
        raise RulesError("rules_not_for_variant", f"the rules {rules} are for {preset.variant}, not {variant}")
    given = dict(options or {}) if isinstance(options, Mapping) or options is None else options
    if isinstance(given, dict):
        for set_by_preset, name in _CONTRADICTIONS:
            if preset.options.get(set_by_preset) and given.get(name) is not None \
                    and given.get(set_by_preset) is not False:
                raise RulesError("rules_conflict", f"the rules {rules} set {set_by_preset}, which replaces {name}: "
                                 f"leave {name} out, or set {set_by_preset} to false")
        if given.get("oklahoma") is False and preset.options.get("oklahoma"):
            # turning Oklahoma off brings back a knock limit, and spade doubling goes with it
            given = {"knock_limit": 10, "oklahoma_spades_double": False, **given}
        return normalise_options(variant, {**preset.options, **given})
    return normalise_options(variant, given)  # not an object: normalise_options words the refusal
