"""The full study's tables, from the JSON that ``docs/study/full/run.sh`` wrote beside this file.

    python docs/study/full/summary.py            # print them (Markdown)
    python docs/study/full/summary.py --write    # and put them in docs/luck-and-skill.md between its markers

Every number comes from ``docs/study/full/<section>/<env id>.json`` (each names the command that made it);
the wall times and loads from ``docs/study/full/run.log``.
"""

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
PAGE = HERE.parent.parent / "luck-and-skill.md"
START, END = "<!-- full-study: start (python docs/study/full/summary.py --write) -->", "<!-- full-study: end -->"
SECTIONS = [  # folder, title
    ("war", "War (the calibration)"),
    ("twenty", "Twenty: hidden, exposed, exposed + swapped"),
    ("two_way_street", "Two Way Street by player count"),
    ("two_way_street-declaration", "Two Way Street without the high/low choice"),
    ("twos", "Twos: bomb order"),
    ("twos-players", "Twos: one hand out against all cards dealt"),
    ("doudizhu", "Dou Dizhu with and without bidding"),
]


def ci(entry: dict, digits: int = 3) -> str:
    def f(x):
        if x is None:
            return "inf"
        return f"{x:.{digits}f}" if digits else f"{x:.0f}"

    lo, hi = entry["ci"]
    return f"{f(entry['value'])} [{f(lo)}, {f(hi)}]"


def lead(result: dict) -> str:
    """Games until the last ladder agent is ahead of the one before it (the last neighbouring pair of
    games_to_lead, whose final entry is the last agent against the first)."""
    top = result["games_to_lead"][-2] if len(result["games_to_lead"]) > 1 else result["games_to_lead"][-1]
    return ci(top["games"], 0) if top["games"]["value"] is not None else "never (not ahead)"


def section(folder: str, title: str, times: dict) -> list[str]:
    files = sorted((HERE / folder).glob("*.json"))
    if not files:
        return [f"### {title}", "", f"(not run: no JSON in docs/study/full/{folder})", ""]
    data = json.loads(files[0].read_text())
    ladder = data["ladder"]
    lines = [f"### {title}", "", f"`{data['command']}`", ""]
    lines.append(
        f"Ladder {', '.join(ladder)}; {times.get(folder, '?')}; load average at the end "
        f"{', '.join(str(x) for x in data['load_average'])}."
    )
    lines += [
        "",
        "| option set | deals (games) | skill share | deal share (coin flip) | rating spread (Elo) "
        f"| games until {ladder[-1]} leads {ladder[-2]} |",
        "|---|---|---|---|---|---|",
    ]
    for r in data["variants"]:
        coin = r["calibration"][0]["deal_share"]["value"] if r["calibration"] else None
        deal = ci(r["deal_share"]) if r["deal_share"]["value"] is not None else "n/a"
        coin_text = f" ({coin:.3f})" if coin is not None else ""
        skill_text = ci(r["skill_share"]) if r["skill_share"]["value"] is not None else "n/a"
        lines.append(
            f"| {r['label']} | {r['deals']} ({r['games']}) | {skill_text} | {deal}{coin_text} "
            f"| {ci(r['rating_spread'], 0)} | {lead(r)} |"
        )
    lines += ["", "Ratings (Elo, centred at 0) and win rates, by option set:", ""]
    labels = [r["label"] for r in data["variants"]]
    lines.append("| agent | " + " | ".join(labels) + " |")
    lines.append("|---|" + "---|" * len(labels))
    for agent in ladder:
        cells = []
        for r in data["variants"]:
            a = r["agents"][agent]
            cells.append(f"{ci(a['rating'], 0)}; {a['win_rate']['value']:.3f}")
        lines.append(f"| {agent} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def times_of_log() -> tuple[dict, str]:
    """Per section 'wall W s, CPU C s' from run.log, and its last line (the total)."""
    times, total = {}, ""
    log = HERE / "run.log"
    if log.exists():
        for line in log.read_text().splitlines():
            m = re.match(r"# ([\w./-]+): wall ([\d.]+) s, CPU ([\d.]+) s user \+ ([\d.]+) s sys", line)
            if m:
                cpu = float(m.group(3)) + float(m.group(4))
                times[m.group(1)] = f"{float(m.group(2)):.0f} s wall, {cpu:.0f} s CPU"
            m = re.match(r"# (\S+) end: (\d+) s in all  \(load average ([\d. ]+)\)", line)
            if m:
                total = f"{int(m.group(2)):,} s of wall in all, ended {m.group(1)}, load average then {m.group(3)}"
    return times, total


def main() -> None:
    times, total = times_of_log()
    lines = [f"Run: `docs/study/full/run.sh 2`, {total}." if total else "Run: `docs/study/full/run.sh 2`.", ""]
    for folder, title in SECTIONS:
        lines += section(folder, title, times)
    paired = HERE / "twos-counting" / "paired" / "output.txt"
    if paired.exists():
        lines += [
            "### Twos: the value of card counting",
            "",
            "`python docs/study/twos-counting/paired.py docs/study/full/twos-counting` (the arena runs of "
            "`run.sh`, 300 duplicate deals each, seed 0):",
            "",
            "```",
            *paired.read_text().rstrip().splitlines(),
            "```",
            "",
        ]
    text = "\n".join(lines)
    print(text)
    if "--write" in sys.argv[1:]:
        page = PAGE.read_text()
        if START not in page or END not in page:
            raise SystemExit(f"{PAGE} has no markers {START} ... {END}")
        head, rest = page.split(START, 1)
        _, tail = rest.split(END, 1)
        PAGE.write_text(f"{head}{START}\n\n{text}\n{END}{tail}")


if __name__ == "__main__":
    main()
