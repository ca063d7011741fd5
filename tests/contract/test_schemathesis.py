"""Schemathesis over the whole of openapi.yaml, with every check, against the WSGI app and a real Redis.

Every check schemathesis has runs (``--checks all``): answers must be declared by the spec
(status, content type, headers, body schema), never a 5xx; a request the spec allows must be
accepted, one it forbids refused; methods the spec does not list are 405 with ``Allow``; an
operation that needs a token refuses a request without one; a required header left out is
refused; and, in the stateful run, a resource just created can be read.

Each operation goes through schemathesis' own phases (explicit examples, the coverage phase's
boundary, missing and unexpected-method cases, then random fuzzing, a bounded number of
examples), then a stateful run chains operations through the links schemathesis infers (POST
/games gives the game_id the other operations take).

"Accepted" allows the refusals a schema cannot express and the spec documents: 304 (If-None-Match
names the view's own tag, or is `*`), 401/403 (this
token does not open that game or that role), 404 (no such game, seat or version yet), 409 (not
now: the game's state), 412 (If-Match names another version), 422 (a move the rules forbid),
429. Never 400: a 400 says the request breaks the spec, which a schema-valid one does not.

So that the fuzzer reaches past "404 no such game" and "401 no token", part of the cases are
aimed at real games (waiting, playing, three-hand, over) with one of their seat tokens, and
the stateful run sends the token of a game it created. Bounded by example counts: under a
minute on two cores.
"""

from __future__ import annotations

import hashlib
import random
import re
import uuid

import jsonschema_rs
import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoveragePhaseData
from schemathesis.specs.openapi.checks import (
    allow_header_conformance,
    content_type_conformance,
    ensure_resource_availability,
    ignored_auth,
    missing_required_header,
    negative_data_rejection,
    object_level_authorization,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
    use_after_free,
)
from support.apiclient import SPEC_PATH, ValidatingClient, load_openapi, make_app
from support.decks import build_deck
from support.gameplay import create_game
from support.randomplay import choose_move

#: every check schemathesis has (what `schemathesis run --checks all` runs)
ALL_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    missing_required_header,
    unsupported_method,
    allow_header_conformance,
    use_after_free,
    ensure_resource_availability,
    ignored_auth,
    object_level_authorization,
]
#: a schema-valid request may only be refused for what the spec documents and no schema can say
ACCEPTED = ["2xx", "304", "401", "403", "404", "409", "412", "422", "429"]
#: a request the spec forbids is refused, with a 4xx (never a 5xx)
REFUSED = ["400", "401", "403", "404", "405", "409", "412", "413", "414", "415", "422", "429"]
EXAMPLES = 60
SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))


def _config() -> SchemathesisConfig:
    return SchemathesisConfig.from_dict({
        "seed": 20261201,
        "suppress-health-check": ["all"],
        "generation": {"max-examples": EXAMPLES, "mode": "all", "deterministic": True},
        "checks": {
            "positive_data_acceptance": {"expected-statuses": ACCEPTED},
            "negative_data_rejection": {"expected-statuses": REFUSED},
            "not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx"]},
        },
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": True, "max-steps": 6},
        },
    })


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
    # once=1 must end quickly. No caps on matches, challenges, games of bots alone and streams:
    # with no worker the fuzzed matches and games never end, and a cap met part-way would answer
    # the same generated request 201 once and 409 later, which Hypothesis rightly calls flaky
    # (the state machine's next rules hang on what the last answer created)
    return make_app(redis_url, f"gbfz{uuid.uuid4().hex[:12]}", matches_per_caller=0, matches_in_play=0,
                    challenges_per_bot=0, challenges_per_challenger=0, max_streams_per_client=0,
                    bot_games_per_caller=0, bot_games_in_play=0,
                    extra={"stream_keepalive_s": 0.1, "stream_max_s": 0.3})


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


def _targets(real_games) -> list:
    """(game id, token) to aim at: a real game with each of its seat tokens, without a token, with
    a token of another game, and the generated case as it is."""
    targets = []
    for i, (game_id, tokens) in enumerate(real_games):
        other = real_games[(i + 1) % len(real_games)][1]
        targets += [*((game_id, t) for t in tokens), (game_id, None), (game_id, other[0])]
    return targets + [(None, None)] * 4


def _aim(case, game_id, token) -> dict | None:
    """Point a generated case at a real game, and return the headers that give it a real seat token,
    where that keeps the case what it was generated as (a case made invalid in its path, or
    without its token, stays so).

    The token is sent as a header of the call, not as part of the case: schemathesis then knows
    it for a real credential (as `--header` on its command line), and its authentication check
    sends the request again without it, or with a made-up one, expecting a refusal.
    """
    meta = case.meta
    data = meta.phase.data if meta is not None else None
    about_auth = isinstance(data, CoveragePhaseData) and (data.parameter or "").lower() == "authorization"
    negative_path = meta is not None and meta.is_negative_at(ParameterLocation.PATH)
    if game_id is not None and "game_id" in (case.path_parameters or {}) and not negative_path:
        case.path_parameters["game_id"] = game_id
    if token is None or about_auth:
        return None
    return {"Authorization": f"Bearer {token}"}


