"""The lobby's list of presets (lobby-rules.js) is the server's (service/rules/presets.py): the same
names for each variant, and the target and knock limit each shows are its game's."""

from __future__ import annotations

import re
from pathlib import Path

from service.rules import presets

WEB = Path(__file__).resolve().parents[2] / "service" / "static" / "web"
ENTRY = re.compile(r'\{ name: "(?P<name>[^"]+)", variant: "(?P<variant>[^"]+)", label: "[^"]+", '
                   r'target_score: (?P<target>\d+), knock_limit: (?P<knock>\d+|null) \}')


def lobby_presets() -> list[dict]:
    text = (WEB / "lobby-rules.js").read_text()
    block = text[text.index("export const PRESETS = ["):text.index("];")]
    entries = [m.groupdict() for m in ENTRY.finditer(block)]
    # every line of the list is read: none is skipped by a spelling the pattern misses
    assert len(entries) == block.count("{ name:")
    return entries


def test_the_lobby_lists_the_server_s_presets_for_each_variant():
    lobby = lobby_presets()
    for variant in ("gin-rami", "three-hand"):
        server = [name for name in presets.PRESET_NAMES if presets.PRESETS[name].variant == variant]
        assert [e["name"] for e in lobby if e["variant"] == variant] == server, variant


def test_each_lobby_preset_shows_its_game_s_target_and_knock_limit():
    for e in lobby_presets():
        options = presets.resolve(e["variant"], e["name"], None)
        knock = None if options.get("oklahoma") else options["knock_limit"]
        assert (int(e["target"]), None if e["knock"] == "null" else int(e["knock"])) == \
            (options["target_score"], knock), e["name"]
