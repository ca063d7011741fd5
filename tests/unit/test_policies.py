"""Bot policies: legal moves only, decisions from the seat's view only, and each policy's habits.

Hands are written as card codes; each scenario is dealt from an explicit deck (RULES.md §1
"Deal", explicit-deck [decision]: cards 1-20 alternate non-dealer first, card 21 is the upcard,
card 22 the top of the stock).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from service.rules import cards as C
from service.rules import game as G
from service.rules import layoffs
from service.rules import melds as M
from service.rules import views
from service.rules.commands import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS_UPCARD,
    TAKE_UPCARD,
    Discard,
    Knock,
    command_to_dict,
)
from service.rules.names import BOT_POLICY_NAMES
from workers.arena import Table
from workers.policies import (
    POLICY_NAMES,
    AdvancedPolicy,
    BasicPolicy,
    ExpertParams,
    ExpertPolicy,
    RandomPolicy,
    advice_text,
    make_policy,
    owner_moves,
    read,
)
from workers.policies import expert as expert_module

EXPERT_FIXED = dict(budget_s=None)  # fixed effort: a move depends only on view, events and rng


def deck(non_dealer: list[str], dealer: list[str], upcard: str, stock_top: list[str] = ()) -> list[str]:
    """An explicit deck dealing these hands, upcard and top of the stock (the rest in index order)."""
    head = [c for pair in zip(non_dealer, dealer) for c in pair] + [upcard, *stock_top]
    assert len(set(head)) == len(head) == 21 + len(stock_top)
    return head + [c for c in C.DECK if c not in head]


def gin_rami(d: list[str], dealer: int = 0, players=None, **options) -> Table:
    return Table.start(G.GameSpec(
        variant="gin-rami",
        players=players or [{"name": "a"}, {"name": "b"}],
        options={"target_score": 100, **options},
        seed=b"policy-tests",
        decks=[d],
        first_dealer=dealer,
    ))


def legal_dicts(state, seat) -> list[dict]:
    return [command_to_dict(c) for c in G.legal_moves(state, seat)]


def random_tables(n: int, variant: str = "gin-rami"):
    """Positions reached by random play from ``n`` seeded games (bounded: 60 moves each)."""
    for i in range(n):
        rng = random.Random(i)
        players = [{"name": f"p{s}"} for s in range(3 if variant == "three-hand" else 2)]
        table = Table.start(G.GameSpec(variant=variant, players=players, seed=f"s{i}".encode()))
        for _ in range(60):
            if table.state.status != "playing":
                break
            seat = table.state.to_act[0]
            yield table, seat
            moves = G.legal_moves(table.state, seat)
            table.play(seat, moves[rng.randrange(len(moves))])


# --------------------------------------------------------------------------- every policy


@pytest.mark.parametrize("name", ["random", "basic", "advanced", "expert"])
def test_every_policy_picks_one_of_the_seats_legal_moves(name):
    policy = ExpertPolicy(**EXPERT_FIXED) if name == "expert" else make_policy(name)
    rng = random.Random(5)
    checked = Counter()
    for table, seat in random_tables(6):
        view = views.view_state(table.state, seat)
        move = policy.choose(view, rng, table.seen[seat])
        assert command_to_dict(move) in legal_dicts(table.state, seat)
        checked[table.state.phase] += 1
    # the positions covered every kind of decision
    assert {"upcard", "draw", "discard"} <= set(checked)


@pytest.mark.parametrize("name", ["random", "basic", "advanced", "expert"])
def test_a_policy_decides_from_the_view_alone_so_hidden_cards_do_not_change_its_move(name):
    """Two deals that differ only in cards the seat cannot see give it one view and one move."""
    policy = ExpertPolicy(**EXPERT_FIXED) if name == "expert" else make_policy(name)
    mine = ["7H", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"]
    other_a = ["AH", "AD", "2H", "3H", "4H", "5H", "6H", "TH", "JH", "QH"]
    rest = [c for c in C.DECK if c not in mine + other_a + ["9H"]]
    # the second deal gives the opponent ten different hidden cards and a different stock
    other_b = rest[:10]
    compared = 0
    for decision in range(3):
        moves = []
        seen_views = []
        for other in (other_a, other_b):
            stock = [c for c in C.DECK if c not in mine + other + ["9H"]]
            random.Random(decision).shuffle(stock)
            table = gin_rami(deck(mine, other, "9H", stock), dealer=1)
            # the non-dealer (seat 0) decides; at decision > 0 both first passed the upcard
            for _ in range(decision):
                table.play(table.state.to_act[0], PASS_UPCARD)
            seat = table.state.to_act[0]
            if seat != 0:
                continue
            view = views.view_state(table.state, 0)
            seen_views.append({k: v for k, v in view.items() if k not in ("version",)})
            moves.append(policy.choose(view, random.Random(1), table.seen[0]))
        if len(moves) == 2:
            assert seen_views[0] == seen_views[1]
            assert moves[0] == moves[1]
            compared += 1
    assert compared == 2  # the upcard decision and the first draw


def test_policies_import_nothing_but_the_rules_engine():
    """STYLE.md: bot policies import only service.rules (no store, no Redis, no web layer)."""
    code = (
        "import sys, workers.policies, workers.arena\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('redis', 'rq', 'flask', 'werkzeug', 'marshmallow')"
        " or m.startswith(('service.store', 'service.games', 'service.api', 'service.bots')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --------------------------------------------------------------------------- random


def test_random_policy_spreads_its_choices_evenly_over_the_legal_moves():
    table = gin_rami(deck(
        ["7H", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"],
        ["AH", "AD", "2H", "3H", "4H", "5H", "6H", "TH", "JH", "QH"],
        "9H", ["KD"]), dealer=1)
    table.play(0, TAKE_UPCARD)  # 11 cards: 10 discards allowed (not the 9H just taken)
    view = views.view_state(table.state, 0)
    rng = random.Random(3)
    counts = Counter(command_to_dict(RandomPolicy().choose(view, rng))["card"] for _ in range(5000))
    legal = {d["card"] for d in view["legal_moves"] if d["type"] == "discard"}
    assert set(counts) == legal and len(legal) == 10
    # each of 10 moves expects 500 of 5000; a fair choice stays within +-25% with this seed
    assert all(375 <= n <= 625 for n in counts.values()), counts


# --------------------------------------------------------------------------- basic

# seat 0 (non-dealer): 7H 8H 2C 5D 9S KC QD JS 3S 4C, no meld: deadwood 7+8+2+5+9+10+10+10+3+4 = 68
BASIC_HAND = ["7H", "8H", "2C", "5D", "9S", "KC", "QD", "JS", "3S", "4C"]
OTHER = ["AH", "AD", "2H", "3H", "4H", "5H", "6H", "TH", "JH", "QH"]


def test_basic_takes_an_upcard_that_joins_a_meld_and_lowers_its_deadwood():
    """§1 First turn: 9H makes 7H-8H-9H: 68 - 15 = 53, then discarding KC leaves 43 < 68."""
    assert M.deadwood(BASIC_HAND) == 68
    table = gin_rami(deck(BASIC_HAND, OTHER, "9H"), dealer=1)
    assert BasicPolicy().choose(views.view_state(table.state, 0), random.Random(0)) == TAKE_UPCARD


def test_basic_passes_an_upcard_that_would_lie_outside_every_meld():
    """6C melds with nothing in the hand (no 5C, no other six): swapping it for a king is no meld."""
    table = gin_rami(deck(BASIC_HAND, OTHER, "6C"), dealer=1)
    assert BasicPolicy().choose(views.view_state(table.state, 0), random.Random(0)) == PASS_UPCARD


def test_basic_draws_the_discard_only_when_it_melds():
    table = gin_rami(deck(BASIC_HAND, OTHER, "6C", ["AS"]), dealer=1)
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)      # seat 0 draws AS
    table.play(0, Discard("AS"))   # AS on the pile: it melds with nothing of seat 1 (AH AD are...)
    # seat 1 holds AH AD: AS makes a set of aces (deadwood drops), so basic takes it
    assert BasicPolicy().choose(views.view_state(table.state, 1), random.Random(0)) == DRAW_DISCARD


def test_basic_discards_its_highest_useless_card():
    """After drawing 2D the ten-point cards KC, QD, JS are all useless; the king (highest) goes."""
    table = gin_rami(deck(BASIC_HAND, OTHER, "6C", ["2D"]), dealer=1)
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    assert BasicPolicy().choose(views.view_state(table.state, 0), random.Random(0)) == Discard("KC")


def test_basic_knocks_as_soon_as_it_can():
    """§1 Knocking: AC 2C 3C, 4D 5D 6D, 7S 7H 7C melded + 2S + drawn KS: discard KS leaves 2 <= 10."""
    mine = ["AC", "2C", "3C", "4D", "5D", "6D", "7S", "7H", "7C", "2S"]
    table = gin_rami(deck(mine, OTHER, "9D", ["KS"]), dealer=1)
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    move = BasicPolicy().choose(views.view_state(table.state, 0), random.Random(0))
    assert move == Knock("KS", None)


# --------------------------------------------------------------------------- expert


def test_expert_lays_out_the_set_of_four_so_the_opponents_known_six_cannot_be_laid_off():
    """§1 Knocking: 7C7D7H + 7S8S9STS takes a 6S; 7C7D7H7S + 8S9STS does not.

    The opponent took the 6S from the pile, so the expert knows it holds it, and lays out the
    arrangement that keeps it off (the engine's canonical one, chosen blind, would not).
    """
    expert_hand = ["7C", "7D", "7H", "7S", "8S", "9S", "TS", "AC", "2D", "3H"]
    opponent = ["KD", "QC", "JD", "9C", "5H", "4C", "KH", "QS", "2H", "8D"]
    table = gin_rami(deck(opponent, expert_hand, "6S", ["KC"]), dealer=0)
    table.play(1, TAKE_UPCARD)        # the opponent (non-dealer, seat 1) takes 6S ...
    table.play(1, Discard("KD"))      # ... and throws KD
    table.play(0, DRAW_STOCK)         # the expert draws KC: discarding it leaves 1+2+3 = 6
    view = views.view_state(table.state, 0)
    assert view["known_cards"][1] == ["6S"]
    move = ExpertPolicy(**EXPERT_FIXED).choose(view, random.Random(0), table.seen[0])
    assert isinstance(move, Knock) and move.discard == "KC"
    assert sorted(map(sorted, move.melds)) == sorted([sorted(["7C", "7D", "7H", "7S"]), sorted(["8S", "9S", "TS"])])
    # the premise, checked with the engine: the canonical arrangement would let 6S be laid off
    canonical = M.best_arrangement(expert_hand).melds
    defender = table.state.hands[1]
    assert layoffs.resolve_layoffs(defender, canonical).deadwood < layoffs.resolve_layoffs(
        defender, [[C.index(c) for c in m] for m in move.melds]).deadwood


def test_expert_keeps_back_the_card_that_completes_the_opponents_known_run():
    """The opponent took JH and QH from the pile: KH melds for it for sure, TS very likely not.

    Both are lone ten-point cards for the expert, so basic (highest card first) throws KH; the
    expert, weighing what the opponent would take, ranks TS first and keeps KH back (its search
    may still prefer another safe card).
    """
    opponent = ["9D", "8C", "5C", "6D", "9C", "2S", "3D", "TD", "JC", "KS"]
    expert_hand = ["AC", "2C", "3C", "4D", "4H", "4S", "6S", "7S", "KH", "QH"]
    table = gin_rami(deck(opponent, expert_hand, "JH", ["2H", "TS"]), dealer=0)
    table.play(1, TAKE_UPCARD)
    table.play(1, Discard("9D"))
    table.play(0, DRAW_STOCK)          # 2H
    table.play(0, Discard("QH"))
    table.play(1, DRAW_DISCARD)        # the opponent takes QH
    table.play(1, Discard("8C"))
    table.play(0, DRAW_STOCK)          # TS
    view = views.view_state(table.state, 0)
    assert sorted(view["known_cards"][1]) == ["JH", "QH"]
    assert BasicPolicy().choose(view, random.Random(0)) == Discard("KH")
    move = ExpertPolicy(**EXPERT_FIXED).choose(view, random.Random(0), table.seen[0])
    assert isinstance(move, Discard) and move.card != "KH"
    # without the search, the hand value and the danger alone pick TS
    assert ExpertPolicy(**EXPERT_FIXED, rollouts=False).choose(view, random.Random(0), table.seen[0]) == Discard("TS")


def test_expert_goes_big_gin_when_all_eleven_cards_meld():
    """§3 big gin (30) beats gin (20): AC-4C, 5D-7D, 8S-TS melded with the drawn JS."""
    mine = ["AC", "2C", "3C", "4C", "5D", "6D", "7D", "8S", "9S", "TS"]
    table = gin_rami(deck(mine, OTHER[:9] + ["KS"], "KD", ["JS"]), dealer=1)
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    move = ExpertPolicy(**EXPERT_FIXED).choose(views.view_state(table.state, 0), random.Random(0), table.seen[0])
    assert move == Knock(None, None) or (isinstance(move, Knock) and move.discard is None)


def test_expert_always_takes_gin():
    """Three-hand has no big gin: with ten melded cards after discarding the drawn KS, it goes gin."""
    mine = ["AC", "2C", "3C", "4C", "5D", "6D", "7D", "8S", "9S", "TS"]
    d = deck(mine, OTHER[:9] + ["KS"], "KD", ["QC"])
    table = Table.start(G.GameSpec(variant="three-hand", players=[{"name": "a"}, {"name": "b"}, {"name": "c"}],
                                   seed=b"x", decks=[d], roles={"box": 1, "captain": 0, "advisor": 2}))
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)
    table.play(0, DRAW_STOCK)
    move = ExpertPolicy(**EXPERT_FIXED).choose(views.view_state(table.state, 0), random.Random(0), table.seen[0])
    assert move == Knock("QC", move.melds) and M.deadwood([c for m in move.melds for c in m]) == 0
    assert sum(len(m) for m in move.melds) == 10


# --------------------------------------------------------------------------- advanced


def move_key(command) -> tuple:
    """A move as the legal-move list names it (a knock's melds are the knocker's choice)."""
    return command.TYPE, getattr(command, "card", None) or getattr(command, "discard", None)


@pytest.mark.parametrize("variant", ["gin-rami", "three-hand"])
def test_advanced_plays_whole_hands_with_legal_moves_only(variant):
    """advanced in every seat plays hands to their end; in three-hand its advice as advisor
    is one of the captain's moves too (RULES.md §2)."""
    policy = make_policy("advanced")
    seats = 3 if variant == "three-hand" else 2
    moves = advised = 0
    for i in range(3):
        table = Table.start(G.GameSpec(variant=variant, players=[{"name": f"p{s}"} for s in range(seats)],
                                       seed=f"advanced-{variant}-{i}".encode()))
        rng = random.Random(i)
        while table.state.status == "playing" and table.state.hand_no == 1:
            state = table.state
            seat = state.to_act[0]
            move = policy.choose(views.view_state(state, seat), rng, table.seen[seat])
            legal = {move_key(m) for m in G.legal_moves(state, seat)}
            assert move_key(move) in legal
            if variant == "three-hand" and seat == state.roles["captain"]:
                advisor = state.roles["advisor"]
                advice = policy.choose(views.view_state(state, advisor), rng, table.seen[advisor])
                assert move_key(advice) in legal
                advised += 1
            table.play(seat, move)  # the engine accepts it (a knock's melds included)
            moves += 1
        # the hand ended: scored (or drawn) and recorded
        assert len(table.state.results) == 1
    assert moves > 3 * 2 * seats
    assert advised > 0 or variant == "gin-rami"


def play_positions(choosers: dict, lead: str, games: int = 12) -> list[dict]:
    """Whole gin-rami hands in which ``choosers[lead]`` plays both seats. At each position every
    chooser picks a move, in order, each with a random generator seeded by the position's number;
    returns those picks (name -> command), one dict a position."""
    picks: list[dict] = []
    for i in range(games):
        table = Table.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}],
                                       seed=f"advanced-search-{i}".encode()))
        while table.state.status == "playing" and table.state.hand_no == 1:
            seat = table.state.to_act[0]
            view = views.view_state(table.state, seat)
            played = {name: policy.choose(view, random.Random(len(picks)), table.seen[seat])
                      for name, policy in choosers.items()}
            picks.append(played)
            table.play(seat, played[lead])
    return picks


