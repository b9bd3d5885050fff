"""Draw learning curves (win rate against the heuristic over training time) from runs' ``eval.csv``.

python -m cardenvs.training.plot_curves runs/twenty__ppo__1 [runs/twos__ppo__1 ...] --out training/curves.png

A DMC run's ``eval.csv`` has an ``opponent`` column (a row per opponent evaluated against at each checkpoint,
``eval_opponents``): each opponent is its own curve, labelled ``RUN vs OPPONENT``.
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

from cardenvs.core.userfiles import read_text

#: the largest eval.csv read (a row per evaluation, a few dozen bytes each)
MAX_CSV_BYTES = 64 * 1024 * 1024


def read_eval(run_dir: Path) -> dict[str, dict[str, list[float]]]:
    """The numeric columns of a run's ``eval.csv`` by opponent (``""`` when it has no ``opponent`` column)."""
    path = run_dir / "eval.csv" if run_dir.is_dir() else run_dir
    if not path.exists():
        raise SystemExit(f"no eval.csv in {run_dir}")
    try:
        text = read_text(path, "eval.csv", MAX_CSV_BYTES)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    try:
        curves: dict[str, dict[str, list[float]]] = {}
        for row in csv.DictReader(io.StringIO(text)):
            cols = curves.setdefault(row.pop("opponent", None) or "", {})
            for k, v in row.items():
                cols.setdefault(k, []).append(float(v))
    except (ValueError, TypeError, csv.Error) as exc:
        raise SystemExit(f"{path}: {exc}") from None
    return curves


def opponent_label(name: str) -> str:
    """An ``eval.csv`` opponent as curves and pages show it: a file agent by its file's name
    (``danzero:FILE``), not by the path it had on the training machine."""
    kind, sep, target = name.partition(":")
    return f"{kind}:{Path(target).name}" if sep and "/" in target else name


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders (or eval.csv files)")
    parser.add_argument("--out", default="curves.png")
    parser.add_argument("--x", choices=("minutes", "timesteps"), default="minutes")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4))
    for run in args.runs:
        for opponent, data in read_eval(Path(run)).items():
            x = data[args.x]
            label = f"{Path(run).name} vs {opponent_label(opponent)}" if opponent else Path(run).name
            ax.plot(x, data["win_rate"], marker="o", label=label)
            ax.fill_between(x, data["win_rate_lo"], data["win_rate_hi"], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("training time (minutes)" if args.x == "minutes" else "timesteps")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
