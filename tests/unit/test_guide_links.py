"""Every relative link of the README and the guides names a file that exists, and an anchor that
its Markdown target has (GitHub's rule: a heading lower-cased, spaces to '-', punctuation dropped)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "service" / "docs").glob("*.md"))]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    # a link's text stays, its target goes; backquotes and asterisks go (underscores are word characters)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower()).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def relative_links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return [t for t in _LINK.findall(text) if not re.match(r"[a-z]+:", t) and not t.startswith("/")]


def test_the_anchor_rule_is_githubs():
    assert slug("Quick start") == "quick-start"
    assert slug("Arena: bot accounts, duplicate matches, ratings") == "arena-bot-accounts-duplicate-matches-ratings"
    assert slug("`ginbox match`") == "ginbox-match"
    assert slug("A complete bot: `workers/outside_bot.py`") == "a-complete-bot-workersoutside_botpy"


def test_every_relative_link_of_the_readme_and_the_guides_resolves():
    broken = []
    for doc in DOCS:
        links = relative_links(doc)
        for target in links:
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_readme_and_the_guides_have_links_to_check():
    assert all(relative_links(doc) for doc in DOCS if doc.name in ("README.md", "ARCHITECTURE.md", "RULES.md"))


def test_every_guide_the_spec_links_and_its_anchor_exist():
    spec = (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    links = re.findall(r"/guides/([A-Z]+)(?:#([a-z0-9_-]+))?", spec)
    assert links, "openapi.yaml links no guide: the pattern is wrong"
    docs = ROOT / "service" / "docs"
    broken = [f"/guides/{name}#{anchor}" for name, anchor in links
              if not (docs / f"{name}.md").exists() or (anchor and anchor not in anchors(docs / f"{name}.md"))]
    assert broken == []
