"""Paired difference of win rates, counting PIMC minus non-counting PIMC, from the arena JSON files here:
per deal, the counting agent's wins minus the other's over the deal's duplicate set (every seating), then
the mean over deals with a normal 95% interval over deals (the arena's unit whose luck cancels).

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
CONFIGS = [  # file, cards out of play
    ("3x13", 13),
    ("3x17", 1),
    ("4x13", 0),
    ("2x13", 26),
    ("2x20", 12),
    ("2x26", 0),
]

print("config  out  deals  games  counting win rate  not counting win rate  difference [95% CI]")
for name, out in CONFIGS:
    path = HERE / f"{name}.json"
    if not path.exists():
        path = HERE / name / f"{name}.json"
    if not path.exists():
        continue
    data = json.loads(path.read_text())
    per_deal: dict[int, list[float]] = {}
    wins = {COUNTING: 0, BLIND: 0}
    games = {COUNTING: 0, BLIND: 0}
    for r in data["records"]:
        diff = 0.0
        for seat, agent in enumerate(r["seats"]):
            if agent in wins:
                won = r["outcome"][seat] > 0
                wins[agent] += won
                games[agent] += 1
                diff += won if agent == COUNTING else -won
        per_deal.setdefault(r["deal"], []).append(diff)
    means = [sum(v) / len(v) for v in per_deal.values()]
    n = len(means)
    m = sum(means) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in means) / (n - 1))
    half = 1.959963984540054 * sd / math.sqrt(n)
    print(
        f"{name:6s} {out:4d} {n:6d} {len(data['records']):6d}  {wins[COUNTING] / games[COUNTING]:17.3f}"
        f"  {wins[BLIND] / games[BLIND]:21.3f}  {m:+.3f} [{m - half:+.3f}, {m + half:+.3f}]"
    )
