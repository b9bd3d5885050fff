"""Guandan against the field (issue 63, item 4): every shipped Guandan agent against every runnable competition bot
and DanZero, as teams of two (agents ``[ours, bot, ours, bot]``, partners opposite), on the arena's duplicate deals
(each deal played in the four rotations of the seats, so each team holds each hand). Per pairing: our team's win
share of single hands (the default ``episode="hand"``, ``--hands`` duplicate deals, 100 by default) and of whole
matches (``-o episode=match``, ``--matches`` deals), with 95% intervals over duplicate deals, and each agent's
faults (``Results.faults()``).

    python -m benchmarks.guandan_field --judges /work/judges --ours "guandan.pimc(leaf=dmc)" --jobs 2
    python -m benchmarks.guandan_field --field danzero:dz.onnx --field "gdws:botvenv/bin/python wintest/ai1/client0.py"
    python -m benchmarks.guandan_field --judges /work/judges --plan   # what is played, what is already done
    python -m benchmarks.guandan_field --page-only --curves           # the page (and its curve) from the JSON alone

The field: ``--judges FOLDER`` (laid out as the judges' folder of issue 63: ``danlm/`` holding DanLM's DanZero v3
ONNX, ``Danzero_plus/wintest/ai1`` .. ``ai8`` and their ``botvenv/``) seats DanZero (``danzero:FILE``) and the eight
competition bots (``gdws:PYTHON .../aiN/client0.py``, ``client1.py`` for ai4 .. ai8, which have no client0); each
``--field NAME`` adds one. Ours: ``guandan.heuristic``, Guandan's play agent (the search users play,
:data:`cardenvs.games.guandan.PLAY_AGENT`) and every shipped Guandan model (``guandan.dmc``, and
``guandan.dmc_v1`` once a stronger model has taken ``guandan.dmc``), plus each ``--ours NAME`` (a search over
the model, say); ``--only-ours`` plays the ``--ours`` names alone.

Each pairing is written as JSON to ``--out`` (``docs/study/guandan-field/``: the command that plays the same games,
seed, deals, date, seconds and the machine's load average before and after), one file per (ours, bot, episode).
A pairing whose file holds the same command (and the same model behind a model's name: :func:`model_digest`) is not
played again, so a run stopped in one session continues in the next with the same command; ``--jobs N`` plays N
pairings at once, each in its own process.

The page ``docs/results/guandan-field.md`` is generated from that JSON (``render_page``): a goal row per judge
(issue 63: at least 0.55 of single hands with the interval's lower bound above 0.50 against each competition bot,
at least 0.45 against DanZero, at least 100 duplicate deals), the tables of single hands and whole matches by bot
(short labels: ``ai1`` .. ``ai8``, ``DanZero``), every pairing with its command, the learner's training curve
(``--curve``, a run's ``eval.csv``: drawn with ``--curves`` into :data:`CURVE_PNG`, its points as a table) and the
older runs of 2026-11-28 (``docs/study/guandan-field/2026-11-28/``, the model and bots of then).
``tests/test_guandan_field.py`` checks the page against the JSON.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import io
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

from cardenvs.games.guandan import PLAY_AGENT

HEURISTIC = "guandan.heuristic"
OUT = Path("docs/study/guandan-field")
OLDER = OUT / "2026-11-28"
PAGE = Path("docs/results/guandan-field.md")
#: the training curve: the committed copy of the learner's evaluations (issue 63's run), and its picture
CURVE = Path("docs/study/guandan-learner/checkpoints/guandan__dmc_v2_small__1/eval.csv")
CURVE_PNG = Path("docs/results/trained/guandan-field-curve.png")
SCRIPT = "python -m benchmarks.guandan_field"

#: DanLM's DanZero v3 export in a judges' folder (``danlm/``), and the md5 of the file the page names
DANZERO_ONNX = "danlm/v3_default_param_cycle000007000_int8.onnx"
DANZERO_MD5 = "6b8c9cffa23536236b9ed259aeba5515"
#: DanZero_plus's competition bots in a judges' folder: ai1 .. ai3 have ``client0.py``, ai4 .. ai8 ``client1.py``
#: (their ``client.py`` is an example left over that fails at its first question)
BOTS = {f"ai{n}": f"Danzero_plus/wintest/ai{n}/{'client0.py' if n <= 3 else 'client1.py'}" for n in range(1, 9)}
BOT_PYTHON = "botvenv/bin/python"
#: issue 63's goals: (share at least, the interval's lower bound above, at least this many duplicate deals)
GOAL_BOT = (0.55, 0.50, 100)
GOAL_DANZERO = (0.45, None, 100)

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
    p = OneLineParser(prog=SCRIPT, description=__doc__.split("\n\n")[0])
    p.add_argument("--judges", type=Path, help="a judges' folder: DanZero and ai1 .. ai8 (see the module docstring)")
    p.add_argument("--field", action="append", default=[], help="a field bot (danzero:FILE, gdws:COMMAND); repeat")
    p.add_argument(
        "--bot-options", default="", help="parameters for every gdws: bot of --judges, e.g. move_ms=20000 (loaded)"
    )
    p.add_argument("--ours", action="append", default=[], help="another agent of ours (a search over the model)")
    p.add_argument("--only-ours", action="store_true", help="play only the --ours agents, not the shipped ones")
    p.add_argument("--hands", type=int, default=100, help="duplicate deals of single hands a pairing (default 100)")
    p.add_argument("--matches", type=int, default=5, help="duplicate deals of whole matches a pairing (default 5)")
    p.add_argument("--search-hands", type=int, help="--hands for the search agents (GAME.pimc, .ismcts; default same)")
    p.add_argument("--search-matches", type=int, help="--matches for the search agents (default the same)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="pairings played at once, each in its own process (default 1)")
    p.add_argument("--plan", action="store_true", help="print the pairings and which are done; play nothing")
    p.add_argument("--out", type=Path, default=OUT, help=f"folder of the pairings' JSON (default {OUT})")
    p.add_argument("--page", type=Path, default=PAGE, help=f"the markdown page to write (default {PAGE})")
    p.add_argument("--curve", type=Path, default=CURVE, help=f"the training run's eval.csv (default {CURVE})")
    p.add_argument("--curves", action="store_true", help=f"also draw the curve into {CURVE_PNG} (matplotlib)")
    p.add_argument("--page-only", action="store_true", help="write the page from the JSON in --out, play nothing")
    args = p.parse_args(argv)
    for name in ("hands", "matches", "search_hands", "search_matches", "seed"):
        value = getattr(args, name)
        if value is not None and value < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0, got {value}")
    if args.jobs < 1:
        p.error(f"--jobs must be >= 1, got {args.jobs}")
    if args.only_ours and not args.ours:
        p.error("--only-ours needs at least one --ours NAME")
    if not args.page_only and not args.field and args.judges is None:
        p.error("name the field with --judges FOLDER or --field NAME (danzero:FILE, gdws:COMMAND), or give --page-only")
    return args


def judges_field(folder: Path, bot_options: str = "") -> list[str]:
    """DanZero and ai1 .. ai8 of a judges' folder as agent names (each file checked: a missing one is an error)."""
    folder = folder.resolve()
    needed = [folder / DANZERO_ONNX, folder / BOT_PYTHON, *(folder / path for path in BOTS.values())]
    missing = [str(path) for path in needed if not path.exists()]
    if missing:
        raise ValueError(f"the judges' folder {folder} lacks {', '.join(missing)}")
    options = f"({bot_options})" if bot_options else ""
    return [f"danzero:{folder / DANZERO_ONNX}"] + [
        f"gdws:{folder / BOT_PYTHON} {folder / path}{options}" for path in BOTS.values()
    ]


