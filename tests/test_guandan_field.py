"""docs/results/guandan-field.md (issue 54, item 3; issue 63, item 4) is generated from the committed runs of
``benchmarks/guandan_field.py``: its every figure is the JSON's, with its command, and each judge's goal row says
met or unmet from the figures. The script seats the judges of a judges' folder (DanZero, ai1 .. ai8) under short
labels, plays every shipped Guandan agent, skips a pairing whose JSON holds the same command (a run continues
across sessions), plays pairings in processes of their own with ``--jobs``, and its argument errors are one
line."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardenvs.agent import shipped_models

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "docs" / "study" / "guandan-field"


@pytest.fixture(scope="module")
def field():
    spec = importlib.util.spec_from_file_location("guandan_field", ROOT / "benchmarks" / "guandan_field.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def a_run(field, ours: str, bot: str, share: list[float], deals: int = 100, episode: str = "hand") -> dict:
    match = episode == "match"
    return {
        "ours": ours,
        "field": bot,
        "episode": episode,
        "command": field.arena_command(ours, bot, deals, 7, match),
        "seed": 7,
        "deals": deals,
        "games": 4 * deals,
        "steps": 1000,
        "truncated": 0,
        "win_share": share,
        "field_win_share": [1 - share[0], 1 - share[2], 1 - share[1]],
        "faults": {},
        "date": "2026-12-02 10:00 UTC",
        "seconds": 12.0,
        "load": [1, 2, 3, 4, 5, 6],
        "cores": 2,
    }


DZ = "danzero:/j/danlm/v3.onnx"


def gdws(n: int) -> str:
    return f"gdws:/j/botvenv/bin/python /j/Danzero_plus/wintest/ai{n}/client{0 if n <= 3 else 1}.py"


def test_the_page_is_the_committed_runs(field):
    runs = field.load_runs(STUDY)
    older = field.load_runs(STUDY / "2026-11-28")
    older_ladder = field.load_runs(STUDY / "2026-11-28" / "ladder")
    curve = field.read_curve(ROOT / field.CURVE)
    page = (ROOT / field.PAGE).read_text()
    assert page == field.render_page(runs, curve, str(field.CURVE), older, older_ladder)
    assert (ROOT / field.CURVE_PNG).is_file() and f"]({field.CURVE_PNG.relative_to('docs/results')})" in page
    assert "## Older runs (2026-11-28)" in page and older  # the old rows are kept, marked as older
    for r in older_ladder:
        row = next(line for line in page.splitlines() if f"`{r['command']}`" in line)
        assert f"{r['rating']:.1f} [{r['interval'][0]:.1f}, {r['interval'][1]:.1f}]" in row
    for r in runs + older:
        assert r["games"] == 4 * r["deals"]  # the four rotations of each duplicate deal
        assert r["win_share"][1] <= r["win_share"][0] <= r["win_share"][2] or r["deals"] == 1
        row = next(line for line in page.splitlines() if f"`{r['command']}`" in line)
        assert field.share(r["win_share"]) in row and f"| {r['seed']} |" in row and r["date"] in row
        assert r["command"].endswith("-o episode=match") == (r["episode"] == "match")
        assert f"--games {r['deals']} --seed {r['seed']}" in r["command"]
    for r in curve:  # every point of the training curve is on the page
        m, lo, hi = (float(r[k]) for k in ("win_rate", "win_rate_lo", "win_rate_hi"))
        assert f"| {float(r['minutes']):.1f} | {int(r['frames']):,} |" in page and field.share([m, lo, hi]) in page


def test_a_page_that_disagrees_with_its_json_is_caught(field):
    """The committed-page check fails when one figure of the JSON changes (the page would have to be rewritten)."""
    older = field.load_runs(STUDY / "2026-11-28")
    page = field.render_page([], None, "", older)
    changed = [dict(r) for r in older]
    changed[0]["win_share"] = [changed[0]["win_share"][0] + 0.001, *changed[0]["win_share"][1:]]
    assert field.render_page([], None, "", changed) != page


def test_the_pages_table_reads_a_run(field, tmp_path):
    run = a_run(field, "guandan.heuristic", "danzero:x.onnx", [0.25, 0.0, 0.6], deals=3)
    run["faults"] = {"danzero:x.onnx#1": {"forfeits": {"timeout": 2}, "fallback_moves": {}}}
    (tmp_path / "a.json").write_text(json.dumps(run))
    row = field.render_page(field.load_runs(tmp_path)).splitlines()
    line = next(x for x in row if x.startswith("| `guandan.heuristic` | DanZero | hand"))
    assert "0.250 [0.000, 0.600]" in line and "lost 2 timeout" in line and "1.0, 2.0, 3.0 / 4.0, 5.0, 6.0" in line
    assert '--agents "guandan.heuristic,danzero:x.onnx,guandan.heuristic,danzero:x.onnx" --games 3 --seed 7`' in line
    assert field.share([0.5, float("nan"), float("nan")]) == "0.500 (one deal: no interval)"


def test_each_judges_goal_row_says_met_or_unmet_from_the_figures(field):
    runs = [
        a_run(field, "guandan.dmc", gdws(1), [0.56, 0.51, 0.61]),  # met: 0.56 >= 0.55, 0.51 > 0.50
        a_run(field, "guandan.heuristic", gdws(1), [0.40, 0.30, 0.50]),
        a_run(field, "guandan.dmc", gdws(2), [0.56, 0.49, 0.63]),  # unmet: the lower bound is not above 0.50
        a_run(field, "guandan.dmc", gdws(3), [0.60, 0.55, 0.65], deals=50),  # unmet: fewer than 100 deals
        a_run(field, "guandan.dmc", gdws(4), [0.54, 0.51, 0.57]),  # unmet: under 0.55
        a_run(field, "guandan.dmc", DZ, [0.45, 0.40, 0.50]),  # met: 0.45 is at least 0.45 (no bound asked)
        a_run(field, "guandan.dmc", gdws(5), [0.70, 0.60, 0.80], episode="match"),  # matches decide nothing
    ]
    page = field.render_page(runs).splitlines()

    def goal_row(judge: str) -> str:
        return next(line for line in page if line.startswith(f"| {judge} | at least"))

    assert "| met | `guandan.dmc` 0.560 [0.510, 0.610], 100 deals |" in goal_row("ai1")
    assert "| unmet | `guandan.dmc` 0.560 [0.490, 0.630], 100 deals |" in goal_row("ai2")
    assert "| unmet | `guandan.dmc` 0.600 [0.550, 0.650], 50 deals |" in goal_row("ai3")
    assert "| unmet |" in goal_row("ai4")
    assert "| met |" in goal_row("DanZero") and "at least 0.45, at least 100 deals" in goal_row("DanZero")
    assert "| no single hands played |" in goal_row("ai5")  # whole matches alone decide nothing
    below = [a_run(field, "guandan.dmc", DZ, [0.44, 0.39, 0.49])]
    assert "| DanZero | at least 0.45, at least 100 deals | unmet |" in field.render_page(below)
    # the single hands' table: a row per agent, a column per bot (DanZero first), share and deals in each cell
    head = next(line for line in page if line.startswith("| ours | DanZero |"))
    assert head == "| ours | DanZero | ai1 | ai2 | ai3 | ai4 |"
    dmc = next(line for line in page if line.startswith("| `guandan.dmc` | 0.450"))
    assert dmc.split(" | ")[4] == "0.600 [0.550, 0.650] (50)"


def test_labels_are_short_unless_two_bots_would_share_one(field):
    assert [field.label(b) for b in (DZ, gdws(1), gdws(8))] == ["DanZero", "ai1", "ai8"]
    assert field.label(gdws(2) + "(move_ms=20000)") == "ai2"
    assert field.label("guandan.heuristic") == "guandan.heuristic"
    two = field.labels([DZ, "danzero:/other.onnx", gdws(1)])
    assert two == {DZ: DZ, "danzero:/other.onnx": "danzero:/other.onnx", gdws(1): "ai1"}


def fake_judges(root: Path) -> Path:
    for path in ["danlm/v3_default_param_cycle000007000_int8.onnx", "botvenv/bin/python"] + [
        f"Danzero_plus/wintest/ai{n}/client{0 if n <= 3 else 1}.py" for n in range(1, 9)
    ]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")
    return root


def test_the_judges_folder_seats_danzero_and_ai1_to_ai8(field, tmp_path):
    judges = field.judges_field(fake_judges(tmp_path))
    assert [field.label(b) for b in judges] == ["DanZero", *(f"ai{n}" for n in range(1, 9))]
    assert judges[0] == f"danzero:{tmp_path}/danlm/v3_default_param_cycle000007000_int8.onnx"
    assert judges[4] == f"gdws:{tmp_path}/botvenv/bin/python {tmp_path}/Danzero_plus/wintest/ai4/client1.py"
    assert field.judges_field(tmp_path, "move_ms=20000")[1].endswith("ai1/client0.py(move_ms=20000)")
    (tmp_path / "Danzero_plus/wintest/ai6/client1.py").unlink()
    with pytest.raises(ValueError, match="ai6/client1.py"):
        field.judges_field(tmp_path)


def test_the_plan_plays_every_shipped_agent_and_gives_each_pairing_its_file(field, tmp_path):
    from cardenvs.agent import shipped_models
    from cardenvs.games.guandan import PLAY_AGENT

    ours = field.shipped_ours()
    assert ours[:2] == ["guandan.heuristic", PLAY_AGENT]  # the search of the table is the one users play
    assert set(ours[2:]) == {n for n in shipped_models() if n.startswith("guandan.")} and "guandan.dmc" in ours
    args = field.parse_args(["--judges", str(tmp_path), "--search-hands", "30", "--matches", "2"])
    plan = field.pairings(args, field.judges_field(fake_judges(tmp_path)), ours)
    assert len(plan) == 9 * 2 * len(ours)
    assert len({p["file"] for p in plan}) == len(plan)  # the bots' long alike commands get files of their own
    deals = {(p["ours"], p["match"]) for p in plan if p["deals"] == 30}
    assert deals == {(PLAY_AGENT, False)}  # the search agents' own count of single hands
    assert {p["deals"] for p in plan if p["match"]} == {2} and {p["deals"] for p in plan if not p["match"]} == {30, 100}


def test_a_pairing_with_its_json_is_not_played_again(field, tmp_path, monkeypatch, capsys):
    played = []

    def play(ours, bot, deals, seed, match):
        played.append((ours, deals, match))
        r = a_run(field, ours, bot, [0.5, 0.25, 0.75], deals, "match" if match else "hand")
        return {**r, "command": field.arena_command(ours, bot, deals, seed, match), "seed": seed}

    monkeypatch.setattr(field, "play_pairing", play)
    argv = ["--field", "guandan.heuristic", "--only-ours", "--ours", "random", "--hands", "2", "--matches", "1"]
    argv += ["--out", str(tmp_path / "out"), "--page", str(tmp_path / "page.md"), "--curve", str(tmp_path / "no")]
    assert field.main(argv) == 0
    assert played == [("random", 2, False), ("random", 1, True)]
    assert field.main(argv) == 0 and len(played) == 2  # the same command again: both pairings are done
    assert "done (its JSON holds the same command)" in capsys.readouterr().out
    assert field.main([*argv, "--hands", "3"]) == 0  # another count of single hands is another command
    assert played[2:] == [("random", 3, False)]
    assert field.main([*argv, "--hands", "4", "--plan"]) == 0 and len(played) == 3
    assert "1 of 2 pairings to play" in capsys.readouterr().out
    page = (tmp_path / "page.md").read_text()
    assert "| `random` | guandan.heuristic | hand | 0.500 [0.250, 0.750] |" in page and "--games 3 --seed 0`" in page
    next((tmp_path / "out").glob("random__*__hand__*.json")).write_text("{not json")
    assert field.main(argv) == 2
    assert "not a pairing's JSON" in capsys.readouterr().err


def test_a_pairing_is_played_again_when_the_model_behind_its_name_changed(field, tmp_path, monkeypatch):
    """The same command with another model file behind the name (a stronger model shipped as ``guandan.dmc``, here
    ``dmc:PATH`` overwritten) is not done: its JSON records the model's digest."""
    played = []

    def play(ours, bot, deals, seed, match):
        played.append(field.model_digest(ours))
        r = a_run(field, ours, bot, [0.5, 0.25, 0.75], deals, "match" if match else "hand")
        return {**r, "command": field.arena_command(ours, bot, deals, seed, match), "model": played[-1]}

    monkeypatch.setattr(field, "play_pairing", play)
    model, results = tmp_path / "model.pt", ROOT / "training" / "results"
    model.write_bytes((results / "guandan__dmc__1" / "model.pt").read_bytes())
    argv = ["--field", "guandan.heuristic", "--only-ours", "--ours", f"dmc:{model}", "--hands", "2", "--matches", "0"]
    argv += ["--out", str(tmp_path / "out"), "--page", str(tmp_path / "page.md"), "--curve", str(tmp_path / "no")]
    assert field.main(argv) == 0 and field.main(argv) == 0
    assert len(played) == 1 and played[0] == field.model_digest(f"dmc:{model}") is not None
    model.write_bytes((results / "guandan__dmc_v2_small__1" / "model.pt").read_bytes())
    assert field.main(argv) == 0 and len(played) == 2 and played[1] != played[0]
    assert field.model_digest("guandan.heuristic") is None
    assert field.model_digest("guandan.dmc") == field.model_digest(f"dmc:{shipped_models()['guandan.dmc']}")


def test_jobs_play_pairings_in_processes_of_their_own(tmp_path):
    """Through a subprocess, as a user runs it: two tiny pairings with --jobs 2, each written to its JSON."""
    out = tmp_path / "out"
    argv = ["--field", "guandan.heuristic", "--only-ours", "--ours", "random", "--ours", "guandan.heuristic"]
    argv += ["--hands", "1", "--matches", "0", "--jobs", "2", "--out", str(out), "--page", str(tmp_path / "p.md")]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.guandan_field", *argv], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    runs = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    assert sorted(r["ours"] for r in runs) == ["guandan.heuristic", "random"]
    assert all(r["games"] == 4 and r["faults"] == {} for r in runs)


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--hands", "x"], "invalid int value: 'x'"),
        (["--matches", "-1"], "--matches must be >= 0"),
        (["--seed", "-3"], "--seed must be >= 0"),
        (["--jobs", "0"], "--jobs must be >= 1"),
        (["--field", "x", "--only-ours"], "--only-ours needs at least one --ours"),
        ([], "name the field with --judges FOLDER or --field"),
        (["--judges", "/no/such/judges"], "/no/such/judges lacks"),
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
