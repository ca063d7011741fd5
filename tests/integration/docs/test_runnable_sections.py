"""The documents' runnable sections are what a real server answers.

A guide or the README marks a runnable section with a line ``<!-- runnable: SCRIPT -->`` before
its ```sh blocks and a line ``<!-- /runnable -->`` after them. SCRIPT, a path from the
repository's root, takes a server's base URL as its one argument, runs the section's commands
against it and prints each command with its answer, code blocks separated by one empty line
(``tests/examples/curl_session.sh`` is one). This test finds every marked section of README.md
and service/docs/*.md, runs each script against one live server (gunicorn on the test Redis), and
checks that the section's blocks are the script's output, block for block, once the parts that
differ on every run (game id, tokens, commitment, timestamps, a view tag's digest) are replaced
by placeholders.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from support.servers import REPO, ApiServer, service_env

#: the documents that may mark runnable sections
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "service" / "docs").glob("*.md"))]
_OPEN = re.compile(r"^<!-- runnable: (\S+) -->$")
_CLOSE = "<!-- /runnable -->"
#: a runnable program of the bot guide: tests/integration/docs/test_bot_guide.py runs those
_PYTHON = re.compile(r"^<!-- runnable-python: [a-z0-9-]+ -->$")
# a fence opens a code block (```sh, ~~~): a marker shown inside one is an example, not a marker
_FENCE = re.compile(r"^(`{3,}|~{3,})\s*(\S*)")

# what changes from run to run, and its placeholder
_RANDOM = [
    (re.compile(r'("game_id": ")[A-Za-z0-9_-]{16}(")'), r"\1<game_id>\2"),
    (re.compile(r"(/games/)[A-Za-z0-9_-]{16}\b"), r"\1<game_id>"),
    (re.compile(r'("token": ")[A-Za-z0-9_-]{43}(")'), r"\1<token>\2"),
    (re.compile(r'("commitment": ")[0-9a-f]{64}(")'), r"\1<commitment>\2"),
    (re.compile(r'("ts": )\d{13}\b'), r"\1<ts>"),
    # a view's ETag: its digest is an HMAC-SHA256 of the view (game id and commitment included) under the server's secret
    (re.compile(r'(ETag: "[0-9]+-)[0-9a-f]{16}(")'), r"\1<digest>\2"),
]


@dataclass
class Section:
    """A runnable section: where it starts, the script it names, its ```sh blocks."""

    doc: Path
    line: int
    script: str
    blocks: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line} ({self.script})"


def marked_sections(doc: Path) -> tuple[list[Section], list[str]]:
    """The runnable sections of ``doc``, and what is wrong with its markers."""
    sections: list[Section] = []
    problems: list[str] = []
    where = doc.relative_to(REPO)
    section: Section | None = None
    fence: str | None = None  # the fence of the code block we are in
    block: list[str] | None = None  # the lines of the ```sh block of a section we are in
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if fence is not None:
            if line.strip() == fence:
                if block is not None and section is not None:
                    section.blocks.append("\n".join(block).rstrip("\n"))
                fence, block = None, None
            elif block is not None:
                block.append(line)
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            block = [] if section is not None and fence == "```" and opening.group(2) == "sh" else None
        elif _OPEN.match(line):
            if section is not None:
                problems.append(f"{where}:{number}: a runnable section opens inside the one of line {section.line}")
            section = Section(doc, number, _OPEN.match(line).group(1))
        elif line.strip() == _CLOSE:
            if section is None:
                problems.append(f"{where}:{number}: {_CLOSE} closes no runnable section")
                continue
            if not section.blocks:
                problems.append(f"{where}:{section.line}: the runnable section holds no ```sh block")
            sections.append(section)
            section = None
        elif line.lstrip().startswith("<!-- runnable") and not _PYTHON.match(line.strip()):
            problems.append(f"{where}:{number}: not a marker: {line.strip()!r} "
                            f"(write '<!-- runnable: tests/examples/SCRIPT.sh -->' or '{_CLOSE}' on a line of its own)")
    if section is not None:
        problems.append(f"{where}:{section.line}: the runnable section is never closed by {_CLOSE}")
    if fence is not None:
        problems.append(f"{where}: a code block fenced with {fence} is never closed")
    return sections, problems


def all_sections() -> tuple[list[Section], list[str]]:
    """The runnable sections of every document, and what is wrong with their markers."""
    sections, problems = [], []
    for doc in DOCUMENTS:
        found, wrong = marked_sections(doc)
        sections += found
        problems += wrong
    return sections, problems


def script_path(section: Section) -> Path | None:
    """The script a section names, if it is a file of the repository."""
    path = (REPO / section.script).resolve()
    return path if path.is_relative_to(REPO) and path.is_file() else None


def normalise(text: str) -> tuple[str, list[int]]:
    """The text with its random parts replaced, and how many of each there were."""
    counts = []
    for pattern, placeholder in _RANDOM:
        text, n = pattern.subn(placeholder, text)
        counts.append(n)
    return text, counts


def test_the_documents_mark_runnable_sections_that_name_existing_scripts():
    sections, problems = all_sections()
    assert not problems, "runnable sections marked wrongly:\n" + "\n".join(problems)
    assert sections, "no runnable section in README.md or service/docs/*.md: the markers are gone, or the pattern is wrong"
    missing = [str(s) for s in sections if script_path(s) is None]
    assert not missing, f"runnable sections name scripts that are not files of the repository: {missing}"


@pytest.fixture
def live_server(tmp_path, redis_url, key_prefix):
    server = ApiServer(service_env(redis_url, key_prefix), tmp_path / "gunicorn.log", workers=1).start()
    try:
        yield f"http://{server.host}:{server.port}"
    finally:
        server.stop()


def run_script(script: Path, base: str) -> str:
    """What ``script`` prints when run against the server at ``base``."""
    assert shutil.which("curl"), "the runnable sections' scripts need curl on PATH"
    done = subprocess.run(["bash", str(script), base], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, f"{script.relative_to(REPO)} failed ({done.returncode}):\n{done.stderr}"
    return done.stdout


def test_every_runnable_section_is_what_its_script_prints(live_server):
    sections, problems = all_sections()
    assert sections and not problems, "see test_the_documents_mark_runnable_sections_that_name_existing_scripts"
    differences = []
    totals = [0] * len(_RANDOM)
    for section in sections:
        script = script_path(section)
        assert script is not None, f"{section}: no such script"
        printed = run_script(script, live_server).rstrip("\n").split("\n\n")
        assert printed != [""], f"{section}: the script printed nothing"
        got, got_counts = normalise("\n\n".join(printed))
        want, want_counts = normalise("\n\n".join(section.blocks))
        totals = [t + n for t, n in zip(totals, got_counts)]
        if want != got:
            diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(),
                                                  str(section), "server", lineterm=""))
            differences.append(f"{section} differs from what the server answers:\n{diff}")
        elif want_counts != got_counts:
            # the document shows a real run's values, not placeholders typed in
            differences.append(f"{section} shows placeholders, not a run's values: {want_counts} != {got_counts}")
    assert not differences, "\n\n".join(differences)
    # the patterns of the random parts still match what the server prints (a game id, a view's tag)
    assert totals[0] and totals[-1], totals