def shipped_ours() -> list[str]:
    """Every shipped Guandan agent: the heuristic, the play agent and the shipped models (``guandan.dmc``, the
    versioned names of models it replaced), as the loader finds them."""
    from cardenvs.agent import shipped_models

    return [HEURISTIC, PLAY_AGENT, *(name for name in shipped_models() if name.startswith("guandan."))]


def is_search(name: str) -> bool:
    return name.startswith(("guandan.pimc", "guandan.ismcts"))


def label(bot: str) -> str:
    """The bot's short name on the page: ``DanZero`` for ``danzero:FILE``, ``aiN`` for a ``gdws:`` bot of
    DanZero_plus's ``wintest/aiN``, else the whole name."""
    if bot.startswith("danzero:"):
        return "DanZero"
    found = re.search(r"/wintest/(ai\d+)/client\d*\.py", bot)
    return found.group(1) if bot.startswith("gdws:") and found else bot


def labels(bots: Iterable[str]) -> dict[str, str]:
    """:func:`label` of each bot, the whole name where two bots would share a label."""
    names = sorted(set(bots))
    short = [label(b) for b in names]
    return {b: s if short.count(s) == 1 else b for b, s in zip(names, short, strict=True)}


def goal_of(bot: str) -> tuple[float, float | None, int] | None:
    """Issue 63's goal against ``bot`` (:data:`GOAL_DANZERO`, :data:`GOAL_BOT` for ``gdws:``), None for others."""
    if bot.startswith("danzero:"):
        return GOAL_DANZERO
    return GOAL_BOT if bot.startswith("gdws:") else None


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")[:40]


