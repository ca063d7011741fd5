"""``simple`` plays whole games through the engine against ``basic`` and ``expert`` (RULES.md §5).

The games run in one process (workers.arena.Table: each seat gets its own view and redacted events, as
a bot worker gives them). At every move of ``simple`` the test checks §5's rules against the table's
hidden state, worked out here independently of the policy: the pile card is taken exactly when a set
or run of three holds it, the discard leaves the least deadwood among the cards allowed, and it knocks
exactly when that deadwood is within the hand's limit.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from marshmallow import ValidationError

from schemas.games import CreateGameSchema
from service.rules import game as G
from service.rules import melds as M
from service.rules import views
from service.rules.commands import Discard, Knock
from service.rules.events import RolesAssigned
from workers.arena import Table
from workers.policies import ExpertPolicy, make_policy


def melds_with(hand: list[str], card: str) -> bool:
    """Some set or run of three of ``hand`` plus ``card`` holds ``card`` (any longer meld holds one)."""
    return any(M.is_meld([card, a, b]) for a, b in combinations(hand, 2))


def deadwood_without(hand: list[str], card: str) -> int:
    return M.deadwood([c for c in hand if c != card])


class Checked:
    """``simple`` in one seat, with every move it makes checked against the rules of §5."""

    def __init__(self):
        self.policy = make_policy("simple")
        self.name = "simple"
        self.pairs: set = set()
        self.hand_no = 0
        self.before: list[str] = []
        self.counts = {"took": 0, "drew_stock": 0, "discard": 0, "knock": 0}

    def choose(self, table: Table, seat: int, rng: random.Random):
        state = table.state
        view = views.view_state(state, seat)
        command = self.policy.choose(view, rng, table.seen[seat])
        if state.hand_no != self.hand_no:
            self.hand_no, self.pairs = state.hand_no, set()
        hand = list(view["hand"])
        if view["phase"] in ("upcard", "draw"):
            self.before = hand
            types = {m["type"] for m in view["legal_moves"]}
            top = view["discard_pile"][-1]
            pile_allowed = "take_upcard" in types or "draw_discard" in types
            takes = command.TYPE in ("take_upcard", "draw_discard")
            assert takes == (pile_allowed and melds_with(hand, top)), (hand, top, command)
            self.counts["took" if takes else "drew_stock"] += command.TYPE != "pass_upcard"
            return command
        drawn = next(iter(set(hand) - set(self.before)), None)
        legal = [m["card"] for m in view["legal_moves"] if m["type"] == "discard"]
        allowed = [c for c in legal if (drawn, c) not in self.pairs] or legal
        least = min(deadwood_without(hand, c) for c in allowed)
        card = command.card if isinstance(command, Discard) else command.discard
        assert card in allowed and deadwood_without(hand, card) == least, (hand, drawn, self.pairs, command)
        assert isinstance(command, Knock) == (least <= view["knock_limit"]), (hand, least, command)
        self.pairs.add((drawn, card))
        self.counts["knock" if isinstance(command, Knock) else "discard"] += 1
        return command


def play_game(variant: str, rules: str | None, others: list, seed: str) -> tuple[Table, Checked]:
    simple = Checked()
    seats = [simple, *others]
    t = Table.start(G.GameSpec(variant=variant, rules=rules, seed=seed.encode(),
                               players=[{"name": f"p{i}", "bot": p.name} for i, p in enumerate(seats)]))
    rng = random.Random(seed)
    while t.state.status == "playing":
        seat = t.state.to_act[0]
        policy = seats[seat]
        if policy is simple:
            command = simple.choose(t, seat, rng)
        else:
            command = policy.choose(views.view_state(t.state, seat), rng, t.seen[seat])
        t.play(seat, command)  # the engine refuses an illegal move
    return t, simple


def expert():
    return ExpertPolicy(budget_s=None)  # fixed effort: its moves depend on the view, the events and the seed


@pytest.mark.parametrize("rules", ["eaai", None])
@pytest.mark.parametrize("opponent", ["basic", "expert"])
def test_simple_plays_whole_two_player_games(rules, opponent):
    totals = {"took": 0, "drew_stock": 0, "discard": 0, "knock": 0}
    for i in range(3 if opponent == "basic" else 2):
        other = expert() if opponent == "expert" else make_policy(opponent)
        t, simple = play_game("gin-rami", rules, [other], f"simple-{opponent}-{rules}-{i}")
        # the game ran to its target (100 under both rule sets): one player reached it
        assert t.state.status == "over" and max(t.state.scores) >= 100
        for k, v in simple.counts.items():
            totals[k] += v
    # every kind of decision came up and passed the checks
    assert all(v > 0 for v in totals.values()), totals


@pytest.mark.parametrize("rules", ["box-gin", None])
def test_simple_plays_whole_box_gin_games_in_every_role(rules):
    roles_held: set = set()
    knocks = 0
    for i in range(2):
        t, simple = play_game("three-hand", rules, [make_policy("basic"), expert()], f"simple-box-{rules}-{i}")
        assert t.state.status == "over" and max(t.state.scores) >= 100
        knocks += simple.counts["knock"]
        for e in t.log:
            if isinstance(e, RolesAssigned):
                roles_held |= {role for role in ("box", "captain", "advisor") if getattr(e, role) == 0}
    assert knocks > 0
    assert {"box", "captain"} <= roles_held


@pytest.mark.parametrize("body", [
    {"variant": "gin-rami", "rules": "eaai", "seats": [{"name": "ann"}, {"bot": "simple"}]},
    {"variant": "gin-rami", "seats": [{"bot": "simple"}, {"bot": "expert"}]},
    {"variant": "three-hand", "seats": [{"bot": "simple"}, {"name": "ann"}, {"bot": "basic"}]},
])
def test_a_game_may_seat_simple_in_either_variant(body):
    loaded = CreateGameSchema().load(body)
    assert any(s and s.get("bot") == "simple" for s in loaded["seats"])


def test_the_built_in_name_is_lower_case_only():
    with pytest.raises(ValidationError):
        CreateGameSchema().load({"variant": "gin-rami", "seats": [{"name": "ann"}, {"bot": "Simple"}]})