# the spec the app serves (GET /openapi.yaml is this very file), loaded when the module is; the
# app the cases go to is the fixture's, made when the tests run
schema = schemathesis.openapi.from_path(SPEC_PATH, config=_config())


def _header_schemas(path: str, method: str) -> dict[str, dict]:
    """The schemas of the headers an operation declares, by lower-cased name."""
    item = SPEC["paths"][path]
    found = {}
    for param in item.get("parameters", []) + item[method.lower()].get("parameters", []):
        if "$ref" in param:
            param = SPEC["components"]["parameters"][param["$ref"].rsplit("/", 1)[-1]]
        if param["in"] == "header":
            found[param["name"].lower()] = param["schema"]
    return found


def _without_headers_it_could_not_make(case) -> None:
    """Leave out an optional header whose value in a positive case breaks its own schema.

    Schemathesis' coverage phase writes header values of letters and digits only (it says so in
    schemathesis/specs/openapi/coverage/_wire.py), so for a header whose pattern needs other
    characters, such as If-Match's quotes ("7"), the value it calls valid is not ('0'). Sent as
    it is, the case would be a schema-invalid request called valid; without the header (the spec
    lets it out) it is the valid request the case meant to be.
    """
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not case.headers:
        return
    for name, header_schema in _header_schemas(case.operation.path, case.method).items():
        value = next((v for k, v in case.headers.items() if k.lower() == name), None)
        if value is not None and not jsonschema_rs.validator_for(header_schema).is_valid(value):
            case.headers = {k: v for k, v in case.headers.items() if k.lower() != name}


@schema.parametrize()
@pytest.mark.slow
def test_every_operation_answers_within_the_spec_with_every_check(case, fuzz_app, real_games):
    targets = _targets(real_games)
    # the same case always goes to the same target (the run is reproducible)
    key = repr((case.operation.label, case.path_parameters, case.query, case.headers, case.body))
    game_id, token = targets[int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(targets)]
    _without_headers_it_could_not_make(case)
    headers = _aim(case, game_id, token)
    # (the schema of the cases sends them, and every probe a check makes, to the app)
    case.operation.schema.app = fuzz_app
    case.call_and_validate(headers=headers, checks=ALL_CHECKS, app=fuzz_app)


def _fresh_idempotency_key(case) -> None:
    """A generated Idempotency-Key of a well-formed shape made one never used: hypothesis draws the
    same keys again from example to example, and the server remembers a key's first answer (the
    same request again is that answer; another is 422), so a replayed step would answer otherwise
    than its first run and the state machine's next steps with it. A malformed key (a negative
    case) is refused whatever came before, and is left as it is."""
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) \
                and re.fullmatch(r"[A-Za-z0-9_-]{22,200}", headers[name]):
            headers[name] = f"k{uuid.uuid4().hex}{uuid.uuid4().hex[:8]}"


def _fresh_bot_name(case) -> None:
    """A bot's registration under a name never used: hypothesis replays a step to check it, and a
    name registered by the first run would be refused (409) on the replay, leaving the bundle of
    bot names it filled empty; a fresh name makes the replay answer as the first run did."""
    body = case.body
    if (case.method.upper() == "POST" and case.path == "/bots" and isinstance(body, dict)
            and isinstance(body.get("name"), str) and re.fullmatch(r"[A-Za-z0-9_-]{2,32}", body["name"])):
        body["name"] = f"b{uuid.uuid4().hex[:20]}"


@pytest.mark.slow
def test_stateful_sequences_through_the_links_stay_within_the_spec_with_every_check(fuzz_app):
    loaded = schemathesis.openapi.from_path(SPEC_PATH, config=_config())
    loaded.app = fuzz_app
    base = loaded.as_state_machine()
    tokens: dict[str, list[str]] = {}

    class Workflow(base):  # type: ignore[misc, valid-type]
        """Chains operations; a game created here lends its seat tokens to later steps."""

        def get_call_kwargs(self, case):
            _fresh_bot_name(case)
            _fresh_idempotency_key(case)
            game_id = (case.path_parameters or {}).get("game_id")
            mine = tokens.get(game_id) if isinstance(game_id, str) else None
            if not mine:  # (a generated Authorization would only ever be refused)
                return {}
            token = mine[int(hashlib.sha256(repr(case.body).encode()).hexdigest(), 16) % len(mine)]
            headers = _aim(case, None, token)
            return {"headers": headers} if headers else {}

        def after_call(self, response, case):
            super().after_call(response, case)
            if case.method.upper() == "POST" and case.path == "/games" and response.status_code == 201:
                body = response.json()
                tokens[body["game_id"]] = [s["token"] for s in body["seats"] if s.get("token")]

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=ALL_CHECKS, headers=kwargs.get("headers"),
                                   transport_kwargs=kwargs or None, recorder=getattr(self, "recorder", None))

    Workflow.run(settings=settings(max_examples=40, stateful_step_count=6, deadline=None, derandomize=True,
                                   suppress_health_check=list(HealthCheck)))
