"""`ginbox --help` names every command in plain text, and `ginbox worker --help` says in which order
a worker serving both queues takes its jobs."""

from __future__ import annotations

import pytest

from service.cli import main


def help_text(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*args, "--help"])
    assert exited.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone


def test_the_description_names_every_command_without_markup(capsys):
    text = help_text(capsys)
    description = text.split("positional arguments:")[0]
    for command in ("serve:", "worker:", "match:", "audit:"):
        assert command in description, description
    assert "``" not in text and "`" not in description


def test_worker_help_says_turn_jobs_come_first_whatever_the_order_given(capsys):
    text = help_text(capsys, "worker")
    assert "turn jobs always first, whatever the order given" in text
