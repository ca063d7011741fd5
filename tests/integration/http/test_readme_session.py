"""The README's curl session is what a real server answers.

``tests/examples/curl_session.sh`` runs the session's commands against a live server (gunicorn on
the test Redis) and prints each command with its answer, as the README shows them. The README's
code blocks in "A session with curl" must be that output, block for block, once the parts that
differ on every run (game id, tokens, commitment, timestamps) are replaced by placeholders.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess

import pytest

from support.servers import REPO, ApiServer, service_env

SCRIPT = REPO / "tests" / "examples" / "curl_session.sh"
README = REPO / "README.md"

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


def normalise(text: str) -> tuple[str, list[int]]:
    """The text with its random parts replaced, and how many of each there were."""
    counts = []
    for pattern, placeholder in _RANDOM:
        text, n = pattern.subn(placeholder, text)
        counts.append(n)
    return text, counts


def readme_session_blocks(readme: str) -> list[str]:
    """The code blocks of the README's "A session with curl" section."""
    match = re.search(r"^## A session with curl\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, 'README has no "## A session with curl" section'
    return [b.rstrip("\n") for b in re.findall(r"^```sh\n(.*?)^```$", match.group(1), re.S | re.M)]


@pytest.fixture
def live_server(tmp_path, redis_url, key_prefix):
    server = ApiServer(service_env(redis_url, key_prefix), tmp_path / "gunicorn.log", workers=1).start()
    try:
        yield f"http://{server.host}:{server.port}"
    finally:
        server.stop()


def run_session(base: str) -> str:
    assert shutil.which("curl"), "the curl session needs curl on PATH"
    done = subprocess.run(["bash", str(SCRIPT), base], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"the session script failed ({done.returncode}):\n{done.stderr}"
    return done.stdout


def test_the_readme_curl_session_is_what_the_server_answers(live_server):
    output = run_session(live_server)
    printed = output.rstrip("\n").split("\n\n")
    shown = readme_session_blocks(README.read_text())
    assert len(printed) > 5, "the session script printed almost nothing"

    got, got_counts = normalise("\n\n".join(printed))
    want, want_counts = normalise("\n\n".join(shown))
    diff = "\n".join(difflib.unified_diff(want.splitlines(), got.splitlines(), "README", "server", lineterm=""))
    assert want == got, f"README's curl session differs from what the server answers:\n{diff}"
    # the README shows a real run's values, not placeholders typed in
    assert want_counts == got_counts and got_counts[0] and got_counts[-1], (want_counts, got_counts)



def local_links(markdown: str) -> list[str]:
    """The relative link targets of a markdown text, without their #anchors."""
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", markdown)]
    return [t for t in targets if t and not re.match(r"[a-z]+:", t)]


def test_readme_and_rules_links_name_files_that_exist():
    rules = REPO / "service" / "docs" / "RULES.md"
    for doc in (README, rules):
        links = local_links(doc.read_text())
        assert links, f"no relative links found in {doc.name}: the pattern is wrong"
        missing = [t for t in links if not (doc.parent / t).exists()]
        assert not missing, f"{doc.relative_to(REPO)} links to files that do not exist: {missing}"
    assert "service/docs/RULES.md" in local_links(README.read_text()), "README does not link the rules document"
