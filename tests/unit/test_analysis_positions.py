"""Decision analysis on hand-built positions whose best move is clear by reasoning (service/docs/ANALYSIS.md).

Each test plays a scripted deal to a decision, makes a bad move there, and checks that the analysis
names the right move and marks the one played at least a mistake (3 points given away). The
reasoning for each position is in its docstring; the expected values come from the rules, never
from the analysis.
"""

from __future__ import annotations

from service.rules.commands import DRAW_STOCK, PASS_UPCARD, TAKE_UPCARD, Discard, Knock
from support.analysis_games import D, N, last_decision, play, start, wall_deal, wall_moves
from support.decks import build_deck

BAD = ("mistake", "blunder")


def _decide(deck, moves, variant="gin-rami", options=None, samples=16):
    state, log = start(deck, variant, options)
    state, log = play(state, log, moves)
    return last_decision(log, samples)


# --- a discard that breaks a complete meld when a dead card was free


def _break_meld(variant):
    """7C 7D 7H, 2S 3S 4S, 8D 9D TD and QC, then the stock's KS: with the knock limit at 5 nobody
    may knock; throwing KS or QC keeps three melds, throwing 8D breaks a run and keeps two kings'
    worth of dead cards, so it can only be worse."""
    hand = ["7C", "7D", "7H", "2S", "3S", "4S", "8D", "9D", "TD", "QC"]
    deck = build_deck(hand, ["AC", "5H", "9C", "JS", "4H", "6C", "QD", "2H", "TC", "8S"], "5D", ["KS"])
    moves = [(N, PASS_UPCARD), (D, PASS_UPCARD), (N, DRAW_STOCK), (N, Discard("8D"))]
    (entry,) = _decide(deck, moves, variant, {"knock_limit": 5})
    assert entry["kind"] == "discard" and entry["chosen"] == {"type": "discard", "card": "8D"}
    assert entry["best"]["type"] == "discard" and entry["best"]["card"] in ("KS", "QC")
    assert entry["class"] in BAD and entry["loss"] >= 3


def test_a_discard_breaking_a_run_when_a_king_was_free_is_marked_gin_rami():
    _break_meld("gin-rami")


def test_a_discard_breaking_a_run_when_a_king_was_free_is_marked_three_hand():
    _break_meld("three-hand")


# --- gin at hand, not taken (three-hand: gin scores 25 plus the opponent's deadwood)

GIN_HAND = ["2C", "3C", "4C", "5D", "6D", "7D", "9S", "9H", "9C", "JH"]
BOX_HAND = ["AD", "KC", "5S", "QH", "8C", "3H", "TS", "6H", "KD", "4S"]


def test_passing_an_upcard_that_completes_gin_is_a_blunder_three_hand():
    """9D makes 9S 9H 9C 9D: taking it and throwing JH is gin at once (25 + the box's deadwood);
    passing it leaves at best a knock with 10 later, worth the box's deadwood less 10 at most."""
    deck = build_deck(GIN_HAND, BOX_HAND, "9D")
    (entry,) = _decide(deck, [(N, PASS_UPCARD)], "three-hand")
    assert entry["kind"] == "upcard" and entry["role"] == "captain"
    assert entry["best"] == {"type": "take_upcard"}
    assert entry["class"] == "blunder" and entry["loss"] >= 20


def test_knocking_with_ten_when_gin_was_there_is_a_blunder_three_hand():
    """After taking 9D, throwing JH is gin; knocking by throwing 9C keeps JH (10 deadwood): at best the
    box's deadwood less 10 against gin's 25 plus that deadwood, so 35 points or more given away."""
    deck = build_deck(GIN_HAND, BOX_HAND, "9D")
    entries = _decide(deck, [(N, TAKE_UPCARD), (N, Knock("9C"))], "three-hand")
    entry = entries[0]
    assert entry["kind"] == "gin" and entry["chosen"]["discard"] == "9C"
    assert entry["best"]["type"] == "knock" and entry["best"]["discard"] == "JH"
    assert entry["class"] == "blunder" and entry["loss"] >= 35


def test_drawing_from_the_stock_when_the_pile_gives_gin_is_a_blunder_three_hand():
    """The box throws 9D: taking it makes gin with JH thrown; the stock card gives a knock at best."""
    box = ["9D", "KC", "5S", "QH", "8C", "3H", "TS", "6H", "KD", "4S"]
    deck = build_deck(GIN_HAND, box, "KS", ["QS", "AD"])
    moves = [(N, PASS_UPCARD), (D, PASS_UPCARD), (N, DRAW_STOCK), (N, Discard("QS")),
             (D, DRAW_STOCK), (D, Discard("9D")), (N, DRAW_STOCK)]
    (entry,) = _decide(deck, moves, "three-hand")
    assert entry["kind"] == "draw" and entry["best"] == {"type": "draw_discard"}
    assert entry["class"] == "blunder" and entry["loss"] >= 20


# --- big gin (gin rami: 30 points, gin 20; with gin_adds_deadwood both add the opponent's deadwood, so
# that no early knock can beat them: flat, a knock with 5 against a fresh hand of 50 wins more)

ADDS = {"gin_adds_deadwood": True}

BIG_GIN_HAND = ["2C", "3C", "4C", "5D", "6D", "7D", "8D", "9S", "9H", "9C"]
DEALER_HAND = ["AD", "KC", "5S", "QH", "8C", "3H", "TS", "6H", "KD", "4S"]


