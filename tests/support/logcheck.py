"""Reading a stored game log back as the commands that made it (an independent check of a log)."""

from __future__ import annotations

from service.rules import game
from service.rules.commands import command_to_dict


def commands_in_log(records) -> tuple[int, dict[int, tuple[int, list[dict]]]]:
    """(version after the creation, {last version of a group: (seat, [commands it can be])}).

    The log is cut into groups, each exactly what the engine decides for one legal command of a
    seat to act (tried against every command legal_moves lists); a version gap or repeat, or a
    group that no legal command explains (a move played twice, out of turn, or half-recorded),
    fails with an AssertionError. Advice (three-hand) is not a listed move: gin-rami logs only.
    """
    events = [r.event for r in records]
    assert [r.version for r in records] == list(range(1, len(records) + 1)), "versions have a gap or a repeat"
    state = None
    i = 0
    while i < len(events) and (state is None or state.status != "playing"):
        state = game.evolve(state, events[i])
        i += 1
    created_at = i
    groups = {}
    while i < len(events):
        found = []
        for seat in state.to_act:
            for cmd in game.legal_moves(state, seat):
                decided = game.decide(state, seat, cmd)
                if decided == events[i:i + len(decided)]:
                    found.append((seat, command_to_dict(cmd), len(decided)))
        assert found, f"events from version {i + 1} are no legal command of a seat to act"
        size = found[0][2]
        assert all(f[2] == size for f in found)
        for event in events[i:i + size]:
            state = game.evolve(state, event)
        i += size
        groups[i] = (found[0][0], [f[1] for f in found])
    return created_at, groups
