"""The engine's rooms stay small and its modules never import each other in a circle (STYLE.md).

The import graph is read from the source (its syntax tree), imports inside functions included:
``from a.b import c`` is an edge to the module ``a.b.c`` if there is one, else to ``a.b``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "schemas", "workers")
RULES = "service.rules"
#: the packages whose cycles fail this test: all of them
CHECKED = ("service", "schemas", "workers")
MAX_LINES = 500


def module_paths() -> dict[str, Path]:
    """{dotted module name: path} of every module of PACKAGES."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """{module: the modules of PACKAGES it imports}."""
    paths = module_paths()
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    targets.add(submodule if submodule in paths else source)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_the_import_graph_is_read_from_the_source():
    graph = import_graph()
    assert {"service.rules.state", "service.rules.cards"} <= graph["service.rules.evolvers"]
    assert "service.rules.game" in graph["service.rules.audit"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_modules_import_each_other_in_a_circle():
    checked = [
        group for group in cycles(import_graph())
        if any(m == p or m.startswith(p + ".") for m in group for p in CHECKED)
    ]
    assert checked == []


def test_no_module_of_the_engine_is_over_500_lines():
    long = {
        name: n for name, path in module_paths().items()
        if name.startswith(RULES) and (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


#: the modules below the API: they speak in the game's terms, so no HTTP status appears in them
BELOW_THE_API = ("service.rules", "service.store", "service.games", "service.bots", "service.errors", "workers")
#: HTTP clients (the bots, ginbox match and ginbox tournament), like any third-party client: they read statuses because the server sends them
HTTP_CLIENTS = ("workers.outside_bot", "workers.arena_bot", "workers.arena_match", "workers.arena_tournament")
#: the statuses the API answers with (and a few more), as literals or in text such as "412 Precondition"
HTTP_STATUS = re.compile(r"\b(?:30[1-8]|40[0-9]|41[0-8]|42[2-9]|50[0-4])\b")
#: where a number of that shape is not a status: bounds, limits and sizes that happen to match
NOT_A_STATUS = re.compile(r"MAX_ADVICE_LENGTH = 500|BOTS_ALONE_MAX_TARGET = 500|MAX_LIST_LIMIT = 500|LIST_BATCH = 500|count=500|"
                          r"max_(samples|rollouts).*= 400")


def test_no_http_status_below_the_api():
    found = [
        f"{name}:{n}: {line.strip()}"
        for name, path in module_paths().items()
        if name.startswith(BELOW_THE_API) and not name.startswith(HTTP_CLIENTS)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HTTP_STATUS.search(line) and not NOT_A_STATUS.search(line)
    ]
    assert found == []