def pairing_file(ours: str, bot: str, episode: str) -> str:
    """The pairing's JSON file name: readable parts and a digest of the whole names (bots alike up to a long
    prefix, such as ``gdws:`` commands, get files of their own)."""
    digest = hashlib.sha1(f"{ours}\n{bot}\n{episode}".encode()).hexdigest()[:10]
    return f"{slug(ours)}__{slug(label(bot))}__{episode}__{digest}.json"


def model_digest(name: str) -> str | None:
    """The first 12 hex digits of the SHA-256 of the model file a name plays (a shipped model such as
    ``guandan.dmc``, or ``dmc:PATH``), None for an agent without one: a pairing is played again when the model
    behind the same name changed (a stronger one shipped under ``guandan.dmc``)."""
    from cardenvs.agent import shipped_models

    path = shipped_models().get(name)
    if path is None and name.startswith("dmc:"):
        path = Path(name[4:])
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path is not None and path.is_file() else None


def arena_command(ours: str, bot: str, deals: int, seed: int, match: bool) -> str:
    agents = ",".join([ours, bot, ours, bot])
    option = " -o episode=match" if match else ""
    return f'cardenvs arena guandan --agents "{agents}" --games {deals} --seed {seed}{option}'


def pairings(args: argparse.Namespace, field: list[str], ours: list[str]) -> list[dict]:
    """The pairings to play, in order (by bot, single hands before matches), each with its file and command."""
    out = []
    for bot in field:
        for match in (False, True):
            for mine in ours:
                if match:
                    deals = args.search_matches if is_search(mine) and args.search_matches is not None else args.matches
                else:
                    deals = args.search_hands if is_search(mine) and args.search_hands is not None else args.hands
                if deals == 0:
                    continue
                episode = "match" if match else "hand"
                out.append(
                    {
                        "ours": mine,
                        "field": bot,
                        "deals": deals,
                        "match": match,
                        "file": pairing_file(mine, bot, episode),
                        "command": arena_command(mine, bot, deals, args.seed, match),
                        "model": model_digest(mine),
                    }
                )
    return out


