"""Hand-made cases for melds.py; every expected value is worked out by hand from RULES.md §1."""

from __future__ import annotations

import pytest

from service.rules import cards, layoffs, melds
from service.rules.errors import RulesError


def hand(text: str) -> list[str]:
    return text.split()


def idx(text: str) -> tuple[int, ...]:
    return tuple(cards.index(c) for c in text.split())


def mask(text: str) -> int:
    return cards.mask(text.split())


# --------------------------------------------------------------------------- melds and deadwood


def test_hand_without_melds_counts_every_card_rules_1_melds():
    """RULES.md §1 "Cards", "Melds": no set, no run, so every card is deadwood."""
    # A=1, 3, 5, 7, 9, J=10, K=10, 2, 4, 6: 1+3+5+7+9+10+10+2+4+6 = 57
    assert melds.deadwood(hand("AC 3D 5H 7S 9C JD KH 2S 4C 6D")) == 57


def test_gin_hand_has_no_deadwood_rules_1_melds():
    """RULES.md §1 "Melds": a set of four, a set of three and a run of three meld all ten cards."""
    assert melds.deadwood(hand("9C 9D 9H 9S 4D 4H 4S JC QC KC")) == 0


def test_card_indexes_and_codes_are_both_accepted():
    """The facade: `cards` arguments accept card indexes or codes."""
    # run 2H 3H 4H, deadwood KD = 10
    assert melds.deadwood(idx("2H 3H 4H KD")) == melds.deadwood(hand("2H 3H 4H KD")) == 10
    assert melds.deadwood_mask(mask("2H 3H 4H KD")) == 10


def test_set_of_three_taken_from_a_four_to_keep_a_run_rules_1_melds():
    """RULES.md §1 "Melds": a card is in one meld; 5C5D5H5S crosses runs 3C4C5C and 5D6D7D."""
    h = "3C 4C 5C 5D 6D 7D 5H 5S KC KD"
    # set of four 5s:            left 3C 4C 6D 7D KC KD = 3+4+6+7+10+10 = 40
    # runs 3C-5C and 5D-7D:      left 5H 5S KC KD       = 5+5+10+10     = 30
    # set 5C5H5S + run 5D-7D:    left 3C 4C KC KD       = 3+4+10+10     = 27  <- least
    # set 5D5H5S + run 3C-5C:    left 6D 7D KC KD       = 6+7+10+10     = 33
    assert melds.deadwood(hand(h)) == 27
    best = melds.best_arrangement(hand(h))
    assert best.deadwood == 27
    assert best.melds == (idx("5C 5H 5S"), idx("5D 6D 7D"))
    assert best.deadwood_cards == idx("3C 4C KC KD")


def test_long_run_is_split_when_its_ends_make_sets_rules_1_melds():
    """RULES.md §1 "Melds": 3H..8H is better split so that 3H and 8H join sets."""
    h = "3C 3S 3H 4H 5H 6H 7H 8H 8C 8D"
    # run 3H-8H whole:                 left 3C 3S 8C 8D = 3+3+8+8 = 22
    # 3C3H3S + 4H-8H:                  left 8C 8D       = 8+8     = 16
    # 3C3H3S + 4H-7H + 8C8D8H:         left nothing     = 0
    assert melds.deadwood(hand(h)) == 0
    best = melds.best_arrangement(hand(h))
    assert best.melds == (idx("3C 3H 3S"), idx("8C 8D 8H"), idx("4H 5H 6H 7H"))


def test_ace_is_low_only_rules_1_cards():
    """RULES.md §1 "Cards": A-2-3 is a run, Q-K-A and K-A-2 are not."""
    assert melds.deadwood(hand("AS 2S 3S")) == 0
    assert melds.deadwood(hand("QS KS AS")) == 10 + 10 + 1  # 21
    assert melds.deadwood(hand("KS AS 2S")) == 10 + 1 + 2  # 13
    # clubs A 2 Q K: no three consecutive ranks, 1+2+10+10 = 23
    assert melds.deadwood(hand("QC KC AC 2C")) == 23
    assert melds.is_run(hand("AS 2S 3S"))
    assert not melds.is_run(hand("QS KS AS"))
    assert not melds.is_run(hand("KS AS 2S"))


def test_king_of_one_suit_and_ace_of_the_next_do_not_make_a_run_rules_1_cards():
    """RULES.md §1 "Cards": QC KC AD are adjacent card indexes but no run."""
    assert not melds.is_run(hand("QC KC AD"))
    assert melds.deadwood(hand("QC KC AD")) == 10 + 10 + 1  # 21
    assert melds.deadwood(hand("KC AD 2D")) == 10 + 1 + 2  # 13


def test_deadwood_after_discard_drops_the_costliest_loose_card_rules_1_knocking():
    """RULES.md §1 "Knocking": eleven cards, the best discard first."""
    h = "2C 3C 4C 7D 7H 7S TD JD QD 5S KH"
    # melds 2C-4C, 7D7H7S, TD-QD; loose 5S (5) and KH (10): discarding KH leaves 5
    assert melds.deadwood_after_discard(hand(h)) == 5
    assert melds.deadwood_after_discard_mask(mask(h)) == 5


def test_deadwood_after_discard_may_break_a_set_of_four_rules_1_knocking():
    """RULES.md §1 "Knocking": the discard can be the fourth card of a set of four."""
    h = "9C 9D 9H 9S 4D 4H 4S JC QC KC 2D"
    # discard 2D: gin (9s, 4s, J-K clubs), deadwood 0
    assert melds.deadwood_after_discard(hand(h)) == 0
    h = "9C 9D 9H 9S 4D 4H 4S JC QC KC"
    # ten melded cards: discarding a 9 leaves a set of three 9s, still 0
    assert melds.deadwood_after_discard(hand(h)) == 0


def test_deadwood_after_discard_of_an_empty_hand_is_an_error():
    with pytest.raises(ValueError):
        melds.deadwood_after_discard([])


def test_knock_discards_lists_discards_within_the_limit_rules_1_knocking():
    """RULES.md §1 "Knocking": a knock needs deadwood <= the limit after the discard."""
    h = "2C 3C 4C 7D 7H 7S TD JD QD 5S KH"
    # discard KH -> 5S left = 5; discard 5S -> KH left = 10;
    # any meld card breaks its meld: 2C -> 3+4+5+10 = 22, 3C -> 21, 4C -> 20,
    # a 7 -> 7+7+5+10 = 29, a diamond face -> 10+10+5+10 = 35
    # listed in card-index order: KH (hearts) before 5S (spades)
    assert melds.knock_discards(hand(h), 10) == [(cards.index("KH"), 5), (cards.index("5S"), 10)]
    assert melds.knock_discards(hand(h), 9) == [(cards.index("KH"), 5)]
    assert melds.knock_discards(hand(h), 4) == []
    # with limit 22 the three club discards (22, 21, 20) join them
    assert melds.knock_discards(hand(h), 22) == [
        (cards.index("2C"), 22),
        (cards.index("3C"), 21),
        (cards.index("4C"), 20),
        (cards.index("KH"), 5),
        (cards.index("5S"), 10),
    ]


# --------------------------------------------------------------------------- canonical arrangement


def test_best_arrangement_tie_prefers_the_lowest_first_meld_rules_1_knocking():
    """RULES.md §1 "Knocking": 7C7D7H7S + 8S9STS and 7C7D7H + 7S8S9STS tie; the order picks one."""
    best = melds.best_arrangement(hand("7C 7D 7H 7S 8S 9S TS 2C 3D KH"))
    # both leave 2C 3D KH = 2+3+10 = 15 with 3 cards and 2 melds; sorted meld tuples:
    # (7C 7D 7H) + (7S 8S 9S TS)  vs  (7C 7D 7H 7S) + (8S 9S TS): the first is a prefix, so less
    assert best.deadwood == 15
    assert best.melds == (idx("7C 7D 7H"), idx("7S 8S 9S TS"))
    assert best.deadwood_cards == idx("2C 3D KH")


def test_best_arrangement_keeps_a_long_run_whole_rules_1_knocking():
    """RULES.md §1 "Knocking": fewest melds among equal deadwood, so 3H..8H is one run."""
    best = melds.best_arrangement(hand("3H 4H 5H 6H 7H 8H KC"))
    assert best.melds == (idx("3H 4H 5H 6H 7H 8H"),)
    assert best.deadwood == 10


def test_best_arrangement_prefers_fewer_deadwood_cards_on_equal_value_rules_1_knocking():
    """RULES.md §1 "Knocking": equal deadwood value, then the fewest deadwood cards."""
    h = "2C 3C 3D 2H 3H 5H 2S 3S 4S"
    # 2C2H2S + 3C3D3H3S:   left 5H 4S    = 5+4   = 9, two cards    <- chosen
    # 3C3D3H + 2S3S4S:     left 2C 2H 5H = 2+2+5 = 9, three cards
    # 2C2H2S + 3C3D3H:     left 3S 4S 5H = 3+4+5 = 12
    best = melds.best_arrangement(hand(h))
    assert best.deadwood == 9
    assert best.melds == (idx("2C 2H 2S"), idx("3C 3D 3H 3S"))
    assert best.deadwood_cards == idx("5H 4S")


# --------------------------------------------------------------------------- single melds


@pytest.mark.parametrize(
    "text, is_set, is_run",
    [
        ("7C 7D 7H", True, False),
        ("7C 7D 7H 7S", True, False),
        ("7C 7D", False, False),
        ("AS 2S 3S", False, True),
        ("9D TD JD QD KD", False, True),
        ("2S 3S 5S", False, False),  # gap
        ("2S 3H 4S", False, False),  # mixed suits
        ("7C 7C 7D", False, False),  # one card twice
        ("QS KS AS", False, False),
    ],
)
def test_is_set_and_is_run_follow_the_meld_definitions_rules_1_melds(text, is_set, is_run):
    """RULES.md §1 "Melds": a set is 3-4 of a rank, a run 3+ consecutive ranks of a suit."""
    assert melds.is_set(text.split()) is is_set
    assert melds.is_run(text.split()) is is_run
    assert melds.is_meld(text.split()) is (is_set or is_run)


# --------------------------------------------------------------------------- check_melds


def test_check_melds_normalises_and_counts_deadwood_rules_1_knocking():
    """RULES.md §1 "Knocking": the knocker's own melds decide the deadwood."""
    h = mask("7C 7D 7H 7S 8S 9S TS 2C 3D KH")
    got = melds.check_melds(h, [["TS", "9S", "8S"], ["7S", "7H", "7D", "7C"]])
    # left 2C 3D KH = 2+3+10 = 15
    assert got == ((idx("7C 7D 7H 7S"), idx("8S 9S TS")), idx("2C 3D KH"), 15)
    # no melds at all: all ten cards count, 7*4+8+9+10+2+3+10 = 70
    assert melds.check_melds(h, []) == ((), tuple(sorted(cards.cards_of(h))), 70)


@pytest.mark.parametrize(
    "laid, code",
    [
        ([["7H", "8S", "9S"]], "invalid_meld"),  # mixed suits
        ([["7C", "7D"]], "invalid_meld"),  # too short
        ([["7C", "7C", "7D"]], "invalid_meld"),  # one card twice
        ([["7C", "7D", "XX"]], "invalid_meld"),  # not a card code
        ([["7C", "7D", "7H"], ["7H", "8H", "9H"]], "meld_card_not_in_hand"),  # 9H is not held
        ([["7C", "7D", "7H"], ["7S", "8S", "9S"], ["7H", "7S", "7D"]], "overlapping_melds"),
        ([["7C", "7D", "7H", "7S"], ["7S", "8S", "9S"]], "overlapping_melds"),
    ],
)
def test_check_melds_rejects_bad_melds_with_a_stable_code_rules_1_knocking(laid, code):
    """RULES.md §1 "Knocking": melds sent must be separate valid melds of the hand."""
    h = mask("7C 7D 7H 7S 8S 9S TS 2C 3D KH")
    with pytest.raises(melds.MeldError) as err:
        melds.check_melds(h, laid)
    assert err.value.code == code
    assert isinstance(err.value, RulesError) and err.value.conflict is False


def test_check_melds_rejects_a_run_round_the_ace_rules_1_cards():
    """RULES.md §1 "Cards": Q-K-A laid out as a run is invalid."""
    with pytest.raises(melds.MeldError) as err:
        melds.check_melds(mask("QS KS AS 2S"), [["QS", "KS", "AS"]])
    assert err.value.code == "invalid_meld"


# --------------------------------------------------------------------------- lay-offs


def test_run_with_the_seventh_spade_takes_a_six_rules_1_knocking():
    """RULES.md §1 "Knocking": 7C7D7H + 7S8S9STS takes a 6S."""
    got = layoffs.resolve_layoffs(mask("6S 2D KH"), [hand("7C 7D 7H"), hand("7S 8S 9S TS")])
    # 6S goes onto the run (meld 1); left 2D KH = 2+10 = 12
    assert got.layoffs == ((cards.index("6S"), 1),)
    assert got.deadwood == 12
    assert got.deadwood_cards == idx("2D KH")


def test_set_of_four_sevens_leaves_the_six_rules_1_knocking():
    """RULES.md §1 "Knocking": 7C7D7H7S + 8S9STS does not take a 6S."""
    got = layoffs.resolve_layoffs(mask("6S 2D KH"), [hand("7C 7D 7H 7S"), hand("8S 9S TS")])
    # nothing laid: 6+2+10 = 18
    assert got.layoffs == ()
    assert got.deadwood == 18


def test_fourth_card_is_laid_off_on_a_set_of_three_rules_1_laying_off():
    """RULES.md §1 "Laying off": a 4th card onto a set of three."""
    got = layoffs.resolve_layoffs(mask("9S 4D"), [hand("9C 9D 9H")])
    # 9S laid off, 4D left = 4
    assert got.layoffs == ((cards.index("9S"), 0),)
    assert got.deadwood == 4


def test_nothing_is_laid_off_on_a_set_of_four_rules_1_laying_off():
    """RULES.md §1 "Laying off": a set of four takes no card (no fifth card of a rank exists)."""
    # and 8C, TC of the same suit do not join a set: 8+10+4 = 22
    got = layoffs.resolve_layoffs(mask("8C TC 4D"), [hand("9C 9D 9H 9S")])
    assert got.layoffs == ()
    assert got.deadwood == 22


def test_run_extensions_chain_at_both_ends_rules_1_laying_off():
    """RULES.md §1 "Laying off": each laid-off card extends the run for the next."""
    got = layoffs.resolve_layoffs(mask("3H 4H 8H 9H KC"), [hand("5H 6H 7H")])
    # 4H then 3H below, 8H then 9H above; KC left = 10
    assert sorted(got.layoffs) == [(cards.index(c), 0) for c in ("3H", "4H", "8H", "9H")]
    assert got.deadwood == 10


def test_broken_chain_leaves_the_far_card_rules_1_laying_off():
    """RULES.md §1 "Laying off": 3H cannot be laid off on 5H6H7H without 4H."""
    got = layoffs.resolve_layoffs(mask("3H 9H KC"), [hand("5H 6H 7H")])
    # neither 3H nor 9H touches the run: 3+9+10 = 22
    assert got.layoffs == ()
    assert got.deadwood == 22


