"""Scoring a hand, and what follows it: the end of the game, or the roles and dealer of the next.

RULES.md §1: Laying off (the defender's melds and lay-offs); The end of the game.
§2: Scoring a hand (knock, undercut); three-hand roles after each hand.
§3: gin rami's gin and big gin bonuses (§4 options), and the alternating deal.
§5: the end-of-game bonuses, Oklahoma's doubling, Hollywood's three games.
"""

from __future__ import annotations

from typing import Iterable

from . import cards, melds, rulesets
from .layoffs import resolve_layoffs
from .cards import DECK
from .events import GameEnded, HandScored, Knocked, RolesAssigned
from .setup import deal
from .state import GameState


def normalise_melds(laid: Iterable) -> tuple:
    """Melds as a tuple of tuples of card indexes: each meld in index order, melds sorted."""
    return tuple(sorted(tuple(sorted(cards.to_index(c) for c in meld)) for meld in laid))


def card_codes(some_cards: Iterable) -> tuple:
    """The codes of some cards (indexes or codes), in the same order."""
    return tuple(DECK[cards.to_index(c)] for c in some_cards)


def _opponent(state: GameState, seat: int) -> int:
    return state.non_dealer if seat == state.dealer else state.dealer


def dealer_after(state: GameState, winner: int, scores, over: bool | None = None) -> int | None:
    """Who deals the hand after one that ``winner`` won with ``scores`` after it; None if it ended
    the game (§1 Game, §2 Rotation: the box deals, §3 the deal alternates).

    ``over``: whether it ended the game, when the scores alone do not say (§5 Hollywood)."""
    if over is None:
        over = scores[winner] >= state._options["target_score"]
    if over:
        return None
    if state.box is not None:
        # the box stays in the box if it won; else the captain goes into the box
        return state.box if winner == state.box else state.captain
    return state.non_dealer


def _final_hands(state: GameState, knocker: int, knocker_hand: int, defender: int) -> tuple:
    """Each seat's cards at the end of the hand; None for a seat that sat it out (§2)."""
    return tuple(
        tuple(cards.codes_of(knocker_hand)) if seat == knocker
        else tuple(cards.codes_of(state.hands[defender])) if seat == defender
        else None
        for seat in range(state.nseats)
    )


def replay_details(state: GameState, scored: HandScored) -> dict:
    """The fields version 2 of HandScored adds, worked out from the state the event applies to
    (after Knocked): for events upcast from version 1, which did not record them."""
    k = state.knock
    defender_hand = state.hands[scored.defender]
    if scored.outcome in ("knock", "undercut"):
        before = melds.best_arrangement(cards.cards_of(defender_hand)).deadwood
    else:
        before = scored.defender_deadwood  # nothing is laid off against gin
    return {
        "discard": k.discard if k is not None else None,
        "knocker_melds": tuple(k.melds) if k is not None else (),
        "knocker_deadwood_cards": tuple(k.deadwood_cards) if k is not None else (),
        "hands": _final_hands(state, scored.knocker, state.hands[scored.knocker], scored.defender),
        "turns": state.turns,
        "defender_deadwood_before_layoffs": before,
        "next_dealer": dealer_after(state, scored.winner, scored.scores),
    }


