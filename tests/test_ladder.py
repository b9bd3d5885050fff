"""The graded ladder (:mod:`cardenvs.analysis.grading`, ``cardenvs ladder``): the rating fit on hand-built counts,
placements with intervals that agree across seeds, the leaderboard, and bad input."""

import json

import numpy as np
import pytest

from cardenvs.analysis import grading
from cardenvs.cli import main


def test_the_fit_holds_the_anchors_and_reads_elo():
    anchors = np.array([0.0, 400.0])
    even = grading.fit_rating(np.array([[500.0, 0.0]]), np.array([[1000.0, 0.0]]), anchors)
    assert even[0] == pytest.approx(0.0, abs=1e-6)  # half the pairs against the anchor at 0: rated 0
    # 10,000 of 11,000 pairs won against an anchor at 400: 10:1 odds is 400 Elo above it
    above = grading.fit_rating(np.array([[0.0, 10_000.0]]), np.array([[0.0, 11_000.0]]), anchors)
    assert above[0] == pytest.approx(800.0, abs=1.0)
    both = grading.fit_rating(np.array([[900.0, 100.0]]), np.array([[1000.0, 1000.0]]), anchors)
    assert 0.0 < both[0] < 400.0


@pytest.fixture
def twos_anchors(tmp_path):
    path = tmp_path / "twos.json"
    path.write_text(
        json.dumps({"game": "twos_v0", "anchors": {"random": 0.0, "twos.heuristic": 250.0}, "deals_per_pair": 8})
    )
    return str(path)


def test_an_agent_placed_twice_lands_within_the_intervals(twos_anchors):
    first = grading.place("twos", "twos.pimc(playouts=8)", 6, seed=1, reference_file=twos_anchors)
    second = grading.place("twos", "twos.pimc(playouts=8)", 6, seed=2, reference_file=twos_anchors)
    for a, b in ((first, second), (second, first)):
        assert a["interval"][0] <= a["rating"] <= a["interval"][1]
        assert a["interval"][0] <= b["rating"] <= a["interval"][1]
    assert set(first["against"]) == {"random", "twos.heuristic"}


def test_the_cli_places_an_agent_and_appends_to_the_leaderboard(twos_anchors, tmp_path, capsys):
    board = tmp_path / "board.json"
    agent = "twos.pimc(playouts=4)"
    args = ["ladder", "twos", agent, "--games", "3", "--anchors", twos_anchors, "--leaderboard", str(board)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"{agent} on the twos_v0 ladder: rating" in out and "95% interval" in out
    assert main(args) == 0
    rows = json.loads(board.read_text())
    assert [r["agent"] for r in rows] == [agent, agent] and rows[0]["deals"] == 3


def test_a_reference_run_rates_the_anchors(tmp_path):
    out = tmp_path / "war.json"
    assert main(["ladder", "war", "--reference", "--games", "2", "--out", str(out)]) == 0
    ref = json.loads(out.read_text())
    assert ref["game"] == "war_v0" and ref["anchors"]["random"] == 0.0 and ref["deals_per_pair"] == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["ladder", "twos"], "name the agent to place"),
        (["ladder", "twos", "random", "--reference"], "name no agent"),
        (["ladder", "twos", "random", "--games", "2"], "random is an anchor"),
        (["ladder", "twos", "nobody", "--games", "2"], "unknown agent"),
        (["ladder", "twos", "random", "--anchors", "/no/such.json"], "no reference ratings"),
    ],
)
def test_bad_ladder_requests_are_one_line_errors(args, words, capsys):
    assert main(args) == 2
    assert words in capsys.readouterr().err


def test_a_program_without_a_sandbox_is_placed_only_with_unsandboxed(twos_anchors, tmp_path, monkeypatch, capsys):
    """``cardenvs ladder`` takes ``--unsandboxed`` as the arena does: without it a program is refused in one line
    naming the flag, with it the program is placed and the placement (and the leaderboard row) says so."""
    import sys
    from pathlib import Path

    from cardenvs.agent import sandbox

    monkeypatch.setattr(sandbox, "unavailable", lambda: "no sandbox for programs: bwrap is not installed")
    bot = f"cmd:{sys.executable} {Path(__file__).parent / 'bots' / 'first_legal.py'}"
    board = tmp_path / "board.json"
    args = ["ladder", "twos", bot, "--games", "2", "--anchors", twos_anchors, "--leaderboard", str(board)]
    assert main(args) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--unsandboxed" in error and "Traceback" not in error
    assert main([*args, "--unsandboxed"]) == 0
    assert f"UNSANDBOXED: {bot} ran without a sandbox" in capsys.readouterr().out
    assert json.loads(board.read_text())[0]["unsandboxed"] is True
