"""service/docs/RULES.md agrees with the engine: its option table with service/rules/variants.py,
and each of its worked examples with the score the rules give when the hand is played."""

from __future__ import annotations

import ast
import operator
import re
from pathlib import Path

import pytest

from support.rules import ALL, deck, new_table
from service.rules import variants as V
from service.rules.errors import RulesError
from service.rules.events import HandScored, RolesAssigned

DOC = Path(__file__).resolve().parents[2] / "service" / "docs" / "RULES.md"
TEXT = DOC.read_text()


# -- the option table ----------------------------------------------------------------------


def option_rows() -> dict[str, dict]:
    """{option: {"three-hand": default, "gin-rami": default, "accepted": text}} from the table."""
    section = TEXT.split("## Rule options", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"`\w+`", cells[0]):
            rows[cells[0].strip("`")] = {"three-hand": cells[1], "gin-rami": cells[2], "accepted": cells[3]}
    return rows


def value(cell: str):
    """A default as the table writes it: an integer, true, false or null."""
    return int(cell) if cell.isdigit() else {"null": None, "true": True, "false": False}[cell]


def test_the_option_table_lists_every_option_once():
    assert sorted(option_rows()) == sorted(V.OPTION_NAMES)


@pytest.mark.parametrize("variant", [V.THREE_HAND, V.GIN_RAMI])
def test_the_option_table_gives_each_variants_defaults(variant):
    table = {name: value(row[variant]) for name, row in option_rows().items()}
    assert table == dict(V.VARIANTS[variant].defaults)


def accepts(variant: str, name: str, v) -> bool:
    try:
        V.normalise_options(variant, {name: v})
    except RulesError:
        return False
    return True


@pytest.mark.parametrize("name", V.OPTION_NAMES)
def test_the_option_table_gives_the_accepted_values(name):
    accepted = option_rows()[name]["accepted"]
    # "(gin-rami only)": the other variant accepts only the default (§5 Hollywood)
    only = re.fullmatch(r"(.*) \((\S+) only\)", accepted)
    if only:
        accepted = only[1]
    for variant in V.VARIANTS:
        if only and variant != only[2]:
            default = V.VARIANTS[variant].defaults[name]
            assert accepts(variant, name, default) and not accepts(variant, name, not default)
            continue
        if accepted == "true or false":
            assert accepts(variant, name, True) and accepts(variant, name, False)
            assert not accepts(variant, name, 1) and not accepts(variant, name, None)
            continue
        m = re.fullmatch(r"integer (\d+)–(\d+)(, or null)?", accepted)
        assert m, f"{name}: cannot read {accepted!r}"
        lo, hi, nullable = int(m[1]), int(m[2]), bool(m[3])
        assert accepts(variant, name, lo) and accepts(variant, name, hi)
        assert not accepts(variant, name, lo - 1) and not accepts(variant, name, hi + 1)
        assert accepts(variant, name, None) == nullable
        assert not accepts(variant, name, True) and not accepts(variant, name, str(lo))


# -- the worked examples ---------------------------------------------------------------------

NAMES = {"ann": 0, "bob": 1, "cat": 2}


def examples() -> list[dict]:
    """Each fenced block of the worked examples that starts with "variant", as a dict of its lines."""
    section = TEXT.split("## Worked examples", 1)[1].split("\n## ", 1)[0]
    found = []
    for block in re.findall(r"^```\n(variant.*?)^```$", section, re.S | re.M):
        found.append({k: v.strip() for k, _, v in (line.partition(" ") for line in block.strip().splitlines())})
    return found


def roles_of(text: str) -> dict:
    """"box ann, captain bob, advisor cat" -> {"box": 0, "captain": 1, "advisor": 2}"""
    return {role: NAMES[name] for role, name in (part.split() for part in text.split(","))}


def play_example(ex: dict):
    """Plays the example's hand; (HandScored, the roles after it or None, knocker seat, defender seat)."""
    variant = ex["variant"]
    cards, _, rest = ex["knocker"].partition("discards")
    kept = [c for c in cards.split() if c in ALL]
    discard = rest.split()[0] if rest else None
    eleven = kept + ([discard] if discard else [])
    assert len(eleven) == 11 and len(set(eleven)) == 11, ex
    defender = ex["defender"].split()
    drawn = kept[-1]                      # the knocker draws it from the stock
    dealt = [c for c in eleven if c != drawn]
    upcard = next(c for c in ALL if c not in eleven and c not in defender)
    decks = [deck(" ".join(dealt), " ".join(defender), upcard, drawn)]
    if variant == V.THREE_HAND:
        roles = roles_of(ex["roles"])
        table = new_table(variant, decks=decks, roles=roles)
        knocker, other = roles["captain"], roles["box"]
    else:
        table = new_table(variant, decks=decks, first_dealer=1)
        knocker, other = 0, 1
    melds = [m.split() for m in ex["melds"].split("|")] if "melds" in ex else None
    table.pass_(knocker)
    table.pass_(other)
    table.stock(knocker)
    events = table.knock(knocker, discard, melds)
    scored = next(e for e in events if isinstance(e, HandScored))
    after = next((e for e in events if isinstance(e, RolesAssigned)), None)
    return scored, after, knocker, other


def arithmetic(text: str) -> int:
    """The value of a sum such as "10 + (9 - 1)": integers, +, - and brackets only."""
    ops = {ast.Add: operator.add, ast.Sub: operator.sub}

    def walk(node):
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](walk(node.left), walk(node.right))
        raise ValueError(f"not a plain sum: {text!r}")

    return walk(ast.parse(text, mode="eval").body)


def test_the_document_has_its_worked_examples():
    found = examples()
    assert len(found) >= 8
    assert {e["variant"] for e in found} == {V.THREE_HAND, V.GIN_RAMI}
    assert {e["result"].split(":")[0] for e in found} == {"knock", "undercut", "gin", "big gin"}


@pytest.mark.parametrize("ex", examples(), ids=lambda ex: f"{ex['variant']}: {ex['result']}")
def test_each_worked_example_scores_as_the_document_says(ex):
    scored, after, knocker, defender = play_example(ex)
    m = re.fullmatch(r"([a-z ]+): the (knocker|defender) scores (?:.*= )?(\d+)", ex["result"])
    assert m, f"cannot read the result {ex['result']!r}"
    outcome, who, points = m[1].replace(" ", "_"), m[2], int(m[3])
    assert scored.outcome == outcome
    assert scored.winner == (knocker if who == "knocker" else defender)
    assert scored.points == points
    # the sum shown on the result line is right too
    assert arithmetic(re.search(r"scores (.*?)(?: = \d+)?$", ex["result"])[1]) == points
    if "next" in ex:
        expected = roles_of(ex["next"])
        assert after is not None and (after.box, after.captain, after.advisor) == (
            expected["box"], expected["captain"], expected["advisor"])
