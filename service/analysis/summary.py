"""The classes of a decision by the points it gave away, and the per-seat and per-hand summaries."""

from __future__ import annotations

#: the least loss (expected points given away) of each class, worst last
CLASSES = {"inaccuracy": 1.0, "mistake": 3.0, "blunder": 8.0}
#: a decision that gave away less than this counts as a good one in ``good_share``
GOOD_LOSS = 0.5
_PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def classify(loss: float) -> str:
    """The class of a decision that gave away ``loss`` expected points."""
    label = "best" if loss < 0.005 else "good"
    for name, least in CLASSES.items():
        if loss >= least:
            label = name
    return label


def _r(x: float) -> float:
    return round(x + 0.0, 2) + 0.0


def tally(entries: list[dict]) -> dict:
    """Decisions, points given away, accuracy and the count of each class, for some decisions."""
    n = len(entries)
    lost = sum(e["loss"] for e in entries)
    spread = sum(e["ev_range"] for e in entries)
    out = {
        "decisions": n,
        "points_given_away": _r(lost),
        "mean_loss": _r(lost / n) if n else None,
        # 100 when every decision was the best, 0 when each was the worst the position offered
        "accuracy": _r(100.0 * (1.0 - lost / spread)) if spread > 0 else None,
        "good_share": _r(sum(e["loss"] < GOOD_LOSS for e in entries) / n) if n else None,
    }
    for name, plural in _PLURALS.items():
        out[plural] = sum(e["class"] == name for e in entries)
    advised = [a for e in entries for a in e.get("advice", ()) if a.get("move") is not None]
    if advised:
        out["advice"] = {"compared": len(advised), "followed": sum(a["followed"] for a in advised),
                         "points_advice_gave_away": _r(sum(a["loss"] for a in advised))}
    return out


def summaries(decisions: list[dict], nseats: int, players: list) -> dict:
    """{"seats": [per seat], "hands": [per hand, per seat that decided in it]}."""
    seats = [{"seat": seat, "name": players[seat], **tally([e for e in decisions if e["seat"] == seat])}
             for seat in range(nseats)]
    hands = []
    for hand_no in sorted({e["hand_no"] for e in decisions}):
        in_hand = [e for e in decisions if e["hand_no"] == hand_no]
        hands.append({"hand_no": hand_no, "seats": [
            {"seat": seat, **tally([e for e in in_hand if e["seat"] == seat])}
            for seat in sorted({e["seat"] for e in in_hand})]})
    return {"seats": seats, "hands": hands}
