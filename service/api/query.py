"""Which query parameters each operation takes: any other, or one given twice, is 400 invalid_query.

An operation takes the ``in: query`` parameters openapi.yaml lists for it.
It also takes ``token`` where its security takes a token from the query (the streams, for EventSource).
The query strings of the web pages and the documentation page are left alone.
"""

# openapi.yaml says that what it allows is accepted, and nothing else.
# For query strings that is enforced here, once, before any view runs.
# A parameter given twice is refused too: version=4&version=5 would otherwise be read as 4 without a word.
# tests/contract/test_spec_query_parameters.py holds this table to the spec, operation by operation.

from __future__ import annotations

from flask import request

from service.api.problems import ApiError

#: endpoint -> the query parameters it takes; an endpoint not listed takes none
QUERY_PARAMETERS: dict[str, frozenset[str]] = {
    "games.list_games": frozenset({"status", "variant", "cursor", "limit"}),
    "games.list_events": frozenset({"after", "limit"}),
    "games.state_at": frozenset({"version"}),
    "games.hand_results": frozenset({"offset", "limit"}),
    "games.stream": frozenset({"after", "once", "token"}),
    "arena.bot_stream": frozenset({"after", "once", "token"}),
    "arena.ratings": frozenset({"variant"}),
    "arena.list_bots": frozenset({"cursor", "limit"}),
    "arena.own_games": frozenset({"cursor", "limit"}),
}

#: the pages' endpoints, whose query string nothing reads.
#: They are documents for browsers, not operations a client calls.
#: A link or a browser may add what it likes to their address (a cache-buster, a campaign tag),
#: and nothing of it is read, so their query strings are left alone.
PAGE_ENDPOINTS = frozenset({
    "pages.lobby_page", "pages.play_page", "pages.watch_page", "pages.replay_page", "pages.match_page",
    "pages.tournament_page",
    "pages.web_asset", "pages.favicon", "docs.docs_page", "docs.docs_asset",
    "guides.guides_index", "guides.guide_page", "guides.guide_image",
})


def refuse_unlisted_query():
    """before_request: 400 invalid_query for a query parameter the operation does not take, or one
    given more than once; ``errors`` names each. A request that matched no route is left to
    routing (404, 405)."""
    args = request.args
    endpoint = request.endpoint
    if not args or endpoint is None or endpoint in PAGE_ENDPOINTS:
        return None
    allowed = QUERY_PARAMETERS.get(endpoint, frozenset())
    errors: dict[str, list[str]] = {}
    for name, values in args.lists():
        if name not in allowed:
            errors[name] = ["Unknown parameter: this operation does not take it."]
        elif len(values) > 1:
            errors[name] = ["Given more than once."]
    if not errors:
        return None
    if "token" in errors and "token" not in allowed:
        # the one unknown parameter a client is likely to mean: say where the token goes instead
        errors["token"] = ["Only the streams take a token here: send 'Authorization: Bearer <token>'."]
        raise ApiError(400, "invalid_query",
                       "send the token as 'Authorization: Bearer <token>'; only the streams take ?token=",
                       extra={"errors": errors})
    listed = ", ".join(sorted(allowed)) or "none"
    raise ApiError(400, "invalid_query",
                   f"a query parameter is unknown here or given more than once (this operation takes: {listed})",
                   extra={"errors": errors})