def done(folder: Path, pairing: dict) -> bool:
    """Whether ``folder`` holds this pairing's JSON for the same command and model (then it is not played
    again)."""
    path = folder / pairing["file"]
    if not path.exists():
        return False
    try:
        played = json.loads(path.read_text())
        return played.get("command") == pairing["command"] and played.get("model") == pairing.get("model")
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: not a pairing's JSON ({exc}); remove it to play the pairing again") from None


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
        "model": model_digest(ours),
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


def play_all(todo: list[dict], seed: int, jobs: int, out: Path, play: Callable[..., dict] | None = None) -> list[str]:
    """Play the pairings (``jobs`` at once in processes of their own, else here; ``play``: :func:`play_pairing`),
    each written to ``out`` as it ends; the errors of those that failed, one line each (the others are played all
    the same)."""
    play = play or play_pairing  # looked up when called (a test replaces it)
    errors: list[str] = []

    def finish(pairing: dict, run: dict) -> None:
        (out / pairing["file"]).write_text(json.dumps(run, indent=1) + "\n")
        print(
            f"{run['ours']} vs {label(run['field'])} ({run['episode']}): {share(run['win_share'])}, {run['games']} "
            f"games, {run['seconds']:.0f} s, faults {faults_text(run['faults'])}",
            flush=True,
        )

    def failed(pairing: dict, exc: BaseException) -> None:
        errors.append(f"{pairing['ours']} vs {pairing['field']}: {type(exc).__name__}: {exc}")
        print(f"guandan_field: failed: {errors[-1]}", file=sys.stderr, flush=True)

    if jobs == 1:
        for pairing in todo:
            try:
                finish(pairing, play(pairing["ours"], pairing["field"], pairing["deals"], seed, pairing["match"]))
            except Exception as exc:  # a pairing that fails is reported; the table goes on
                failed(pairing, exc)
        return errors
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        futures = {
            pool.submit(play, pairing["ours"], pairing["field"], pairing["deals"], seed, pairing["match"]): pairing
            for pairing in todo
        }
        for future in as_completed(futures):
            try:
                finish(futures[future], future.result())
            except Exception as exc:
                failed(futures[future], exc)
    return errors


