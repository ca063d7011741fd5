"""service.rules imports only the standard library and itself (STYLE.md layering)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import service.rules

RULES_DIR = Path(service.rules.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names.add(node.module)
    return names


def test_rules_modules_import_only_the_standard_library():
    stdlib = sys.stdlib_module_names
    offenders = {}
    for path in sorted(RULES_DIR.glob("*.py")):
        bad = {m for m in imported_modules(path) if m.split(".")[0] not in stdlib}
        if bad:
            offenders[path.name] = sorted(bad)
    assert offenders == {}


def test_rules_modules_never_use_the_random_module_or_clocks():
    """Randomness and time come in as data (STYLE.md): no random, time or datetime."""
    for path in sorted(RULES_DIR.glob("*.py")):
        roots = {m.split(".")[0] for m in imported_modules(path)}
        assert not roots & {"random", "time", "datetime", "secrets"}, path.name


def test_importing_service_rules_alone_loads_no_web_or_redis_library():
    code = (
        "import sys, service.rules, service.rules.fairness, service.rules.views;"
        "bad = [m for m in ('flask', 'redis', 'rq', 'marshmallow', 'werkzeug') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=RULES_DIR.parent.parent)
    assert out.stdout.strip() == ""
