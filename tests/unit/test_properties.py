"""Properties of the engine under random legal play, checked with hypothesis.

- from any seed, random legal play finishes the game with a unique winner (RULES.md §1 Game);
- with Hollywood (§5), it finishes all three games, whose sheets a plain recount of the hands
  (written here, apart from the engine) gives again;
- the 52 cards are conserved in every state (§1 Cards);
- replay(events) is the state built move by move, and snapshots round-trip;
- a command is accepted exactly when legal_moves lists it, and a refused one changes nothing;
- no view of a state or of an event shows a card its viewer may not see; visibility is
  defined here from the event history, apart from the views module.
"""

from __future__ import annotations

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.rules import cards, melds
from service.rules import game as G
from service.rules.commands import (
    Advise,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    TakeUpcard,
)
from service.rules.errors import RulesError
from service.rules.events import (
    AdviceGiven,
    CardDiscarded,
    CardDrawn,
    CardsCut,
    HandDealt,
    HandScored,
    Knocked,
    UpcardTaken,
    encode,
)
from service.rules.views import view_event, view_state

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])

variants = st.sampled_from(["gin-rami", "three-hand"])
seeds = st.binary(min_size=1, max_size=16)
# long enough that the hex of the seed cannot appear in a view by chance
long_seeds = st.binary(min_size=12, max_size=16)

POOL = (
    [TakeUpcard(), PassUpcard(), DrawStock(), DrawDiscard(), Knock(None, None)]
    + [Discard(c) for c in cards.DECK]
    + [Knock(c, None) for c in cards.DECK]
)


def new_game(variant, seed, options):
    n = 3 if variant == "three-hand" else 2
    players = [{"name": f"p{i}"} for i in range(n)]
    events = G.start(G.GameSpec(variant, players, options, seed=seed))
    return G.replay(events), list(events)


def steps(variant, seed, rng_seed, options, knock_bias=0.0, limit=50_000, must_finish=True):
    """Random legal play; yields (state before, events, state after) for every command.

    Raises if the game is not over after ``limit`` commands, unless ``must_finish`` is False.
    """
    state, events = new_game(variant, seed, options)
    yield None, events, state
    rng = random.Random(rng_seed)
    for _ in range(limit):
        if state.status != "playing":
            return
        if state.roles is not None and rng.random() < 0.02:
            actor, command = state.roles["advisor"], Advise("think about the stock")
        else:
            actor = state.to_act[0]
            moves = G.legal_moves(state, actor)
            knocks = [m for m in moves if isinstance(m, Knock)]
            command = rng.choice(knocks if knocks and rng.random() < knock_bias else moves)
        before = state
        new = G.decide(state, actor, command)
        for e in new:
            state = G.evolve(state, e)
        yield before, new, state
    if must_finish:
        raise AssertionError("the game did not finish")


def conserved(s) -> bool:
    """Hands, discard pile and stock hold each of the 52 cards exactly once."""
    union, count = 0, 0
    for m in s.hands:
        union |= m
        count += bin(m).count("1")
    for c in s.pile + s.stock:
        union |= 1 << c
        count += 1
    return count == 52 and union == cards.FULL_MASK


@settings(max_examples=15, **SETTINGS)
@given(variant=variants, seed=seeds, rng_seed=st.integers(0, 2**32),
       knock_bias=st.sampled_from([0.0, 0.2, 0.6]))
def test_random_legal_play_finishes_with_a_unique_winner_and_conserves_cards(variant, seed, rng_seed, knock_bias):
    target = 10
    log, state = [], None
    for _, new, after in steps(variant, seed, rng_seed, {"target_score": target}, knock_bias):
        for e in new:
            state = G.evolve(state, e)
            if state.hand_no:
                assert conserved(state)
        log += new
    assert state == after  # built event by event here, command by command in steps()
    assert state.status == "over" and state.phase == "game_over"
    winner = state.winner
    assert state.scores[winner] >= target
    assert all(sc < target for i, sc in enumerate(state.scores) if i != winner)
    if variant == "three-hand":
        # the advisor seat of every hand scored nothing in it (§2)
        assert sum(state.scores) == sum(e.points for e in log if isinstance(e, HandScored))
    # the log replays to the same state, as objects and in wire form
    assert G.replay(log) == state
    assert G.replay([json.loads(json.dumps(encode(e))) for e in log]) == state


