"""The validating client really fails a test on a contract violation (so its silence means something).

A stand-in Flask app answers the spec's routes wrongly on purpose; no Redis is involved.
"""

from __future__ import annotations

import pytest
from flask import Flask, Response, jsonify

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
