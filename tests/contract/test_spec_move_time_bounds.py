"""openapi.yaml's bounds on a turn clock (`move_time_s`) are the server's."""

from __future__ import annotations

from pathlib import Path

import yaml

from schemas.arena import MAX_MOVE_TIME_S
from service.arena import MIN_ACCOUNT_MOVE_TIME_S

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text(encoding="utf-8"))
COMPONENTS = SPEC["components"]["schemas"]


def test_a_challenges_move_time_is_bounded_as_the_server_bounds_it():
    # a challenge always seats the challenged bot account, so the account's floor is the challenge's
    move_time = COMPONENTS["ChallengeRequest"]["properties"]["move_time_s"]
    assert move_time["minimum"] == MIN_ACCOUNT_MOVE_TIME_S == 5
    assert move_time["maximum"] == MAX_MOVE_TIME_S


def test_a_matchs_move_time_floor_is_one_second_as_a_match_may_seat_no_bot_account():
    # the floor of a match seating a bot account is in the prose: a match of built-in policies takes 1 s
    move_time = COMPONENTS["MatchRequest"]["properties"]["move_time_s"]
    assert move_time["minimum"] == 1
    assert str(MIN_ACCOUNT_MOVE_TIME_S) in move_time["description"]
    assert move_time["maximum"] == MAX_MOVE_TIME_S