def recount_hollywood(hands, target, box_bonus, game_bonus):
    """The three games of a Hollywood match from its hands' (winner, points), recounted from
    RULES.md §5 alone: the k-th win of a seat goes into games 1..min(k, 3) that are not over; a
    game is over once a seat reaches the target in it, then gets its box and game bonuses."""
    wins = [0, 0]
    points = [[0, 0] for _ in range(3)]
    entered = [[0, 0] for _ in range(3)]
    winners = [None, None, None]
    for winner, scored in hands:
        wins[winner] += 1
        for g in range(min(wins[winner], 3)):
            if winners[g] is None:
                points[g][winner] += scored
                entered[g][winner] += 1
                if points[g][winner] >= target:
                    winners[g] = winner
    totals = [[points[g][s] + box_bonus * entered[g][s] + (game_bonus if winners[g] == s else 0)
               for s in range(2)] for g in range(3)]
    return winners, points, entered, totals


@settings(max_examples=10, **SETTINGS)
@given(seed=seeds, rng_seed=st.integers(0, 2**32), knock_bias=st.sampled_from([0.2, 0.6]),
       target=st.sampled_from([10, 25]))
def test_random_hollywood_play_finishes_three_games_that_a_recount_of_the_hands_gives(seed, rng_seed, knock_bias,
                                                                                       target):
    options = {"target_score": target, "hollywood": True, "box_bonus": 5, "game_bonus": 30}
    log, state = [], None
    for _, new, after in steps("gin-rami", seed, rng_seed, options, knock_bias):
        for e in new:
            state = G.evolve(state, e)
            if state.hand_no:
                assert conserved(state)
        log += new
    assert state == after and state.status == "over" and state.phase == "game_over"
    hands = [(e.winner, e.points) for e in log if isinstance(e, HandScored)]
    winners, points, entered, totals = recount_hollywood(hands, target, 5, 30)
    games = view_state(state, None)["hollywood"]["games"]
    assert [g["winner"] for g in games] == winners
    assert [g["hand_points"] for g in games] == points and [g["hands_won"] for g in games] == entered
    assert [g["scores"] for g in games] == totals
    overall = [sum(totals[g][s] for g in range(3)) for s in range(2)]
    assert state.scores == overall
    # the higher overall score wins; on equal scores, the seat that won two games of three
    assert state.winner == max(range(2), key=lambda s: (overall[s], winners.count(s)))
    # the last hand ended the last open game, and no hand came after
    assert isinstance(log[-2], HandScored) and log[-2].next_dealer is None
    assert G.replay([json.loads(json.dumps(encode(e))) for e in log]) == state


def candidate_commands(state, seat, rng) -> list:
    """The commands to try for a seat: every fixed command, a discard and a knock of each
    card it holds, and of a few cards it does not hold."""
    held = cards.codes_of(state.hands[seat])
    others = rng.sample([c for c in cards.DECK if c not in held], 3)
    return POOL[:5] + [cls(c, *extra) for c in held + others for cls, extra in ((Discard, ()), (Knock, (None,)))]


@settings(max_examples=10, **SETTINGS)
@given(variant=variants, seed=seeds, rng_seed=st.integers(0, 2**32),
       max_turns=st.sampled_from([3, 200]), hollywood=st.booleans())
def test_commands_are_accepted_exactly_when_listed_and_refusals_change_nothing(variant, seed, rng_seed, max_turns,
                                                                               hollywood):
    # Hollywood (§5) is gin-rami's only
    options = {"target_score": 15, "max_turns_per_hand": max_turns, "hollywood": hollywood and variant == "gin-rami"}
    rng = random.Random(rng_seed)
    play = steps(variant, seed, rng_seed, options, knock_bias=0.3, limit=1500, must_finish=False)
    for i, (before, _, state) in enumerate(play):
        # every tenth state, and every state where the player to act could knock (rare under
        # random play, and where most of the rules about knocking are decided)
        knockable = state.phase == "discard" and melds.deadwood_after_discard_mask(
            state.hands[state.to_act[0]]
        ) <= state.knock_limit
        if i % 10 and not knockable:
            continue
        snapshot = json.loads(json.dumps(G.state_to_dict(state)))
        assert G.state_from_dict(snapshot) == state
        for seat in range(state.nseats):
            legal = G.legal_moves(state, seat)
            listed = set(legal)
            for command in candidate_commands(state, seat, rng):
                try:
                    G.decide(state, seat, command)
                    accepted = True
                except RulesError as err:
                    accepted = False
                    assert err.code and err.message
                assert accepted == (command in listed), (seat, command, state.phase)
            # every listed move is accepted, whatever the candidates were
            for command in legal:
                G.decide(state, seat, command)
        assert G.state_to_dict(state) == snapshot  # nothing was changed by any decide


