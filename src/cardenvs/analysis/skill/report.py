"""The report of ``cardenvs analyze skill``: a table per option set, and the plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .relative import KEY, relative_lines


def _fmt(entry: dict, digits: int = 3, missing: str = "n/a") -> str:
    """``value [lo, hi]``; a None (JSON's stand-in) prints as ``missing``: n/a, or inf for games to a lead."""

    def f(v: float | None) -> str:
        return missing if v is None else f"{v:.{digits}f}"

    lo, hi = entry["ci"]
    return f"{f(entry['value'])} [{f(lo)}, {f(hi)}]"


def report(env_id: str, result: dict) -> str:
    if "skill_share" not in result:  # --relative-only: no ladder was played
        head = f"{env_id} {result['label']}: {result['players']} players; 95% intervals (bootstrap over deals)"
        return "\n".join([head, *relative_lines(result[KEY], _fmt)])
    lines = [
        f"{env_id} {result['label']}: {result['players']} players, {result['deals']} duplicate deals, "
        f"{result['games']} games ({result['games_per_hand_and_agent']} per hand and agent); 95% intervals "
        "(bootstrap over deals)",
        f"  skill share {_fmt(result['skill_share'])}   deal share {_fmt(result['deal_share'])}   "
        f"rest {_fmt(result['residual_share'])}   (agents' share of the sums of squares "
        f"{result['eta2_agent']:.3f})",
        f"  rating spread (SD, Elo) {_fmt(result['rating_spread'], 1)}   gap last-first "
        f"{_fmt(result['rating_gap'], 1)}",
        f"  {'agent':34s} {'win rate':>24s} {'rating (Elo)':>26s}",
    ]
    if KEY in result:  # beside the skill share
        lines[2:2] = relative_lines(result[KEY], _fmt)
    if result["skill_share"]["value"] is None:
        lines.insert(2, "  (no variance to split: every seat of every game had the same result)")
    for name, a in result["agents"].items():
        lines.append(f"  {name:34s} {_fmt(a['win_rate']):>24s} {_fmt(a['rating'], 1):>26s}")
    lines += order_lines(result["ladder_order"])
    lines.append("  games (deals) until the stronger is ahead with 95% probability:")
    for p in result["games_to_lead"]:
        lines.append(
            f"    {p['stronger']} over {p['weaker']}: mean difference {_fmt(p['mean_difference'])}; "
            f"{_fmt(p['games'], 0, 'inf')} games, {_fmt(p['deals'], 0, 'inf')} duplicate deals"
        )
    lines.append("  calibration (the same games, results replaced by coin flips; mean and 95% range of 20 draws):")
    for c in result["calibration"]:
        lines.append(
            f"    {c['name']:10s} skill share {_fmt(c['skill_share'])}   deal share {_fmt(c['deal_share'])}   spread "
            f"{_fmt(c['rating_spread'], 1)}   gap {_fmt(c['rating_gap'], 1)}"
        )
    return "\n".join(lines)


def order_lines(order: dict[str, Any]) -> list[str]:
    """The measured order, and a line per pair it puts against the declared ladder."""
    lines = [f"  measured order (by rating, weakest first): {' < '.join(order['measured'])}"]
    if order["agrees"]:
        return lines + ["  (the declared ladder's order)"]
    lines.append(f"  ORDER DIFFERS from the declared ladder ({', '.join(order['declared'])}):")
    for pair in order["inversions"]:
        verdict = "clear: interval below 0" if pair["clear"] else "within noise: interval reaches 0"
        lines.append(
            f"    {pair['stronger']} rated below {pair['weaker']}: {_fmt(pair['rating_difference'], 1)} Elo ({verdict})"
        )
    return lines


def plot(env_id: str, results: list[dict], path: Path) -> None:
    """Skill and deal shares per option set, the ladder's ratings and the calibration's skill shares."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(ax, entries, labels, colour):
        values = np.array([e["value"] if e["value"] is not None else np.nan for e in entries])
        lo = np.array([e["ci"][0] if e["ci"][0] is not None else np.nan for e in entries])
        hi = np.array([e["ci"][1] if e["ci"][1] is not None else np.nan for e in entries])
        err = np.nan_to_num(np.vstack([values - lo, hi - values]))
        ax.bar(range(len(values)), values, yerr=err, capsize=4, color=colour)
        ax.set_xticks(range(len(values)), labels, rotation=30, ha="right", fontsize=7)

    fig, axes = plt.subplots(len(results), 3, figsize=(13, 3.6 * len(results)), squeeze=False)
    for row, result in zip(axes, results, strict=True):
        bars(
            row[0],
            [result[k] for k in ("skill_share", "deal_share", "residual_share")],
            ["skill", "deal", "rest"],
            "#4c78a8",
        )
        row[0].set_title(f"{result['label']}: variance shares", fontsize=9)
        names = list(result["agents"])
        bars(row[1], [result["agents"][n]["rating"] for n in names], names, "#f58518")
        row[1].set_title("ratings (Elo, 95% CI)", fontsize=9)
        cal = result["calibration"]
        bars(
            row[2],
            [c["skill_share"] for c in cal] + [result["skill_share"]],
            [c["name"] for c in cal] + ["game"],
            "#54a24b",
        )
        row[2].set_title("skill share: calibration and the game", fontsize=9)
    fig.suptitle(env_id)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
