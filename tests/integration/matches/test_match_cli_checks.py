"""``ginbox match`` checks its own arguments before it sends anything (service/docs/BOTS.md, "ginbox match"):
the wrong number of participants for the variant, or a board count outside 1 to 1000, exits 2
with one line that says what is wrong, and no request reaches the server."""

from __future__ import annotations

import pytest
from support.arena_fixtures import app, settings  # noqa: F401 (fixtures)
from support.cli_clients import Served, ginbox_match

from workers import arena_match


class _Counting:
    """The app, counting the requests that reach it."""

    def __init__(self, wsgi_app):
        self.app = wsgi_app
        self.requests: list[str] = []

    def __call__(self, environ, start_response):
        self.requests.append(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}")
        return self.app(environ, start_response)


@pytest.mark.parametrize("args, says", [
    (["--participants", "basic"], "gin-rami needs 2 participants, not 1"),
    (["--participants", "basic,random,expert"], "gin-rami needs 2 participants, not 3"),
    (["--participants", "basic,random", "--variant", "three-hand"], "three-hand needs 3 participants, not 2"),
    (["--participants", " , basic ,"], "holds an empty name"),
    (["--participants", "basic,random", "--boards", "0"], "1 to 1000 boards (--boards), not 0"),
    (["--participants", "basic,random", "--boards", "1001"], "1 to 1000 boards (--boards), not 1001"),
])
def test_a_wrong_match_is_refused_here_and_nothing_is_sent(app, args, says):  # noqa: F811
    counting = _Counting(app)
    served = Served(counting)
    try:
        done = ginbox_match(*args, "--server", served.base, timeout=60)
    finally:
        served.stop()
    assert done.returncode == arena_match.EXIT_USAGE == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("ginbox match: ") and says in lines[0], done.stderr
    assert "invalid_body" not in lines[0]  # not the server's refusal: it was never asked
    assert counting.requests == []
    assert done.stdout == ""