def count_searches(monkeypatch) -> list:
    """Records (the searching policy's params, its playouts) for every search from now on."""
    searches = []
    real = expert_module._Search.rollout_choice

    def counted(self, options):
        got = real(self, options)
        searches.append((self.params, self.rollout_count))
        return got

    monkeypatch.setattr(expert_module._Search, "rollout_choice", counted)
    return searches


# slow: the full expert searches every position (10 to 20 s)
@pytest.mark.slow
def test_advanced_is_the_expert_without_the_playout_search(monkeypatch):
    """advanced plays exactly the expert's rules (ExpertPolicy with rollouts=False) and never
    calls the search, on positions where the full expert does search and sometimes moves
    differently."""
    searches = count_searches(monkeypatch)
    advanced = make_policy("advanced", budget_s=0.5)  # the budget does not apply: it never searches
    rules_only = ExpertPolicy(rollouts=False, budget_s=None)
    full = ExpertPolicy(**EXPERT_FIXED)
    picks = play_positions({"advanced": advanced, "rules_only": rules_only, "full": full}, lead="advanced")
    for played in picks:
        assert played["advanced"] == played["rules_only"]
        assert played["advanced"].reason == played["rules_only"].reason
    assert not [n for params, n in searches if params is advanced.params]
    # the comparison means something: the full expert searched these positions and its
    # search changed some of their moves
    assert len([n for params, n in searches if params is full.params]) > 10
    assert any(played["advanced"] != played["full"] for played in picks)


