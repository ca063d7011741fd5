"""What ``ginbox analyse`` prints: the per-seat summary of a result."""

from __future__ import annotations


def summary_text(result: dict) -> str:
    """The per-seat table of a result, then one line on the method."""
    m = result["method"]
    g = result["game"]
    lines = [f"{g['variant']} game, {g['hands']} hand(s), final scores {g['scores']}",
             f"{'seat':<5}{'player':<18}{'decisions':>10}{'given away':>12}{'mean':>7}{'accuracy':>10}"
             f"{'inacc.':>8}{'mistakes':>10}{'blunders':>10}"]
    for s in result["seats"]:
        if not s["decisions"]:
            continue
        acc = "-" if s["accuracy"] is None else f"{s['accuracy']:.1f}"
        lines.append(f"{s['seat'] + 1:<5}{str(s['name'])[:17]:<18}{s['decisions']:>10}{s['points_given_away']:>12.1f}"
                     f"{s['mean_loss']:>7.2f}{acc:>10}{s['inaccuracies']:>8}{s['mistakes']:>10}{s['blunders']:>10}")
        if s.get("advice"):
            a = s["advice"]
            lines.append(f"     advice compared {a['compared']}, followed {a['followed']}, "
                         f"would have given away {a['points_advice_gave_away']:.1f}")
    lines.append(f"{m['samples']} samples per move ({m['confirm_samples']} to measure a loss), seed {m['seed']}, "
                 f"playouts by the {m['policy']} policy" + ("; truncated" if result.get("truncated") else ""))
    return "\n".join(lines)