def load_runs(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def read_curve(path: Path) -> list[dict]:
    """The rows of a training run's ``eval.csv`` (frames, minutes, win_rate and its interval, opponent)."""
    try:
        return list(csv.DictReader(io.StringIO(path.read_text())))
    except OSError as exc:
        raise ValueError(f"the training curve {path}: {exc}") from None


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


def goal_text(goal: tuple[float, float | None, int]) -> str:
    least, above, deals = goal
    bound = f", the interval's lower bound above {above:.2f}" if above is not None else ""
    return f"at least {least:.2f}{bound}, at least {deals} deals"


def goal_status(bot: str, runs: list[dict]) -> tuple[str, str]:
    """Whether any of our agents met issue 63's goal against ``bot`` on single hands, from the figures: (``met``
    or ``unmet``, the row that decides: the meeting row, else the best share)."""
    goal = goal_of(bot)
    rows = [r for r in runs if r["field"] == bot and r["episode"] == "hand"]
    if goal is None or not rows:
        return "no single hands played", "-"
    least, above, deals = goal

    def meets(r: dict) -> bool:
        m, lo, _ = r["win_share"]
        return m >= least and (above is None or lo > above) and r["deals"] >= deals

    best = max(rows, key=lambda r: (meets(r), r["win_share"][0], r["deals"]))
    status = "met" if meets(best) else "unmet"
    deals_text = f"{best['deals']} deal{'s' if best['deals'] != 1 else ''}"
    return status, f"`{best['ours']}` {share(best['win_share'])}, {deals_text}"


def matrix(runs: list[dict], episode: str, names: dict[str, str]) -> list[str]:
    """Our agents (rows) against the bots (columns): the share [95% CI] and the deals of each pairing."""
    rows = [r for r in runs if r["episode"] == episode]
    if not rows:
        return ["Not played yet."]
    bots = sorted({r["field"] for r in rows}, key=lambda b: (not b.startswith("danzero:"), names[b]))
    ours = sorted({r["ours"] for r in rows})
    cells = {(r["ours"], r["field"]): f"{share(r['win_share'])} ({r['deals']})" for r in rows}
    lines = ["| ours | " + " | ".join(names[b] for b in bots) + " |", "|---|" + "---|" * len(bots)]
    for mine in ours:
        lines.append(f"| `{mine}` | " + " | ".join(cells.get((mine, b), "-") for b in bots) + " |")
    return lines


def pairings_table(runs: list[dict], names: dict[str, str]) -> list[str]:
    lines = [
        "| ours | field | episode | our win share [95% CI] | faults | deals (games) | seed | command | date | "
        "load | seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = {"hand": 0, "match": 1}
    for r in sorted(runs, key=lambda r: (names[r["field"]], order[r["episode"]], r["ours"])):
        truncated = f", {r['truncated']} truncated" if r["truncated"] else ""
        lines.append(
            f"| `{r['ours']}` | {names[r['field']]} | {r['episode']} | {share(r['win_share'])} | "
            f"{faults_text(r['faults'])} | {r['deals']} ({r['games']}{truncated}) | {r['seed']} | "
            f"`{r['command']}` | {r['date']} | {load_text(r)} ({r['cores']} cores) | {r['seconds']:.0f} |"
        )
    return lines


def curve_lines(rows: list[dict], source: str) -> list[str]:
    """The curve's picture and its points: each evaluation's minutes, frames, opponent and share [95% CI]."""
    lines = [
        f"![the learner's win share of single hands over training]({Path(CURVE_PNG).relative_to('docs/results')})",
        "",
        f"*The learner's win share of single hands against `{HEURISTIC}` and against DanZero over training*; "
        f"drawn from `{source}` (`{SCRIPT} --page-only --curves`).",
        "",
        "| minutes | frames | against | win share [95% CI] |",
        "|---|---|---|---|",
    ]
    for r in rows:
        against = label(r["opponent"]) if r["opponent"].startswith("danzero:") else f"`{r['opponent']}`"
        m, lo, hi = (float(r[k]) for k in ("win_rate", "win_rate_lo", "win_rate_hi"))
        lines.append(f"| {float(r['minutes']):.1f} | {int(float(r['frames'])):,} | {against} | {share([m, lo, hi])} |")
    return lines


def draw_curve(rows: list[dict], png: Path) -> None:
    """The curve's picture (matplotlib): one line per opponent, its 95% band, 0.5 and the goals marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        x = [float(r["minutes"]) for r in mine]
        name = label(opponent) if opponent.startswith("danzero:") else opponent
        ax.plot(x, [float(r["win_rate"]) for r in mine], marker="o", label=f"vs {name}")
        lo, hi = [float(r["win_rate_lo"]) for r in mine], [float(r["win_rate_hi"]) for r in mine]
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.axhline(GOAL_DANZERO[0], color="tab:red", lw=0.8, ls=":", label=f"goal vs DanZero ({GOAL_DANZERO[0]})")
    ax.set_xlabel("training time (minutes)")
    ax.set_ylabel("win share of single hands (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=120)
    plt.close(fig)


def render_page(
    runs: list[dict],
    curve: list[dict] | None = None,
    curve_source: str = str(CURVE),
    older: list[dict] | None = None,
    older_ladder: list[dict] | None = None,
) -> str:
    """The page from the pairings' JSON (every figure with its command, seed, deals, date and load), the goal row
    of each judge, the training curve's rows and the older runs."""
    names = labels(r["field"] for r in runs)
    lines = [
        "# Guandan against the field",
        "",
        "Our shipped Guandan agents against the field's bots, as teams of two (agents `[ours, bot, ours, bot]`,",
        "partners opposite) on duplicate deals: each deal is played in the four rotations of the seats, so each team",
        "holds each hand. The win share is our team's, with a 95% interval over duplicate deals (the arena's); a",
        "single hand (`episode=hand`, the default) or a whole match to A (`-o episode=match`: levels, tribute and",
        "return). Faults are counted per agent (games lost by a fault; moves made by a fallback). Generated by",
        f"`{SCRIPT}` (`benchmarks/guandan_field.py`) from the JSON in `docs/study/guandan-field/`; each row's",
        "command plays the same games. Load is the machine's load average (1, 5, 15 min) before and after.",
        "",
        "The field, the judges of issue 63 (they are evaluated against, never trained against or imitated):",
        "DanZero is `danzero:FILE`, DanLM's `ckpts/DanZero_v3/v3_default_param_cycle000007000_int8.onnx`",
        f"(dashidhy/DanLM, md5 {DANZERO_MD5}; see [the arena page](../arena.md), DanZero); `ai1` .. `ai8` are",
        "DanZero_plus's competition bots (submit-paper/Danzero_plus, commit e2b900b, `wintest/aiN`, unchanged)",
        "speaking the platform's WebSocket protocol through `gdws:` (see [the bots page](../bots.md)). Nothing of",
        f"them is shipped: `{SCRIPT} --judges FOLDER` seats them from a folder laid out as the judges' folder.",
        "",
        "## The goals",
        "",
        "Issue 63's goal for the best shipped agent, on single hands, read from the table below: against each",
        "competition bot at least 0.55 of single hands with the interval's lower bound above 0.50; against DanZero",
        "at least 0.45; at least 100 duplicate deals a table.",
        "",
        "| judge | goal | met? | the deciding row (the one that meets it, else the best share) |",
        "|---|---|---|---|",
    ]
    judges = sorted(
        {r["field"] for r in runs if goal_of(r["field"])}, key=lambda b: (not b.startswith("danzero:"), names[b])
    )
    for bot in judges:
        goal = goal_of(bot)
        assert goal is not None
        status, row = goal_status(bot, runs)
        lines.append(f"| {names[bot]} | {goal_text(goal)} | {status} | {row} |")
    if not judges:
        lines.append("| every judge | - | not played yet | - |")
    lines += ["", "## Single hands", "", *matrix(runs, "hand", names)]
    lines += ["", "## Whole matches", "", *matrix(runs, "match", names)]
    lines += ["", "## Every pairing", "", *(pairings_table(runs, names) if runs else ["Not played yet."])]
    if curve is not None:
        lines += ["", "## The training curve", "", *curve_lines(curve, curve_source)]
    if older or older_ladder:
        lines += [
            "",
            "## Older runs (2026-11-28)",
            "",
            *OLDER_NOTE,
            "",
            *pairings_table(older or [], labels(r["field"] for r in older or [])),
        ]
    if older_ladder:
        lines += [
            "",
            "DanZero on Guandan's ladder then (`cardenvs ladder`: a rating against the shipped anchors, with a 95%",
            "bootstrap interval, and its score against each anchor; Guandan's anchors: `random` 0, `guandan.heuristic`",
            "819.8).",
            "",
            "| bot | rating [95% CI] | against the anchors | deals per anchor | seed | command | date | load | "
            "seconds |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in sorted(older_ladder, key=lambda r: r["agent"]):
            against = ", ".join(f"`{a}` {'-' if v is None else f'{v:.3f}'}" for a, v in r["against"].items())
            lines.append(
                f"| `{r['agent']}` | {r['rating']:.1f} [{r['interval'][0]:.1f}, {r['interval'][1]:.1f}] | {against} | "
                f"{r['deals']} | {r['seed']} | `{r['command']}` | {r['date']} | {load_text(r)} ({r['cores']} cores) | "
                f"{r['seconds']:.0f} |"
            )
    lines += ["", "## Not run", ""]
    lines += [f"- {why}" for why in NOT_RUN]
    lines += ["", "## Where the rules differ, and what happens", "", rules_table()]
    return "\n".join(lines)


#: what the page says of the older rows
OLDER_NOTE = [
    "Played on 2026-11-28 for issue 54, before issue 63: `guandan.dmc` was the model of then (its page:",
    "[Guandan's trained agents](trained-guandan.md)), DanZero's file and `ai1` sat under `/tmp` (the same",
    "DanLM file, md5 as above; `ai1` with `move_ms=20000,memory_mb=16000` for a loaded machine), the counts are",
    "small (a 30-minute run at load 7 to 17) and only `ai1` of the competition bots played. Kept for comparison;",
    "the goals above read only the rows of the tables above.",
]

#: the bots of the field not in the table, and why (as far as the repository knows)
NOT_RUN = [
    "The full table (every shipped agent against DanZero and `ai1` .. `ai8`) runs after the learner's training, in "
    "a later session, in two steps: single hands for every agent, then whole matches for the best and `guandan.dmc` "
    f"(`{SCRIPT} --judges /work/judges --ours NAME --matches 0 --jobs 2`, then `{SCRIPT} --judges /work/judges "
    "--only-ours --ours BEST --ours guandan.dmc --hands 0 --matches 5 --jobs 2`; each resumable: run it again to "
    "continue).",
    "DanLM's `baselines/` (16 bots) ship their `state.py` and `action.py` without the platform client, except "
    "`fin-njupt-guandan-ai`, whose `lxw/rule_client.py` exits at its first message (its client expects "
    "`state.parse` to return a tuple, the `state.py` beside it returns none: a bug of the release, an `exit` "
    "fault); rlcard-guandan's 8 bots were not tried.",
    "DanZero_plus's `wintest/danzero` and `wintest/torch` (DanZero's own network client asks a TensorFlow 1 or torch "
    "model process over ZeroMQ; `q_network.ckpt` is a pickle, and nothing is unpickled here): DanZero plays here "
    "from DanLM's ONNX export.",
]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    errors: list[str] = []
    if not args.page_only:
        from cardenvs.arena import plan_tournament

        try:
            field = [*(judges_field(args.judges, args.bot_options) if args.judges else []), *args.field]
        except ValueError as e:
            print(f"guandan_field: error: {e}", file=sys.stderr)
            return 2
        ours = list(dict.fromkeys([*([] if args.only_ours else shipped_ours()), *args.ours]))
        for bot in field:  # every name checked before anything is played
            for mine in ours:
                try:
                    plan_tournament("guandan_v0", [mine, bot, mine, bot], 1)
                except ValueError as e:
                    print(f"guandan_field: error: {e}", file=sys.stderr)
                    return 2
        planned = pairings(args, field, ours)
        try:
            todo = [p for p in planned if not done(args.out, p)]
        except ValueError as e:
            print(f"guandan_field: error: {e}", file=sys.stderr)
            return 2
        for p in planned:
            if args.plan or p not in todo:
                state = "to play" if p in todo else "done (its JSON holds the same command)"
                print(f"{p['ours']} vs {label(p['field'])}, {p['deals']} deals ({p['command']}): {state}", flush=True)
        if args.plan:
            print(f"{len(todo)} of {len(planned)} pairings to play")
            return 0
        args.out.mkdir(parents=True, exist_ok=True)
        errors = play_all(todo, args.seed, args.jobs, args.out)
    curve = read_curve(args.curve) if args.curve.exists() else None
    if args.curves:
        if curve is None:
            print(f"guandan_field: error: no training curve at {args.curve}", file=sys.stderr)
            return 2
        draw_curve(curve, CURVE_PNG)
        print(f"wrote {CURVE_PNG}")
    page = render_page(load_runs(args.out), curve, str(args.curve), load_runs(OLDER), load_runs(OLDER / "ladder"))
    args.page.write_text(page)
    print(f"wrote {args.page}")
    if errors:
        print(f"guandan_field: {len(errors)} pairing(s) failed: {'; '.join(errors)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
