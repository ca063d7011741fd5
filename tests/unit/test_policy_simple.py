"""The reference player ``simple`` (RULES.md §5 "The reference player `simple`"), position by position.

Every position is dealt from an explicit deck (RULES.md §1 "Deal": cards 1-20 alternate, non-dealer
first; card 21 is the upcard; card 22 the top of the stock). Seat 1 deals, so seat 0 decides first.
Expected moves are worked out by hand in the comments: card values A=1, 2-9 face, T J Q K = 10.
"""

from __future__ import annotations

import random

from service.rules import cards as C
from service.rules import game as G
from service.rules import views
from service.rules.commands import DRAW_DISCARD, DRAW_STOCK, PASS_UPCARD, TAKE_UPCARD, Discard, Knock
from workers.arena import Table
from workers.policies import SimplePolicy, make_policy, read
from workers.policies.simple import best_meld_sets, discard_choices, hand_pairs

SEEDS = range(40)


def deck(non_dealer: list[str], upcard: str, dealer: list[str] | None = None, stock_top=()) -> list[str]:
    """A deck dealing these hands and upcard; the dealer's hand defaults to the first unused cards."""
    used = set(non_dealer) | {upcard} | set(dealer or ()) | set(stock_top)
    if dealer is None:
        dealer = [c for c in C.DECK if c not in used][:10]
        used |= set(dealer)
    head = [c for pair in zip(non_dealer, dealer) for c in pair] + [upcard, *stock_top]
    assert len(set(head)) == len(head) == 21 + len(stock_top)
    return head + [c for c in C.DECK if c not in used]


def table(hand0: list[str], upcard: str, hand1: list[str] | None = None, stock_top=(), **options) -> Table:
    return Table.start(G.GameSpec(variant="gin-rami", players=[{"name": "a"}, {"name": "b"}], options=options,
                                  seed=b"simple-tests", decks=[deck(hand0, upcard, hand1, stock_top)], first_dealer=1))


def move(t: Table, seat: int = 0, seed: int = 0, events=True):
    return SimplePolicy().choose(views.view_state(t.state, seat), random.Random(seed), t.seen[seat] if events else None)


def moves_over_seeds(t: Table, seat: int = 0) -> list:
    return [move(t, seat, seed) for seed in SEEDS]


def took_upcard(hand0: list[str], upcard: str, **options) -> Table:
    """Seat 0 has taken the upcard: eleven cards, the upcard may not be discarded."""
    t = table(hand0, upcard, **options)
    t.play(0, TAKE_UPCARD)
    return t


def melds_of(command: Knock) -> set:
    return {frozenset(m) for m in command.melds}


# --------------------------------------------------------------------------- the upcard


def test_takes_an_upcard_that_makes_a_set():
    # 7C 7D in hand: 7H makes the set 7C 7D 7H -> take
    assert move(table(["7C", "7D", "2C", "TC", "4D", "QD", "AH", "9H", "KS", "5S"], "7H")) == TAKE_UPCARD


def test_takes_an_upcard_that_fills_the_middle_of_a_run():
    # 5H _ 7H: 6H makes the run 5H 6H 7H -> take
    assert move(table(["5H", "7H", "2C", "TC", "4D", "QD", "AS", "9C", "KS", "JD"], "6H")) == TAKE_UPCARD


def test_takes_an_upcard_below_two_cards_of_its_suit():
    # 4S 5S: 3S makes 3S 4S 5S -> take
    assert move(table(["4S", "5S", "2C", "TC", "8D", "QD", "AH", "9H", "KC", "7D"], "3S")) == TAKE_UPCARD


def test_takes_an_upcard_above_two_cards_of_its_suit():
    # 8D 9D: TD makes 8D 9D TD -> take
    assert move(table(["8D", "9D", "2C", "5C", "QC", "3H", "6H", "JH", "AS", "KS"], "TD")) == TAKE_UPCARD


