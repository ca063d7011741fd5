"""Invitation links written by hand, as the documents describe them, open the invited seat.

The README, the guides and openapi.yaml give the link's form (`/play/<game_id>#seat=<seat>&secret=…`); the
test reads every form they write, builds the link from it exactly, and a guest who opens it takes
the seat. The form the documents gave before, `#invite=…` with no seat, still works: the page
claims the open invited seat the secret opens (here the second of two, so a wrong first guess
must change nothing).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

from selenium.webdriver.common.by import By

from helpers import Api, wait_for

ROOT = Path(__file__).resolve().parents[2]
#: a link's fragment as the documents write it, in backquotes: `/play/$G#seat=1&secret=…`,
#: `#invite=…`, `/play/{game_id}#seat=<seat>&secret=<invite>` ...
_FORM = re.compile(r"`[^`\s]*?(#(?:seat|secret|invite)=[^`\s]*)`")
#: what the documents write for the secret
_SECRET = re.compile(r"<invite>|…|\.\.\.|(?<==)$")


def documented_fragments() -> set[str]:
    """Every invitation link's fragment the README, the guides and openapi.yaml write out."""
    found = set()
    for path in (ROOT / "README.md", ROOT / "openapi.yaml", *sorted((ROOT / "service" / "docs").glob("*.md"))):
        found.update(_FORM.findall(path.read_text(encoding="utf-8")))
    return found


def build(fragment: str, seat: int, secret: str) -> str:
    """The fragment with the documents' placeholders filled in."""
    out = re.sub(r"<seat>|(?<=seat=)[0-9]+", str(seat), fragment)
    return _SECRET.sub(lambda _: quote(secret, safe=""), out)


def _private_game(api: Api, variant: str, seats: list) -> tuple[str, dict[int, str]]:
    status, created = api.call("POST", "/games", {"variant": variant, "seats": seats, "private": True})
    assert status == 201, created
    return created["game_id"], {s["seat"]: s["invite"] for s in created["seats"] if "invite" in s}


def _take_seat(live_server, new_browser, link: str, name: str):
    guest = new_browser()
    guest.get(link)
    wait_for(guest, lambda d: d.find_elements(By.ID, "invite-name"), what=f"the invitation form of {link}")
    guest.find_element(By.ID, "invite-name").send_keys(name)
    guest.find_element(By.CSS_SELECTOR, "#invite-form button").click()
    wait_for(guest, lambda d: "secret" not in d.current_url and "invite=" not in d.current_url,
             what="the claim (the secret leaves the address bar)")
    return guest


def test_a_link_built_as_the_documents_say_takes_the_seat(live_server, new_browser):
    forms = {build(f, 1, "S") for f in documented_fragments()}
    # the documents give the form the web client builds, and at most the older form beside it
    assert "#seat=1&secret=S" in forms and forms <= {"#seat=1&secret=S", "#invite=S"}, forms
    api = Api(live_server)
    for form in sorted(forms):
        game_id, invites = _private_game(api, "gin-rami", [{"name": "ann"}, None])
        link = f"{live_server}/play/{game_id}" + build(form.replace("S", "…"), 1, invites[1])
        guest = _take_seat(live_server, new_browser, link, "bob")
        view = api.wait_view(game_id, None, lambda v: v["players"][1] is not None)
        assert view["players"][1]["name"] == "bob", (form, view["players"])
        assert guest.current_url.endswith(f"/play/{game_id}#seat=1")


def test_a_link_with_the_older_invite_fragment_and_no_seat_takes_the_seat_it_opens(live_server, new_browser):
    api = Api(live_server)
    game_id, invites = _private_game(api, "three-hand", [{"name": "ann"}, None, None])
    assert sorted(invites) == [1, 2]
    guest = _take_seat(live_server, new_browser, f"{live_server}/play/{game_id}#invite={quote(invites[2], safe='')}",
                       "cy")
    view = api.wait_view(game_id, None, lambda v: v["players"][2] is not None)
    assert view["players"][2]["name"] == "cy" and view["players"][1] is None
    assert guest.current_url.endswith(f"/play/{game_id}#seat=2")
    # the seat it did not open is still open for its own guest
    _take_seat(live_server, new_browser, f"{live_server}/play/{game_id}#seat=1&secret={invites[1]}", "dee")
    view = api.wait_view(game_id, None, lambda v: v["players"][1] is not None)
    assert view["players"][1]["name"] == "dee"
