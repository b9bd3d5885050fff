"""Leaderboard files (``cardenvs ladder --leaderboard``, ``cardenvs serve --leaderboard``): read field by field,
bounded, written atomically; a bad one is refused in one line at start-up and shown as an error on the start
page if it goes bad later (never a 500)."""

import json
import os
import warnings

import pytest

from cardenvs import cli
from cardenvs.analysis import grading

ROW = {"game": "twos_v0", "agent": "cmd:./mybot", "rating": 120.5, "interval": [80.0, 160.0], "deals": 50}


def write(path, rows) -> None:
    path.write_text(json.dumps(rows))


@pytest.mark.parametrize(
    "change, words",
    [
        ({"rating": "high"}, "'rating' must be a finite number, got \"high\""),
        ({"rating": None}, "'rating' must be a finite number, got null"),
        ({"rating": float("nan")}, "'rating' must be a finite number, got NaN"),
        ({"rating": True}, "'rating' must be a finite number"),
        ({"interval": [1.0]}, "'interval' must be a list of two finite numbers"),
        ({"interval": "wide"}, "'interval' must be a list of two finite numbers"),
        ({"interval": [float("nan"), 160.0]}, "'interval' must be a list of two finite numbers, got [NaN, 160.0]"),
        ({"interval": [80.0, float("inf")]}, "'interval' must be a list of two finite numbers, got [80.0, Infinity]"),
        ({"interval": [float("-inf"), 1]}, "'interval' must be a list of two finite numbers, got [-Infinity, 1]"),
        ({"interval": [80.0, None]}, "'interval' must be a list of two finite numbers, got [80.0, null]"),
        ({"interval": [160.0, 80.0]}, "'interval' must be [lower, upper], got [160.0, 80.0] (the lower end above"),
        ({"deals": 2.5}, "'deals' must be a whole number"),
        ({"agent": 7}, "'agent' must be a non-empty string"),
        ({"game": ""}, "'game' must be a non-empty string"),
        ({"seed": "x"}, "'seed' must be a whole number"),
        ({"against": {"random": "a lot"}}, "'against' must map anchors"),
        ({"adjusted": 3}, "'adjusted' must be an object"),
    ],
)
def test_each_field_is_checked(tmp_path, change, words):
    board = tmp_path / "board.json"
    write(board, [ROW, {**ROW, **change}])
    with pytest.raises(ValueError) as info:
        grading.read(board)
    assert f"{board}: row 1: {words}" in str(info.value)


def test_a_non_finite_interval_is_refused_as_json_writes_it(tmp_path, capsys):
    """Python's json writes and reads NaN and Infinity: a leaderboard holding one is refused by read, by append
    (the placement to add) and by the commands that read it, each in one line."""
    board = tmp_path / "board.json"
    for text in ("NaN", "Infinity", "-Infinity", "1e999"):
        board.write_text(json.dumps([ROW])[:-2].replace("[80.0, 160.0]", f"[80.0, {text}]") + "}]")
        with pytest.raises(ValueError, match=r"row 0: 'interval' must be a list of two finite numbers, got \[80.0, "):
            grading.read(board)
        assert cli.main(["serve", "--port", "1", "--leaderboard", str(board)]) == 2
        err = capsys.readouterr().err
        assert "'interval' must be a list of two finite numbers" in err and len(err.strip().splitlines()) == 1
    write(board, [ROW])
    for interval in ([80.0, float("nan")], [160.0, 80.0]):
        with pytest.raises(ValueError, match="the placement to add to .*: 'interval' must be"):
            grading.append(board, {**ROW, "interval": interval})
    assert grading.read(board) == [ROW]


def test_missing_fields_wrong_shapes_and_half_written_files(tmp_path):
    board = tmp_path / "board.json"
    for rows, words in (
        ([{k: v for k, v in ROW.items() if k != "deals"}], "row 0: the field 'deals' is missing"),
        ([ROW, "a row"], "row 1: a row must be an object, got str"),
        ({"rows": [ROW]}, "is not a leaderboard (a JSON list of placements), it holds dict"),
    ):
        write(board, rows)
        with pytest.raises(ValueError) as info:
            grading.read(board)
        assert words in str(info.value)
    board.write_text(json.dumps([ROW, ROW])[:-30])  # another program's write, cut short
    with pytest.raises(ValueError, match="is not JSON"):
        grading.read(board)
    write(board, [ROW])
    assert grading.read(board) == [ROW]


def test_the_size_is_bounded(tmp_path, monkeypatch):
    board = tmp_path / "board.json"
    monkeypatch.setattr(grading, "MAX_LEADERBOARD_ROWS", 3)
    write(board, [ROW] * 4)
    with pytest.raises(ValueError, match="holds 4 placements; a leaderboard holds at most 3"):
        grading.read(board)
    write(board, [ROW] * 3)
    with pytest.raises(ValueError, match="is full .3 placements"):
        grading.append(board, ROW)
    assert len(grading.read(board)) == 3  # unchanged
    board.write_bytes(b" " * (grading.MAX_LEADERBOARD_BYTES + 1))
    with pytest.raises(ValueError, match="too large"):
        grading.read(board)


def test_append_replaces_the_file_whole(tmp_path, monkeypatch):
    board = tmp_path / "board.json"
    grading.append(board, ROW)
    os.chmod(board, 0o640)
    grading.append(board, {**ROW, "agent": "second"})
    assert [r["agent"] for r in grading.read(board)] == ["cmd:./mybot", "second"]
    assert os.stat(board).st_mode & 0o777 == 0o640 and os.listdir(tmp_path) == ["board.json"]
    before = board.read_bytes()

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(ValueError, match="cannot write the leaderboard .*No space left"):
        grading.append(board, {**ROW, "agent": "third"})
    assert board.read_bytes() == before and os.listdir(tmp_path) == ["board.json"]  # no half file, no temp
    with pytest.raises(ValueError, match="'rating' must be a finite number"):
        grading.append(board, {**ROW, "rating": float("inf")})


def test_serve_refuses_a_bad_leaderboard_at_start_up(tmp_path, capsys):
    board = tmp_path / "board.json"
    write(board, [{**ROW, "rating": "high"}])
    assert cli.main(["serve", "--leaderboard", str(board), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "row 0: 'rating' must be a finite number" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_leaderboard_gone_bad_after_start_up_is_an_error_panel_not_a_500(tmp_path):
    pytest.importorskip("starlette", reason="the web extra (pip install 'cardenvs[web]') is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from cardenvs.web import create_app

    board = tmp_path / "board.json"
    grading.append(board, ROW)
    client = TestClient(create_app(leaderboard=board), base_url="http://127.0.0.1:8000")
    page = client.get("/")
    assert page.status_code == 200 and "cmd:./mybot" in page.text and "cannot be shown" not in page.text
    for bad in ('[{"game": "twos_v0", "agent": "x", "rating": null, "interval": [1, 2], "deals": 3}]', '[{"ga'):
        board.write_text(bad)
        page = client.get("/")
        assert page.status_code == 200 and "The leaderboard file cannot be shown" in page.text
        assert 'id="leaderboard-twos"' in page.text and "(anchor)" in page.text  # the anchors still shown
    board.unlink()
    os.mkfifo(board)
    page = client.get("/")
    assert page.status_code == 200 and "is a pipe" in page.text
