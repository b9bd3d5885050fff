"""Guandan against the field: our agents (``guandan.heuristic``, ``guandan.pimc``, ``guandan.dmc``) each against
every field bot named on the command line (``danzero:FILE``, ``gdws:COMMAND``), as teams of two (agents
``[ours, bot, ours, bot]``, partners opposite), on the arena's duplicate deals (each deal played in the four
rotations of the seats, so each team holds each hand). Per pairing: the single-hand win share (the default
``episode="hand"``) and the whole-match win share (``-o episode=match``: fewer deals, matches are long) of our
team with 95% intervals over duplicate deals, and each agent's faults (``Results.faults()``).

    python -m benchmarks.guandan_field --field danzero:/tmp/dz/danlm_v0.onnx
    python -m benchmarks.guandan_field --field danzero:dz.onnx --field "gdws:botvenv/bin/python wintest/ai1/client0.py"
    python -m benchmarks.guandan_field --field danzero:dz.onnx --hands 60 --matches 5 --pimc-hands 20
    python -m benchmarks.guandan_field --page-only        # docs/results/guandan-field.md from the JSON alone

Each pairing is written as JSON to ``--out`` (``docs/study/guandan-field/``: the command that plays the same
games, seed, deals, date, seconds and the machine's load average before and after), and the page
``docs/results/guandan-field.md`` is generated from every JSON in that folder (``render_page``), so each of
its figures names its command; ``tests/test_guandan_field.py`` checks the page against the JSON.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import sys
import time
from pathlib import Path

OURS = ("guandan.heuristic", "guandan.pimc(playouts=20)", "guandan.dmc")
OUT = Path("docs/study/guandan-field")
PAGE = Path("docs/results/guandan-field.md")
SCRIPT = "python -m benchmarks.guandan_field"

#: the rules differences met between ours and the field's platform, as the page lists them: (where, the platform,
#: here, what happens when it occurs); the docstrings of cardenvs.games.guandan.danzero and .platform hold the details
RULES = (
    (
        "readings",
        (
            "a card set with two readings is two entries of `actionList`; a one-suit run of five with a wild is "
            "listed as a straight flush and also as a straight"
        ),
        (
            "a card set with two readings is two plays (as listed there); the one-suit run with a wild is a "
            "straight flush only (rule 11); a natural triple with both wilds is also a full house (R15), not "
            "there"
        ),
        (
            "a `gdws:` bot chooses among our plays only, so a platform-only reading is never offered (one "
            "answered anyway is an `illegal` fault); it may play our extra readings. `danzero:` scores our plays,"
            " each reading its own row (readings of one card set score alike). Measured with OpenGuanDan's move "
            "generator: equal move sets at 3,795 of 3,807 play decisions (99.7%)"
        ),
    ),
    (
        "wild cards",
        "the level's hearts stand for any card but a joker",
        "the same (`wilds=True`, the default)",
        (
            "nothing; with `wilds=False` (no counterpart there) the bots see no wild play, and DanZero's wild-"
            "card flags are still set from the level's heart, as its client sets them"
        ),
    ),
    (
        "tribute",
        (
            "the highest card, one entry per suit; resisted with both red jokers; a double tribute's higher card "
            "to the first finisher"
        ),
        "the same",
        "nothing. DanZero pays the lowest card id offered (our rules never offer a wild, its one exception)",
    ),
    (
        "return",
        "a card of 10 or less, not of the level rank",
        '`return_rule="max10"` (the default) is the platform\'s',
        (
            "DanZero's own return is a randomized hand-written rule: `danzero:` returns the card "
            "`guandan.heuristic` chooses instead (not DanZero's rule)"
        ),
    ),
    (
        "the A level",
        "the match ends at A (the platform's server and OpenGuanDan's go back to 2 after 3 failures)",
        '`a_win="not_last"`, back to 2 after `a_attempts=3`',
        "nothing; the bots read `selfRank` / `oppoRank` whatever they are",
    ),
    (
        "who leads, 接风, the end of a hand",
        "the platform's",
        "ours (`cardenvs.games.guandan.rules`)",
        (
            "the messages describe what happened here; DanZero's action record follows our order of turns "
            "(checked against DanZero's own client fed our games)"
        ),
    ),
    (
        "hidden cards",
        "`restCards` lists every hand's cards at a hand's end",
        "never sent (always `[]`)",
        "the bots read here only print them",
    ),
    (
        "time",
        "no limit per move",
        "`gdws:` `move_ms` 5,000 and `start_ms` 30,000",
        "a slower bot's move is a `timeout` fault (a result: the game is lost, or its fallback moves)",
    ),
)


def rules_table() -> str:
    lines = [
        "| where | the field's platform | here (`guandan_v0`) | what happens when it occurs |",
        "|---|---|---|---|",
    ]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in RULES]) + "\n"


class OneLineParser(argparse.ArgumentParser):
    """Argument errors as one line (no usage block)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"guandan_field: error: {message}\n")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = OneLineParser(prog="python -m benchmarks.guandan_field", description=__doc__.split("\n\n")[0])
    p.add_argument("--field", action="append", default=[], help="a field bot (danzero:FILE, gdws:COMMAND); repeat")
    p.add_argument("--ours", action="append", default=None, help=f"our agents (default {', '.join(OURS)})")
    p.add_argument("--hands", type=int, default=50, help="duplicate deals of single hands per pairing (default 50)")
    p.add_argument("--pimc-hands", type=int, default=10, help="the same for guandan.pimc (default 10)")
    p.add_argument("--matches", type=int, default=4, help="duplicate deals of whole matches per pairing (default 4)")
    p.add_argument("--pimc-matches", type=int, default=1, help="the same for guandan.pimc (default 1)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument(
        "--ladder",
        type=int,
        default=0,
        help="also place each field bot on the ladder, DEALS per anchor (default 0: not)",
    )
    p.add_argument("--no-table", action="store_true", help="play no table (with --ladder: only the placements)")
    p.add_argument("--out", type=Path, default=OUT, help=f"folder of the pairings' JSON (default {OUT})")
    p.add_argument("--page", type=Path, default=PAGE, help=f"the markdown page to write (default {PAGE})")
    p.add_argument("--page-only", action="store_true", help="write the page from the JSON in --out, play nothing")
    args = p.parse_args(argv)
    for name in ("hands", "pimc_hands", "matches", "pimc_matches", "ladder"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0, got {getattr(args, name)}")
    if args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    if not args.page_only and not args.field:
        p.error("name at least one field bot with --field (danzero:FILE, gdws:COMMAND), or give --page-only")
    return args


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:60]


