"""Strict, consistent input: what openapi.yaml allows the server accepts, and what it refuses it
refuses with the code a client can branch on.

Each case pins one place where the spec and the server could disagree (a schema-valid request
refused, or a malformed one let through as something else): list cursors, version bounds,
integral JSON numbers, If-Match, bodies sent in chunks, over-long URIs, seat paths, duplicate
JSON keys, display names, ``?token=`` outside the stream and idempotency keys of different
seats. Where the spec states a rule (a pattern, a maximum) the test reads the rule from the spec
itself, so that the two cannot drift apart.
"""

from __future__ import annotations

import json
import socket
import unicodedata
from pathlib import Path

import jsonschema_rs
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.apiclient import SPEC_PATH
from support.decks import build_deck
from support.gameplay import create_game
from support.problems import problem as _problem

REPO = Path(__file__).resolve().parents[3]
SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
SCHEMAS = SPEC["components"]["schemas"]

NON_DEALER = "AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split()
DEALER = "5C 6D 8S JD QC KD 2H 3S 9D TC".split()
DECK = build_deck(NON_DEALER, DEALER, "TH", ["QS", "JS"])

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])




def spec_matches(pattern: str, text: str) -> bool:
    """Whether ``text`` matches a pattern of the spec as JSON Schema reads it (ECMA-262, as
    schemathesis does: Python's ``$`` would also match before a final newline)."""
    return jsonschema_rs.validator_for({"type": "string", "pattern": pattern}).is_valid(text)


def _param(path: str, method: str, name: str) -> dict:
    """The schema of a parameter of an operation (path-level parameters included)."""
    item = SPEC["paths"][path]
    for p in item.get("parameters", []) + item[method].get("parameters", []):
        if "$ref" in p:
            p = SPEC["components"]["parameters"][p["$ref"].rsplit("/", 1)[-1]]
        if p["name"] == name:
            return p["schema"]
    raise KeyError(name)


@pytest.fixture
def game(api):
    """A gin-rami game at its first move: seat 1 to take or pass the upcard TH."""
    return create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0, decks=[DECK])


# -- list cursors ----------------------------------------------------------------------------------

def test_the_spec_says_what_a_cursor_looks_like_and_a_cursor_it_allows_is_never_refused(api):
    pattern = _param("/games", "get", "cursor").get("pattern")
    assert pattern, "the cursor parameter has a pattern: a client can tell a cursor from any string"
    assert not spec_matches(pattern, "0"), "'0' is no cursor"
    _problem(api.get("/games", query_string={"cursor": "0"}), 400, "invalid_query")
    for g in range(3):
        create_game(api, "gin-rami", [{"name": f"p{g}"}, None])
    first = api.get("/games", query_string={"limit": 1}).get_json()
    cursor = first["next_cursor"]
    assert cursor and spec_matches(pattern, cursor), "the server hands out cursors of the spec's form"
    second = api.get("/games", query_string={"limit": 1, "cursor": cursor}).get_json()
    assert second["games"] and second["games"][0]["game_id"] != first["games"][0]["game_id"]

    @PROPERTY
    @given(st.from_regex(pattern, fullmatch=True))
    def any_cursor_of_that_form_is_a_position(cursor):
        assert api.get("/games", query_string={"cursor": cursor}).status_code == 200

    any_cursor_of_that_form_is_a_position()


# -- version bounds -------------------------------------------------------------------------------

@pytest.mark.parametrize("path,name", [("/games/{game_id}/events", "after"), ("/games/{game_id}/stream", "after"),
                                        ("/games/{game_id}/state", "version")])
def test_version_parameters_have_a_maximum_the_server_accepts_and_beyond_it_is_refused(api, game, path, name):
    schema = _param(path, "get", name)
    top = schema.get("maximum")
    assert isinstance(top, int), f"{name} of {path} has a maximum in the spec"
    url = path.format(game_id=game.game_id)
    extra = {"once": "1"} if path.endswith("/stream") else {}
    at_top = api.get(url, query_string={name: str(top), **extra})
    if name == "version":
        _problem(at_top, 404, "version_not_found")  # allowed, but the game is not there yet
    else:
        assert at_top.status_code == 200, at_top.get_data(as_text=True)
    for beyond in (top + 1, 10**18, 10**40):
        _problem(api.get(url, query_string={name: str(beyond), **extra}), 400, "invalid_query")