def test_takes_the_fourth_card_of_a_set_even_when_its_deadwood_cannot_fall():
    # ten cards all melded (9C 9D 9H, 2C 3C 4C, 5D 6D 7D 8D: deadwood 0); 9S is in the meld 9C 9D 9H 9S,
    # so simple takes it although no discard can lower a deadwood of 0 (basic's rule would pass)
    hand = ["9C", "9D", "9H", "2C", "3C", "4C", "5D", "6D", "7D", "8D"]
    assert move(table(hand, "9S")) == TAKE_UPCARD
    assert make_policy("basic").choose(views.view_state(table(hand, "9S").state, 0), random.Random(0)) == PASS_UPCARD


def test_passes_an_upcard_in_no_meld_even_a_low_one():
    # 5S: no other 5, and no 3S 4S, 4S 6S or 6S 7S (the only spade is KS) -> pass, though an ace-low
    # swap for a king would lower the deadwood
    assert move(table(["2C", "6C", "TC", "4D", "8D", "QD", "3H", "7H", "JH", "KS"], "5S")) == PASS_UPCARD


def test_passes_an_upcard_matching_only_one_card_of_its_rank():
    # 7C alone: a set needs two other sevens; no 5D 6D / 6D 8D / 8D 9D -> pass
    assert move(table(["7C", "2C", "TC", "4D", "QD", "AH", "9H", "KS", "5S", "JC"], "7D")) == PASS_UPCARD


def test_passes_an_upcard_whose_neighbours_are_of_other_suits():
    # 6S and 8C around 7H: a run is of one suit -> pass
    assert move(table(["8C", "6S", "2C", "TC", "4D", "QD", "AS", "JH", "KD", "3H"], "7H")) == PASS_UPCARD


def test_the_ace_is_low_only_so_q_k_a_is_no_meld():
    # QH KH 2H and AH: Q-K-A and K-A-2 are not runs, A-2-3 needs 3H -> pass
    assert move(table(["QH", "KH", "2H", "5C", "9C", "4D", "8D", "6S", "TS", "JC"], "AH")) == PASS_UPCARD


def test_takes_an_ace_that_starts_a_run():
    # 2H 3H and AH: A-2-3 -> take
    assert move(table(["2H", "3H", "QC", "5C", "9C", "4D", "8D", "6S", "TS", "JD"], "AH")) == TAKE_UPCARD


def test_the_dealer_takes_the_upcard_the_non_dealer_passed_when_it_melds():
    # seat 0 passes; the dealer (seat 1) holds QC QD: QH makes a set -> take
    t = table(["2C", "6C", "TC", "4D", "8D", "3H", "7H", "JH", "KS", "5S"], "QH",
              ["QC", "QD", "AC", "9D", "6H", "2S", "8S", "JC", "5D", "KH"])
    t.play(0, PASS_UPCARD)
    assert move(t, seat=1) == TAKE_UPCARD


# --------------------------------------------------------------------------- the draw

#: the dealer's hand in the draw positions: pairs 4C 5C and QC QD, lone KH and AD
SEAT1 = ["4C", "5C", "QC", "QD", "9H", "2S", "7S", "JD", "AD", "KH"]


def to_seat1_draw(thrown: str) -> Table:
    """Both pass the upcard 8H; seat 0 draws 6H from the stock and throws ``thrown``; seat 1 to draw."""
    t = table(["2H", "6D", "TS", "3D", "8C", "3S", "AS", "JH", "5H", thrown], "8H", SEAT1, stock_top=["6H"])
    t.play(0, PASS_UPCARD)
    t.play(1, PASS_UPCARD)
    t.play(0, DRAW_STOCK)
    t.play(0, Discard(thrown))
    return t


def test_draws_the_pile_card_that_completes_a_run():
    # 6C on the pile, 4C 5C in hand: 4C 5C 6C -> the pile
    assert move(to_seat1_draw("6C"), seat=1) == DRAW_DISCARD


def test_draws_the_pile_card_that_makes_a_set():
    # QH on the pile, QC QD in hand -> the pile
    assert move(to_seat1_draw("QH"), seat=1) == DRAW_DISCARD


def test_draws_the_stock_when_the_pile_card_melds_nothing():
    # KC on the pile: one other king (KH); J-Q-K of clubs needs JC (it holds JD); K-A is no run -> stock
    assert move(to_seat1_draw("KC"), seat=1) == DRAW_STOCK


