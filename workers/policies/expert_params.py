"""The expert policy's tuning: every weight, margin and bound of its decisions (expert.py and
expert_search.py say how each is used)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .estimator import EstimatorParams


@dataclass
class ExpertParams:
    """Tuning of the expert policy."""

    budget_s: float | None = 0.2  # most time per move; None: fixed effort (the minimums only)
    budget_reserve: float = 0.05  # share of the budget kept for the work after the search stops
    samples: int = 40             # opponent hands drawn from the estimate
    danger_weight: float = 2.0    # points charged for a discard the opponent surely melds
    knock_outs_weight: float = 6.0  # points a certain knock after the next draw is worth
    gin_outs_weight: float = 10.0   # points a certain gin after the next draw is worth
    take_margin: float = 0.5      # points a pile card must save over a stock draw
    stock_draws: int = 0          # stock cards weighed against a pile card (0: every unseen card)
    no_knock_weight: float = 0.3  # weight of a sampled opponent hand that could have knocked
    urgency_min: float = 0.7      # least weight of the deadwood held now in a hand's value
    age_turns: int = 8            # most turns of hand building given to a sampled opponent hand
    age_rate: float = 0.5  # turns of hand building per turn the opponent played
    sample_danger: bool = True    # danger from the sampled hands (else from the card probabilities)
    knock_margin: float = 0.0     # knock when its expectation beats playing on by this much
    later_decay: float = 2.0      # points a knock loses by waiting a turn (the opponent improves too)
    knock_needs_gain: bool = True  # never knock when the knock itself is expected to lose
    play_on: bool = True          # weigh knocking against playing on (False: knock at any gain)
    gin_margin: float = 10.0      # a plain knock must beat the gin at hand by this much
    rollouts: bool = True         # search the close calls by playing the hand out
    candidates: int = 3           # discards compared by the search
    search_gap: float = 3.0       # rules' values within this many points: a close call
    min_rollouts: int = 16        # determinizations always played out per searched decision
    max_rollouts: int = 240
    rollout_z: float = 2.0        # standard errors by which the search must beat the rules' choice
    stop_z: float = 3.0           # the search stops once the leader is this clear
    estimator: EstimatorParams = field(default_factory=EstimatorParams)
