"""Playing games over HTTP with a ValidatingClient: create, look, move, read events and streams."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


def etag_version(resp) -> int:
    """The game version carried by an ETag header ``"<version>"`` (a command's answer) or
    ``"<version>-<digest>"`` (a view read by GET)."""
    tag = resp.headers.get("ETag")
    assert tag, f"no ETag on {resp.status_code} answer"
    return int(tag.strip('W/').strip('"').partition("-")[0])


@dataclass
class Game:
    """A game created over HTTP: its id, the seat tokens and the creation answer."""

    client: Any
    game_id: str
    tokens: dict[int, str]
    created: dict = field(default_factory=dict)

    # -- reading ------------------------------------------------------------------------
    def view(self, seat: int | None = None) -> dict:
        """GET /games/{id} as a seat (None: spectator); asserts 200."""
        resp = self.client.get(f"/games/{self.game_id}", token=self.token(seat))
        assert resp.status_code == 200, resp.get_data(as_text=True)
        body = resp.get_json()
        assert etag_version(resp) == body["version"]
        return body

    def version(self) -> int:
        return self.view(None)["version"]

    def token(self, seat: int | None) -> str | None:
        return None if seat is None else self.tokens[seat]

    def state_at(self, version: int, seat: int | None = None):
        return self.client.get(f"/games/{self.game_id}/state", query_string={"version": version},
                               token=self.token(seat))

    def events(self, seat: int | None = None, after: int = 0, limit: int = 100) -> list[dict]:
        """Every event after ``after`` as the caller sees it, following next_after pages."""
        out: list[dict] = []
        while True:
            resp = self.client.get(f"/games/{self.game_id}/events",
                                   query_string={"after": after, "limit": limit}, token=self.token(seat))
            assert resp.status_code == 200, resp.get_data(as_text=True)
            body = resp.get_json()
            out += body["events"]
            if body.get("next_after") is None:
                return out
            assert body["next_after"] > after, "next_after must move forward"
            after = body["next_after"]

    def stream_once(self, seat: int | None = None, after: int | None = None,
                    last_event_id: int | None = None, use_query_token: bool = False) -> list["SseEvent"]:
        """GET /stream?once=1: the events so far as SSE, parsed."""
        query: dict[str, Any] = {"once": 1}
        if after is not None:
            query["after"] = after
        headers = {}
        token = self.token(seat)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        if token and use_query_token:
            query["token"] = token
            token = None
        resp = self.client.get(f"/games/{self.game_id}/stream", query_string=query, headers=headers, token=token)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert resp.mimetype == "text/event-stream"
        return parse_sse(resp.get_data(as_text=True))

    # -- moving -------------------------------------------------------------------------
    def post_move(self, seat: int, command: dict, *, if_match: int | None = None, key: str | None = None,
                  token: str | None = None):
        """POST /games/{id}/moves as ``seat``; returns the raw response."""
        headers = {}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client.post(f"/games/{self.game_id}/moves", json=command, headers=headers,
                                token=token if token is not None else self.tokens[seat])

    def move(self, seat: int, command: dict, **kw) -> dict:
        """A move that must be accepted: asserts 200 and returns the mover's new view."""
        resp = self.post_move(seat, command, **kw)
        assert resp.status_code == 200, f"{command} by seat {seat}: {resp.status_code} {resp.get_data(as_text=True)}"
        body = resp.get_json()
        assert etag_version(resp) == body["version"]
        return body


def create_game(client, variant: str, seats: list | None = None, **extra) -> Game:
    """POST /games; asserts 201 and collects the human seats' tokens."""
    seat_count = 3 if variant == "three-hand" else 2
    if seats is None:
        seats = [{"name": f"p{i}"} for i in range(seat_count)]
    body = {"variant": variant, "seats": seats, **{k: v for k, v in extra.items() if v is not None}}
    resp = client.post("/games", json=body)
    assert resp.status_code == 201, resp.get_data(as_text=True)
    doc = resp.get_json()
    assert resp.headers["Location"].endswith(f"/games/{doc['game_id']}")
    tokens = {s["seat"]: s["token"] for s in doc["seats"] if s.get("token")}
    return Game(client, doc["game_id"], tokens, doc)


@dataclass
class SseEvent:
    id: str | None
    event: str | None
    data: str

    def json(self):
        return json.loads(self.data)


def parse_sse(text: str) -> list[SseEvent]:
    """Parse an event-stream body (comments such as ': keep-alive' are skipped)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        if "data" in fields:
            events.append(SseEvent((fields.get("id") or [None])[-1], (fields.get("event") or [None])[-1],
                                   "\n".join(fields["data"])))
    return events


class SseReader:
    """Incremental SSE parser over a live (unbuffered) response: read some events, then close."""

    def __init__(self, resp):
        self.resp = resp
        self._chunks = iter(resp.response)
        self._buf = ""
        self.comments: list[str] = []

    def next_event(self) -> SseEvent:
        """The next event (blocks inside the server's generator until one arrives)."""
        while True:
            while "\n\n" in self._buf:
                block, _, self._buf = self._buf.partition("\n\n")
                parsed = parse_sse(block + "\n\n")
                if parsed:
                    return parsed[0]
                self.comments += [ln for ln in block.split("\n") if ln.startswith(":")]
            chunk = next(self._chunks)
            text = chunk.decode("utf-8") if isinstance(chunk, bytes) else chunk
            self._buf = (self._buf + text).replace("\r\n", "\n")

    def close(self):
        """Disconnect: closes the server's generator."""
        self.resp.close()
