"""The deal, the upcard offer, normal turns, the drawn hand and illegal commands.

RULES.md §1 "Deal", "First turn (the upcard)", "A normal turn", "Drawn hand", §4
max_turns_per_hand; §2 "Only the box and the captain are dealt cards" and "the box deals".
"""

from __future__ import annotations

import pytest

from service.rules import cards
from service.rules import game as G
from service.rules.commands import (
    Advise,
    ClaimSeat,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    PassUpcard,
    TakeUpcard,
)
from service.rules.errors import RulesError
from service.rules.events import HandDrawn

from support.rules import P_GIN, P_KNOCK, deck_of, new_table

ROLES = {"box": 0, "captain": 1, "advisor": 2}


def codes(mask: int) -> set[str]:
    return set(cards.codes_of(mask))


def refused(t, seat, command) -> RulesError:
    before = G.state_to_dict(t.state)
    with pytest.raises(RulesError) as err:
        G.decide(t.state, seat, command)
    assert G.state_to_dict(t.state) == before  # a refused command changes nothing
    return err.value


# --------------------------------------------------------------------------- the deal


def test_explicit_deck_deals_alternately_from_the_non_dealer_rules_1_deal_decision():
    """§1 Deal [decision]: cards 1-20 alternately (non-dealer first), 21 upcard, 22.. stock."""
    d = deck_of(P_KNOCK)
    t = new_table("gin-rami", decks=[d], first_dealer=0)
    s = t.state
    assert (s.dealer, s.non_dealer, s.hand_no) == (0, 1, 1)
    assert codes(s.hands[1]) == set(d[0:20:2]) == set(P_KNOCK[0].split())
    assert codes(s.hands[0]) == set(d[1:20:2]) == set(P_KNOCK[1].split())
    assert [cards.code(c) for c in s.pile] == [d[20]] == ["JC"]
    assert [cards.code(c) for c in s.stock] == d[21:]
    assert s.stock_size == 31 and d[21] == "2D"
    assert t.state.randomly_dealt is False


def test_three_hand_deals_only_box_and_captain_and_the_box_deals_rules_2():
    """§2 [decision] "Only the box and the captain are dealt cards"; "the box deals every hand"."""
    d = deck_of(P_KNOCK)
    t = new_table("three-hand", decks=[d], roles={"box": 2, "captain": 0, "advisor": 1})
    s = t.state
    assert (s.dealer, s.non_dealer) == (2, 0)
    assert codes(s.hands[0]) == set(P_KNOCK[0].split())  # captain = non-dealer
    assert codes(s.hands[2]) == set(P_KNOCK[1].split())  # box = dealer
    assert s.hands[1] == 0  # the advisor sits out
    assert s.to_act == (0,)


def test_each_hand_of_a_seeded_game_deals_ten_cards_each_and_31_to_the_stock_rules_1_deal():
    t = new_table("gin-rami", seed=b"some seed")
    s = t.state
    assert [bin(h).count("1") for h in s.hands] == [10, 10]
    assert len(s.pile) == 1 and s.stock_size == 31
    assert s.hands[0] | s.hands[1] | (1 << s.pile[0]) | cards.mask(s.stock) == cards.FULL_MASK


# --------------------------------------------------------------------------- the upcard


def test_non_dealer_is_offered_the_upcard_first_rules_1_first_turn():
    """§1 First turn 1: the non-dealer may take the upcard or pass; the dealer may not act."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    assert t.state.phase == "upcard" and t.state.to_act == (1,)
    assert G.legal_moves(t.state, 1) == [TakeUpcard(), PassUpcard()]
    assert G.legal_moves(t.state, 0) == []
    err = refused(t, 0, TakeUpcard())
    assert err.code == "not_your_turn" and err.conflict


def test_dealer_is_offered_the_upcard_after_the_non_dealer_passes_rules_1_first_turn():
    """§1 First turn 2."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    assert t.state.phase == "upcard" and t.state.to_act == (0,)
    assert G.legal_moves(t.state, 0) == [TakeUpcard(), PassUpcard()]