# -- integral JSON numbers ---------------------------------------------------------------------------

def test_integral_floats_are_integers_as_json_schema_says(api):
    resp = api.post("/games", json={
        "variant": "gin-rami", "first_dealer": 0.0,
        "options": {"target_score": 50.0, "knock_limit": 1e1, "turn_timeout_s": 600.0},
        "seats": [{"name": "ann"}, {"bot": "expert", "budget_ms": 336.0}],
    })
    assert resp.status_code == 201, resp.get_data(as_text=True)
    view = resp.get_json()["view"]
    assert view["options"]["target_score"] == 50 and type(view["options"]["target_score"]) is int
    assert view["options"]["knock_limit"] == 10 and view["options"]["turn_timeout_s"] == 600
    assert view["players"][1]["budget_ms"] == 336 and type(view["players"][1]["budget_ms"]) is int
    assert view["dealer"] == 0
    three = api.post("/games", json={"variant": "three-hand", "roles": {"box": 2.0, "captain": 0.0, "advisor": 1.0},
                                     "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})
    assert three.status_code == 201, three.get_data(as_text=True)
    assert three.get_json()["view"]["roles"] == {"box": 2, "captain": 0, "advisor": 1}


@pytest.mark.parametrize("body", [
    {"options": {"target_score": 50.5}},
    {"options": {"target_score": True}},
    {"options": {"target_score": 1e300}},
    {"options": {"target_score": "50"}},
    {"first_dealer": 0.5},
    {"seats": [{"name": "ann"}, {"bot": "expert", "budget_ms": 336.5}]},
    {"seats": [{"name": "ann"}, {"bot": "expert", "budget_ms": True}]},
])
def test_numbers_that_are_not_integers_stay_refused(api, body):
    base = {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]}
    _problem(api.post("/games", json={**base, **body}), 400, "invalid_body")


# -- If-Match --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["garbage", 'W/"{v}"', '"' + "1" * 40 + '"', "{v}", '"{v}', '"-1"', '"a"',
                                   '*, "{v}"', '"{v}",', ""])
def test_a_malformed_if_match_is_400_invalid_header(api, game, value):
    before = game.version()
    resp = game.client.post(f"/games/{game.game_id}/moves", json={"type": "take_upcard"}, token=game.tokens[1],
                            headers={"If-Match": value.format(v=before)})
    body = _problem(resp, 400, "invalid_header")
    assert "If-Match" in body["errors"]
    assert game.version() == before


def test_a_well_formed_if_match_is_a_precondition_and_star_is_none(api, game):
    before = game.version()
    _problem(game.post_move(1, {"type": "take_upcard"}, if_match=before - 1), 412, "version_mismatch")
    ok = game.client.post(f"/games/{game.game_id}/moves", json={"type": "pass_upcard"}, token=game.tokens[1],
                          headers={"If-Match": f'"{before - 1}" , "{before}"'})
    assert ok.status_code == 200, ok.get_data(as_text=True)
    star = game.client.post(f"/games/{game.game_id}/moves", json={"type": "pass_upcard"}, token=game.tokens[0],
                            headers={"If-Match": "*"})
    assert star.status_code == 200, star.get_data(as_text=True)


def test_the_if_match_pattern_of_the_spec_is_what_the_server_accepts(api, game):
    pattern = SPEC["components"]["parameters"]["IfMatch"]["schema"]["pattern"]
    path = f"/games/{game.game_id}/moves"

    @PROPERTY
    @given(st.one_of(st.from_regex(pattern, fullmatch=True),
                     st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)))
    def agree(value):
        value = value.strip()  # a header value carries no leading or trailing whitespace
        resp = game.client.post(path, json={"type": "draw_stock"}, token=game.tokens[0], headers={"If-Match": value})
        refused_as_malformed = resp.status_code == 400
        assert refused_as_malformed == (not spec_matches(pattern, value)), (value, resp.get_data(as_text=True))

    agree()