# slow: the full expert searches every position (12 to 25 s)
@pytest.mark.slow
def test_an_expert_out_of_time_stops_its_search_at_once_and_plays_the_rules_choice(monkeypatch):
    """The time budget holds even before the search's minimum of playouts: an expert whose budget
    is spent before it searches plays one playout and keeps the rules' move (the same move as
    ExpertPolicy with rollouts=False), where the fixed-effort search changes some moves."""
    searches = count_searches(monkeypatch)
    spent = ExpertPolicy(budget_s=1e-9, budget_reserve=0.0)  # the deadline has passed when the search starts
    rules_only = ExpertPolicy(rollouts=False, budget_s=None)
    full = ExpertPolicy(**EXPERT_FIXED)
    picks = play_positions({"spent": spent, "rules_only": rules_only, "full": full}, lead="rules_only")
    for played in picks:
        assert played["spent"] == played["rules_only"]
    playouts = [n for params, n in searches if params is spent.params]
    assert playouts and set(playouts) == {1}
    # the positions hold close calls that a finished search decides otherwise
    assert any(played["rules_only"] != played["full"] for played in picks)


def test_advanced_reports_its_own_name_and_ignores_the_budget():
    policy = make_policy("advanced", budget_s=0.5)
    assert policy.name == "advanced" and make_policy("expert").name == "expert"
    assert policy.params.rollouts is False and policy.params.budget_s is None
    # built from explicit parameters it still never searches
    assert AdvancedPolicy(ExpertParams(), rollouts=True).params.rollouts is False