def test_taker_of_the_upcard_completes_the_turn_then_the_other_plays_rules_1_first_turn():
    """§1 First turn 3, for the non-dealer and for the dealer."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.take(1)
    assert t.state.phase == "discard" and t.state.to_act == (1,)
    assert "JC" in codes(t.state.hands[1]) and t.state.pile == ()
    t.discard(1, "9H")
    assert t.state.phase == "draw" and t.state.to_act == (0,)

    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.take(0)
    t.discard(0, "9C")
    # the dealer took it, so the non-dealer plays next
    assert t.state.phase == "draw" and t.state.to_act == (1,)


def test_both_passing_makes_the_non_dealer_draw_from_the_stock_rules_1_first_turn():
    """§1 First turn 4: the non-dealer begins by drawing the top card of the stock."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    assert t.state.to_act == (1,) and t.state.phase == "draw"
    assert G.legal_moves(t.state, 1) == [DrawStock()]
    err = refused(t, 1, DrawDiscard())
    assert err.code == "upcard_refused"
    t.stock(1)
    assert "2D" in codes(t.state.hands[1])


def test_upcard_offer_accepts_only_take_or_pass_rules_1_first_turn():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    for command in (DrawStock(), DrawDiscard(), Discard("9H"), Knock("9H", None)):
        assert refused(t, 1, command).code == "wrong_phase"


# --------------------------------------------------------------------------- normal turns


