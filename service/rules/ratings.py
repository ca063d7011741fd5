"""Glicko-2 ratings: one rating period's update.

A rating is (rating, deviation, volatility) on the Glicko scale (1500, 350, 0.06 for a newcomer).
:func:`update` takes a player's rating and the results of one rating period, and returns the new rating.
Each result is an opponent's rating and the score against them (1 a win, 0.5 a draw, 0 a loss).
"""

from __future__ import annotations

# Pure: the standard library only.
import math
from dataclasses import dataclass

#: Glicko-2's scale factor between the Glicko and the Glicko-2 scales
SCALE = 173.7178
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
#: the system constant: how much the volatility may change (the paper advises 0.3 to 1.2)
TAU = 0.5
#: convergence tolerance of the volatility iteration (step 5)
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A Glicko-2 rating on the Glicko scale, with the number of games it was built on."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY
    games: int = 0

    def as_dict(self) -> dict:
        return {"rating": self.rating, "deviation": self.deviation, "volatility": self.volatility,
                "games": self.games}

    @classmethod
    def from_dict(cls, d: dict | None) -> "Rating":
        if not d:
            return cls()
        return cls(float(d["rating"]), float(d["deviation"]), float(d["volatility"]), int(d.get("games", 0)))


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``results`` [(opponent, score)] (steps 1-8)."""
    # It follows the paper's steps 1 to 8 (Glickman, "Example of the Glicko-2 system", 2013).
    # The paper's worked example is a unit test (tests/unit/test_ratings_glicko2.py).
    # step 2: to the Glicko-2 scale
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        # a period without games: only the deviation grows (step 6)
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return Rating(player.rating, min(phi_star * SCALE, DEFAULT_DEVIATION), sigma, player.games)
    opponents = [((o.rating - DEFAULT_RATING) / SCALE, o.deviation / SCALE, s) for o, s in results]
    # step 3: the estimated variance of the rating from the game outcomes alone
    v_inv = 0.0
    delta_sum = 0.0
    for mu_j, phi_j, score in opponents:
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    # step 4: the estimated improvement
    delta = v * delta_sum
    # step 5: the new volatility (the Illinois algorithm)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)
    # steps 6 and 7: the new deviation and rating
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    # step 8: back to the Glicko scale
    return Rating(SCALE * mu_new + DEFAULT_RATING, SCALE * phi_new, sigma_new, player.games + len(results))


def score_of(difference: float) -> float:
    """A Glicko score from a points difference: 1 ahead, 0.5 level, 0 behind."""
    return 1.0 if difference > 0 else 0.5 if difference == 0 else 0.0


def rate_period(ratings: dict[str, Rating], pairings: list[tuple[str, str, float]]) -> dict[str, Rating]:
    """Every player's new rating after one period of ``pairings`` [(a, b, a's score against b)].

    Each player is updated from the ratings as they stood before the period (the paper's rule),
    so the order of the pairings does not matter.
    """
    results: dict[str, list[tuple[Rating, float]]] = {}
    for a, b, score in pairings:
        results.setdefault(a, []).append((ratings.get(b, Rating()), score))
        results.setdefault(b, []).append((ratings.get(a, Rating()), 1.0 - score))
    return {name: update(ratings.get(name, Rating()), rs) for name, rs in results.items()}
