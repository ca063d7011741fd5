"""Random and malformed requests to every endpoint: only 4xx problem+json, and no game moves.

Hypothesis builds requests that are each wrong in at least one way (a token of no seat, a body
that is no legal command, a stale or garbled If-Match, a malformed Idempotency-Key, a cursor the
server never handed out, an out-of-range query parameter, a body that is not JSON ...), sends them
to the app on real Redis through the validating client (so each answer must also be declared in
openapi.yaml, be problem+json with its code, and carry no stack trace), and checks:

* the answer is a 4xx (never a 2xx: the request was wrong; never a 5xx);
* the games' versions and logs are what they were before (nothing was appended).

An input the engine would accept is never sent as a "wrong" one: bodies that happen to decode to
a command legal for the sender are filtered out with the engine itself (RULES.md is the judge of
what is legal, not the HTTP layer under test).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from support.apiclient import ValidatingClient, load_openapi, make_app

from service.rules import game as G
from service.rules.commands import command_from_dict
from service.rules.errors import RulesError

EXAMPLES = 80
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# printable ASCII: what an HTTP header value can carry through the WSGI test client
header_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)
json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)
CARD_LIKE = st.sampled_from(["AS", "TD", "QS", "1C", "XX", "as", "10H", "", "A", "KSS", "ZZ", "♠A"])


class World:
    """Two games that nothing in these tests may change, and what is legal in each."""

    def __init__(self, api: ValidatingClient, store):
        self.api = api
        self.store = store
        resp = api.post("/games", json={"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}]})
        assert resp.status_code == 201
        body = resp.get_json()
        self.gid = body["game_id"]
        self.tokens = {s["seat"]: s["token"] for s in body["seats"]}
        resp = api.post("/games", json={"variant": "three-hand",
                                         "seats": [{"name": "cy"}, {"name": "di"}, {"name": "ed"}]})
        assert resp.status_code == 201
        body = resp.get_json()
        self.gid3 = body["game_id"]
        self.tokens3 = {s["seat"]: s["token"] for s in body["seats"]}
        self.state = G.replay([r.event for r in store.load(self.gid)])
        self.state3 = G.replay([r.event for r in store.load(self.gid3)])
        self.to_act = self.state.to_act[0]
        self.idle = 1 - self.to_act
        self.legal = [m for m in (api.get(f"/games/{self.gid}", token=self.tokens[self.to_act])
                                  .get_json()["legal_moves"])]
        self.advisor = self.state3.roles["advisor"]
        self.versions = self.snapshot()

    def snapshot(self) -> dict:
        return {g: (self.store.version(g), [r.raw for r in self.store.load(g)]) for g in (self.gid, self.gid3)}

    def accepted_by_engine(self, body, seat: int) -> bool:
        """True when the engine would play ``body`` for ``seat`` now (so it is no bad input)."""
        try:
            G.decide(self.state, seat, command_from_dict(body))
        except (RulesError, TypeError, ValueError, KeyError, AttributeError):
            return False
        return True


@pytest.fixture(scope="module")
def world(redis_url):
    import uuid

    app = make_app(redis_url, f"gbt{uuid.uuid4().hex[:12]}")
    api = ValidatingClient(app, load_openapi())
    return World(api, app.extensions["ginbox"].store)


def send(world: World, method: str, path: str, **kw):
    """Send one bad request; it must be refused with a 4xx and leave every game as it was."""
    resp = world.api.open(method, path, **kw)
    try:
        assert 400 <= resp.status_code < 500, f"{method} {path} {kw} -> {resp.status_code} {resp.get_data()[:300]!r}"
        assert resp.mimetype == "application/problem+json"
        doc = json.loads(resp.get_data())
        assert doc["status"] == resp.status_code and isinstance(doc["code"], str)
    finally:
        resp.close()
    assert world.snapshot() == world.versions, f"{method} {path} {kw} changed a game"
    return resp


# -- tokens ------------------------------------------------------------------------------------------

def bad_authorizations(world: World):
    """Authorization headers that name no seat of the gin-rami game."""
    real = set(world.tokens.values())
    token_text = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=80)
    return st.one_of(
        st.just(None),                                                   # no header at all
        header_text.map(lambda t: {"Authorization": t}),                 # any scheme, any text
        token_text.filter(lambda t: t not in real).map(lambda t: {"Authorization": f"Bearer {t}"}),
        st.sampled_from(["Bearer", "Bearer ", "bearer", "Basic YW5uOmJvYg==", "Token abc"]).map(
            lambda t: {"Authorization": t}),
        st.integers(201, 400).map(lambda n: {"Authorization": "Bearer " + "a" * n}),  # too long
        st.sampled_from(sorted(world.tokens3.values())).map(lambda t: {"Authorization": f"Bearer {t}"}),
    )


def any_move_body(world: World):
    return st.one_of(json_values, st.sampled_from(world.legal))


# -- moves -------------------------------------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_a_move_without_a_seat_token_of_the_game_is_refused(world, data):
    auth = data.draw(bad_authorizations(world))
    body = data.draw(any_move_body(world))
    send(world, "POST", f"/games/{world.gid}/moves", json=body, headers=auth or {})


@SETTINGS
@given(data=st.data())
def test_a_move_by_the_seat_not_to_act_is_refused(world, data):
    body = data.draw(any_move_body(world))
    send(world, "POST", f"/games/{world.gid}/moves", json=body, token=world.tokens[world.idle])


def corrupted_moves(world: World):
    """Bodies derived from a legal move, each broken in one way, or random JSON."""
    legal = st.sampled_from(world.legal)
    return st.one_of(
        json_values,
        st.tuples(legal, st.text(min_size=1, max_size=10).filter(lambda k: k not in ("type", "card", "discard", "melds")),
                  json_values).map(lambda t: {**t[0], t[1]: t[2]}),               # an unknown field
        st.tuples(legal, st.text(max_size=15)).map(lambda t: {**t[0], "type": t[1]}),  # another type
        st.tuples(legal, json_scalars).map(lambda t: {**t[0], "type": t[1]}),
        st.tuples(legal, CARD_LIKE | json_values).map(lambda t: {"type": "discard", "card": t[1]}),
        st.tuples(CARD_LIKE | st.none(), json_values).map(lambda t: {"type": "knock", "discard": t[0], "melds": t[1]}),
        legal.map(lambda m: [m]),                                                  # a list of a move
    )


@SETTINGS
@given(data=st.data())
def test_a_body_that_is_no_legal_command_is_refused(world, data):
    body = data.draw(corrupted_moves(world))
    assume(not (isinstance(body, dict) and world.accepted_by_engine(body, world.to_act)))
    send(world, "POST", f"/games/{world.gid}/moves", json=body, token=world.tokens[world.to_act])


@SETTINGS
@given(data=st.data())
def test_a_body_that_is_not_json_or_not_declared_json_is_refused(world, data):
    move = json.dumps(data.draw(st.sampled_from(world.legal))).encode()
    body, ctype = data.draw(st.one_of(
        st.tuples(st.binary(max_size=60).filter(lambda b: not _is_json(b)), st.just("application/json")),
        st.tuples(st.sampled_from([b"{", b"[1,", b"NaN", b'{"type": Infinity}', b"\xff\xfe", b'{"a":1}{"b":2}',
                                   b'"\\ud800"', b"[" * 5000]), st.just("application/json")),
        st.tuples(st.just(move), st.sampled_from(["text/plain", "application/x-www-form-urlencoded",
                                                  "multipart/form-data; boundary=x", "application/xml"])),
        st.tuples(st.just(move), st.none()),
        st.tuples(st.just(b'{"type": "draw_stock", "pad": "' + b"x" * 70_000 + b'"}'), st.just("application/json")),
    ))
    kw = {"data": body, "token": world.tokens[world.to_act]}
    if ctype is not None:
        kw["content_type"] = ctype
    send(world, "POST", f"/games/{world.gid}/moves", **kw)


def _is_json(raw: bytes) -> bool:
    try:
        json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return False
    return True


def bad_if_match(current: int):
    """If-Match values that do not name the current version (and are not '*')."""
    good = f'"{current}"'

    def names_current(value: str) -> bool:
        return value.strip() == "*" or any(part.strip() == good for part in value.split(","))

    return st.one_of(
        st.integers(0, 10**15).filter(lambda v: v != current).map(lambda v: f'"{v}"'),
        st.integers(-5, 10**6).filter(lambda v: v != current).map(str),           # unquoted
        st.just(f'W/"{current}"'),                                                   # weak: never matches
        st.just(f"{current}"),
        st.just(f'"{current}'),
        st.lists(st.integers(0, 99).filter(lambda v: v != current), min_size=1, max_size=4).map(
            lambda vs: ", ".join(f'"{v}"' for v in vs)),
        header_text.filter(lambda v: not names_current(v)),
    )


@SETTINGS
@given(data=st.data())
def test_a_legal_move_with_an_if_match_of_another_version_is_refused(world, data):
    current = world.versions[world.gid][0]
    headers = {"If-Match": data.draw(bad_if_match(current))}
    key = data.draw(st.none() | st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40))
    if key is not None:
        headers["Idempotency-Key"] = key
    send(world, "POST", f"/games/{world.gid}/moves", json=data.draw(st.sampled_from(world.legal)),
         token=world.tokens[world.to_act], headers=headers)


@SETTINGS
@given(data=st.data())
def test_a_legal_move_with_a_malformed_idempotency_key_is_refused(world, data):
    key = data.draw(st.one_of(
        st.just(""),
        st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=201, max_size=260),
        st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=30).filter(lambda k: " " in k),
        st.text(st.characters(min_codepoint=0x80, max_codepoint=0xFF), min_size=1, max_size=10),
    ))
    send(world, "POST", f"/games/{world.gid}/moves", json=data.draw(st.sampled_from(world.legal)),
         token=world.tokens[world.to_act], headers={"Idempotency-Key": key})


# -- advice, seats, creation, analysis -----------------------------------------------------------------

@SETTINGS
@given(data=st.data())
def test_advice_that_is_malformed_or_not_the_advisors_is_refused(world, data):
    advisor_token = world.tokens3[world.advisor]
    others = [t for s, t in world.tokens3.items() if s != world.advisor]
    case = data.draw(st.sampled_from(["bad_text", "not_advisor", "gin_rami"]))
    if case == "bad_text":
        body = data.draw(st.one_of(
            st.just({"text": ""}), st.just({"text": "   "}), st.text(min_size=501, max_size=600).map(lambda t: {"text": t}),
            json_scalars.filter(lambda v: not isinstance(v, str)).map(lambda v: {"text": v}),
            st.tuples(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=8).filter(lambda k: k != "text"))
            .map(lambda t: {"text": t[0], t[1]: 1}),
            json_values.filter(lambda v: not (isinstance(v, dict) and set(v) == {"text"})),
        ))
        send(world, "POST", f"/games/{world.gid3}/advice", json=body, token=advisor_token)
    elif case == "not_advisor":
        body = data.draw(st.text(min_size=1, max_size=40).map(lambda t: {"text": t}) | json_values)
        send(world, "POST", f"/games/{world.gid3}/advice", json=body, token=data.draw(st.sampled_from(others)))
    else:
        body = data.draw(st.text(min_size=1, max_size=40).map(lambda t: {"text": t}))
        send(world, "POST", f"/games/{world.gid}/advice", json=body, token=world.tokens[data.draw(st.sampled_from([0, 1]))])


@SETTINGS
@given(seat=st.integers(-3, 10) | st.text(min_size=1, max_size=6).map(lambda t: re.sub(r"[/?#%]", "", t) or "x"),
       body=st.fixed_dictionaries({"name": st.text(max_size=50)}) | json_values)
def test_claiming_a_seat_of_a_full_game_is_refused(world, seat, body):
    send(world, "POST", f"/games/{world.gid}/seats/{seat}", json=body)


def bad_create_bodies():
    valid = st.sampled_from([
        {"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "basic"}]},
        {"variant": "three-hand", "seats": [{"name": "ann"}, {"name": "bob"}, None]},
    ])
    return st.one_of(
        json_values.filter(lambda v: not (isinstance(v, dict) and "variant" in v and "seats" in v)),
        st.tuples(valid, st.text(min_size=1, max_size=10).filter(
            lambda k: k not in ("variant", "options", "seats", "roles", "first_dealer", "decks")), json_values)
        .map(lambda t: {**t[0], t[1]: t[2]}),                                             # unknown field
        st.tuples(valid, st.text(max_size=12).filter(lambda v: v not in ("gin-rami", "three-hand")))
        .map(lambda t: {**t[0], "variant": t[1]}),
        st.tuples(valid, st.lists(st.just({"name": "x"}), max_size=6).filter(lambda s: len(s) not in (2, 3)))
        .map(lambda t: {**t[0], "seats": t[1]}),
        st.tuples(valid, st.sampled_from(["magic", "", "EXPERT", None, 3])).map(
            lambda t: {**t[0], "seats": [{"bot": t[1]}] * len(t[0]["seats"])}),
        st.tuples(valid, st.sampled_from([{"target_score": 0}, {"target_score": "100"}, {"knock_limit": -1},
                                          {"colour": "red"}, {"target_score": True}, []])).map(
            lambda t: {**t[0], "options": t[1]}),
        st.tuples(valid, st.lists(st.lists(CARD_LIKE, max_size=52), min_size=1, max_size=2)).map(
            lambda t: {**t[0], "decks": t[1]}),
    )


@SETTINGS
@given(body=bad_create_bodies())
def test_a_malformed_game_creation_is_refused(world, body):
    send(world, "POST", "/games", json=body)


@SETTINGS
@given(body=st.one_of(
    json_values.filter(lambda v: not (isinstance(v, dict) and set(v) == {"cards"})),
    st.lists(CARD_LIKE, max_size=14).map(lambda cs: {"cards": cs}).filter(
        lambda b: not (1 <= len(b["cards"]) <= 11 and len(set(b["cards"])) == len(b["cards"])
                       and all(re.fullmatch(r"[A2-9TJQK][CDHS]", c) for c in b["cards"]))),
    st.lists(st.sampled_from(["AS", "2S", "3S"]), min_size=12, max_size=14).map(lambda cs: {"cards": cs}),
))
def test_a_malformed_meld_analysis_is_refused(world, body):
    send(world, "POST", "/analysis/melds", json=body)


# -- reading -----------------------------------------------------------------------------------------

def _own_cursor(cursor: str) -> bool:
    """True if ``cursor`` has the form of the cursors the server hands out (every such one is a position)."""
    return re.fullmatch(r"[0-9]{15}[A-Za-z0-9_-]{16}", cursor) is not None


@SETTINGS
@given(data=st.data())
def test_listing_games_with_a_bad_parameter_is_refused(world, data):
    params = data.draw(st.fixed_dictionaries({}, optional={
        "status": st.sampled_from(["waiting", "playing", "over"]),
        "variant": st.sampled_from(["gin-rami", "three-hand"]),
        "limit": st.integers(1, 100).map(str),
    }))
    bad = data.draw(st.sampled_from(["status", "variant", "limit", "cursor"]))
    if bad == "cursor":
        value = data.draw(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=60)
                          | st.text(min_size=201, max_size=220) | st.just(""))
        assume(not _own_cursor(value))
    elif bad == "limit":
        value = data.draw(st.integers(-5, 0).map(str) | st.integers(101, 10**20).map(str)
                          | st.sampled_from(["", "ten", "1.5", "0x10", " 5", "1e3"]))
    else:
        value = data.draw(st.text(max_size=12).filter(lambda v: v not in ("waiting", "playing", "over",
                                                                           "gin-rami", "three-hand")))
    params[bad] = value
    send(world, "GET", "/games", query_string=params)


@SETTINGS
@given(data=st.data())
def test_reading_a_game_with_a_bad_parameter_or_token_is_refused(world, data):
    gid = world.gid
    current = world.versions[gid][0]
    not_int = st.sampled_from(["", "x", "1.0", "-", "1e2", "0x1", "٣"]) | header_text.filter(lambda v: not v.strip().isdigit())
    case = data.draw(st.sampled_from(["token", "events", "state", "stream", "audit", "export", "unknown_game"]))
    if case == "token":
        auth = data.draw(bad_authorizations(world).filter(lambda a: a is not None))
        path = data.draw(st.sampled_from([f"/games/{gid}", f"/games/{gid}/events", f"/games/{gid}/state?version=1",
                                          f"/games/{gid}/stream?once=1"]))
        send(world, "GET", path, headers=auth)
    elif case == "events":
        q = data.draw(st.sampled_from([
            {"after": "-1"}, {"limit": "0"}, {"limit": "1001"}, {"after": "1", "limit": "-3"}]) | not_int.map(lambda v: {"after": v})
            | not_int.map(lambda v: {"limit": v}))
        send(world, "GET", f"/games/{gid}/events", query_string=q)
    elif case == "state":
        version = data.draw(st.integers(-10, 0) | st.integers(current + 1, 10**12) | not_int)
        send(world, "GET", f"/games/{gid}/state", query_string={"version": str(version)})
    elif case == "stream":
        q = data.draw(st.sampled_from([{"after": "-1", "once": "1"}, {"once": "yes"}, {"once": "2"}])
                      | not_int.map(lambda v: {"after": v, "once": "1"})
                      | st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=40)
                      .filter(lambda t: t not in world.tokens.values()).map(lambda t: {"token": t, "once": "1"}))
        send(world, "GET", f"/games/{gid}/stream", query_string=q)
    elif case in ("audit", "export"):
        # the game is not over: its seed stays secret
        send(world, "GET", f"/games/{gid}/{case}", token=world.tokens[data.draw(st.sampled_from([0, 1]))])
    else:
        other = data.draw(st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=20)
                          .filter(lambda g: g not in (world.gid, world.gid3)))
        send(world, "GET", f"/games/{other}" + data.draw(st.sampled_from(["", "/events", "/audit", "/export"])))