def started(pattern=P_KNOCK):
    """A gin-rami hand where both passed and the non-dealer (1) drew and discarded 9H."""
    t = new_table("gin-rami", decks=[deck_of(pattern)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    t.discard(1, "9H")
    return t


def test_normal_turn_draws_from_stock_or_discard_pile_then_discards_rules_1_normal_turn():
    """§1 A normal turn: draw the stock's or the discard pile's top card, then discard."""
    t = started()
    assert G.legal_moves(t.state, 0) == [DrawStock(), DrawDiscard()]
    t.pile(0)
    assert "9H" in codes(t.state.hands[0])
    assert t.state.known[0] == cards.mask(["9H"])  # everyone saw it taken
    t.discard(0, "KS")
    assert t.state.to_act == (1,)
    t.stock(1)
    # the stock's next card after 2D (22nd) is the 23rd card of the deck
    assert cards.code(t.state.drawn) == deck_of(P_KNOCK)[22]


def test_discard_pile_card_just_taken_may_not_be_discarded_rules_1_decision():
    """§1 [decision]: the card just taken from the discard pile may not be discarded."""
    t = started()
    t.pile(0)
    err = refused(t, 0, Discard("9H"))
    assert err.code == "cannot_discard_taken_card" and not err.conflict
    assert Discard("9H") not in G.legal_moves(t.state, 0)
    # nor be the knock discard
    assert refused(t, 0, Knock("9H", None)).code == "cannot_discard_taken_card"


def test_taken_card_may_be_discarded_on_a_later_turn_rules_1_decision():
    """The ban lasts the turn only."""
    t = started()
    t.pile(0)
    t.discard(0, "KS")
    t.stock(1)
    t.discard(1, cards.code(t.state.drawn))
    t.stock(0)
    t.discard(0, "9H")
    assert cards.code(t.state.pile[-1]) == "9H"


def test_taken_upcard_may_not_be_discarded_in_the_same_turn_rules_1_decision():
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.take(1)
    assert refused(t, 1, Discard("JC")).code == "cannot_discard_taken_card"


def test_stock_drawn_card_may_be_discarded_at_once_rules_1_normal_turn():
    t = started()
    t.stock(0)
    drawn = cards.code(t.state.drawn)
    assert Discard(drawn) in G.legal_moves(t.state, 0)
    t.discard(0, drawn)


def test_must_draw_before_discarding_or_knocking_rules_1_normal_turn():
    t = started()
    err = refused(t, 0, Discard("KS"))
    assert err.code == "must_draw_first" and err.conflict
    assert refused(t, 0, Knock("KS", None)).code == "must_draw_first"


def test_cannot_draw_twice_rules_1_normal_turn():
    t = started()
    t.stock(0)
    assert refused(t, 0, DrawStock()).code == "already_drawn"
    assert refused(t, 0, DrawDiscard()).code == "already_drawn"


def test_discarding_a_card_not_in_hand_is_refused_rules_1_normal_turn():
    t = started()
    t.stock(0)
    err = refused(t, 0, Discard("AC"))  # the non-dealer holds AC
    assert err.code == "card_not_in_hand" and not err.conflict
    assert refused(t, 0, Discard("ZZ")).code == "invalid_card"
    assert refused(t, 0, Knock("AC", None)).code == "card_not_in_hand"


def test_not_your_turn_and_wrong_phase_are_conflicts_rules_1_normal_turn():
    t = started()
    err = refused(t, 1, DrawStock())
    assert (err.code, err.conflict) == ("not_your_turn", True)
    assert refused(t, 0, TakeUpcard()).code == "wrong_phase"
    assert refused(t, 0, PassUpcard()).code == "wrong_phase"


def test_legal_discards_are_every_card_but_the_taken_one_and_knocks_are_listed_rules_1():
    """legal_moves lists each discard, and one Knock per discard that allows a knock."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    moves = G.legal_moves(t.state, 1)
    hand = P_KNOCK[0].split() + ["2D"]
    assert [m for m in moves if isinstance(m, Discard)] == [Discard(c) for c in cards.sort_codes(hand)]
    # AC 2C 3C | 7D 7H 7S | 4S 5S 6S + 9H 2D: discarding 9H leaves 2, 2D leaves 9;
    # discarding AC leaves 2C 3C 9H 2D = 2+3+9+2 = 16 and 7D leaves 7H 7S 9H 2D = 25, etc.
    assert sorted(m.discard for m in moves if isinstance(m, Knock)) == ["2D", "9H"]
    assert all(m.melds is None for m in moves if isinstance(m, Knock))
    assert Knock(None, None) not in moves


def test_big_gin_is_listed_when_all_eleven_cards_are_melded_rules_3():
    from support.rules import P_BIG_GIN

    t = new_table("gin-rami", decks=[deck_of(P_BIG_GIN)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    assert Knock(None, None) in G.legal_moves(t.state, 1)
    t3 = new_table("three-hand", decks=[deck_of(P_BIG_GIN)], roles=ROLES)
    t3.pass_(1)
    t3.pass_(0)
    t3.stock(1)
    assert Knock(None, None) not in G.legal_moves(t3.state, 1)


# --------------------------------------------------------------------------- drawn hand


def draw_and_discard(t, seats, n):
    """n turns, alternating from seats[0]: draw the stock's top card and discard it."""
    for i in range(n):
        seat = seats[i % 2]
        t.stock(seat)
        t.discard(seat, cards.code(t.state.drawn))


def test_discard_leaving_two_cards_in_the_stock_draws_the_hand_rules_1_drawn_hand():
    """§1 Drawn hand: stock 31 after the deal; 29 draws leave 2; that discard draws the hand."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    draw_and_discard(t, (1, 0), 28)
    assert t.state.stock_size == 3 and t.state.hand_no == 1  # 31 - 28 = 3: not yet
    t.stock(1)  # 29th draw: 2 left
    assert t.state.stock_size == 2 and t.state.phase == "discard"
    new = t.discard(1, cards.code(t.state.drawn))
    assert [type(e).TYPE for e in new] == ["card_discarded", "hand_drawn", "hand_dealt"]
    assert new[1].reason == "stock_exhausted"
    # nobody scores and the same dealer deals again
    assert t.state.scores == [0, 0]
    assert (t.state.hand_no, t.state.dealer) == (2, 0)


def test_draw_leaving_two_cards_in_the_stock_may_still_knock_rules_1_drawn_hand():
    """§1 "A player whose draw leaves two cards in the stock may still knock"."""
    t = new_table("gin-rami", decks=[deck_of(P_GIN)], first_dealer=0)
    t.pass_(1)
    t.pass_(0)
    draw_and_discard(t, (1, 0), 28)
    t.stock(1)
    assert t.state.stock_size == 2
    new = t.knock(1, cards.code(t.state.drawn))
    # the non-dealer's ten cards are all melded: gin, 20 in gin-rami
    assert [type(e).TYPE for e in new[:2]] == ["knocked", "hand_scored"]
    assert (new[1].outcome, new[1].points) == ("gin", 20)


def test_three_hand_drawn_hand_keeps_the_roles_and_the_box_deals_again_rules_2_rotation():
    """§2 Rotation: "A drawn hand: roles unchanged, the box deals again"."""
    t = new_table("three-hand", decks=[deck_of(P_KNOCK)], roles=ROLES)
    t.pass_(1)
    t.pass_(0)
    draw_and_discard(t, (1, 0), 29)
    assert isinstance(t.events[-2], HandDrawn)
    assert t.state.roles == ROLES and t.state.dealer == 0 and t.state.hand_no == 2
    assert t.state.scores == [0, 0, 0]


def test_hand_reaching_200_turns_without_a_knock_is_drawn_rules_1_decision():
    """§1 [decision]: 200 turns (default max_turns_per_hand) draw the hand."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0)
    t.take(1)
    t.discard(1, "9H")  # turn 1
    # both players now pass cards back and forth through the discard pile; the stock is untouched
    held = {0: "KS", 1: "JC"}  # the card each will give next: the upcard JC is held by 1
    turn = 1
    seat = 0
    while turn < 199:
        t.pile(seat)
        taken = cards.code(t.state.taken)
        t.discard(seat, held[seat])
        held[seat] = taken
        turn += 1
        seat = 1 - seat
        assert t.state.hand_no == 1
    assert t.state.stock_size == 31  # the stock was never touched
    t.pile(seat)  # turn 200
    new = t.discard(seat, held[seat])
    assert [type(e).TYPE for e in new] == ["card_discarded", "hand_drawn", "hand_dealt"]
    assert new[1].reason == "turn_limit"


def test_max_turns_option_counts_draws_but_not_upcard_passes_rules_4():
    """§4 max_turns_per_hand; §1 "passing the upcard is not a turn"."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, options={"max_turns_per_hand": 2})
    t.pass_(1)
    t.pass_(0)
    draw_and_discard(t, (1, 0), 1)  # turn 1
    assert t.state.hand_no == 1
    t.stock(0)  # turn 2
    new = t.discard(0, cards.code(t.state.drawn))
    assert new[1].reason == "turn_limit" and t.state.hand_no == 2


def test_taking_the_upcard_is_a_turn_rules_4():
    """§1 "A turn is one draw (or the taking of the upcard) followed by its discard or knock"."""
    t = new_table("gin-rami", decks=[deck_of(P_KNOCK)], first_dealer=0, options={"max_turns_per_hand": 1})
    t.take(1)
    new = t.discard(1, "9H")
    assert new[1].reason == "turn_limit"


# --------------------------------------------------------------------------- seats and the game


def test_open_seats_wait_and_the_last_claim_starts_the_game():
    t = new_table("gin-rami", players=[{"name": "ann"}, None], first_dealer=0,
                  decks=[deck_of(P_KNOCK)])
    assert t.state.status == "waiting" and t.state.phase == "waiting_for_players"
    assert refused(t, 0, TakeUpcard()).code == "game_not_started"
    err = refused(t, None, ClaimSeat(0, {"name": "zed"}))
    assert (err.code, err.conflict) == ("seat_taken", True)
    assert refused(t, None, ClaimSeat(2, {"name": "zed"})).code == "invalid_seat"
    new = t.do(None, ClaimSeat(1, {"name": "bob"}))
    assert [type(e).TYPE for e in new] == ["seat_claimed", "dealer_chosen", "hand_dealt"]
    assert t.state.status == "playing" and t.state.players == [{"name": "ann"}, {"name": "bob"}]
    assert refused(t, None, ClaimSeat(1, {"name": "zed"})).code == "seat_taken"


def test_game_over_refuses_every_command_rules_1_game():
    t = new_table("gin-rami", decks=[deck_of(P_GIN)], first_dealer=0, options={"target_score": 20})
    t.pass_(1)
    t.pass_(0)
    t.stock(1)
    new = t.knock(1, "KH")  # gin: 20 reaches the target
    assert type(new[-1]).TYPE == "game_ended"
    assert t.state.status == "over" and t.state.winner == 1 and t.state.phase == "game_over"
    for seat in (0, 1):
        assert G.legal_moves(t.state, seat) == []
        err = refused(t, seat, DrawStock())
        assert (err.code, err.conflict) == ("game_over", True)


def test_unknown_command_and_unknown_actor_are_refused():
    t = started()
    assert refused(t, 0, object()).code == "unknown_command"
    assert refused(t, 5, DrawStock()).code == "not_a_player"
    assert refused(t, None, DrawStock()).code == "not_a_player"
    # there is no advisor in gin-rami
    assert refused(t, 0, Advise("draw")).code == "not_advisor"
