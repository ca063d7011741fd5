"""Every room stays small enough to read whole (STYLE.md, "Rooms"): no module of the service, the
workers, the schemas or the web client over 500 lines, and no class over 400.

The engine's own rule (tests/unit/test_rules_structure.py) is the same bound; this one holds it
for every floor above the engine too, so that a use case lands in a room a newcomer can find.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "schemas", "workers")
#: the web client's own files (the vendored ones are not ours to split)
STATIC = ROOT / "service" / "static"
STATIC_KINDS = ("*.js", "*.css", "*.html")
MAX_MODULE_LINES = 500
MAX_CLASS_LINES = 400


def _python_files() -> list[Path]:
    return [p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_layout_is_read_from_the_files():
    # the checks below would pass on an empty tree: make sure they see the rooms they guard
    names = {p.relative_to(ROOT).as_posix() for p in _python_files()}
    assert {"service/games/core.py", "service/arena/core.py", "workers/jobs.py"} <= names
    assert any(STATIC.rglob("*.js"))
    tree = ast.parse("class A:\n    x = 1\n\n    def f(self):\n        return 2\n")
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert cls.end_lineno - cls.lineno + 1 == 5


def test_no_module_of_the_service_workers_or_schemas_is_over_500_lines():
    long = {p.relative_to(ROOT).as_posix(): n for p in _python_files() if (n := _lines(p)) > MAX_MODULE_LINES}
    assert long == {}


def test_no_script_style_or_page_of_the_web_client_is_over_500_lines():
    files = [p for kind in STATIC_KINDS for p in STATIC.rglob(kind) if "vendor" not in p.parts]
    long = {p.relative_to(ROOT).as_posix(): n for p in files if (n := _lines(p)) > MAX_MODULE_LINES}
    assert long == {}


def test_no_class_is_over_400_lines():
    long = {}
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and (n := node.end_lineno - node.lineno + 1) > MAX_CLASS_LINES:
                long[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = n
    assert long == {}