def test_draws_the_stock_rather_than_a_low_pile_card_that_melds_nothing():
    # AC on the pile: one other ace (AD), no 2C 3C -> stock, though AC for KH would cut 9 points
    assert move(to_seat1_draw("AC"), seat=1) == DRAW_STOCK


def test_after_both_passed_the_first_draw_is_the_stock():
    # seat 0 passed an upcard it could meld (7H with 7C 7D); after the dealer passed too only the stock may
    # be drawn (RULES.md §1 First turn 4) -> stock
    t = table(["7C", "7D", "2C", "TC", "4D", "QD", "AH", "9H", "KS", "5S"], "7H")
    t.play(0, PASS_UPCARD)
    t.play(1, PASS_UPCARD)
    assert move(t) == DRAW_STOCK


# --------------------------------------------------------------------------- the discard


def test_discards_the_one_card_whose_removal_leaves_the_least_deadwood():
    # melds 2C 3C 4C, 7H 8H 9H; deadwood 9D 8S 6D KC and the upcard 5S: 9+8+6+10+5 = 38.
    # Throwing KC leaves 28, 9D 29, 8S 30, 6D 32; 5S may not go -> KC whatever the seed, and 28 > 10: no knock
    t = took_upcard(["2C", "3C", "4C", "7H", "8H", "9H", "9D", "8S", "6D", "KC"], "5S")
    assert set(moves_over_seeds(t)) == {Discard("KC")}


def test_two_kings_tie_and_the_seeded_generator_picks_one():
    # deadwood KC KD 6S 2D and the upcard 4S: 32; KC or KD leaves 22, 6S 26 -> {KC, KD}, each under some seed
    t = took_upcard(["2C", "3C", "4C", "7H", "8H", "9H", "KC", "KD", "6S", "2D"], "4S")
    assert set(moves_over_seeds(t)) == {Discard("KC"), Discard("KD")}
    # the same seed gives the same choice (the seat's generator decides it)
    assert move(t, seed=7) == move(t, seed=7)


def test_four_ten_count_cards_tie():
    # deadwood TC JD QH KS (40) and the upcard 2S (2): any of the four leaves 32 -> {TC, JD, QH, KS}
    t = took_upcard(["TC", "JD", "QH", "KS", "2C", "3C", "4C", "6H", "7H", "8H"], "2S")
    assert set(moves_over_seeds(t)) == {Discard(c) for c in ("TC", "JD", "QH", "KS")}


def test_never_discards_the_card_just_taken_from_the_pile():
    # deadwood 9S 4H 3S 8C and the taken KH: 34. KH would leave 24 but may not go; 9S leaves 25, 8C 26 -> 9S
    t = took_upcard(["2C", "3C", "4C", "5D", "6D", "7D", "9S", "4H", "3S", "8C"], "KH")
    assert set(moves_over_seeds(t)) == {Discard("9S")}


def test_with_a_set_of_four_taken_it_throws_another_four_or_a_run_end():
    # 9C 9D 9H + the taken 9S, 2C 3C 4C, 5D 6D 7D 8D: eleven melded cards. 0 is left by throwing 9C, 9D or 9H
    # (9S stays with two nines) or 5D or 8D (a run of three stays); 9S may not go -> {9C, 9D, 9H, 5D, 8D},
    # and 0 <= 10: a knock, gin
    t = took_upcard(["9C", "9D", "9H", "2C", "3C", "4C", "5D", "6D", "7D", "8D"], "9S")
    chosen = moves_over_seeds(t)
    assert all(isinstance(m, Knock) for m in chosen)
    assert {m.discard for m in chosen} == {"9C", "9D", "9H", "5D", "8D"}


