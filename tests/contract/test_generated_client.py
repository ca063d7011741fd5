"""A Python client generated from openapi.yaml by openapi-python-client plays a real server.

The client is generated at test time (nothing generated is kept in the repository), with
``--fail-on-warning``, so that any schema or response the generator cannot turn into code
fails here. It is imported and used alone against the API under gunicorn on a real socket:
it creates games (two-player gin rami, and three-hand with explicit roles), reads views,
plays moves taken from ``legal_moves`` until the game is over, and reads the events, the
audit and the export. Every answer must come back as the model the spec promises, and
each view read must give back, from its model, exactly the JSON the server sent.

The generator's only setting besides its formatter: ``application/x-ndjson``
(the export), ``application/yaml`` (GET /openapi.yaml) and ``image/svg+xml`` (GET /favicon.ico) are
read as text. openapi-python-client
knows no media types but JSON, ``text/*`` and octet-streams, and omits responses of any other
type unless told so; ``content_type_overrides`` is its documented way to tell it.

The bot's stream, ``GET /bots/me/stream``, is read as server-sent events through the generated
client's own HTTP connection (its generated function takes the whole answer for one message). Each
message becomes the generated ``BotStreamEvent``, and its JSON ``data`` the model the spec's
discriminator names for its ``type`` (``BotStreamYourTurn``, ``BotStreamGameOver`` ...), which a
registered bot account plays its game against the built-in ``basic`` bot from.
"""

from __future__ import annotations

import importlib
import json
import random
import re
import subprocess
import sys
import uuid
from types import SimpleNamespace

import attrs
import pytest
import yaml

from support.apiclient import SPEC_PATH
from support.gameplay import parse_sse
from support.randomplay import choose_move

PACKAGE = "ginbox_client"
GENERATOR_CONFIG = {
    # the icon is SVG, which is XML text
    "content_type_overrides": {"application/x-ndjson": "text/plain", "application/yaml": "text/plain",
                               "image/svg+xml": "text/plain", "image/png": "application/octet-stream"},
    # The generator's own default formats its output with ruff, as here (without its lint fixes).
    # Its template writes an integer const unformatted ("multiplier != 2and ..."): Python warns on
    # that (SyntaxWarning), and the formatter spaces it.
    "post_hooks": [f"{sys.executable} -m ruff format ."],
}


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    """The generated package, imported from a temporary directory."""
    where = tmp_path_factory.mktemp("generated")
    config = where / "generator.json"
    config.write_text(json.dumps(GENERATOR_CONFIG), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC_PATH), "--meta", "none",
         "--output-path", str(where / PACKAGE), "--config", str(config), "--fail-on-warning"],
        capture_output=True, text=True, timeout=240, cwd=where,
    )
    assert run.returncode == 0, f"the generator failed:\n{run.stdout[-6000:]}\n{run.stderr[-6000:]}"
    sys.path.insert(0, str(where))
    try:
        names = ["client", "models", "api.games.create_game", "api.games.get_game", "api.games.play_move",
                 "api.games.give_advice", "api.history.list_events", "api.history.export_game",
                 "api.history.audit_game", "api.arena.register_bot", "api.arena.get_bot"]
        yield SimpleNamespace(**{n.rsplit(".", 1)[-1]: importlib.import_module(f"{PACKAGE}.{n}") for n in names})
    finally:
        sys.path.remove(str(where))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def base_url(served_api):
    """The API under gunicorn, with a bot worker (tests/contract/conftest.py)."""
    return served_api


def _client(gen, base_url, token=None):
    if token is None:
        return gen.client.Client(base_url=base_url, raise_on_unexpected_status=True, timeout=30.0)
    return gen.client.AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True,
                                          timeout=30.0)


def _view(gen, game_id, client):
    """GET /games/{id} through the generated client; the parsed View, checked against the JSON sent."""
    resp = gen.get_game.sync_detailed(game_id, client=client)
    assert resp.status_code == 200
    assert isinstance(resp.parsed, gen.models.View), resp.content[:500]
    assert resp.parsed.to_dict() == json.loads(resp.content), "the View model does not round-trip the answer"
    assert re.fullmatch(f'"{resp.parsed.version}-[0-9a-f]{{16}}"', resp.headers["ETag"])
    return resp.parsed


