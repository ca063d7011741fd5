"""Legal moves: the one list of what a seat may do now, for the API, the bots and the tests.

It implements the choices of RULES.md §1: The first turn (take or pass the upcard); A turn
(draw, then discard); Knocking at the knock limit of §4.
§3: big gin, where the options allow it.
"""

from __future__ import annotations

from . import cards, melds
from .commands import DRAW_DISCARD, DRAW_STOCK, PASS_UPCARD, TAKE_UPCARD, Discard, Knock
from .state import DISCARD, DRAW, UPCARD, GameState

_DISCARD_COMMANDS = tuple(Discard(code) for code in cards.DECK)
_KNOCK_COMMANDS = tuple(Knock(code, None) for code in cards.DECK)
_BIG_GIN_COMMAND = Knock(None, None)


# The Discard commands of every 13-bit suit pattern, per suit: legal_moves lists a hand's
# discards with four look-ups instead of walking its bits (it runs once per decision).
def _suit_discards(suit: int) -> tuple:
    table: list = [()] * (1 << 13)
    for pattern in range(1, 1 << 13):
        low = (pattern & -pattern).bit_length() - 1
        # the lowest card, then the rest (already built: a smaller pattern), in index order
        table[pattern] = (_DISCARD_COMMANDS[13 * suit + low],) + table[pattern & (pattern - 1)]
    return tuple(table)


_SUIT_DISCARDS = tuple(_suit_discards(suit) for suit in range(4))


def knock_options(state: GameState) -> list:
    """[(discard card, deadwood after)] for the player to discard: knocks allowed now (cached)."""
    options = state.knock_options_memo
    if options is None:
        hand = state.hands[state.to_act[0]]
        if melds.deadwood_after_discard_mask(hand) > state.knock_limit:
            options = []
        else:
            options = [(c, d) for c, d in melds.knock_discards(cards.cards_of(hand), state.knock_limit)]
        state.knock_options_memo = options
    return options


def legal_moves(state: GameState | None, seat: int | None) -> list:
    """Every legal command of ``seat`` now (empty when the seat is not to act).

    Discards one per card (except the card just taken from the discard pile), one
    ``Knock(discard, None)`` per discard after which a knock is allowed, and ``Knock(None,
    None)`` for big gin where allowed. ClaimSeat and Advise are not listed.
    """
    if state is None or state.status != "playing" or seat not in state.to_act:
        return []
    phase = state.phase
    # A turn (RULES.md §1): draw from the stock or the discard pile, then discard any card but the one just taken.
    if phase == DRAW:
        if state.turns == 0 and state.passes == 2:
            return [DRAW_STOCK]
        return [DRAW_STOCK, DRAW_DISCARD]
    if phase == UPCARD:
        return [TAKE_UPCARD, PASS_UPCARD]
    if phase != DISCARD:
        return []
    hand = state.hands[seat]
    taken = state.taken
    rest = hand & ~(1 << taken) if taken >= 0 else hand  # the cards that may be discarded
    clubs, diamonds, hearts, spades = _SUIT_DISCARDS
    moves = [
        *clubs[rest & 0x1FFF], *diamonds[rest >> 13 & 0x1FFF], *hearts[rest >> 26 & 0x1FFF], *spades[rest >> 39]
    ]
    knocks = knock_options(state)
    if knocks:
        moves += [_KNOCK_COMMANDS[cards.to_index(c)] for c, _ in knocks if cards.to_index(c) != taken]
        # eleven cards all in melds always leave 0 after some discard (one meld has 4+ cards)
        if state.big_gin and min(d for _, d in knocks) == 0 and melds.deadwood_mask(hand) == 0:
            moves.append(_BIG_GIN_COMMAND)
    return moves
