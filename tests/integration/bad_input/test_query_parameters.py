"""Query strings: an operation takes the query parameters openapi.yaml lists for it, once each.

Any other parameter, or one of its own given twice, is 400 ``invalid_query`` naming the parameter
in ``errors``, on every operation of the spec, and the request changes nothing. The parameters the
spec lists keep working (cursors, limits, ``after``, ``once``, the streams' ``?token=``), and the
pages, which browsers and links may add to, answer whatever their query string holds.

The operations and their parameters are read from openapi.yaml itself, so an operation added to
the spec is covered without touching this file.
"""

from __future__ import annotations

import pytest
import yaml
from support.apiclient import SPEC_PATH
from support.gameplay import create_game

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
METHODS = {"get", "post", "put", "patch", "delete"}
#: operations whose query string is nobody's business: pages for browsers
PAGES = {"getLobbyPage", "getPlayPage", "getWatchPage", "getReplayPage", "getMatchPage", "getTournamentPage", "getPageAsset",
         "getFavicon", "getDocs", "getDocsWithSlash", "getDocsAsset", "listGuides", "getGuide", "getGuideImage"}
#: a value the spec allows for each query parameter it lists (the two streams' ``after`` differ in type)
VALID = {"status": "playing", "variant": "gin-rami", "cursor": "0" * 15 + "A" * 16, "limit": "5",
         "after": "0", "offset": "0", "version": "1", "once": "1", "token": "not-a-token"}


def _operations() -> list[tuple[str, str, str]]:
    return [(method, path, op["operationId"]) for path, item in SPEC["paths"].items()
            for method, op in item.items() if method in METHODS]


def _listed(path: str, method: str) -> list[str]:
    item = SPEC["paths"][path]
    names = []
    for p in item.get("parameters", []) + item[method].get("parameters", []):
        if "$ref" in p:
            p = SPEC["components"]["parameters"][p["$ref"].rsplit("/", 1)[-1]]
        if p["in"] == "query":
            names.append(p["name"])
    return names


@pytest.fixture
def game(api):
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])


def _url(path: str, game_id: str) -> str:
    return (path.replace("{game_id}", game_id).replace("{seat}", "1").replace("{code}", "invalid_query")
            .replace("{name}", "alpha").replace("{match_id}", "A" * 16).replace("{challenge_id}", "A" * 16)
            .replace("{asset}", "table.js"))


def _problem(resp, *names: str) -> dict:
    assert resp.status_code == 400, resp.get_data(as_text=True)
    body = resp.get_json()
    assert body["code"] == "invalid_query", body
    assert sorted(body["errors"]) == sorted(names), body
    return body


def _state(api, game) -> tuple:
    listing = api.get("/games", query_string={"limit": 100}).get_json()["games"]
    return game.view(0), len(listing)


API_OPERATIONS = [op for op in _operations() if op[2] not in PAGES]


@pytest.mark.parametrize(("method", "path", "operation"), API_OPERATIONS, ids=[op[2] for op in API_OPERATIONS])
def test_a_parameter_the_operation_does_not_list_is_400_and_changes_nothing(api, game, method, path, operation):
    before = _state(api, game)
    body = {"variant": "gin-rami", "seats": [{"name": "a"}, None]} if method == "post" else None
    kwargs = {"json": body} if body is not None else {}
    listed = {name: VALID[name] for name in _listed(path, method) if name in VALID}
    resp = api.open(method.upper(), _url(path, game.game_id), query_string={**listed, "foo": "bar"},
                    token=game.tokens[0], **kwargs)
    _problem(resp, "foo")
    assert _state(api, game) == before


@pytest.mark.parametrize(("method", "path", "operation"),
                         [op for op in API_OPERATIONS if _listed(op[1], op[0])],
                         ids=[op[2] for op in API_OPERATIONS if _listed(op[1], op[0])])
def test_a_listed_parameter_given_twice_is_400(api, game, method, path, operation):
    for name in _listed(path, method):
        value = VALID[name]
        resp = api.open(method.upper(), f"{_url(path, game.game_id)}?{name}={value}&{name}={value}",
                        token=game.tokens[0])
        _problem(resp, name)


def test_the_reported_cases(api, game):
    gid = game.game_id
    _problem(api.get("/games?foo=bar"), "foo")
    _problem(api.get(f"/games/{gid}/events?foo=1"), "foo")
    # two versions: neither is picked silently
    _problem(api.get(f"/games/{gid}/state?version=1&version=2"), "version")
    # a misspelt parameter is not ignored either (limt would have given the default page size)
    _problem(api.get("/games?limt=1"), "limt")
    # an empty name, and a name without a value, are parameters too
    _problem(api.get("/games?=1"), "")
    _problem(api.get(f"/games/{gid}/audit?verbose"), "verbose")


def test_a_token_in_the_query_of_another_operation_says_where_the_token_goes(api, game):
    body = _problem(api.get(f"/games/{game.game_id}?token={game.tokens[0]}"), "token")
    assert "Authorization" in body["detail"]
    # also beside a parameter the operation takes, and with an unknown one
    _problem(api.get(f"/games/{game.game_id}/events?after=0&token={game.tokens[0]}&x=1"), "token", "x")


def test_the_listed_parameters_keep_working(api, game):
    gid = game.game_id
    version = game.version()
    resp = api.get("/games", query_string={"status": "playing", "variant": "gin-rami", "limit": 1})
    assert resp.status_code == 200 and len(resp.get_json()["games"]) == 1
    cursor = resp.get_json()["next_cursor"]
    if cursor:
        assert api.get("/games", query_string={"cursor": cursor, "limit": 1}).status_code == 200
    assert api.get(f"/games/{gid}/events", query_string={"after": 0, "limit": 2}).status_code == 200
    assert api.get(f"/games/{gid}/state", query_string={"version": version}).get_json()["version"] == version
    # the stream takes its token in the query (EventSource cannot send headers), with after and once
    events = game.stream_once(1, after=0, use_query_token=True)
    assert events and events[-1].json()["version"] == version
    assert api.get("/ratings", query_string={"variant": "gin-rami"}).status_code == 200


@pytest.mark.parametrize("path", ["/", "/play/{game_id}", "/watch/{game_id}", "/replay/{game_id}",
                                  "/match/{game_id}", "/web/table.js", "/docs", "/docs/docs.js"])
def test_the_pages_answer_whatever_their_query_string_holds(api, game, path):
    resp = api.get(_url(path, game.game_id) + "?v=123&v=124&utm_source=mail")
    assert resp.status_code == 200