def test_gin_laid_down_when_big_gin_was_there_gives_away_ten_points():
    """With 9D taken all eleven cards meld: big gin scores 30, gin (throwing 8D) 20, each plus the
    opponent's deadwood, whatever the opponent holds, so exactly 10 points are given away."""
    deck = build_deck(BIG_GIN_HAND, DEALER_HAND, "9D")
    entries = _decide(deck, [(N, TAKE_UPCARD), (N, Knock("8D"))], options=ADDS)
    entry = entries[0]
    assert entry["best"] == {"type": "knock", "discard": None, "melds": entry["best"]["melds"]}
    assert entry["ev_best"] - entry["ev_chosen"] == 10
    assert entry["loss"] == 10 and entry["class"] == "blunder"


def test_playing_on_instead_of_big_gin_is_marked():
    """Throwing 8D without knocking gives the opponent a turn, and gin (10 less) at best afterwards."""
    deck = build_deck(BIG_GIN_HAND, DEALER_HAND, "9D")
    (entry,) = _decide(deck, [(N, TAKE_UPCARD), (N, Discard("8D"))], options=ADDS)
    assert entry["best"]["type"] == "knock" and entry["best"]["discard"] is None
    assert entry["class"] in BAD and entry["loss"] >= 8


def test_drawing_from_the_stock_when_the_pile_gives_big_gin_is_marked():
    """The dealer throws 9D: with it all eleven meld (30); a stock card is gin (20) unless it happens to
    meld too, so the stock gives away nearly 10 points."""
    dealer = ["9D", "KC", "5S", "QH", "8C", "3H", "TS", "6H", "KD", "4S"]
    deck = build_deck(BIG_GIN_HAND, dealer, "KS", ["QS", "AD"])
    moves = [(N, PASS_UPCARD), (D, PASS_UPCARD), (N, DRAW_STOCK), (N, Discard("QS")),
             (D, DRAW_STOCK), (D, Discard("9D")), (N, DRAW_STOCK)]
    (entry,) = _decide(deck, moves)
    assert entry["kind"] == "draw" and entry["best"] == {"type": "draw_discard"}
    assert entry["class"] in BAD and entry["loss"] >= 5


# --- at the wall: the last discard draws the hand (0 points), a knock is scored


LOW_POOL = ["AC", "2C", "3C", "AD", "2D", "3D", "AH", "2H", "3H", "AS", "2S", "3S"]
HIGH_HAND = ["7C", "8C", "9C", "TD", "JD", "QD", "KH", "KS", "KC", "8H"]
#: twelve cards of which no three meld: any ten of them leave 60 points or more of deadwood
DEAD_POOL = ["5C", "5D", "7H", "7S", "9C", "9D", "JH", "JS", "KC", "KD", "TC", "QH"]
LOW_HAND = ["AC", "2C", "3C", "AD", "2D", "3D", "4H", "5H", "6H", "AS"]


def _wall(variant, hand, last, pool, final):
    deck = wall_deal(hand, last, pool)
    return _decide(deck, wall_moves(deck) + [(N, final)], variant)


def _undercut(variant):
    """Every card the knocker never saw is an ace, two or three: any ten of them meld down to 4 points
    or less, so a knock with 8 is undercut (10 + 4 points or more to the opponent), where throwing
    any card draws the hand (0)."""
    entries = _wall(variant, HIGH_HAND, "9H", LOW_POOL, Knock("9H"))
    entry = entries[0]
    assert entry["kind"] == "knock" and entry["chosen"]["discard"] == "9H"
    assert entry["best"]["type"] == "discard" and entry["ev_best"] == 0
    assert entry["ev_chosen"] <= -14 and entry["class"] == "blunder"


def test_knocking_into_a_certain_undercut_at_the_wall_is_a_blunder_gin_rami():
    _undercut("gin-rami")


def test_knocking_into_a_certain_undercut_at_the_wall_is_a_blunder_three_hand():
    _undercut("three-hand")


def _safe_knock(variant):
    """The unseen twelve hold no meld: the opponent keeps 60 points or more of deadwood, so knocking
    with 1 (throwing 4S) wins that much, where throwing 4S without knocking draws the hand."""
    entries = _wall(variant, LOW_HAND, "4S", DEAD_POOL, Discard("4S"))
    (entry,) = entries
    assert entry["kind"] == "knock" and entry["chosen"] == {"type": "discard", "card": "4S"}
    assert entry["best"]["type"] == "knock" and entry["best"]["discard"] == "4S"
    assert entry["ev_chosen"] == 0 and entry["loss"] >= 50 and entry["class"] == "blunder"


def test_playing_on_with_a_safe_knock_at_the_wall_is_a_blunder_gin_rami():
    _safe_knock("gin-rami")


def test_playing_on_with_a_safe_knock_at_the_wall_is_a_blunder_three_hand():
    _safe_knock("three-hand")


def test_the_best_move_played_gives_nothing_away():
    """The same wall position, the knock played: nothing is given away and the move is the best."""
    (entry,) = _wall("gin-rami", LOW_HAND, "4S", DEAD_POOL, Knock("4S"))
    assert entry["chosen"] == entry["best"] and entry["loss"] == 0 and entry["class"] == "best"