# -- bodies sent in chunks -------------------------------------------------------------------------

def test_a_body_without_content_length_over_the_limit_is_413(api_app):
    client = api_app.test_client()
    limit = api_app.extensions["ginbox"].settings.max_body_bytes
    big = b'{"cards": ["AS"], "pad": "' + b"x" * limit + b'"}'
    import io

    over = client.post("/analysis/melds", input_stream=io.BytesIO(big), content_type="application/json",
                       headers={"Transfer-Encoding": "chunked"}, environ_base={"wsgi.input_terminated": True})
    assert over.status_code == 413 and over.get_json()["code"] == "body_too_large", over.get_data(as_text=True)
    small = b'{"cards": ["AS", "2S", "3S"]}'
    ok = client.post("/analysis/melds", input_stream=io.BytesIO(small), content_type="application/json",
                     headers={"Transfer-Encoding": "chunked"},
                     environ_base={"wsgi.input_terminated": True})
    assert ok.status_code == 200, ok.get_data(as_text=True)
    # exactly the limit is still accepted (the answer is about the JSON, not the size)
    exact = b'{"cards": ["AS"]}' + b" " * (limit - len(b'{"cards": ["AS"]}'))
    assert len(exact) == limit
    at = client.post("/analysis/melds", input_stream=io.BytesIO(exact), content_type="application/json",
                     headers={"Transfer-Encoding": "chunked"},
                     environ_base={"wsgi.input_terminated": True})
    assert at.status_code == 200, at.get_data(as_text=True)


# -- over-long URIs, in the app and behind gunicorn -----------------------------------------------

def test_an_over_long_uri_is_414_uri_too_long(api_app):
    from service.api.http import MAX_URI_BYTES

    # (no operation of the spec can be sent with such a URI: its parameters are bounded far below)
    client = api_app.test_client()
    _problem(client.get("/games", query_string={"cursor": "x" * MAX_URI_BYTES}), 414, "uri_too_long")
    _problem(client.get("/no/such/route/" + "y" * MAX_URI_BYTES), 414, "uri_too_long")
    _problem(client.post("/analysis/melds?" + "z" * MAX_URI_BYTES, json={"cards": ["AS"]}), 414, "uri_too_long")
    fits = "/games?status=waiting&cursor=" + "x" * (MAX_URI_BYTES - 40)
    assert len(fits) <= MAX_URI_BYTES
    assert client.get(fits).status_code == 400  # refused for the cursor, not for the URI's length


