"""The validating client really fails a test on a contract violation (so its silence means something).

A stand-in Flask app answers the spec's routes wrongly on purpose; no Redis is involved.
"""

from __future__ import annotations

import pytest
from flask import Flask, Response, jsonify, request

from support.apiclient import ContractViolation, ValidatingClient, load_openapi


@pytest.fixture
def liar():
    """A client on an app that breaks openapi.yaml in the ways the tests must catch."""
    app = Flask("liar")

    @app.get("/games/<game_id>")
    def view(game_id):
        if game_id == "bad-body":
            return jsonify({"nope": 1})
        if game_id == "plain-error":
            return jsonify({"error": "no"}), 404
        if game_id == "teapot":
            return Response('{"type": "x", "title": "t", "status": 418, "code": "teapot", "detail": "d"}',
                            status=418, mimetype="application/problem+json")
        if game_id == "crash":
            return Response("Traceback (most recent call last):", status=500)
        if game_id == "uncatalogued":
            return Response('{"type": "/problems/no_game", "title": "No game", "status": 404, "code": "no_game",'
                            ' "detail": "no such game"}', status=404, mimetype="application/problem+json")
        if game_id == "wrong-status":
            return Response('{"type": "/problems/wrong_phase", "title": "Wrong phase", "status": 404,'
                            ' "code": "wrong_phase", "detail": "d"}', status=404, mimetype="application/problem+json")
        if game_id == "wrong-type":
            return Response('{"type": "about:blank", "title": "No such game", "status": 404,'
                            ' "code": "game_not_found", "detail": "d"}', status=404,
                            mimetype="application/problem+json")
        return Response('{"type": "/problems/game_not_found", "title": "No such game", "status": 404,'
                        ' "code": "game_not_found", "detail": "no such game"}', status=404,
                        mimetype="application/problem+json")

    @app.get("/bots/me/stream")
    def bot_stream():
        # one message a test names, after a good your_turn (whose fields were worked out from the spec)
        good = 'id: 1-0\nevent: your_turn\ndata: {"game_id":"g","pending":false,"seat":0,"type":"your_turn","version":4}\n\n'
        bad = {
            "good": "",
            "untyped": 'id: 2-0\nevent: match_over\ndata: {"match_id":"m"}\n\n',
            "mistyped": 'id: 2-0\nevent: match_over\ndata: {"match_id":"m","type":"game_over"}\n\n',
            "missing-field": 'id: 2-0\nevent: game_over\ndata: {"game_id":"g","seat":0,"type":"game_over","version":9}\n\n',
            "extra-field": 'id: 2-0\nevent: match_over\ndata: {"match_id":"m","type":"match_over","x":1}\n\n',
            "challenge-extra": 'id: 2-0\nevent: challenge\ndata: {"boards":null,"challenge_id":"c","created":1,'
                               '"expires":2,"from":"a","from_kind":"bot","game_id":null,"kind":"game","match_id":null,'
                               '"move_time_s":null,"options":{},"status":"pending","to":"b","type":"challenge",'
                               '"variant":"gin-rami","with":[],"token":"t"}\n\n',
            "unknown-kind": 'id: 2-0\nevent: hello\ndata: {"type":"hello"}\n\n',
        }[request.headers["X-Case"]]
        return Response(": connected\n\n" + good + bad, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache"})

    @app.get("/not-in-the-spec")
    def extra():
        return jsonify({"ok": True})

    return ValidatingClient(app, load_openapi())


@pytest.mark.parametrize("game_id,why", [
    ("bad-body", "a 200 body that is not a view"),
    ("plain-error", "an error that is not problem+json"),
    ("teapot", "a status the operation does not declare"),
    ("crash", "a server error"),
    ("uncatalogued", "a problem code the catalogue lacks"),
    ("wrong-status", "a problem code with a status the catalogue does not give it"),
    ("wrong-type", "a problem type that is not the catalogue's"),
])
def test_a_response_that_breaks_the_spec_fails_the_test(liar, game_id, why):
    with pytest.raises(ContractViolation):
        liar.get(f"/games/{game_id}")


def test_a_success_on_a_route_the_spec_lacks_fails_the_test(liar):
    with pytest.raises(ContractViolation):
        liar.get("/not-in-the-spec")


def test_a_declared_problem_answer_passes(liar):
    assert liar.get("/games/unknown").status_code == 404


@pytest.mark.parametrize("case,why", [
    ("untyped", "a message whose data lacks its type"),
    ("mistyped", "a message whose type is not its event line"),
    ("missing-field", "a game_over without its scores"),
    ("extra-field", "a field the message's schema does not have"),
    ("challenge-extra", "a challenge message with a field the challenge's schema lacks"),
    ("unknown-kind", "a kind of message the stream's schema does not list"),
])
def test_a_stream_message_that_breaks_the_spec_fails_the_test(liar, case, why):
    with pytest.raises(ContractViolation, match="message"):
        liar.get("/bots/me/stream", token="a-bot-token", headers={"X-Case": case})


def test_a_stream_of_messages_the_spec_describes_passes(liar):
    assert liar.get("/bots/me/stream", token="a-bot-token", headers={"X-Case": "good"}).status_code == 200