def allowed_in_event(e, viewer, before, tracker) -> set[str]:
    """Cards ``viewer`` may see in event ``e``, from the rules of hidden information."""
    t = type(e)
    if t is CardsCut:
        return set(e.cards)
    if t is HandDealt:
        hands = {e.non_dealer: set(e.deck[0:20:2]), e.dealer: set(e.deck[1:20:2])}
        owner = tracker.team_hand_of(viewer, before)
        return hands.get(owner, set()) | {e.deck[20]}
    if t in (UpcardTaken, CardDiscarded):
        return {e.card}
    if t is CardDrawn:
        if e.source == "discard" or tracker.team_hand_of(viewer, before) == e.seat:
            return {e.card}
        return set()
    if t in (Knocked, HandScored):
        # both hands are laid down at the end of a hand
        return {c for seat in before.active_seats for c in cards.codes_of(before.hands[seat])} | (
            {c for c in cards.DECK if before.pile and c == cards.code(before.pile[-1])}
        )
    return set()


class Tracker:
    """Public knowledge rebuilt from the events: cards each seat took from the discard pile."""

    def __init__(self):
        self.known: dict[int, set] = {}

    def team_hand_of(self, viewer, state):
        if viewer is None or state is None:
            return None
        if state.roles is not None and viewer == state.roles["advisor"]:
            return state.roles["captain"]
        return viewer

    def apply(self, e):
        t = type(e)
        if t is HandDealt:
            self.known = {}
        elif t is UpcardTaken or (t is CardDrawn and e.source == "discard"):
            self.known.setdefault(e.seat, set()).add(e.card)
        elif t is CardDiscarded:
            self.known.get(e.seat, set()).discard(e.card)

    def hidden_from(self, viewer, state) -> set[str]:
        own = self.team_hand_of(viewer, state)
        hidden = {cards.code(c) for c in state.stock}
        for seat in range(state.nseats):
            if seat != own:
                hidden |= set(cards.codes_of(state.hands[seat])) - self.known.get(seat, set())
        return hidden


def strip_results(view: dict) -> dict:
    # finished hands' laid-down cards and the cut cards are public and may coincide with cards
    # that are hidden now
    return {k: v for k, v in view.items() if k not in ("last_hand", "hand_results", "cuts")}


CODE = re.compile(r'"([A2-9TJQK][CDHS])"')


def codes_in(obj) -> set[str]:
    """Every card code appearing as a string anywhere in a JSON-able value."""
    return set(CODE.findall(json.dumps(obj)))


def shows(obj, secret: str) -> bool:
    return secret in json.dumps(obj)


@settings(max_examples=8, **SETTINGS)
@given(variant=variants, seed=long_seeds, rng_seed=st.integers(0, 2**32), hollywood=st.booleans())
def test_no_view_shows_a_card_its_viewer_may_not_see(variant, seed, rng_seed, hollywood):
    tracker = Tracker()
    secret = seed.hex()
    viewers = [None, 0, 1] + ([2] if variant == "three-hand" else [])
    state = None
    for i, (_, new, after) in enumerate(
        steps(variant, seed, rng_seed, {"target_score": 15, "max_turns_per_hand": 40,
                                         "hollywood": hollywood and variant == "gin-rami"}, knock_bias=0.5)
    ):
        for e in new:
            for viewer in viewers:
                v = view_event(e, viewer, state)
                if state is not None and state.status == "over":
                    continue
                if v is None:
                    assert isinstance(e, AdviceGiven) and viewer not in (e.seat, e.captain)
                    continue
                if isinstance(e, AdviceGiven):
                    assert viewer in (e.seat, e.captain)
                assert codes_in(v) <= allowed_in_event(e, viewer, state, tracker), (type(e), viewer)
                if type(e).TYPE != "game_ended":
                    assert not shows(v, secret)
            tracker.apply(e)
            state = G.evolve(state, e)
        if i % 4 == 0 and state.status == "playing":
            for viewer in viewers:
                v = view_state(state, viewer)
                assert not codes_in(strip_results(v)) & tracker.hidden_from(viewer, state), viewer
                assert not shows(v, secret)
                if viewer is not None and state.hand_no:
                    own = tracker.team_hand_of(viewer, state)
                    assert v["hand"] == cards.codes_of(state.hands[own])
    assert state.status == "over"
    for viewer in viewers:
        assert view_state(state, viewer)["seed"] == secret
