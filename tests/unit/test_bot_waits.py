"""How long the HTTP bots (workers.outside_bot, workers.arena_bot) wait when the server asks for time."""

from __future__ import annotations

import pytest

from workers.outside_bot import problem_text, retry_delay


@pytest.mark.parametrize("retry_after, expected", [("7", 7.0), ("0.5", 0.5), ("0", 0.0)])
def test_retry_after_in_seconds_is_waited_plus_at_most_a_fifth(retry_after, expected):
    for failures in (1, 4):
        for _ in range(50):
            assert expected <= retry_delay(retry_after, failures, max_wait_s=30) <= expected * 1.2


def test_a_long_retry_after_is_capped_at_the_longest_wait():
    for _ in range(50):
        assert 30 <= retry_delay("45", 1, max_wait_s=30) <= 36


@pytest.mark.parametrize("retry_after", [None, "Wed, 21 Oct 2026 07:28:00 GMT", "-3", "nan"])
def test_without_a_usable_retry_after_the_wait_doubles_from_half_a_second(retry_after):
    for failures, base in ((1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0)):
        for _ in range(20):
            assert base <= retry_delay(retry_after, failures, max_wait_s=30) <= base * 1.2
    for _ in range(20):  # and stops doubling at the cap
        assert 30 <= retry_delay(retry_after, 40, max_wait_s=30) <= 36


def test_problems_are_told_by_status_code_and_detail_or_title():
    assert problem_text(429, {"code": "rate_limited", "title": "Too many requests", "detail": "wait"}) \
        == "429 rate_limited: wait"
    assert problem_text(503, {"code": "redis_unavailable", "title": "Storage unavailable"}) \
        == "503 redis_unavailable: Storage unavailable"
    assert problem_text(502, None) == "502 (no problem details)"
