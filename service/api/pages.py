"""The web client: the lobby, the table, the spectator's, the replay, the match and the tournament pages, and their assets.

The pages are static files (HTML, CSS and JavaScript modules under ``service/static/web``) that
talk to the API exactly as any other client does; nothing here reads a game.
"""

from __future__ import annotations

import functools
import html
import importlib.resources
import re
import string
from pathlib import Path

from flask import Blueprint, Response, request

from service.api.problems import NOT_FOUND_PAGE, ApiError

bp = Blueprint("pages", __name__)

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{16}$")
#: an asset's name: one file of the folder, no path; the suffix says its media type
_ASSET = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\.(js|css|svg)$")
_MEDIA = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}


def _web() -> Path:
    return Path(str(importlib.resources.files("service") / "static" / "web"))


@functools.lru_cache(maxsize=64)
def _read(name: str) -> bytes | None:
    path = _web() / name
    return path.read_bytes() if path.is_file() else None


#: the pages run only their own files and talk only to this server; nobody may frame them (a
#: framed table could be clicked through), and no address, invitation or not, leaks as a referrer
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
                               "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


#: each page: the body in ``<name>.html``, its script and the modules it preloads (a page split into
#: parts preloads them all, so that they are fetched at once rather than one import after another);
#: ``page.html`` is the document around every body (its head, the style sheet and the icon), written once
_PAGES = {
    "lobby": ("lobby.js", ("lobby-yours.js", "lobby-create.js", "lobby-rules.js", "lobby-quick.js", "lobby-challenges.js",
                           "lobby-games.js")),
    "table": ("table.js", ("table-state.js", "table-turn.js", "table-seats.js", "table-hand.js", "table-moves.js",
                           "table-knock.js", "table-result.js", "table-advice.js", "table-clock.js", "table-deal.js",
                           "table-invite.js", "table-handend.js", "table-motion.js", "table-pace.js",
                           "table-boxgin.js", "api.js", "cards.js", "ui.js", "seats.js")),
    "replay": ("replay.js", ("replay-steps.js", "replay-board.js", "replay-moves.js", "replay-audit.js",
                             "replay-analysis.js", "api.js",
                             "cards.js", "ui.js", "seats.js")),
    "match": ("match.js", ("api.js", "seats.js")),
    "tournament": ("tournament.js", ("api.js", "ui.js")),
}


def page_shell(title: str, head: str, body: str) -> bytes:
    """A whole HTML document: page.html (the site's head, style sheet and icon) around ``body``."""
    shell = string.Template(_read("page.html").decode("utf-8"))
    return shell.substitute(title=title, head=head, body=body).encode("utf-8")


@functools.lru_cache(maxsize=8)
def _document(name: str) -> bytes:
    """The whole HTML document of page ``name``: page.html around the page's body."""
    script, preloads = _PAGES[name]
    head = "".join(f'  <link rel="modulepreload" href="/web/{m}">\n' for m in preloads)
    head += f'  <script type="module" src="/web/{script}"></script>\n'
    return page_shell(name, head, _read(f"{name}.html").decode("utf-8"))


def _page(name: str) -> Response:
    resp = Response(_document(name), mimetype="text/html")
    # the page holds no data: every game is fetched by its scripts, so it may be cached a little
    resp.headers["Cache-Control"] = "public, max-age=300"
    resp.headers.update(PAGE_HEADERS)
    return resp


def _wants_html() -> bool:
    """Whether the client prefers an HTML page to JSON (a browser following a link does)."""
    accept = request.accept_mimetypes
    return accept.quality("text/html") > max(accept.quality("application/json"),
                                              accept.quality("application/problem+json"))


def _not_found(what: str, detail: str) -> Response:
    """A page address that names nothing: an HTML page in the site's style for a browser (status
    404 kept, a way back to the lobby), the usual problem+json for any other client."""
    page = not_found_page(what, detail)
    if page is None:
        # the answer depends on Accept: a cache must keep this variant apart from the HTML one
        raise ApiError(404, "not_found", detail, headers={"Vary": "Accept"})
    return page


def not_found_page(what: str, detail: str) -> Response | None:
    """The site's 404 page saying ``what`` and ``detail``, for a client that prefers HTML (a
    browser); None for any other client, which gets problem+json instead."""
    if not _wants_html():
        return None
    body = (f'  <header class="top">\n    <h1 id="title">Not found</h1>\n    <a href="/">Lobby</a>\n  </header>\n'
            f'  <main id="main">\n    <p id="message" class="error" role="alert">{html.escape(what)}</p>\n'
            f'    <p>{html.escape(detail[0].upper() + detail[1:])}.</p>\n'
            f'    <p><a class="button primary" href="/">Back to the lobby</a></p>\n  </main>\n')
    resp = Response(page_shell("not found", "", body), status=404, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-store"
    resp.headers["Vary"] = "Accept"
    resp.headers.update(PAGE_HEADERS)
    return resp


@bp.record_once
def _offer_not_found_page(state) -> None:
    """Lend the error handlers the site's not-found page, for addresses no route serves."""
    state.app.extensions[NOT_FOUND_PAGE] = not_found_page


def _game_page(game_id: str, name: str) -> Response:
    if not _GAME_ID.match(game_id):
        return _not_found("There is no such game on this server.", "a game id is 16 letters, digits, '_' or '-'")
    return _page(name)


@bp.get("/")
def lobby_page():
    """The lobby: create, list, join and resume games."""
    return _page("lobby")


@bp.get("/play/<game_id>")
def play_page(game_id: str):
    """The table of a game, for a player whose seat token this browser holds."""
    return _game_page(game_id, "table")


@bp.get("/watch/<game_id>")
def watch_page(game_id: str):
    """A game as a spectator sees it, live."""
    return _game_page(game_id, "table")


@bp.get("/replay/<game_id>")
def replay_page(game_id: str):
    """A finished game, stepped event by event with every hand face up."""
    return _game_page(game_id, "replay")


@bp.get("/match/<match_id>")
def match_page(match_id: str):
    """A duplicate match: standings and boards, and the turns of the person whose token this browser holds."""
    if not _GAME_ID.match(match_id):
        return _not_found("There is no such match on this server.", "a match id is 16 letters, digits, '_' or '-'")
    return _page("match")


@bp.get("/tournament/<tournament_id>")
def tournament_page(tournament_id: str):
    """A tournament: its standings, live, and each round's pairings with their matches and games."""
    if not _GAME_ID.match(tournament_id):
        return _not_found("There is no such tournament on this server.",
                          "a tournament id is 16 letters, digits, '_' or '-'")
    return _page("tournament")


@bp.get("/favicon.ico")
def favicon():
    """The site's icon, for browsers that ask for it at the conventional address (the pages link it too)."""
    resp = Response(_read("icon.svg"), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=86400"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


@bp.get("/web/<asset>")
def web_asset(asset: str):
    """A script, style sheet or image of the pages."""
    match = _ASSET.match(asset)
    body = _read(asset) if match else None
    if body is None:
        raise ApiError(404, "not_found", f"no page asset {asset!r}")
    resp = Response(body, mimetype=_MEDIA[match.group(1)])
    resp.headers["Cache-Control"] = "public, max-age=300"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp
