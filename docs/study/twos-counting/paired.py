"""Paired difference of win rates, counting PIMC minus non-counting PIMC, from the arena JSON files here:
per deal, the counting agent's wins minus the other's over the deal's duplicate set, then the mean over
deals with a normal 95% interval over deals (the arena's unit whose luck cancels).

With 2 and 3 players a duplicate set is every seating. With 4 the arena plays the 4 rotations of the agents'
order only, so one order fixes where the non-counting agent sits relative to the counting one; three orders
cover all 12 seatings (the two heuristics are the same agent): ``4x13`` (counting, non-counting, heuristic,
heuristic: the counting agent plays directly before the other), ``4x13-after`` (the two swapped: directly
after) and ``4x13-opposite`` (counting, heuristic, non-counting, heuristic). ``4x13 pooled`` is each deal's
12 games together; the rows below it are each order alone.

    python docs/study/twos-counting/paired.py > docs/study/twos-counting/paired.txt
    python docs/study/twos-counting/paired.py docs/study/full/twos-counting   (the full study's, NAME/NAME.json)
"""

import json
import math
import sys
from pathlib import Path

HERE = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
COUNTING = "twos.pimc(playouts=100)"
BLIND = "twos.pimc(playouts=100,counting=false)"
CONFIGS = [  # label, cards out of play, the arena runs (one per order of the agents)
    ("3x13", 13, ["3x13"]),
    ("3x17", 1, ["3x17"]),
    ("4x13 pooled", 0, ["4x13", "4x13-after", "4x13-opposite"]),
    ("2x13", 26, ["2x13"]),
    ("2x20", 12, ["2x20"]),
    ("2x26", 0, ["2x26"]),
]


def records(name: str) -> list[dict] | None:
    for path in (HERE / f"{name}.json", HERE / name / f"{name}.json"):
        if path.exists():
            return json.loads(path.read_text())["records"]
    return None


def interval(values: list[float]) -> str:
    n = len(values)
    m = sum(values) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in values) / (n - 1))
    half = 1.959963984540054 * sd / math.sqrt(n)
    return f"{m:+.3f} [{m - half:+.3f}, {m + half:+.3f}]"


def deal_differences(recs: list[dict]) -> dict[int, float]:
    """Per deal, the counting agent's wins minus the other's, averaged over the deal's games."""
    per_deal: dict[int, list[float]] = {}
    for r in recs:
        diff = 0.0
        for seat, agent in enumerate(r["seats"]):
            won = r["outcome"][seat] > 0
            diff += won if agent == COUNTING else -won if agent == BLIND else 0
        per_deal.setdefault(r["deal"], []).append(diff)
    return {deal: sum(v) / len(v) for deal, v in per_deal.items()}


def row(label: str, out: int, runs: list[list[dict]]) -> str:
    per_deal: dict[int, list[float]] = {}
    wins = {COUNTING: 0, BLIND: 0}
    games = {COUNTING: 0, BLIND: 0}
    count = 0
    for recs in runs:
        for r in recs:
            count += 1
            diff = 0.0
            for seat, agent in enumerate(r["seats"]):
                if agent in wins:
                    won = r["outcome"][seat] > 0
                    wins[agent] += won
                    games[agent] += 1
                    diff += won if agent == COUNTING else -won
            per_deal.setdefault(r["deal"], []).append(diff)
    means = [sum(v) / len(v) for v in per_deal.values()]
    return (
        f"{label:16s} {out:4d} {len(means):6d} {count:6d}  {wins[COUNTING] / games[COUNTING]:17.3f}"
        f"  {wins[BLIND] / games[BLIND]:21.3f}  {interval(means)}"
    )


print("config           out  deals  games  counting win rate  not counting win rate  difference [95% CI]")
for label, out, names in CONFIGS:
    found = [(name, recs) for name in names if (recs := records(name)) is not None]
    if not found:
        continue
    if len(names) == 1:
        print(row(label, out, [found[0][1]]))
        continue
    if len(found) > 1:
        print(row(label, out, [recs for _, recs in found]))
    for name, recs in found:
        print(row(f"  {name}", out, [recs]))
    runs = dict(found)
    if "4x13" in runs and "4x13-after" in runs:  # what the order alone moves, paired by deal
        before, after = deal_differences(runs["4x13"]), deal_differences(runs["4x13-after"])
        print(f"4x13: difference before minus difference after, paired by deal: "
              f"{interval([before[d] - after[d] for d in before])}")  # fmt: skip
