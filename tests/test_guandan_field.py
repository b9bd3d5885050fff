"""docs/results/guandan-field.md (issue 54, item 3) is generated from the committed runs of
``benchmarks/guandan_field.py``: its every figure is the JSON's, with its command; the script's argument errors are
one line."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def field():
    spec = importlib.util.spec_from_file_location("guandan_field", ROOT / "benchmarks" / "guandan_field.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_the_committed_runs(field):
    runs = field.load_runs(ROOT / "docs" / "study" / "guandan-field")
    assert {r["episode"] for r in runs} == {"hand", "match"}
    assert {r["ours"].split("(")[0] for r in runs} == {"guandan.heuristic", "guandan.pimc", "guandan.dmc"}
    page = (ROOT / "docs" / "results" / "guandan-field.md").read_text()
    ladder = field.load_runs(ROOT / "docs" / "study" / "guandan-field" / "ladder")
    assert page == field.render_page(runs, ladder)
    for r in ladder:
        row = next(line for line in page.splitlines() if f"`{r['command']}`" in line)
        assert f"{r['rating']:.1f} [{r['interval'][0]:.1f}, {r['interval'][1]:.1f}]" in row
    for r in runs:
        assert r["games"] == 4 * r["deals"]  # the four rotations of each duplicate deal
        assert r["win_share"][1] <= r["win_share"][0] <= r["win_share"][2] or r["deals"] == 1
        row = next(line for line in page.splitlines() if f"`{r['command']}`" in line)
        assert field.share(r["win_share"]) in row and f"| {r['seed']} |" in row and r["date"] in row
        assert r["command"].endswith("-o episode=match") == (r["episode"] == "match")
        assert f"--games {r['deals']} --seed {r['seed']}" in r["command"]


def test_the_pages_table_reads_a_run(field, tmp_path):
    run = {
        "ours": "guandan.heuristic",
        "field": "danzero:x.onnx",
        "episode": "hand",
        "command": field.arena_command("guandan.heuristic", "danzero:x.onnx", 3, 7, False),
        "seed": 7,
        "deals": 3,
        "games": 12,
        "steps": 1000,
        "truncated": 0,
        "win_share": [0.25, 0.0, 0.6],
        "field_win_share": [0.75, 0.4, 1.0],
        "faults": {"danzero:x.onnx#1": {"forfeits": {"timeout": 2}, "fallback_moves": {}}},
        "date": "2026-11-28 10:00 UTC",
        "seconds": 12.0,
        "load": [1, 2, 3, 4, 5, 6],
        "cores": 2,
    }
    (tmp_path / "a.json").write_text(json.dumps(run))
    row = field.render_page(field.load_runs(tmp_path)).splitlines()
    line = next(x for x in row if x.startswith("| `guandan.heuristic`"))
    assert "0.250 [0.000, 0.600]" in line and "lost 2 timeout" in line and "1.0, 2.0, 3.0 / 4.0, 5.0, 6.0" in line
    assert '--agents "guandan.heuristic,danzero:x.onnx,guandan.heuristic,danzero:x.onnx" --games 3 --seed 7`' in line
    assert field.share([0.5, float("nan"), float("nan")]) == "0.500 (one deal: no interval)"


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--hands", "x"], "invalid int value: 'x'"),
        (["--matches", "-1"], "--matches must be >= 0"),
        (["--seed", "-3"], "--seed must be >= 0"),
        ([], "name at least one field bot with --field"),
        (["--field", "nosuch:thing"], "nosuch"),
        (["--field", "danzero:/no/such/file.onnx"], "/no/such/file.onnx"),
    ],
)
def test_argument_errors_are_one_line(field, capsys, argv, says):
    try:
        code = field.main(argv)
    except SystemExit as e:
        code = e.code
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err
