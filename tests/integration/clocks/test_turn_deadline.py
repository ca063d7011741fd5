"""The view's ``turn_deadline_ms``: with the rule option ``turn_timeout_s``, when the turn clock plays
for the human seat to act (the ts of the game's last event plus the timeout), the same for every
viewer and read from the log; null without a clock, when only a bot is to act, and once the game is over."""

from __future__ import annotations

from support.gameplay import create_game


def _last_ts(g) -> int:
    return g.events()[-1]["ts"]


def test_the_deadline_is_the_last_events_time_plus_the_timeout_for_every_viewer(api):
    g = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}], options={"turn_timeout_s": 45},
                    first_dealer=1)
    created = g.created["view"]
    first = g.view(0)
    assert first["to_act"] == [0]  # ann, the non-dealer, is offered the upcard
    # 45 s is 45,000 ms after the hand_dealt event that gave ann her turn
    assert first["turn_deadline_ms"] == _last_ts(g) + 45_000
    assert created["turn_deadline_ms"] == first["turn_deadline_ms"]
    assert g.view(1)["turn_deadline_ms"] == g.view(None)["turn_deadline_ms"] == first["turn_deadline_ms"]
    dealt_version = first["version"]

    after = g.move(0, {"type": "pass_upcard"})
    passed_ts = _last_ts(g)
    assert after["to_act"] == [1] and after["turn_deadline_ms"] == passed_ts + 45_000
    assert g.view(None)["turn_deadline_ms"] == passed_ts + 45_000
    # the view of a past version keeps the deadline it had
    past = g.state_at(dealt_version).get_json()
    assert past["turn_deadline_ms"] == first["turn_deadline_ms"]

    over = g.move(1, {"type": "resign"})
    assert over["status"] == "over" and over["turn_deadline_ms"] is None
    assert g.view(None)["turn_deadline_ms"] is None


def test_without_a_clock_or_with_only_a_bot_to_act_there_is_no_deadline(api):
    plain = create_game(api, "gin-rami", [{"name": "ann"}, {"name": "bob"}])
    assert plain.view(None)["status"] == "playing" and plain.view(None)["turn_deadline_ms"] is None
    # a bot to act has no clock (the bot plays; the api fixture runs no worker, so it waits)
    bot_first = create_game(api, "gin-rami", [{"name": "ann"}, {"bot": "basic"}], options={"turn_timeout_s": 45},
                            first_dealer=0)
    view = bot_first.view(0)
    assert view["to_act"] == [1] and view["turn_deadline_ms"] is None
    # a game waiting for a seat: no turn, no deadline
    waiting = create_game(api, "gin-rami", [{"name": "ann"}, None], options={"turn_timeout_s": 45})
    assert waiting.view(None)["status"] == "waiting" and waiting.view(None)["turn_deadline_ms"] is None