def _raw(port: int, data: bytes) -> tuple[int, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        chunks = []
        while True:
            part = s.recv(65536)
            if not part:
                break
            chunks.append(part)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    if headers.get("transfer-encoding") == "chunked":
        out, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        body = out
    return status, headers, body


@pytest.fixture(scope="module", params=["gevent", "gthread"])
def gunicorn_api(request, redis_url, tmp_path_factory):
    """The API under gunicorn exactly as the tests' servers start it, under each worker class."""
    import uuid

    from support.servers import ApiServer, service_env

    env = service_env(redis_url, f"gbt{uuid.uuid4().hex[:12]}", GINBOX_RATE_LIMIT=10**9)
    server = ApiServer(env, tmp_path_factory.mktemp("gunicorn") / "gunicorn.log", worker_class=request.param,
                       threads=2).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("length", [5_000, 9_000, 100_000])
@pytest.mark.slow
def test_behind_gunicorn_an_over_long_uri_is_a_problem_too(gunicorn_api, length):
    status, headers, body = _raw(gunicorn_api.port, b"GET /games?cursor=" + b"x" * length
                                 + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert status == 414, body[:300]
    assert headers["content-type"] == "application/problem+json"
    doc = json.loads(body)
    assert doc["code"] == "uri_too_long" and doc["status"] == 414 and doc["type"] == "/problems/uri_too_long"


def test_behind_gunicorn_too_many_headers_and_a_garbled_request_line_are_problems(gunicorn_api):
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
    status, headers, body = _raw(gunicorn_api.port, b"GET /healthz HTTP/1.1\r\nHost: t\r\n" + many
                                 + b"Connection: close\r\n\r\n")
    assert status == 431 and headers["content-type"] == "application/problem+json", body[:300]
    assert json.loads(body)["code"] == "headers_too_large"
    status, headers, body = _raw(gunicorn_api.port, b"GET /games HTTP/9.9\r\nHost: t\r\n\r\n")
    assert status == 400 and headers["content-type"] == "application/problem+json", body[:300]
    assert json.loads(body)["code"] == "bad_request"


def test_behind_gunicorn_a_chunked_body_over_the_limit_is_413(gunicorn_api):
    def chunked(body: bytes) -> bytes:
        parts = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 4096]), body[i:i + 4096]) for i in range(0, len(body), 4096))
        return (b"POST /analysis/melds HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + parts + b"0\r\n\r\n")

    status, headers, body = _raw(gunicorn_api.port, chunked(b'{"cards": ["AS"], "pad": "' + b"x" * 70_000 + b'"}'))
    assert status == 413, body[:300]
    assert json.loads(body)["code"] == "body_too_large"
    status, _, body = _raw(gunicorn_api.port, chunked(b'{"cards": ["AS", "2S", "3S"]}'))
    assert status == 200 and json.loads(body)["deadwood"] == 0, body[:300]


def test_every_way_gunicorn_is_started_loads_its_settings_from_service_metrics():
    import service.metrics as gunicorn_config
    from service.api.http import MAX_URI_BYTES

    # gunicorn lets every URI up to its limit through for the app to answer, and answers longer
    # ones itself with a problem (its error writer is replaced in each worker)
    assert gunicorn_config.limit_request_line > MAX_URI_BYTES + 20
    assert callable(gunicorn_config.post_worker_init)
    dockerfile = (REPO / "Dockerfile").read_text(encoding="utf-8")
    cmd = dockerfile[dockerfile.index("CMD"):]
    assert '"--config", "python:service.metrics"' in cmd
    guide = (REPO / "service" / "docs" / "OPERATE.md").read_text(encoding="utf-8")
    production = [ln for ln in guide.splitlines() if ln.startswith("gunicorn ")]
    assert production and all("--config python:service.metrics" in ln for ln in production)
    cli = (REPO / "service" / "cli.py").read_text(encoding="utf-8")
    assert '"--config", "python:service.metrics"' in cli


# -- seat paths ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", ["-1", "3", "2", "abc", "1.0", "99999999999999999999", "%C2%B3", "+1"])
def test_a_seat_path_that_names_no_seat_of_the_game_is_seat_not_found(api, seat):
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    _problem(api.post(f"/games/{g.game_id}/seats/{seat}", json={"name": "eve"}), 404, "seat_not_found")
    _problem(api.post(f"/games/nosuchgame000000/seats/{seat}", json={"name": "eve"}), 404, "game_not_found")


# -- duplicate keys ----------------------------------------------------------------------------------

@pytest.mark.parametrize("raw,key", [
    (b'{"type": "take_upcard", "type": "pass_upcard"}', "type"),
    (b'{"type": "discard", "card": "AC", "card": "KS"}', "card"),
])
def test_a_body_with_a_key_twice_is_400_invalid_json_naming_the_key(api, game, raw, key):
    before = game.version()
    resp = api.post(f"/games/{game.game_id}/moves", data=raw, content_type="application/json", token=game.tokens[1])
    assert key in _problem(resp, 400, "invalid_json")["detail"]
    assert game.version() == before


def test_a_key_twice_in_a_nested_object_is_refused_too(api):
    raw = b'{"variant": "gin-rami", "seats": [{"name": "a", "name": "b"}, null]}'
    assert "'name'" in _problem(api.post("/games", data=raw, content_type="application/json"), 400,
                                "invalid_json")["detail"]
    raw = b'{"variant": "gin-rami", "options": {"knock_limit": 5, "knock_limit": 50}, "seats": [{"name": "a"}, null]}'
    _problem(api.post("/games", data=raw, content_type="application/json"), 400, "invalid_json")


# -- display names ---------------------------------------------------------------------------------

INVISIBLE_OR_CONTROL = ["\u200b", "\u200d", "\u202e", "\u200b\u200d\u202e", "\u0085", "a\u0085b", "ann\u200b",
                        "\u2028", "a\u2029", "\u00ad", "\ufeff", "\u2066x\u2069", " \u200b ", "\u3164",
                        "\U000e0041", "\x1f", "a\x7fb"]


@pytest.mark.parametrize("name", INVISIBLE_OR_CONTROL)
def test_a_name_of_invisible_direction_or_control_characters_is_refused(api, name):
    for body in ({"variant": "gin-rami", "seats": [{"name": name}, None]},
                 {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic", "name": name}]}):
        errors = _problem(api.post("/games", json=body), 400, "invalid_body")["errors"]
        assert "seats" in errors
    g = create_game(api, "gin-rami", [{"name": "ann"}, None])
    assert "name" in _problem(api.post(f"/games/{g.game_id}/seats/1", json={"name": name}), 400,
                              "invalid_body")["errors"]


def test_names_are_stored_nfc_normalised_without_surrounding_whitespace(api):
    g = create_game(api, "gin-rami", [{"name": "  Zoe\u0301 "}, None])
    assert g.created["seats"][0]["name"] == "Zo\u00e9"
    claimed = api.post(f"/games/{g.game_id}/seats/1", json={"name": "\u3000bob\u00a0"})
    assert claimed.status_code == 201, claimed.get_data(as_text=True)
    assert [p["name"] for p in claimed.get_json()["view"]["players"]] == ["Zo\u00e9", "bob"]
    assert api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "\u05e9\u05dc\u05d5\u05dd"},
                                                                     {"name": "\u738b"}]}).status_code == 201


