"""Glicko-2 against the worked example of Glickman's "Example of the Glicko-2 system" (2013)."""

from __future__ import annotations

import pytest

from service.rules.ratings import Rating, rate_period, update


def test_the_papers_worked_example_gives_1464_06_and_151_52_and_0_05999():
    # the player (1500, 200, 0.06) beats a 1400 (RD 30), loses to a 1550 (RD 100) and to a 1700 (RD 300)
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, results, tau=0.5)
    assert new.rating == pytest.approx(1464.06, abs=0.01)
    assert new.deviation == pytest.approx(151.52, abs=0.01)
    assert new.volatility == pytest.approx(0.05999, abs=0.00001)
    assert new.games == 3


def test_a_period_without_games_only_widens_the_deviation():
    new = update(Rating(1600, 100, 0.06), [])
    assert new.rating == 1600
    # step 6: phi* = sqrt(phi^2 + sigma^2), on the Glicko-2 scale
    assert new.deviation == pytest.approx(173.7178 * ((100 / 173.7178) ** 2 + 0.06**2) ** 0.5)


def test_the_winner_of_a_period_rises_and_the_loser_falls_by_the_same_amount_from_equal_ratings():
    new = rate_period({}, [("ann", "bob", 1.0)])
    assert new["ann"].rating > 1500 > new["bob"].rating
    assert new["ann"].rating - 1500 == pytest.approx(1500 - new["bob"].rating)
    assert new["ann"].deviation < 350 and new["ann"].games == 1


def test_a_draw_between_equals_leaves_ratings_where_they_were():
    new = rate_period({}, [("ann", "bob", 0.5)])
    assert new["ann"].rating == pytest.approx(1500) and new["bob"].rating == pytest.approx(1500)