def score_hand(state: GameState, knocker: int, laid: tuple, knocker_deadwood: int, kind: str,
               knocked: Knocked) -> list:
    """HandScored and what follows it (§2 Scoring, §3 scoring, §2 Rotation, §3 deal, §1 Game).

    ``laid``: the knocker's melds (normalise_melds); ``kind``: "knock", "gin" or "big_gin";
    ``knocked``: the Knocked event this scores (its discard leaves the knocker's final hand).
    """
    # The bonuses are those of the §4 options.
    options = state.options
    defender = _opponent(state, knocker)
    defender_hand = state.hands[defender]
    own_deadwood = melds.best_arrangement(cards.cards_of(defender_hand)).deadwood
    if kind == "knock":
        lay = resolve_layoffs(defender_hand, laid)
        defender_deadwood = lay.deadwood
        defender_melds, layoffs, defender_cards = lay.melds, lay.layoffs, lay.deadwood_cards
        if knocker_deadwood < defender_deadwood:
            winner, points, outcome = knocker, defender_deadwood - knocker_deadwood, "knock"
        else:
            # K >= D is an undercut, K = D included (§2; §3 [decision])
            winner, outcome = defender, "undercut"
            points = options["undercut_bonus"] + (knocker_deadwood - defender_deadwood)
    else:
        # no lay-offs against gin or big gin: the defender only forms their own melds
        arrangement = melds.best_arrangement(cards.cards_of(defender_hand))
        defender_deadwood = arrangement.deadwood
        defender_melds, layoffs, defender_cards = arrangement.melds, (), arrangement.deadwood_cards
        bonus = options["gin_bonus"] if kind == "gin" else options["big_gin_bonus"]
        winner, outcome = knocker, kind
        # §3: whether gin adds the defender's deadwood is an option
        points = bonus + (defender_deadwood if options["gin_adds_deadwood"] else 0)
    # §5 Oklahoma: a spade upcard doubles every point of the hand, bonuses included
    multiplier = rulesets.hand_multiplier(options, state.deck)
    points *= multiplier
    scores = state.scores
    scores[winner] += points
    hollywood = None
    if state.hollywood is not None:
        # §5 Hollywood: the hand goes into the games of the winner's count of wins; the scores are
        # the sums of the three games', and the game is over when all three are
        entered, games = rulesets.enter_hand(options, state.hollywood, winner, points)
        hollywood = {"entered": entered, "games": games}
        scores = rulesets.hollywood_scores(games)
        over = rulesets.hollywood_over(games)
    else:
        over = scores[winner] >= options["target_score"]
    knocker_hand = state.hands[knocker]
    if knocked.discard is not None:
        knocker_hand &= ~(1 << cards.to_index(knocked.discard))
    scored = HandScored(
        hand_no=state.hand_no,
        knocker=knocker,
        defender=defender,
        outcome=outcome,
        knocker_deadwood=knocker_deadwood,
        defender_melds=tuple(card_codes(m) for m in normalise_melds(defender_melds)),
        layoffs=tuple((DECK[cards.to_index(c)], int(i)) for c, i in layoffs),
        defender_deadwood_cards=card_codes(sorted(cards.to_index(c) for c in defender_cards)),
        defender_deadwood=defender_deadwood,
        winner=winner,
        points=points,
        scores=tuple(scores),
        discard=knocked.discard,
        knocker_melds=tuple(knocked.melds),
        knocker_deadwood_cards=tuple(knocked.deadwood_cards),
        hands=_final_hands(state, knocker, knocker_hand, defender),
        turns=state.turns,
        defender_deadwood_before_layoffs=own_deadwood,
        next_dealer=dealer_after(state, winner, scores, over),
        multiplier=multiplier if multiplier != 1 else None,
        hollywood=hollywood,
    )
    out: list = [scored]
    if over and hollywood is not None:
        games = hollywood["games"]
        out.append(GameEnded(rulesets.hollywood_winner(games), tuple(scores), state.seed.hex(),
                             hollywood={"games": games}))
        return out
    if over:
        # only the winner's score moved, so the winner is the only one at the target (§1 Game)
        out.append(_game_ended(state, winner, scores))
        return out
    if state.box is not None:
        box, captain, advisor = state.box, state.captain, state.advisor
        if winner == box:
            out.append(RolesAssigned(box, advisor, captain, "box_won"))
        else:
            out.append(RolesAssigned(captain, advisor, box, "box_lost"))
        dealer, non_dealer = out[-1].box, out[-1].captain
    else:
        dealer, non_dealer = state.non_dealer, state.dealer  # the deal alternates (§3)
    out.append(deal(state.deal_seed, state.decks, state.hand_no + 1, dealer, non_dealer))
    return out


def _game_ended(state: GameState, winner: int, scores: list) -> GameEnded:
    """GameEnded for ``winner`` at the target, with the end-of-game bonuses of §5 if any is on."""
    options = state.options
    if not rulesets.has_bonuses(options):
        return GameEnded(winner, tuple(scores), state.seed.hex())
    wins = [0] * state.nseats
    for result in state.results:
        if result.get("outcome") != "drawn":
            wins[result["winner"]] += 1
    wins[winner] += 1  # the hand just scored
    sheet = rulesets.end_bonuses(options, tuple(scores), tuple(wins), winner)
    return GameEnded(winner, tuple(sheet["totals"]), state.seed.hex(), sheet)
