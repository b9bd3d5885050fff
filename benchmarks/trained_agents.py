"""The trained agents' result pages, generated from JSON: ``docs/results/agents.md`` (the shipped models, one row
each) and ``docs/results/trained-GAME.md`` (every run of a game: its command, seeds, deals, intervals, machine load,
its curve as a picture).

    python -m benchmarks.trained_agents              # the pages from docs/study/trained/ and the runs' files
    python -m benchmarks.trained_agents --curves     # also redraw the curves (matplotlib, training/plot_curves.py)

The data: ``docs/study/trained/models.json`` (the shipped models) and ``docs/study/trained/GAME/NN-NAME.json``, one
per run or table, each a list of blocks, written from the training log ``training/README.md`` kept before issue 63
(its figures as they were measured, with their commands) and read back here in order:

* ``{"text": MARKDOWN}``: a paragraph or a list, as written;
* ``{"table": {"columns": [...], "rows": [[...]], "indent": N}}``: a table (``indent`` spaces inside a list item);
* ``{"final_eval": RUN}``: a table read from ``RUN/final_eval.json``, the run's own final evaluation;
* ``{"eval_csv": RUN}``: the run's curve as a table, from ``RUN/eval.csv`` (or the named ``.eval.csv`` file);
* ``{"rows_files": [FILE, ...]}``: ``benchmarks/search_goals.py --out`` files (a row per deal), each summarised
  with its command: the agent's share as landlord and as farmers, the rule agent's in the same seats, the paired
  differences, all with 95% intervals over deals (``cardenvs.arena.mean_ci``);
* ``{"curve": {"png": NAME, "runs": [RUN, ...], "caption": TEXT}}``: the picture ``docs/results/trained/NAME``,
  drawn by ``training/plot_curves.py`` from the runs' ``eval.csv`` (with ``--curves``).

So a figure read from a run's files is computed from them, and every other figure is the log's, with its command;
``tests/test_trained_pages.py`` checks that the pages equal what this writes and that every shipped model in
``training/results/`` has a row.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("docs/study/trained")
RESULTS = Path("docs/results")
CURVES = RESULTS / "trained"
SCRIPT = "python -m benchmarks.trained_agents"

#: the pages, in the order of the index: (folder in DATA, page slug, title)
PAGES = (
    ("doudizhu", "doudizhu", "Dou Dizhu"),
    ("twos", "twos", "Twos"),
    ("twenty", "twenty", "Twenty"),
    ("two_way_street", "two-way-street", "Two Way Street"),
    ("guandan", "guandan", "Guandan"),
    ("search", "search", "The models inside search"),
    ("throughput", "throughput", "Training throughput"),
)


def load_sections(root: Path, folder: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((root / DATA / folder).glob("*.json"))]


def load_models(root: Path) -> dict:
    return json.loads((root / DATA / "models.json").read_text())


def share(m: float, lo: float, hi: float, signed: bool = False) -> str:
    f = "{:+.3f}" if signed else "{:.3f}"
    if math.isnan(lo):
        return f.format(m)
    return f"{f.format(m)} [{f.format(lo)}, {f.format(hi)}]"


def table(columns: list[str], rows: list[list[str]], indent: int = 0) -> str:
    pad = " " * indent
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(pad + line for line in lines)


def final_eval_table(root: Path, run: str) -> str:
    d = json.loads((root / run / "final_eval.json").read_text())
    columns = ["run", "games", "win rate [95% CI]", "mean score"]
    row = [f"`{Path(run).name}`", f"{d['games']:,}", share(d["win_rate"], d["win_rate_lo"], d["win_rate_hi"])]
    row.append(f"{d['mean_score']:+.3f}")
    for role in ("landlord", "farmer"):
        if f"role_{role}_win_rate" in d:
            columns.append(f"as {role}")
            row.append(
                share(d[f"role_{role}_win_rate"], d[f"role_{role}_win_rate_ci_lo"], d[f"role_{role}_win_rate_ci_hi"])
            )
    return f"The run's final evaluation (`{run}/final_eval.json`):\n\n" + table(columns, [row])


def eval_rows(root: Path, run: str) -> tuple[Path, list[dict]]:
    path = root / run
    path = path / "eval.csv" if path.is_dir() else path
    return path, list(csv.DictReader(io.StringIO(path.read_text())))


def eval_csv_table(root: Path, run: str) -> str:
    from cardenvs.training.plot_curves import opponent_label  # type: ignore[import-not-found]

    path, rows = eval_rows(root, run)
    by_opponent = "opponent" in (rows[0] if rows else {})
    columns = ["minutes", "frames" if "frames" in rows[0] else "timesteps"]
    columns += ["opponent"] if by_opponent else []
    columns += ["win rate [95% CI]", "mean score"]
    out = []
    for r in rows:
        cells = [f"{float(r['minutes']):.1f}", f"{int(float(r[columns[1]])):,}"]
        cells += [f"`{opponent_label(r['opponent'])}`"] if by_opponent else []
        lo, hi = float(r["win_rate_lo"]), float(r["win_rate_hi"])
        cells += [share(float(r["win_rate"]), lo, hi), f"{float(r['mean_score']):+.3f}"]
        out.append(cells)
    return f"The curve's points (`{path.relative_to(root)}`):\n\n" + table(columns, out)


def rows_file_summary(root: Path, name: str) -> list[str]:
    from cardenvs.arena import mean_ci

    d = json.loads((root / name).read_text())
    args, rows = d["args"], d["rows"]
    searcher = args["searcher"]
    if any(c in searcher for c in "(),"):
        searcher = f'"{searcher}"'
    command = (
        f"python benchmarks/search_goals.py {args['game']} {searcher} --deals {args['deals']} --seed {args['seed']}"
    )
    if args.get("opponent") and args["opponent"] != "doudizhu.rule":
        command += f" --opponent {args['opponent']}"
    if args.get("out"):
        command += f" --out {args['out']}"
    rule = [r["rule_landlord_win"] for r in rows]
    lord = [r["search_landlord_win"] for r in rows]
    farm = [r["search_farmers_win"] for r in rows]
    cpu = d.get("cpu_ms") or []
    return [
        f"`{name}`",
        f"`{args['searcher']}`",
        f"`{args.get('opponent') or 'doudizhu.rule'}`",
        f"{len(rows):,}",
        str(args["seed"]),
        share(*mean_ci(lord)),
        share(*mean_ci([a - b for a, b in zip(lord, rule, strict=True)]), signed=True),
        share(*mean_ci(farm)),
        share(*mean_ci([a - (1 - b) for a, b in zip(farm, rule, strict=True)]), signed=True),
        cpu_text(cpu),
        f"`{command}`",
    ]


def cpu_text(cpu: list[float]) -> str:
    """Mean, 95th percentile and largest CPU milliseconds a move, as ``search_goals.py`` prints them."""
    import numpy as np

    if not cpu:
        return "-"
    c = np.asarray(cpu)
    return f"{c.mean():.1f}, {np.percentile(c, 95):.1f}, {c.max():.1f}"


ROWS_COLUMNS = [
    "file",
    "agent",
    "the other seats",
    "deals",
    "seed",
    "as landlord [95% CI]",
    "minus the other agent as landlord, paired",
    "as farmers [95% CI]",
    "minus the other agent as farmers, paired",
    "CPU ms a move: mean, p95, max",
    "command",
]


def rows_files_table(root: Path, files: list[str]) -> str:
    head = (
        "Computed from the row files (`benchmarks/search_goals.py --out`: per deal, the other agent's own game as "
        "landlord and the agent's as landlord and as farmers):"
    )
    return head + "\n\n" + table(ROWS_COLUMNS, [rows_file_summary(root, f) for f in files])


def curve_markdown(curve: dict) -> str:
    runs = ", ".join(f"`{r}`" for r in curve["runs"])
    return f"![{curve['caption']}](trained/{curve['png']})\n\n*{curve['caption']}*; drawn from {runs}."


def render_block(root: Path, block: dict) -> str:
    if "text" in block:
        return block["text"]
    if "table" in block:
        t = block["table"]
        return table(t["columns"], t["rows"], t.get("indent", 0))
    if "final_eval" in block:
        return final_eval_table(root, block["final_eval"])
    if "eval_csv" in block:
        return eval_csv_table(root, block["eval_csv"])
    if "rows_files" in block:
        return rows_files_table(root, block["rows_files"])
    if "curve" in block:
        return curve_markdown(block["curve"])
    raise ValueError(f"unknown block {sorted(block)}")


def render_page(root: Path, folder: str, title: str) -> str:
    lines = [
        f"# Trained agents: {title}",
        "",
        f"Generated by `{SCRIPT}` (`benchmarks/trained_agents.py`) from `docs/study/trained/{folder}/` and the runs'",
        "files in `training/results/`; do not edit it by hand. The shipped models are listed on",
        "[Trained agents](agents.md); how to train is the [training guide](../training.md).",
    ]
    for section in load_sections(root, folder):
        lines += ["", f"## {section['title']}", ""]
        lines.append("\n\n".join(render_block(root, b) for b in section["blocks"]))
    return "\n".join(lines) + "\n"


def page_of(folder: str) -> str:
    return next(slug for f, slug, _ in PAGES if f == folder)


def render_index(root: Path) -> str:
    data = load_models(root)
    sections = {(f, s["title"]): s for f, _, _ in PAGES for s in load_sections(root, f)}
    lines = [
        "# Trained agents",
        "",
        *sum(([p, ""] for p in data["intro"]), []),
        f"Generated by `{SCRIPT}` (`benchmarks/trained_agents.py`) from `docs/study/trained/models.json`.",
        "",
    ]
    rows = []
    for m in data["models"]:
        page = page_of(m["page"])
        section = next(s for (f, _), s in sections.items() if f == m["page"] and m["model"] in s["models"])
        anchor = anchor_of(section["title"])
        rows.append(
            [
                f"`{m['plays_as']}`",
                f"[`{m['model']}`](trained-{page}.md#{anchor})",
                m["what"],
                m["reproduce"],
                m["training"],
                m["result"],
            ]
        )
    lines.append(table(["plays as", "model", "what it is", "trained by", "training", "result"], rows))
    lines += ["", "```{toctree}", ":maxdepth: 1", ""]
    lines += [f"trained-{slug}" for _, slug, _ in PAGES]
    lines += ["```", ""]
    return "\n".join(lines)


def anchor_of(title: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``, its default slug): the heading's text, lower case,
    spaces to ``-``, anything but word characters and ``-`` dropped."""
    text = title.replace("`", "").strip().lower().replace(" ", "-")
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", text)


def pages(root: Path) -> dict[Path, str]:
    """Every generated page, by its path under ``root``."""
    out = {RESULTS / "agents.md": render_index(root)}
    for folder, slug, title in PAGES:
        out[RESULTS / f"trained-{slug}.md"] = render_page(root, folder, title)
    return out


def curves(root: Path) -> list[dict]:
    return [
        b["curve"] for folder, _, _ in PAGES for s in load_sections(root, folder) for b in s["blocks"] if "curve" in b
    ]


def draw_curves(root: Path) -> None:
    import contextlib

    from cardenvs.training.plot_curves import main as plot  # type: ignore[import-not-found]

    (root / CURVES).mkdir(parents=True, exist_ok=True)
    for c in curves(root):
        with contextlib.redirect_stdout(io.StringIO()):
            plot([str(root / r) for r in c["runs"]] + ["--out", str(root / CURVES / c["png"])])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=SCRIPT, description=__doc__.split("\n\n")[0])
    p.add_argument("--curves", action="store_true", help="also redraw the curves' pictures (needs matplotlib)")
    args = p.parse_args(argv)
    if args.curves:
        draw_curves(ROOT)
    for path, text in pages(ROOT).items():
        (ROOT / path).write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