def test_the_pair_it_played_is_not_played_again():
    # seat 0: 2C 3C 4C 7H 8H 9H, deadwood KC 9D 5S 3D and the upcard 6S (33): KC leaves 23, 9D 24.
    # 1. it takes 6S and throws KC: the pair (6S, KC). Then the cards go round: seat 1 takes KC and throws 2S,
    # seat 0 takes 2S and throws 6S, seat 1 takes 6S and throws KC, seat 0 takes KC and throws 2S, seat 1
    # draws the stock and throws 6S. 7. Seat 0 takes 6S: the same eleven cards as at 1., but (6S, KC) was
    # played -> 9D (24 > 10: a discard)
    t = table(["2C", "3C", "4C", "7H", "8H", "9H", "KC", "9D", "5S", "3D"], "6S",
              ["2S", "AC", "5C", "6C", "8C", "TC", "JC", "QC", "AD", "2D"])
    for seat, command in ((0, TAKE_UPCARD), (0, Discard("KC")), (1, DRAW_DISCARD), (1, Discard("2S")),
                          (0, DRAW_DISCARD), (0, Discard("6S")), (1, DRAW_DISCARD), (1, Discard("KC")),
                          (0, DRAW_DISCARD), (0, Discard("2S")), (1, DRAW_STOCK), (1, Discard("6S")),
                          (0, DRAW_DISCARD)):
        t.play(seat, command)
    assert set(moves_over_seeds(t)) == {Discard("9D")}
    # without the hand's events it cannot know the pair: KC, as at 1.
    assert move(t, events=False) == Discard("KC")


def test_the_pairs_rule_reads_drawn_then_discarded_and_yields_when_every_discard_is_barred():
    # the first position above: 5S taken; KC leaves 28, 9D 29
    t = took_upcard(["2C", "3C", "4C", "7H", "8H", "9H", "9D", "8S", "6D", "KC"], "5S")
    k = read(views.view_state(t.state, 0))
    taken = C.INDEX_OF["5S"]
    kc = C.INDEX_OF["KC"]
    # (5S, KC) played: KC barred -> 9D, 29
    assert discard_choices(k, taken, {(taken, kc)}) == ([C.INDEX_OF["9D"]], 29)
    # (KC, 5S) is another pair (drawn KC, thrown 5S): nothing barred -> KC, 28
    assert discard_choices(k, taken, {(kc, taken)}) == ([kc], 28)
    # every legal discard barred: the rule gives way, the least deadwood again -> KC, 28
    every = {(taken, c) for c in C.cards_of(k.hand)}
    assert discard_choices(k, taken, every) == ([kc], 28)


def test_the_pairs_come_from_the_seats_own_events_of_the_hand_in_play():
    ev = [
        {"type": "hand_dealt", "data": {}},
        {"type": "card_drawn", "data": {"seat": 0, "source": "stock", "card": "QS"}},
        {"type": "card_discarded", "data": {"seat": 0, "card": "QS"}},  # an earlier hand: forgotten
        {"type": "hand_dealt", "data": {}},
        {"type": "upcard_taken", "data": {"seat": 0, "card": "6S"}},
        {"type": "card_discarded", "data": {"seat": 0, "card": "KC"}},
        {"type": "card_drawn", "data": {"seat": 1, "source": "discard", "card": "KC"}},
        {"type": "card_discarded", "data": {"seat": 1, "card": "2S"}},
        {"type": "card_drawn", "data": {"seat": 0, "source": "stock", "card": "4H"}},
        {"type": "card_discarded", "data": {"seat": 0, "card": "4H"}},
        {"type": "card_drawn", "data": {"seat": 1, "source": "stock", "card": None}},
        {"type": "card_discarded", "data": {"seat": 1, "card": "4S"}},
        {"type": "card_drawn", "data": {"seat": 0, "source": "discard", "card": "4S"}},
    ]
    i = C.INDEX_OF
    # seat 0: (6S, KC) and (4H, 4H); it drew 4S last
    assert hand_pairs(0, ev) == (i["4S"], {(i["6S"], i["KC"]), (i["4H"], i["4H"])})
    # seat 1 (the other seat's stock card hidden): (KC, 2S) and (unknown, 4S); its last draw unknown
    assert hand_pairs(1, ev) == (-1, {(i["KC"], i["2S"]), (-1, i["4S"])})


# --------------------------------------------------------------------------- the knock


