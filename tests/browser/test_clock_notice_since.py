"""The table opened after the turn clock played several of this seat's turns names every move it
played since the player's own last one, not only the latest.

ann (seat 0) never moves: the clock (3 s a move) plays for her, one move per time-out; the test
plays bob's moves at once over HTTP. Once the clock has played at least two of ann's moves and it
is bob's turn, ann's table is opened: every move of ann's in the log is the clock's.
"""

from __future__ import annotations

import time

from helpers import Api, text_of, wait_for
from support.arena_http import short_game_move
from test_table_prompts import hold_seat

SUIT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}


def short(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUIT[card[1]]


def said(e: dict) -> str:
    """How the table names one of ann's moves."""
    d = e["data"]
    return {"upcard_passed": lambda: "passed the upcard",
            "upcard_taken": lambda: f"took the upcard, {short(d['card'])}",
            "card_drawn": lambda: (f"took {short(d['card'])} from the discard pile" if d["source"] == "discard"
                                   else f"drew {short(d['card'])} from the stock"),
            "card_discarded": lambda: f"discarded {short(d['card'])}"}[e["type"]]()


def test_the_notice_names_every_move_the_clock_played_since_the_players_own(live_server, new_browser):
    api = Api(live_server)
    status, created = api.call("POST", "/games", {"variant": "gin-rami", "seats": [{"name": "ann"}, {"name": "bob"}],
                                                  "first_dealer": 1, "options": {"turn_timeout_s": 3}})
    assert status == 201, created
    game_id = created["game_id"]
    ann, bob = (s["token"] for s in created["seats"])
    driver = new_browser()
    hold_seat(driver, live_server, game_id, 0, ann, "ann")

    for _ in range(600):
        view = api.view(game_id, bob)
        events = api.call("GET", f"/games/{game_id}/events?limit=1000", token=ann)[1]["events"]
        timeouts = [e for e in events if e["type"] == "turn_timed_out" and e["data"]["seat"] == 0]
        if view["to_act"] == [1]:
            if len(timeouts) >= 2:
                break
            status, answer = api.call("POST", f"/games/{game_id}/moves", short_game_move(view["legal_moves"], view["hand"]),
                                      token=bob, headers={"If-Match": f'"{view["version"]}"'})
            assert status == 200, answer
        time.sleep(0.1)
    else:
        raise AssertionError("the clock never played two of ann's turns")
    assert not any(e["type"] == "turn_timed_out" and e["data"]["seat"] == 1 for e in events)
    moves = [said(e) for e in events if e["type"] in ("upcard_passed", "upcard_taken", "card_drawn", "card_discarded")
             and e["data"]["seat"] == 0]
    # each of the clock's moves is a turn of its own (a timeout each): two at least
    assert len(moves) == len(timeouts) >= 2
    expected = ("Time ran out: the basic move was played for you: "
                + (", ".join(moves[:-1]) + " and " + moves[-1]) + ".")

    driver.get(f"{live_server}/play/{game_id}#seat=0")
    notice = wait_for(driver, lambda d: text_of(d, "#notice"), what="the clock's notice")
    assert notice == expected
