"""Smoke runs of the scripts behind the README's goal tables and ratios, through a subprocess with tiny budgets:
``benchmarks/search_goals.py`` (issue 17's search goals), ``benchmarks/learned_search.py`` (issue 29's paired
learned-value search) and ``cardenvs bench --quick``. Each must exit 0 and print every row it is meant to
print; the numbers are not checked (a deal or two says nothing about them)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs

ROOT = Path(__file__).resolve().parents[1]
CI = r"-?\d+\.\d{3} \[(-?\d+\.\d{3}|nan), (-?\d+\.\d{3}|nan)\] \(n=\d+\)"  # search_goals.ci's "mean [lo, hi] (n=N)"
MS = r"mean \d+\.\d, p95 \d+\.\d"


def run(*args: str, timeout: float = 300) -> str:
    """A command's stdout, after checking it exited 0 (stderr shown when it did not)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")  # as the scripts' docstrings run them
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def assert_rows(out: str, rows: list[str]) -> None:
    """Each pattern matches a whole line of ``out``, in this order."""
    lines = out.splitlines()
    at = 0
    for pattern in rows:
        while at < len(lines) and not re.fullmatch(pattern, lines[at]):
            at += 1
        assert at < len(lines), f"no line {pattern!r} (in order) in:\n{out}"
        at += 1


def test_search_goals_doudizhu_prints_every_row(tmp_path):
    out = run(
        sys.executable,
        "benchmarks/search_goals.py",
        "doudizhu",
        "doudizhu.pimc(playouts=8)",
        "--deals",
        "2",
        "--out",
        str(tmp_path / "rows.json"),
    )
    assert_rows(
        out,
        [
            "the other seats' agent: doudizhu.rule",
            rf"rule landlord vs rule farmers: +{CI}",
            rf"search landlord vs rule farmers: +{CI}",
            rf"  difference \(paired\): +{CI}",
            rf"rule farmers vs rule landlord: +{CI}",
            rf"search farmers vs rule landlord: +{CI}",
            rf"  difference \(paired\): +{CI}",
            rf"ms per move \(wall\): {MS}, max \d+\.\d \(\d+ moves\)",
            rf"ms per move \(CPU\): +{MS}, max \d+\.\d",
        ],
    )
    saved = json.loads((tmp_path / "rows.json").read_text())
    assert [r["deal"] for r in saved["rows"]] == [0, 1] and saved["args"]["searcher"] == "doudizhu.pimc(playouts=8)"


@pytest.mark.slow
def test_search_goals_other_games_print_every_row():
    out = run(sys.executable, "benchmarks/search_goals.py", "twos", "twos.pimc(playouts=8)", "--deals", "1")
    assert_rows(
        out,
        [
            rf"search win rate vs 2 x twos.heuristic \(parity 1/3\), per deal over 3 seats: {CI}",
            rf"ms per move \(wall\): {MS}, max \d+\.\d \(\d+ moves\)",
            rf"ms per move \(CPU\): +{MS}, max \d+\.\d",
        ],
    )


@pytest.mark.slow
def test_learned_search_prints_every_row(tmp_path):
    pytest.importorskip("torch", reason="the dmc leaf needs torch (the train extra)")
    a, b = "doudizhu.pimc(playouts=8,leaf=dmc)", "doudizhu.pimc(playouts=8)"
    out = run(
        sys.executable,
        "benchmarks/learned_search.py",
        "doudizhu",
        a,
        b,
        "--deals",
        "1",
        "--out",
        str(tmp_path / "r.json"),
    )
    arm = rf"{CI} landlord {CI} farmers {CI}"
    assert_rows(
        out,
        [
            r"doudizhu, 1 deals, seed 29, \d+\.\d min",
            re.escape(a) + ": " + arm,
            rf"  ms per move: {MS} \(\d+ moves\)",
            re.escape(b) + ": " + arm,
            rf"  ms per move: {MS} \(\d+ moves\)",
            rf"A - B, paired by deal: {CI}",
            rf"  landlord: {CI}",
            rf"  farmers: {CI}",
        ],
    )
    assert len(json.loads((tmp_path / "r.json").read_text())["rows"]) == 1


@pytest.mark.slow
def test_cardenvs_bench_quick_prints_its_rows_and_ratios(tmp_path):
    """``cardenvs bench --quick`` on two of its benchmarks (the whole quick run takes minutes): ``aec``, every
    env against PettingZoo's connect_four_v3 (a ratio row per env), and ``war``, the simulator against the AEC
    env; the JSON rows carry the same ratios."""
    out = run(
        "cardenvs", "bench", "--quick", "--only", "aec", "war", "--no-progress", "--out", str(tmp_path / "b.json")
    )
    ratio = r"[\d,]+\.\d+x"
    rows = [r"aec_random_steps connect_four_v3 +[\d,]+\.\d steps/s +PettingZoo reference; .*"]
    rows += [
        rf"aec_random_steps {env_id} +[\d,]+\.\d steps/s +{ratio} connect_four_v3 .*" for env_id in cardenvs.ENV_IDS
    ]
    rows += [
        r"war p_sweep exact \(52 cards\) .* ms .*",
        rf"war simulator battles .* battles/s +{ratio} war_v0 AEC env .*",
    ]
    assert_rows(out, rows)
    saved = json.loads((tmp_path / "b.json").read_text())
    saved = saved.get("rows", saved) if isinstance(saved, dict) else saved
    ratios = {r["benchmark"]: (r["reference"], r["ratio"]) for r in saved if r["ratio"] is not None}
    assert {f"aec_random_steps {env_id}" for env_id in cardenvs.ENV_IDS} | {"war simulator battles"} == set(ratios)
    assert all(reference and ratio > 0 for reference, ratio in ratios.values())


def test_search_move_ms_times_the_even_seats_choices(capsys):
    """``benchmarks/search_move_ms.py`` (issue 63: the play agent's move in a Guandan match), in process on Twos:
    one line with the count of timed moves; bad arguments are one-line usage errors."""
    from benchmarks import search_move_ms

    assert search_move_ms.main(["twos", "twos.pimc(playouts=10)", "random", "--moves", "3", "--seed", "1"]) == 0
    line = r"twos\.pimc\(playouts=10\): 3 moves with a choice, \d+\.\d ms CPU a move on average "
    line += r"\(median \d+\.\d, max \d+\.\d\); options \{\}, seed 1"
    assert re.fullmatch(line, capsys.readouterr().out.strip())
    for argv, says in (
        (["--moves", "0"], "--moves must be >= 1"),
        (["--option", "x"], "--option 'x' must look like key=value"),
        (["--option", "players=9"], "players"),
    ):
        with pytest.raises(SystemExit) as exc:
            search_move_ms.main(["twos", "random", "random", *argv])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and says in err and "Traceback" not in err