def arena_command(ours: str, bot: str, deals: int, seed: int, match: bool) -> str:
    agents = ",".join([ours, bot, ours, bot])
    option = " -o episode=match" if match else ""
    return f'cardenvs arena guandan --agents "{agents}" --games {deals} --seed {seed}{option}'


def play_pairing(ours: str, bot: str, deals: int, seed: int, match: bool) -> dict:
    from cardenvs.arena import run_tournament

    options = {"episode": "match"} if match else None
    load_before = os.getloadavg()
    start = time.perf_counter()
    res = run_tournament("guandan_v0", [ours, bot, ours, bot], deals, seed=seed, options=options)
    seconds = time.perf_counter() - start
    stats = res.stats()
    mine, theirs = res.agents[0], res.agents[1]
    return {
        "ours": ours,
        "field": bot,
        "episode": "match" if match else "hand",
        "command": arena_command(ours, bot, deals, seed, match),
        "seed": seed,
        "deals": deals,
        "games": len(res.records),
        "steps": sum(r.steps for r in res.records),
        "truncated": sum(bool(r.truncated) for r in res.records),
        "win_share": [stats[mine]["win_rate"], *stats[mine]["win_rate_ci"]],
        "field_win_share": [stats[theirs]["win_rate"], *stats[theirs]["win_rate_ci"]],
        "faults": res.faults(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(seconds, 1),
        "load": [round(x, 2) for x in (*load_before, *os.getloadavg())],
        "cores": os.cpu_count(),
    }


def place_bot(bot: str, deals: int, seed: int) -> dict:
    """``bot`` placed on Guandan's ladder (``cardenvs ladder``) with its command, date and load."""
    from cardenvs.analysis.grading import place

    load_before = os.getloadavg()
    start = time.perf_counter()
    row = place("guandan_v0", bot, deals, seed)
    return {
        **row,
        "command": f'cardenvs ladder guandan "{bot}" --games {deals} --seed {seed}',
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "seconds": round(time.perf_counter() - start, 1),
        "load": [round(x, 2) for x in (*load_before, *os.getloadavg())],
        "cores": os.cpu_count(),
    }


def load_runs(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def share(values: list[float]) -> str:
    m, lo, hi = values
    if lo != lo or hi != hi:  # NaN: one duplicate deal gives no interval
        return f"{m:.3f} (one deal: no interval)"
    return f"{m:.3f} [{lo:.3f}, {hi:.3f}]"


def faults_text(faults: dict) -> str:
    if not faults:
        return "none"
    parts = []
    for agent, counts in sorted(faults.items()):
        lost = ", ".join(f"{n} {k}" for k, n in sorted(counts["forfeits"].items()))
        moved = ", ".join(f"{n} {k}" for k, n in sorted(counts["fallback_moves"].items()))
        parts.append(f"{agent}: lost {lost or 'none'}; fallback moves {moved or 'none'}")
    return "; ".join(parts)


def load_text(r: dict) -> str:
    return ", ".join(f"{x:.1f}" for x in r["load"][:3]) + " / " + ", ".join(f"{x:.1f}" for x in r["load"][3:])


def render_page(runs: list[dict], ladder: list[dict] | None = None, not_run: list[str] | None = None) -> str:
    """The page from the pairings' JSON (every figure with its command, seed, deals, date and load)."""
    lines = [
        "# Guandan against the field",
        "",
        "Our agents against the field's Guandan bots, as teams of two (agents `[ours, bot, ours, bot]`, partners",
        "opposite) on duplicate deals: each deal is played in the four rotations of the seats, so each team holds",
        "each hand. The win share is our team's, with a 95% interval over duplicate deals (the arena's); a single",
        "hand (`episode=hand`, the default) or a whole match to A (`-o episode=match`). Faults are counted per",
        "agent (games lost by a fault; moves made by a fallback). Generated by",
        f"`{SCRIPT}` (`benchmarks/guandan_field.py`) from the JSON in `docs/study/guandan-field/`; each row's",
        "command plays the same games. Load is the machine's load average (1, 5, 15 min) before and after.",
        "",
        "The field: `danzero:FILE` is DanZero's network from an ONNX file a user downloads (nothing is shipped):",
        "here `danlm_v0.onnx` is DanLM's `ckpts/DanZero_v3/v3_default_param_cycle000007000_int8.onnx` (dashidhy/DanLM,",
        "md5 6b8c9cffa23536236b9ed259aeba5515), a DanZero-feature network (see [the arena page](../arena.md),",
        "DanZero); `gdws:COMMAND` is a competition bot speaking the platform's WebSocket protocol (see",
        "[the bots page](../bots.md)).",
        "",
        "| ours | field | episode | our win share [95% CI] | faults | deals (games) | seed | command | date | "
        "load | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = {"hand": 0, "match": 1}
    for r in sorted(runs, key=lambda r: (r["field"], order[r["episode"]], r["ours"])):
        load = load_text(r)
        truncated = f", {r['truncated']} truncated" if r["truncated"] else ""
        lines.append(
            f"| `{r['ours']}` | `{r['field']}` | {r['episode']} | {share(r['win_share'])} | "
            f"{faults_text(r['faults'])} | {r['deals']} ({r['games']}{truncated}) | {r['seed']} | "
            f"`{r['command']}` | {r['date']} | {load} ({r['cores']} cores) | {r['seconds']:.0f} |"
        )
    if ladder:
        lines += [
            "",
            "## On Guandan's ladder",
            "",
            "Each bot placed on the ladder (`cardenvs ladder`: a rating against the shipped anchors, with a 95%",
            "bootstrap interval, and its score against each anchor; Guandan's anchors: `random` 0, `guandan.heuristic`",
            "819.8).",
            "",
            "| bot | rating [95% CI] | against the anchors | deals per anchor | seed | command | date | load | "
            "seconds |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in sorted(ladder, key=lambda r: r["agent"]):
            against = ", ".join(f"`{a}` {'-' if v is None else f'{v:.3f}'}" for a, v in r["against"].items())
            lines.append(
                f"| `{r['agent']}` | {r['rating']:.1f} [{r['interval'][0]:.1f}, {r['interval'][1]:.1f}] | {against} | "
                f"{r['deals']} | {r['seed']} | `{r['command']}` | {r['date']} | {load_text(r)} ({r['cores']} cores) | "
                f"{r['seconds']:.0f} |"
            )
    lines += ["", "## Not run", ""]
    lines += [f"- {why}" for why in (not_run or NOT_RUN)]
    lines += ["", "## Where the rules differ, and what happens", "", rules_table()]
    return "\n".join(lines)


#: the bots of the field not in the table, and why (as far as the repository knows)
NOT_RUN = [
    "The counts are small: on the two-core machine shared with other work (load 7 to 17 during the run) a "
    "table of `guandan.dmc` or of a `gdws:` bot played about 5 s a hand, so within this run's 30 minutes "
    "`guandan.dmc` had 12 duplicate deals of single hands against DanZero and `guandan.pimc` 10, and whole "
    "matches two duplicate deals each (eight matches) but `guandan.heuristic`'s four; the script's defaults "
    "(`--hands 50 --pimc-hands 10 --matches 4 --pimc-matches 1`) are for a quieter machine.",
    "Of the released competition bots (`gdws:`), only DanZero_plus's `wintest/ai1` (submit-paper/Danzero_plus, "
    "commit e2b900b; ws4py and numpy in a virtual environment of its own, `move_ms=20000` for the loaded machine) "
    "is in this run, on single hands against `guandan.heuristic` and `guandan.dmc`: whole matches, `guandan.pimc` "
    "and `wintest/ai2` .. `ai6` (each plays without a fault here, see the bots page; `ai2` and `ai3` are 2-3 "
    "times slower than `ai1`) did not fit the run's time. Add them with "
    '`--field "gdws:PYTHON wintest/aiN/client0.py"`.',
    "DanLM's `baselines/` (16 bots) ship their `state.py` and `action.py` without the platform client, except "
    "`fin-njupt-guandan-ai`, whose `lxw/rule_client.py` exits at its first message (its client expects "
    "`state.parse` to return a tuple, the `state.py` beside it returns none: a bug of the release, an `exit` "
    "fault); rlcard-guandan's 8 bots were not tried.",
    "DanZero's released TensorFlow weights (`q_network.ckpt`, a pickle) are not loaded (nothing is unpickled); "
    "its network plays here from DanLM's ONNX export. DanZero's own network client asks a TensorFlow 1 model "
    "process over ZeroMQ, not installed here.",
    "The ladder's anchors for Guandan are `random` (0) and `guandan.heuristic` (819.8) only "
    "(`src/cardenvs/analysis/anchors/guandan.json`); `wintest/ai1` was not placed (time).",
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.page_only:
        from cardenvs.arena import plan_tournament

        ours = args.ours or list(OURS)
        for bot in args.field:  # every name checked before anything is played
            for mine in ours:
                try:
                    plan_tournament("guandan_v0", [mine, bot, mine, bot], 1)
                except ValueError as e:
                    print(f"guandan_field: error: {e}", file=sys.stderr)
                    return 2
        args.out.mkdir(parents=True, exist_ok=True)
        for bot in args.field if args.ladder else []:
            placed = place_bot(bot, args.ladder, args.seed)
            (args.out / "ladder").mkdir(exist_ok=True)
            (args.out / "ladder" / f"{slug(bot)}.json").write_text(json.dumps(placed, indent=1) + "\n")
            print(f"{bot} on the ladder: {placed['rating']} {placed['interval']}", flush=True)
        for bot in [] if args.no_table else args.field:
            for match in (False, True):
                for mine in ours:
                    pimc = mine.startswith("guandan.pimc")
                    deals = (
                        (args.pimc_matches if pimc else args.matches)
                        if match
                        else (args.pimc_hands if pimc else args.hands)
                    )
                    if deals == 0:
                        continue
                    run = play_pairing(mine, bot, deals, args.seed, match)
                    name = f"{slug(mine)}__{slug(bot)}__{run['episode']}.json"
                    (args.out / name).write_text(json.dumps(run, indent=1) + "\n")
                    print(
                        f"{mine} vs {bot} ({run['episode']}): {share(run['win_share'])}, {run['games']} games, "
                        f"{run['seconds']:.0f} s, faults {faults_text(run['faults'])}",
                        flush=True,
                    )
    args.page.write_text(render_page(load_runs(args.out), load_runs(args.out / "ladder")))
    print(f"wrote {args.page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
