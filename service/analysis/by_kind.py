"""The points each player gave away per hand, by decision kind, over several analysed games (a match's)."""

from __future__ import annotations

#: the kinds of decision, in the order a hand meets them (service/docs/ANALYSIS.md, "What a decision is")
KINDS = ("upcard", "draw", "discard", "knock", "gin", "arrangement")


def given_away_by_kind(results: list[dict]) -> list[dict]:
    """Per player name, over the analyses ``results``: games, hands played, decisions rated, and the
    points given away per hand, by kind and in all; players in the order they first sit."""
    rows: dict[str, dict] = {}
    for result in results:
        names = result["game"]["players"]
        hands = result["game"]["hands"]
        for name in names:
            row = rows.setdefault(name, {"name": name, "games": 0, "hands": 0, "decisions": 0,
                                         "lost": dict.fromkeys(KINDS, 0.0)})
            row["games"] += 1
            row["hands"] += hands
        for d in result["decisions"]:
            row = rows[names[d["seat"]]]
            row["decisions"] += 1
            row["lost"][d["kind"]] += d["loss"]
    out = []
    for row in rows.values():
        per = max(1, row["hands"])
        by_kind = {k: round(v / per, 3) for k, v in row["lost"].items()}
        out.append({"name": row["name"], "games": row["games"], "hands": row["hands"], "decisions": row["decisions"],
                    "per_hand": by_kind, "total_per_hand": round(sum(row["lost"].values()) / per, 3)})
    return out


def by_kind_table(rows: list[dict]) -> str:
    """The rows as a plain table: one line per player, a column per kind."""
    head = f"{'player':<16} {'hands':>6} " + " ".join(f"{k:>11}" for k in KINDS) + f" {'all':>8}"
    lines = ["points given away per hand, by decision kind", head]
    for r in rows:
        lines.append(f"{r['name']:<16} {r['hands']:>6} " + " ".join(f"{r['per_hand'][k]:>11.2f}" for k in KINDS)
                     + f" {r['total_per_hand']:>8.2f}")
    return "\n".join(lines)
