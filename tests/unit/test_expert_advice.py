"""Three-hand: the expert as advisor works out the captain's move from the captain's view and
words it with a short reason (RULES.md §2 Advice); as captain it plays that very move."""

from __future__ import annotations

import random

from service.rules import cards as C
from service.rules import game as G
from service.rules import views
from service.rules.commands import MAX_ADVICE_LENGTH, DRAW_STOCK, PASS_UPCARD, command_to_dict
from workers.arena import Table
from workers.policies import ExpertPolicy, advice_text, owner_moves


def three_hand(seed: bytes) -> Table:
    return Table.start(G.GameSpec(variant="three-hand", players=[{"name": "a"}, {"name": "b"}, {"name": "c"}],
                                  seed=seed, roles={"box": 1, "captain": 0, "advisor": 2}))


def test_the_advisor_advises_the_move_the_expert_captain_plays_with_a_reason():
    checked = 0
    for i in range(6):
        table = three_hand(b"advice-%d" % i)
        for _ in range(24):
            state = table.state
            if state.status != "playing" or state.hand_no != 1:
                break
            seat = state.to_act[0]
            if seat == 0:
                captain_view = views.view_state(state, 0)
                advisor_view = views.view_state(state, 2)
                assert advisor_view["hand"] == captain_view["hand"]
                played = ExpertPolicy(budget_s=None).choose(captain_view, random.Random(7), table.seen[0])
                advised = ExpertPolicy(budget_s=None).choose(advisor_view, random.Random(7), table.seen[2])
                assert command_to_dict(advised) == command_to_dict(played)
                def key(m):
                    return m.TYPE, getattr(m, "card", None) or getattr(m, "discard", None)

                # one of the captain's moves (a knock names its melds; the move list leaves them open)
                assert key(advised) in {key(m) for m in owner_moves(advisor_view)}
                text = advice_text(advised)
                assert 1 <= len(text) <= MAX_ADVICE_LENGTH
                head = advice_text(type(advised)(**{k: getattr(advised, k) for k in command_to_dict(advised)
                                                    if k != "type"}))
                # the words of the move come first, then the reason after a colon
                assert text.startswith(head[:-1] + ": ") and len(text) > len(head) + 5, text
                checked += 1
                table.play(0, played)
            else:
                moves = G.legal_moves(state, seat)
                if DRAW_STOCK in moves:
                    table.play(seat, DRAW_STOCK)
                elif PASS_UPCARD in moves:
                    table.play(seat, PASS_UPCARD)
                else:
                    # the box throws its highest card
                    hand = C.cards_of(state.hands[seat])
                    card = max((c for c in hand if c != state.taken), key=lambda c: (C.VALUE[c], c))
                    table.play(seat, next(m for m in moves if getattr(m, "card", None) == C.code(card)))
    assert checked >= 20