@pytest.mark.slow
def test_a_generated_client_plays_a_whole_gin_rami_game_and_reads_its_export(gen, base_url):
    m = gen.models
    anyone = _client(gen, base_url)
    body = m.CreateGinRamiGame(variant="gin-rami", seats=[m.HumanSeat(name="ann"), m.HumanSeat(name="bob")],
                               options=m.Options(target_score=30))
    created = gen.create_game.sync(client=anyone, body=body)
    assert isinstance(created, m.CreatedGame), created
    game_id = created.game_id
    assert created.view.variant == m.Variant.GIN_RAMI and created.view.options.target_score == 30
    # every option the view reports is a required field of the model (no default, never UNSET)
    required = {f.name for f in attrs.fields(m.ViewOptions) if f.default is attrs.NOTHING}
    assert required == {"target_score", "knock_limit", "gin_bonus", "big_gin_bonus", "gin_adds_deadwood",
                        "undercut_bonus", "max_turns_per_hand"}
    seats = {s.seat: _client(gen, base_url, s.token) for s in created.seats}
    assert sorted(seats) == [0, 1] and all(s.kind == m.SeatInfoKind.HUMAN for s in created.seats)

    # a move out of turn: a problem document, parsed as the Problem model
    waiting = next(seat for seat in seats if seat not in created.view.to_act)
    refused = gen.play_move.sync(game_id, client=seats[waiting], body=m.PassUpcard(type_="pass_upcard"))
    assert isinstance(refused, m.Problem) and refused.status == 409 and refused.code == "not_your_turn"

    rng = random.Random(2026)
    view = created.view
    for _ in range(3000):
        if view.status == m.Status.OVER:
            break
        seat = view.to_act[0]
        mine = _view(gen, game_id, seats[seat])
        assert mine.legal_moves, f"seat {seat} is to act but has no legal move"
        # the move is chosen on the view's JSON, then sent as the very model legal_moves held
        wanted = choose_move(mine.to_dict(), rng)
        move = next(x for x in mine.legal_moves if x.to_dict() == wanted)
        view = gen.play_move.sync(game_id, client=seats[seat], body=move, if_match=f'"{mine.version}"',
                                  idempotency_key=f"{seat}-{mine.version}")
        assert isinstance(view, m.View), view
    assert view.status == m.Status.OVER, "the game did not end within 3000 moves"

    final = _view(gen, game_id, anyone)
    assert max(final.scores) >= 30 and final.winner is not None
    assert final.hand_results and all(isinstance(r, (m.ScoredHand, m.DrawnHand)) for r in final.hand_results)
    assert isinstance(final.last_hand, m.ScoredHand)
    assert final.seed is not None and final.legal_moves == []

    events = gen.list_events.sync(game_id, client=anyone, after=0, limit=1000)
    assert isinstance(events, m.EventList) and events.next_after is None
    assert [e.version for e in events.events] == list(range(1, final.version + 1))

    export = gen.export_game.sync(game_id, client=anyone)
    assert isinstance(export, str)
    lines = [json.loads(line) for line in export.splitlines()]
    assert [e["version"] for e in lines] == list(range(1, final.version + 1))
    assert lines[-1]["type"] == "game_ended"
    # once the game is over the events are shown in full: the same as the stored log
    assert [e.to_dict() for e in events.events] == lines

    audit = gen.audit_game.sync(game_id, client=anyone)
    assert isinstance(audit, m.Audit) and audit.ok and audit.game_id == game_id


@pytest.mark.slow
def test_a_generated_client_creates_a_three_hand_game_with_explicit_roles(gen, base_url):
    m = gen.models
    anyone = _client(gen, base_url)
    body = m.CreateThreeHandGame(variant="three-hand", seats=[m.HumanSeat(name=n) for n in ("ann", "bob", "cy")],
                                 roles=m.Roles(box=2, captain=0, advisor=1))
    created = gen.create_game.sync(client=anyone, body=body)
    assert isinstance(created, m.CreatedGame), created
    assert created.randomly_dealt is False
    view = created.view
    assert view.variant == m.Variant.THREE_HAND and view.status == m.Status.PLAYING
    assert view.roles.to_dict() == {"box": 2, "captain": 0, "advisor": 1}
    seats = {s.seat: _client(gen, base_url, s.token) for s in created.seats}

    advisor = _view(gen, created.game_id, seats[1])
    assert advisor.viewer_role == m.ViewViewerRole.ADVISOR and advisor.hand_owner == 0
    advised = gen.give_advice.sync(created.game_id, client=seats[1], body=m.Advice(text="keep the low cards"))
    assert isinstance(advised, m.View) and [a.text for a in advised.advice] == ["keep the low cards"]

    seat = view.to_act[0]
    mine = _view(gen, created.game_id, seats[seat])
    moved = gen.play_move.sync(created.game_id, client=seats[seat], body=mine.legal_moves[0])
    assert isinstance(moved, m.View) and moved.version > advised.version

    # roles that put two roles on one seat are refused, with per-field errors
    twice = m.CreateThreeHandGame(variant="three-hand", seats=[m.HumanSeat(name=n) for n in ("a", "b", "c")],
                                  roles=m.Roles(box=1, captain=1, advisor=0))
    refused = gen.create_game.sync(client=anyone, body=twice)
    assert isinstance(refused, m.Problem) and refused.code == "invalid_body"
    assert "roles" in refused.errors.to_dict()