def test_knocks_at_once_when_the_least_deadwood_is_exactly_the_limit():
    # melds 2C 3C 4C, 7H 8H 9H; deadwood AS 2D 4S KD and the upcard 3H (20): KD leaves 10 (4S 16) -> knock
    # throwing KD with 2C 3C 4C and 7H 8H 9H, the only least arrangement
    t = took_upcard(["2C", "3C", "4C", "7H", "8H", "9H", "AS", "2D", "4S", "KD"], "3H")
    chosen = moves_over_seeds(t)
    assert {m.discard for m in chosen} == {"KD"} and all(isinstance(m, Knock) for m in chosen)
    assert all(melds_of(m) == {frozenset({"2C", "3C", "4C"}), frozenset({"7H", "8H", "9H"})} for m in chosen)
    t.play(0, chosen[0])
    assert t.state.results[0]["outcome"] in ("knock", "undercut")


def test_discards_without_knocking_at_one_over_the_limit():
    # the same with 5S for 4S: KD leaves 1 + 2 + 5 + 3 = 11 > 10 -> discard KD
    t = took_upcard(["2C", "3C", "4C", "7H", "8H", "9H", "AS", "2D", "5S", "KD"], "3H")
    assert set(moves_over_seeds(t)) == {Discard("KD")}


def test_the_knock_limit_option_is_its_limit():
    # knock limit 5. Melds 2C 3C 4C, 7H 8H 9H, JC JD JS and KD: with the upcard 7S, KD leaves 7 > 5 -> discard
    hand = ["2C", "3C", "4C", "7H", "8H", "9H", "JC", "JD", "JS", "KD"]
    assert set(moves_over_seeds(took_upcard(hand, "7S", knock_limit=5))) == {Discard("KD")}
    # with the upcard 5S, KD leaves 5 <= 5 -> knock
    knocks = moves_over_seeds(took_upcard(hand, "5S", knock_limit=5))
    assert {(m.discard, frozenset(melds_of(m))) for m in knocks} == {
        ("KD", frozenset({frozenset({"2C", "3C", "4C"}), frozenset({"7H", "8H", "9H"}), frozenset({"JC", "JD", "JS"})}))}


def test_under_oklahoma_the_upcard_sets_the_limit():
    # Oklahoma, upcard 6H: limit 6. Taken, 6H 7H 8H; with 2C 3C 4C and JC JD JS, deadwood 7S KD (17):
    # KD leaves 7 > 6 -> discard KD
    hand = ["2C", "3C", "4C", "7H", "8H", "JC", "JD", "JS", "7S", "KD"]
    assert set(moves_over_seeds(took_upcard(hand, "6H", oklahoma=True))) == {Discard("KD")}


def test_without_oklahoma_the_same_hand_knocks():
    # the same eleven cards under the default limit 10: 7 <= 10 -> knock throwing KD
    hand = ["2C", "3C", "4C", "7H", "8H", "JC", "JD", "JS", "7S", "KD"]
    chosen = moves_over_seeds(took_upcard(hand, "6H"))
    assert {m.discard for m in chosen} == {"KD"} and all(isinstance(m, Knock) for m in chosen)


def test_goes_gin_with_eleven_melded_cards_never_big_gin():
    # 5C 5D 5H 5S, the taken 2H with 3H 4H, 9S TS JS QS: all eleven melded, and gin-rami's big gin is legal.
    # simple discards first: a 5 (three stay) or 9S or QS (a run of three stays) leaves 0 -> gin with one of
    # {5C, 5D, 5H, 5S, 9S, QS}; never the big gin (no discard)
    t = took_upcard(["5C", "5D", "5H", "5S", "3H", "4H", "9S", "TS", "JS", "QS"], "2H")
    assert Knock(None, None) in read(views.view_state(t.state, 0)).moves
    chosen = moves_over_seeds(t)
    assert all(isinstance(m, Knock) for m in chosen)
    assert {m.discard for m in chosen} == {"5C", "5D", "5H", "5S", "9S", "QS"}
    t.play(0, chosen[0])
    assert t.state.results[0]["outcome"] == "gin"


