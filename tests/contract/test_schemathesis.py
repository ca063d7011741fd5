"""Schemathesis over the whole of openapi.yaml against the WSGI app and a real Redis.

Each operation is fuzzed on its own (positive and negative data, a bounded number of
examples), then a stateful run chains operations through the links schemathesis finds
(POST /games gives the game_id the other operations take). Every answer must be declared
by the spec (status, content type, headers, body schema) and never a 5xx.

So that the fuzzer reaches past "404 no such game" and "401 no token", part of the cases are
aimed at real games (waiting, playing, three-hand, over) with one of their seat tokens, and
the stateful run sends the token of a game it created. Bounded: about a minute in all.
"""

from __future__ import annotations

import random
import uuid

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from support.apiclient import SPEC_PATH, ValidatingClient, load_openapi, make_app
from support.decks import build_deck
from support.gameplay import create_game
from support.randomplay import choose_move

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}
SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
OPERATIONS = sorted((m.upper(), p) for p, item in SPEC["paths"].items() for m in item if m in HTTP_METHODS)
FUZZ_SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                         suppress_health_check=list(HealthCheck))


def _play(g, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        view = g.view(None)
        if view["status"] != "playing":
            return
        seat = view["to_act"][0]
        g.move(seat, choose_move(g.view(seat), rng))


@pytest.fixture(scope="module")
def fuzz_app(redis_url):
    # one app (own key prefix) for the module; short streams: a fuzzed GET /stream without
    # once=1 must end quickly
    return make_app(redis_url, f"gbfz{uuid.uuid4().hex[:12]}",
                    extra={"stream_keepalive_s": 0.1, "stream_max_s": 0.3})


@pytest.fixture(scope="module")
def fuzz_schema(fuzz_app):
    return schemathesis.openapi.from_wsgi("/openapi.yaml", fuzz_app)


@pytest.fixture(scope="module")
def real_games(fuzz_app):
    """Games in every status, made through the validating client: [(game id, its seat tokens)]."""
    client = ValidatingClient(fuzz_app, load_openapi())
    playing = create_game(client, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    _play(playing, 5, random.Random(7))
    three = create_game(client, "three-hand", [{"name": "a"}, {"name": "b"}, {"name": "c"}])
    waiting = create_game(client, "gin-rami", [{"name": "ann"}, None])
    # over at once: seat 1 takes the upcard TH and goes gin discarding KS (20 >= target 1)
    deck = build_deck("AC 2C 3C 4D 4H 4S 7H 8H 9H KS".split(), "5C 6D 8S JD QC KD 2H 3S 9D TC".split(), "TH")
    over = create_game(client, "gin-rami", [{"name": "ann"}, {"name": "bob"}], first_dealer=0,
                       options={"target_score": 1}, decks=[deck])
    over.move(1, {"type": "take_upcard"})
    over.move(1, {"type": "knock", "discard": "KS", "melds": None})
    assert over.view(None)["status"] == "over"
    return [(g.game_id, list(g.tokens.values())) for g in (playing, three, waiting, over)]


def _aim(case, game_id, token):
    """Point a generated case at a real game and/or give it a real seat token."""
    if game_id is not None and "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = game_id
    if token is not None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    return case


@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_every_operation_answers_within_the_spec_and_never_5xx(fuzz_schema, real_games, method, path):
    operation = fuzz_schema[path][method]
    # (game id, token) to aim at: none, a real game without a token, with one of its seat
    # tokens, or with a token of another game
    # (hypothesis favours the first entries: the generated id alone comes last)
    targets = []
    for i, (game_id, tokens) in enumerate(real_games):
        other = real_games[(i + 1) % len(real_games)][1]
        targets += [*((game_id, t) for t in tokens), (game_id, None), (game_id, other[0])]
    targets.append((None, None))
    modes = [operation.as_strategy(GenerationMode.POSITIVE)]
    if operation.path_parameters or operation.query or operation.body or operation.headers:
        modes.append(operation.as_strategy(GenerationMode.NEGATIVE))
    cases = st.tuples(st.one_of(modes), st.sampled_from(targets))

    # creating games is the costliest call (up to 100 decks of 52 cards in a body): fewer of them
    examples = 12 if (method, path) == ("POST", "/games") else 30

    @given(cases)
    @settings(FUZZ_SETTINGS, max_examples=examples)
    def fuzz(drawn):
        case, (game_id, token) = drawn
        case = _aim(case, game_id, token)
        case.call_and_validate(checks=CHECKS)

    fuzz()


def test_stateful_sequences_through_the_links_stay_within_the_spec(fuzz_schema):
    base = fuzz_schema.as_state_machine()
    tokens: dict[str, list[str]] = {}

    class Workflow(base):  # type: ignore[misc, valid-type]
        """Chains operations; a game created here lends its seat tokens to later steps."""

        def before_call(self, case):
            game_id = (case.path_parameters or {}).get("game_id")
            mine = tokens.get(game_id) if isinstance(game_id, str) else None
            if mine:  # (a generated Authorization would only ever be refused)
                token = mine[hash(repr(case.body)) % len(mine)]
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

        def after_call(self, response, case):
            super().after_call(response, case)
            if case.method.upper() == "POST" and case.path == "/games" and response.status_code == 201:
                body = response.json()
                tokens[body["game_id"]] = [s["token"] for s in body["seats"] if s.get("token")]

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS)

    Workflow.run(settings=settings(max_examples=15, stateful_step_count=6, deadline=None, derandomize=True,
                                   suppress_health_check=list(HealthCheck)))