def test_no_lay_off_across_the_king_ace_boundary_rules_1_cards():
    """RULES.md §1 "Cards": AD does not extend JC QC KC, nor KC extend AD 2D 3D."""
    got = layoffs.resolve_layoffs(mask("AD 5S"), [hand("JC QC KC")])
    assert got.layoffs == () and got.deadwood == 1 + 5  # 6
    got = layoffs.resolve_layoffs(mask("KC 5S"), [hand("AD 2D 3D")])
    assert got.layoffs == () and got.deadwood == 10 + 5  # 15


def test_defender_keeps_an_own_set_rather_than_laying_off_rules_1_laying_off():
    """RULES.md §1 "Laying off": own melds first; lay-offs only where they lower the deadwood."""
    got = layoffs.resolve_layoffs(mask("8C 8D 8H 2S"), [hand("5H 6H 7H")])
    # own set 8C8D8H leaves 2S = 2; laying off 8H instead would leave 8+8+2 = 18
    assert got.melds == (idx("8C 8D 8H"),)
    assert got.layoffs == ()
    assert got.deadwood == 2


def test_defender_combines_own_melds_and_lay_offs_rules_1_laying_off():
    """RULES.md §1 "Laying off": own melds first, then lay-offs for what is left."""
    got = layoffs.resolve_layoffs(mask("5H 6H 7H 8H QH"), [hand("9H TH JH"), hand("5C 5D 5S")])
    # own run 5H-8H, QH onto 9H TH JH (meld 0): nothing left = 0.
    # Laying 5H on the set instead also leaves 0 but lays off two cards, not one.
    assert got.melds == (idx("5H 6H 7H 8H"),)
    assert got.layoffs == ((cards.index("QH"), 0),)
    assert got.deadwood == 0


def test_defender_cuts_an_own_set_of_four_to_start_a_chain_rules_1_laying_off():
    """RULES.md §1 "Laying off": the combination with the least deadwood is applied."""
    got = layoffs.resolve_layoffs(mask("8C 8D 8H 8S 7H KC"), [hand("9H TH JH")])
    # own 8C8D8H8S:                      left 7H KC = 7+10 = 17
    # own 8C8D8S, lay off 8H then 7H:    left KC    = 10    <- least
    assert got.melds == (idx("8C 8D 8S"),)
    assert sorted(got.layoffs) == [(cards.index("7H"), 0), (cards.index("8H"), 0)]
    assert got.deadwood == 10


def test_card_fitting_two_melds_goes_to_the_lowest_meld_index_rules_1_laying_off():
    """RULES.md §1 "Laying off": a card fitting two melds is given to one, deterministically."""
    # 6S extends 3S4S5S upwards and 7S8S9S downwards; either way 2D is left = 2
    got = layoffs.resolve_layoffs(mask("6S 2D"), [hand("7S 8S 9S"), hand("3S 4S 5S")])
    assert got.layoffs == ((cards.index("6S"), 0),)
    assert got.deadwood == 2


def test_gap_between_two_runs_is_filled_from_both_sides_rules_1_laying_off():
    """RULES.md §1 "Laying off": 6S 7S 8S between 3S-5S and 9S-JS all go."""
    got = layoffs.resolve_layoffs(mask("6S 7S 8S 2D"), [hand("3S 4S 5S"), hand("9S TS JS")])
    # 6S 7S 8S is itself a run, so own meld first: left 2D = 2, no lay-off needed
    assert got.deadwood == 2
    assert got.layoffs == ()
    got = layoffs.resolve_layoffs(mask("6S 8S 2D"), [hand("3S 4S 5S"), hand("9S TS JS")])
    # 6S onto 3S-5S, 8S onto 9S-JS: left 2D = 2
    assert sorted(got.layoffs) == [(cards.index("6S"), 0), (cards.index("8S"), 1)]
    assert got.deadwood == 2