def test_lays_out_one_least_arrangement_chosen_at_random():
    # 4C 5C 6C 5D 5H, 9S TS JS QS and the taken KS, and KC. KC is the only discard leaving 10
    # (5D leaves 15, 4C 16, 9S 20). Ten cards then: the run 4C 5C 6C leaves 5D 5H (10), the set 5C 5D 5H
    # leaves 4C 6C (10): two least arrangements, each with 9S TS JS QS KS -> knock with either
    t = took_upcard(["4C", "5C", "6C", "5D", "5H", "9S", "TS", "JS", "QS", "KC"], "KS")
    spades = frozenset({"9S", "TS", "JS", "QS", "KS"})
    chosen = moves_over_seeds(t)
    assert {m.discard for m in chosen} == {"KC"}
    assert {frozenset(melds_of(m)) for m in chosen} == {
        frozenset({frozenset({"4C", "5C", "6C"}), spades}), frozenset({frozenset({"5C", "5D", "5H"}), spades})}
    # the engine takes each: a valid arrangement within the limit
    for m in {tuple(map(tuple, m.melds)): m for m in chosen}.values():
        fresh = took_upcard(["4C", "5C", "6C", "5D", "5H", "9S", "TS", "JS", "QS", "KC"], "KS")
        fresh.play(0, m)
        assert fresh.state.results[0]["outcome"] in ("knock", "undercut")


def test_a_set_of_four_beside_a_run_gives_two_arrangements():
    # 7C 7D 7H 7S, 8S 9S TS, 2C 3C 4C: 7S may go with the sevens or head the run 7S 8S 9S TS; both leave 0.
    # 7C 7D 7S (say) would leave 7H -> not least
    found = best_meld_sets(C.mask(["7C", "7D", "7H", "7S", "8S", "9S", "TS", "2C", "3C", "4C"]))
    as_codes = {frozenset(frozenset(C.code(c) for c in m) for m in melds) for melds in found}
    assert as_codes == {
        frozenset({frozenset({"7C", "7D", "7H", "7S"}), frozenset({"8S", "9S", "TS"}), frozenset({"2C", "3C", "4C"})}),
        frozenset({frozenset({"7C", "7D", "7H"}), frozenset({"7S", "8S", "9S", "TS"}), frozenset({"2C", "3C", "4C"})}),
    }


def test_a_run_of_six_whole_or_split_in_two():
    # AH..6H, 9C 9D 9S, KD: least deadwood 10 (KD); the six hearts whole or as AH 2H 3H + 4H 5H 6H
    found = best_meld_sets(C.mask(["AH", "2H", "3H", "4H", "5H", "6H", "9C", "9D", "9S", "KD"]))
    as_codes = {frozenset(frozenset(C.code(c) for c in m) for m in melds) for melds in found}
    nines = frozenset({"9C", "9D", "9S"})
    assert as_codes == {frozenset({frozenset({"AH", "2H", "3H", "4H", "5H", "6H"}), nines}),
                        frozenset({frozenset({"AH", "2H", "3H"}), frozenset({"4H", "5H", "6H"}), nines})}


# --------------------------------------------------------------------------- anywhere


def test_as_advisor_it_names_the_captains_move():
    # box gin: seat 0 captain (the non-dealer), seat 1 box, seat 2 advisor. The captain holds 7C 7D and the
    # upcard is 7H: the advisor's view is the captain's hand -> take
    spec = G.GameSpec(variant="three-hand", players=[{"name": n} for n in "abc"], seed=b"simple-advisor",
                      roles={"box": 1, "captain": 0, "advisor": 2},
                      decks=[deck(["7C", "7D", "2C", "TC", "4D", "QD", "AH", "9H", "KS", "5S"], "7H")])
    t = Table.start(spec)
    assert move(t, seat=2) == TAKE_UPCARD
    assert move(t, seat=0) == TAKE_UPCARD


def test_every_move_it_makes_in_random_positions_is_legal():
    # positions reached by random play in both variants; the engine refuses any illegal move
    checked = 0
    for variant, n in (("gin-rami", 2), ("three-hand", 3)):
        for i in range(6):
            rng = random.Random(i)
            t = Table.start(G.GameSpec(variant=variant, players=[{"name": f"p{s}"} for s in range(n)],
                                       seed=f"simple-{variant}-{i}".encode()))
            for _ in range(60):
                if t.state.status != "playing":
                    break
                seat = t.state.to_act[0]
                G.decide(t.state, seat, move(t, seat, seed=i))  # raises if illegal
                checked += 1
                legal = G.legal_moves(t.state, seat)
                t.play(seat, legal[rng.randrange(len(legal))])
    assert checked > 300
