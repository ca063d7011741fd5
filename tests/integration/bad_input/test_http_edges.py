"""HTTP edge cases answered with the right problem: broken body framing, a body with no length,
JSON nested too deeply, a charset other than UTF-8, the token a route wants named in its 401
(with the RFC 6750 challenge), and the X-Request-ID a client may choose.

Each refusal is application/problem+json with its stable code and changes nothing. Body framing
is the server's business, so those cases are sent as raw bytes to the API under gunicorn, as
``ginbox serve`` runs it.
"""

from __future__ import annotations

import json
import re
import socket

import pytest
from support.arena_fixtures import app, client, settings  # noqa: F401 (fixtures)
from support.arena_http import register
from support.problems import problem as _problem

MELDS = b'{"cards": ["AS", "2S", "3S"]}'




# -- under gunicorn: raw bytes on a socket ------------------------------------------------------------

def _answers(port: int, data: bytes) -> list[tuple[int, dict, bytes]]:
    """Every answer the server writes to ``data`` on one connection, until it closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(data)
        raw = b""
        while True:
            part = s.recv(65536)
            if not part:
                break
            raw += part
    answers = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        assert "content-length" in headers, head  # every answer here is a whole JSON document
        n = int(headers["content-length"])
        answers.append((int(lines[0].split()[1]), headers, rest[:n]))
        raw = rest[n:]
    return answers




def _game_count(port: int) -> int:
    (status, _, body), = _answers(port, b"GET /games?limit=100 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert status == 200
    return len(json.loads(body)["games"])


@pytest.mark.parametrize("chunks", [
    b"zz\r\n{}\r\n0\r\n\r\n",            # a chunk size that is no hex number
    b"2\r\n{}XX0\r\n\r\n",                # a chunk without its CRLF
    b"-2\r\n{}\r\n0\r\n\r\n",             # a negative size
])
def test_behind_gunicorn_a_malformed_chunked_body_is_400_bad_request_and_the_connection_closes(gunicorn_api, chunks):
    before = _game_count(gunicorn_api.port)
    # a request after it on the same connection: the broken body cannot be skipped, so the server
    # answers the first once and closes (no second answer, to a request it could not find)
    answers = _answers(gunicorn_api.port,
                       b"POST /games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                       b"Transfer-Encoding: chunked\r\n\r\n" + chunks
                       + b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
    assert len(answers) == 1, answers
    status, headers, body = answers[0]
    assert status == 400 and headers["content-type"] == "application/problem+json", body
    problem = json.loads(body)
    assert problem["code"] == "bad_request" and problem["type"] == "/problems/bad_request", problem
    assert "chunked" in problem["detail"]
    assert "unhandled error" not in gunicorn_api.log_text()
    assert _game_count(gunicorn_api.port) == before


def test_behind_gunicorn_a_body_sent_with_neither_length_nor_chunks_is_411(gunicorn_api):
    head = b"POST /analysis/melds HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nConnection: close\r\n"
    (status, headers, body), = _answers(gunicorn_api.port, head + b"\r\n" + MELDS)
    assert status == 411 and headers["content-type"] == "application/problem+json", body
    assert json.loads(body)["code"] == "length_required"
    # the same body with its length, or in chunks, is read
    (status, _, body), = _answers(gunicorn_api.port, head + b"Content-Length: %d\r\n\r\n" % len(MELDS) + MELDS)
    assert status == 200 and json.loads(body)["deadwood"] == 0, body
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(MELDS), MELDS)
    (status, _, body), = _answers(gunicorn_api.port, head + b"Transfer-Encoding: chunked\r\n\r\n" + chunked)
    assert status == 200 and json.loads(body)["deadwood"] == 0, body
    # a game is not created from a request that announced no body
    before = _game_count(gunicorn_api.port)
    (status, _, body), = _answers(gunicorn_api.port, b"POST /games HTTP/1.1\r\nHost: t\r\n"
                                  b"Content-Type: application/json\r\nConnection: close\r\n\r\n")
    assert status == 411 and json.loads(body)["code"] == "length_required"
    assert _game_count(gunicorn_api.port) == before


# -- JSON nested too deeply; charsets ------------------------------------------------------------------

def _nested(depth: int) -> bytes:
    """``{"cards": [[...["AS"]...]]}`` with ``depth`` levels of arrays and objects in all."""
    return b'{"cards": ' + b"[" * (depth - 1) + b'"AS"' + b"]" * (depth - 1) + b"}"


@pytest.mark.parametrize("depth", [65, 1_000, 30_000])
def test_json_nested_more_than_64_levels_is_invalid_json_saying_so(client, depth):
    from service.api.http import MAX_JSON_DEPTH

    assert MAX_JSON_DEPTH == 64
    body = _nested(depth)
    assert len(body) < 64 * 1024
    problem = _problem(client.post("/analysis/melds", data=body, content_type="application/json"),
                       400, "invalid_json")
    assert "64 levels" in problem["detail"], problem
    before = client.get("/games").get_json()
    _problem(client.post("/games", data=b'{"variant": "gin-rami", "seats": ' + b"[" * depth + b"]" * depth + b"}",
                         content_type="application/json"), 400, "invalid_json")
    assert client.get("/games").get_json() == before


def test_json_nested_64_levels_is_read_and_refused_for_its_schema_only(client):
    problem = _problem(client.post("/analysis/melds", data=_nested(64), content_type="application/json"),
                       400, "invalid_body")
    assert "cards" in problem["errors"]
    # a key inside a string is no nesting
    body = b'{"cards": ["AS", "2S", "3S"], "x": "' + b"[" * 500 + b'"}'
    assert _problem(client.post("/analysis/melds", data=body, content_type="application/json"),
                    400, "invalid_body")["errors"] == {"x": ["Unknown field."]}


@pytest.mark.parametrize("charset", ["latin-1", "ISO-8859-1", "utf-16", "us-ascii", "windows-1252"])
def test_a_json_body_in_a_charset_other_than_utf_8_is_415_and_changes_nothing(client, charset):
    before = client.get("/games").get_json()
    for name in ("Zoe", "Zoë"):  # a body that would read the same as UTF-8 is refused too
        body = json.dumps({"variant": "gin-rami", "seats": [{"name": name}, {"name": "bob"}]},
                          ensure_ascii=False).encode("latin-1")
        problem = _problem(client.post("/games", data=body, content_type=f"application/json; charset={charset}"),
                           415, "unsupported_media_type")
        assert charset in problem["detail"]
    assert client.get("/games").get_json() == before


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8",
                                          "application/json; charset=UTF-8", 'application/json; charset="utf-8"'])
def test_a_json_body_in_utf_8_is_read_with_or_without_its_charset(client, content_type):
    resp = client.post("/analysis/melds", data=MELDS, content_type=content_type)
    assert resp.status_code == 200 and resp.get_json()["deadwood"] == 0, resp.get_data(as_text=True)


# -- the token a route wants, and the RFC 6750 challenge ----------------------------------------------

BARE = 'Bearer realm="ginbox"'
INVALID = 'Bearer realm="ginbox", error="invalid_token"'


def _unauthorized(resp, code: str, title: str, names: str, challenge: str) -> dict:
    problem = _problem(resp, 401, code)
    assert problem["title"] == title, problem
    assert names in problem["detail"] and "seat token" not in problem["detail"], problem
    assert resp.headers["WWW-Authenticate"] == challenge
    return problem


@pytest.mark.parametrize("header", ["Bearer", "Bearer   ", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "token abc"])
def test_a_malformed_authorization_header_on_a_bot_route_asks_for_a_bot_token(client, header):
    alpha = register(client, "alpha")
    h = {"Authorization": header}
    _unauthorized(client.get("/bots/me/stream?once=1", headers=h), "bot_token_required", "Bot token needed",
                  "bot token", BARE)
    _unauthorized(client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, headers=h),
                  "bot_token_required", "Bot token needed", "bot token", BARE)
    cid = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}).get_json()["challenge_id"]
    for answer in ("accept", "decline"):
        _unauthorized(client.post(f"/challenges/{cid}/{answer}", headers=h), "bot_token_required",
                      "Bot token needed", "bot token", BARE)
    assert client.get(f"/challenges/{cid}").get_json()["status"] == "pending"
    assert client.post(f"/challenges/{cid}/accept", token=alpha).get_json()["status"] == "accepted"


def test_a_bot_route_without_a_token_gets_the_bare_challenge_and_a_wrong_token_invalid_token(client):
    register(client, "alpha")
    _unauthorized(client.get("/bots/me/stream?once=1"), "bot_token_required", "Bot token needed",
                  "bot account's token", BARE)
    _unauthorized(client.get("/bots/me/stream?once=1", token="no-bots-token"), "bot_token_required",
                  "Bot token needed", "no bot account's", INVALID)
    _unauthorized(client.get("/bots/me/stream", query_string={"once": "1", "token": "no-bots-token"}),
                  "bot_token_required", "Bot token needed", "no bot account's", INVALID)
    cid = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}).get_json()["challenge_id"]
    _unauthorized(client.post(f"/challenges/{cid}/accept"), "bot_token_required", "Bot token needed",
                  "bot account's token", BARE)


def test_withdrawing_a_persons_challenge_without_its_token_asks_for_the_challenges_token(client):
    register(client, "alpha")
    beta = register(client, "beta")
    made = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami", "name": "ann"}).get_json()
    cid = made["challenge_id"]
    _unauthorized(client.post(f"/challenges/{cid}/withdraw"), "challenge_token_required",
                  "Challenge token needed", "the token its answer gave", BARE)
    for header in ("Bearer", "Basic abc"):
        _unauthorized(client.post(f"/challenges/{cid}/withdraw", headers={"Authorization": header}),
                      "challenge_token_required", "Challenge token needed", "challenge's token", BARE)
    # a bot's challenge wants the bot's token, malformed or missing
    bot_cid = client.post("/challenges", json={"to": "alpha", "variant": "gin-rami"}, token=beta).get_json()["challenge_id"]
    _unauthorized(client.post(f"/challenges/{bot_cid}/withdraw", headers={"Authorization": "Basic abc"}),
                  "bot_token_required", "Bot token needed", "bot token", BARE)
    _unauthorized(client.post(f"/challenges/{bot_cid}/withdraw"), "bot_token_required", "Bot token needed",
                  "bot account's token", BARE)
    assert {client.get(f"/challenges/{c}").get_json()["status"] for c in (cid, bot_cid)} == {"pending"}
    assert client.post(f"/challenges/{cid}/withdraw", token=made["token"]).get_json()["status"] == "withdrawn"


def test_the_catalogue_describes_the_challenge_token(client):
    entry = client.get("/problems/challenge_token_required").get_json()
    assert entry["statuses"] == [401] and entry["title"] == "Challenge token needed"
    assert "Seat" not in client.get("/problems/bot_token_required").get_json()["title"]


# -- X-Request-ID --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["abc-123", "A.b_c-9", "x" * 64, "0"])
def test_a_safe_client_request_id_is_kept(client, value):
    assert client.get("/healthz", headers={"X-Request-ID": value}).headers["X-Request-ID"] == value


@pytest.mark.parametrize("value", ["x" * 65, "two words", 'a"b', "a,b", "{json}", "évil", "a\tb", ""])
def test_an_unsafe_client_request_id_is_replaced_not_cut(client, value):
    got = client.get("/healthz", headers={"X-Request-ID": value}).headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{16}", got), got
    assert got != value[:64]