def test_the_name_pattern_of_the_spec_is_the_servers_rule(api):
    from schemas.common import NAME_PATTERN

    name = SCHEMAS["Name"]
    assert name["pattern"] == NAME_PATTERN
    assert "visible" in name["description"] and "NFC" in name["description"]
    spec = jsonschema_rs.validator_for({"type": "string", "pattern": NAME_PATTERN})
    forbidden = {"Cc", "Cf", "Zl", "Zp"}
    # every character of those categories is refused, and no other character is refused on its own
    # (the rule is Unicode 14.0's, Python 3.11's: a later Unicode may assign format characters the
    # rule does not name yet; what the rule refuses stays in those categories)
    same_unicode = unicodedata.unidata_version == "14.0.0"
    for cp in range(0x110000):
        ch = chr(cp)
        category = unicodedata.category(ch)
        if category == "Cs":
            continue  # no JSON text carries a lone surrogate
        refused = not spec.is_valid("a" + ch)
        if refused or same_unicode:
            assert refused == (category in forbidden), f"U+{cp:04X} ({category}) refused: {refused}"
    for text in ("\u200b", "\u3164", " \u00a0\u2800", "a\n", "\u2028"):
        assert not spec.is_valid(text), repr(text)

    @PROPERTY
    @given(st.text(min_size=1, max_size=40) | st.sampled_from(INVISIBLE_OR_CONTROL))
    def agree(text):
        resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": text}, None]})
        assert (resp.status_code == 201) == spec.is_valid(text), (text, resp.status_code)

    agree()


# -- ?token= outside the stream ---------------------------------------------------------------------