#: the model of each kind of bot stream message, as the spec's discriminator maps them
BOT_STREAM_KINDS = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))["components"]["schemas"][
    "BotStreamMessage"]["discriminator"]["mapping"]


def _server_sent_events(lines):
    """Each server-sent event of a stream's lines as it comes (comments skipped)."""
    block: list[str] = []
    for line in lines:
        if line:
            block.append(line)
            continue
        yield from parse_sse("\n".join(block) + "\n\n")
        block = []


@pytest.mark.slow
def test_a_generated_client_plays_a_bot_account_game_from_its_typed_stream(gen, base_url):
    m = gen.models
    models = {kind: getattr(m, ref.rsplit("/", 1)[-1]) for kind, ref in BOT_STREAM_KINDS.items()}
    name = f"py-{uuid.uuid4().hex[:8]}"
    registered = gen.register_bot.sync(client=_client(gen, base_url), body=m.BotRegistration(name=name))
    assert isinstance(registered, m.BotCreated), registered
    bot = _client(gen, base_url, registered.token)
    created = gen.create_game.sync(client=bot, body=m.CreateGinRamiGame(
        variant="gin-rami", seats=[m.AccountSeat(account=name), m.BotSeat(bot=m.BotStrategy.BASIC)],
        options=m.Options(target_score=1)))
    assert isinstance(created, m.CreatedGame), created
    game_id = created.game_id
    my_seat = next(s.seat for s in created.seats if s.account == name)

    rng = random.Random(7)
    kinds: list[str] = []
    started = over = None
    moves = played = 0
    with bot.get_httpx_client().stream("GET", "/bots/me/stream") as resp:
        assert resp.status_code == 200 and resp.headers["content-type"].startswith("text/event-stream")
        for n, sse in enumerate(_server_sent_events(resp.iter_lines())):
            assert n < 2000, "the game did not end within 2000 stream messages"
            event = m.BotStreamEvent(event=sse.event, data=sse.data, **({"id": sse.id} if sse.id else {}))
            data = json.loads(event.data)
            message = models[data["type"]].from_dict(data)
            assert message.to_dict() == data, f"the {type(message).__name__} model does not round-trip {data}"
            assert event.event == message.type_
            kinds.append(message.type_)
            match message:
                case m.BotStreamGameStarted(game_id=g, seat=seat) if g == game_id:
                    started = seat
                case m.BotStreamYourTurn(game_id=g, version=version) if g == game_id and version > played:
                    played = version
                    view = _view(gen, game_id, bot)
                    wanted = choose_move(view.to_dict(), rng)
                    answer = gen.play_move.sync(game_id, client=bot, body=next(
                        x for x in view.legal_moves if x.to_dict() == wanted), if_match=f'"{view.version}"')
                    assert isinstance(answer, m.View), answer
                    moves += 1
                case m.BotStreamGameOver(game_id=g) if g == game_id:
                    over = message
                    break

    assert started == my_seat and isinstance(over, m.BotStreamGameOver) and over.seat == my_seat
    final = _view(gen, game_id, bot)
    assert final.status == m.Status.OVER and max(final.scores) >= 1
    assert over.version == final.version and over.scores == final.scores
    # each move the bot made is one event of its seat's in the game's log, and nothing moved for it
    events = gen.list_events.sync(game_id, client=bot, after=0, limit=1000).events
    mine = [e for e in events if e.type_ in ("upcard_taken", "upcard_passed", "card_drawn", "card_discarded",
                                             "knocked") and e.data["seat"] == my_seat]
    assert moves == len(mine) > 0 and not any(e.type_ == "turn_timed_out" for e in events)
    # a live stream may begin with a pending your_turn (the bot may deal first), then game_started
    assert kinds[-1] == "game_over" and kinds.count("game_started") == kinds.count("game_over") == 1
    assert kinds.count("your_turn") >= moves and set(kinds) == {"game_started", "your_turn", "game_over"}
    profile = gen.get_bot.sync(name, client=_client(gen, base_url))
    assert isinstance(profile, m.BotProfile) and profile.name == name
