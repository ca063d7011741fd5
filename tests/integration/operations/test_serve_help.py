"""`ginbox serve --help` describes every option, with its environment variable and default."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.cli import main

#: where the settings are documented: the operator's guide's configuration tables
OPERATE = Path(__file__).resolve().parents[3] / "service" / "docs" / "OPERATE.md"


def _options(help_text: str) -> dict[str, str]:
    """Each option of an argparse help text and its description, wrapped lines joined."""
    out: dict[str, str] = {}
    current = None
    for line in help_text.split("options:", 1)[1].splitlines():
        entry = re.match(r"^  (-\S+(?: \S+)*?)(?:  +(.*))?$", line)
        if entry:
            # '-h, --help' -> '--help'; '--worker-class {gevent,gthread}' -> '--worker-class'
            current = [word.rstrip(",") for word in entry.group(1).split() if word.startswith("-")][-1]
            out[current] = entry.group(2) or ""
        elif current and line.startswith("    "):
            out[current] = f"{out[current]} {line.strip()}".strip()
    return out


def test_serve_help_describes_every_option_with_its_variable_and_default(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--help"])
    assert exited.value.code == 0
    options = _options(capsys.readouterr().out)
    assert {"--host", "--port", "--processes", "--worker-class", "--connections", "--threads",
            "--workers-bots"} <= set(options)
    guide = OPERATE.read_text()
    for option, text in options.items():
        if option == "--help":
            continue
        assert text, f"{option} has no help text"
        variable = re.search(r"\$(GINBOX_[A-Z_]+)", text)
        assert variable and ", else " in text, f"{option}: its variable and default are not named: {text!r}"
        assert f"`{variable.group(1)}`" in guide, f"OPERATE.md's configuration tables do not list {variable.group(1)}"