def test_a_token_in_the_query_outside_the_stream_is_400_invalid_query(api, game):
    token = game.tokens[1]
    gid = game.game_id
    for method, path, kw in [
        ("GET", f"/games/{gid}", {}),
        ("GET", f"/games/{gid}/events", {}),
        ("GET", f"/games/{gid}/state?version=1", {}),
        ("GET", f"/games/{gid}/audit", {}),
        ("GET", f"/games/{gid}/export", {}),
        ("GET", "/games", {}),
        ("POST", f"/games/{gid}/moves", {"json": {"type": "take_upcard"}}),
        ("POST", "/games", {"json": {"variant": "gin-rami", "seats": [{"name": "a"}, None]}}),
        ("POST", "/analysis/melds", {"json": {"cards": ["AS"]}}),
    ]:
        sep = "&" if "?" in path else "?"
        body = _problem(api.open(method, f"{path}{sep}token={token}", **kw), 400, "invalid_query")
        assert "token" in body["errors"], (method, path)
    # the stream takes it (browsers' EventSource cannot send headers)
    events = game.stream_once(1, use_query_token=True)
    assert events and events[-1].json()["version"] == game.version()


# -- idempotency keys belong to one seat --------------------------------------------------------------

def test_one_seats_idempotency_key_does_not_make_another_seats_request_fail(api, game):
    first = game.post_move(1, {"type": "pass_upcard"}, key="turn-1")
    assert first.status_code == 200
    # the dealer, seat 0, happens to choose the same key for its own first request
    other = game.post_move(0, {"type": "pass_upcard"}, key="turn-1")
    assert other.status_code == 200, other.get_data(as_text=True)
    assert other.get_json()["viewer"] == 0 and other.get_json()["version"] == first.get_json()["version"] + 1
    # each seat's retry still gets its own first answer, and moves nothing
    v = game.version()
    again = game.post_move(1, {"type": "pass_upcard"}, key="turn-1")
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert game.post_move(0, {"type": "pass_upcard"}, key="turn-1").get_json() == other.get_json()
    assert game.version() == v


# -- Last-Event-ID -----------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["\u00b2", "\u00b9\u00b2", "12\u00b3"])
def test_a_last_event_id_of_digits_that_are_not_ascii_is_ignored_like_any_non_version(api, game, value):
    # (a header is read as latin-1: a byte 0xB2 arrives as '²', which str.isdigit() calls a digit)
    resp = api.get(f"/games/{game.game_id}/stream", query_string={"once": "1"},
                   headers={"Last-Event-ID": value.encode("utf-8").decode("latin-1")}, token=game.tokens[1])
    assert resp.status_code == 200
    resp = api.get(f"/games/{game.game_id}/stream", query_string={"once": "1"}, headers={"Last-Event-ID": value},
                   token=game.tokens[1])
    assert resp.status_code == 200
    assert "\nid: 1\n" in resp.get_data(as_text=True), "the stream starts from the beginning"


def test_advice_keys_belong_to_the_seat_too_when_the_advisor_role_moves(api):
    """RULES.md §2: a box that loses sits out and the captain goes into the box, so another seat
    advises in the next hand; its keys are its own, whatever the first advisor chose."""
    g = create_game(api, "three-hand", [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                    roles={"box": 0, "captain": 1, "advisor": 2}, decks=[DECK, DECK])
    gid = g.game_id
    first = api.post(f"/games/{gid}/advice", json={"text": "take it"}, token=g.tokens[2],
                     headers={"Idempotency-Key": "tip-1"})
    assert first.status_code == 200, first.get_data(as_text=True)
    # the captain takes the upcard TH and goes gin discarding KS: the box loses the hand
    g.move(1, {"type": "take_upcard"})
    g.move(1, {"type": "knock", "discard": "KS", "melds": None})
    view = g.view(None)
    assert view["status"] == "playing" and view["roles"]["advisor"] == 0, view["roles"]
    second = api.post(f"/games/{gid}/advice", json={"text": "pass it"}, token=g.tokens[0],
                      headers={"Idempotency-Key": "tip-1"})
    assert second.status_code == 200, second.get_data(as_text=True)
    # and within its scope the key still makes a retry safe
    again = api.post(f"/games/{gid}/advice", json={"text": "pass it"}, token=g.tokens[0],
                     headers={"Idempotency-Key": "tip-1"})
    assert again.status_code == 200 and again.get_json() == second.get_json()
    other = api.post(f"/games/{gid}/advice", json={"text": "knock"}, token=g.tokens[0],
                     headers={"Idempotency-Key": "tip-1"})
    _problem(other, 422, "idempotency_key_reused")