# --------------------------------------------------------------------------- knowledge


def test_memory_of_the_hand_comes_from_the_seats_own_events():
    """What the opponent threw and which cards it left on the pile, read from seat 0's events."""
    table = gin_rami(deck(BASIC_HAND, OTHER, "6C", ["2D", "AS", "KD"]), dealer=1)
    table.play(0, PASS_UPCARD)
    table.play(1, PASS_UPCARD)         # seat 1 left 6C
    table.play(0, DRAW_STOCK)          # 2D
    table.play(0, Discard("KC"))
    table.play(1, DRAW_STOCK)          # seat 1 left KC on the pile, drew AS
    table.play(1, Discard("QH"))
    table.play(0, DRAW_DISCARD)        # seat 0 takes QH back
    k = read(views.view_state(table.state, 0), table.seen[0])
    assert C.codes_of(k.opp_discarded) == ["QH"]
    assert sorted(C.codes_of(k.opp_declined)) == ["6C", "KC"]
    assert C.codes_of(k.my_discarded) == ["KC"]
    # seat 0 never saw the AS that seat 1 drew from the stock
    assert all(not (e["type"] == "card_drawn" and e["data"]["card"] == "AS") for e in table.seen[0])


def test_the_advisor_works_out_exactly_the_captains_legal_moves_from_its_view():
    """§2: the advisor sees the captain's hand but has no moves of its own; owner_moves fills them in."""
    checked = 0
    for table, seat in random_tables(8, variant="three-hand"):
        roles = table.state.roles
        if seat != roles["captain"]:
            continue
        advisor_view = views.view_state(table.state, roles["advisor"])
        assert advisor_view["legal_moves"] == []
        got = sorted(map(repr, map(command_to_dict, owner_moves(advisor_view))))
        assert got == sorted(map(repr, legal_dicts(table.state, seat)))
        checked += 1
    assert checked > 50


