"""The spec describes, the guides explain: its front description stays short and points to them."""

from __future__ import annotations

import yaml
from support.apiclient import SPEC_PATH

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def test_the_specs_front_description_is_at_most_1500_characters_and_links_the_guides():
    text = SPEC["info"]["description"]
    assert len(text) <= 1500, len(text)
    for guide in ("API", "BOTS", "OPERATE"):
        assert f"/guides/{guide}" in text, guide