def test_advice_names_the_move_in_words():
    assert advice_text(DRAW_STOCK) == "Draw from the stock."
    assert advice_text(Discard("QS")) == "Discard QS."
    assert advice_text(Knock("7H", None)) == "Knock, discarding 7H."
    assert advice_text(Knock(None, None)) == "Lay down big gin."


def test_the_registry_builds_exactly_the_engines_bot_names():
    """The bot names the wire accepts (service.rules.names) are the policies make_policy builds."""
    assert POLICY_NAMES == BOT_POLICY_NAMES
    for name in BOT_POLICY_NAMES:
        assert make_policy(name).name == name
    with pytest.raises(ValueError, match="unknown bot policy"):
        make_policy("grandmaster")


def test_the_lobby_offers_every_built_in_bot_weakest_first():
    """The web client's seat choices and the challenge form's third players name the engine's bot
    policies, in the same order."""
    web = Path(__file__).resolve().parents[2] / "service" / "static" / "web"
    # the new game form's seat choices
    text = (web / "lobby-create.js").read_text(encoding="utf-8")
    offered = re.findall(r'\["bot:([a-z]+)", "Bot: \1"\]', text)
    assert tuple(offered) == BOT_POLICY_NAMES
    # the challenge form's third players (box gin), and the words beside that field
    text = (web / "lobby-challenges.js").read_text(encoding="utf-8")
    third = re.search(r"^const POLICIES = \[(.*)\];$", text, re.MULTILINE)
    assert third, "lobby-challenges.js names no POLICIES"
    assert tuple(re.findall(r'"([a-z]+)"', third.group(1))) == BOT_POLICY_NAMES
    html = (web / "lobby.html").read_text(encoding="utf-8")
    assert f"a built-in bot ({', '.join(BOT_POLICY_NAMES)})" in html
