"""A plain (non-editable) install ships agents/, training/ and benchmarks/ beside cardenvs."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_ships_agents_and_runs_arena(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
    )
    wheel = next((tmp_path / "dist").glob("cardenvs-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for required in (
        "cardenvs/core/encoding.py",
        "cardenvs/games/war/env.py",
        "agents/__init__.py",
        "training/__init__.py",
        "benchmarks/bench_aec.py",
    ):
        assert required in names, f"{required} missing from the wheel"
    assert any(n.endswith("entry_points.txt") for n in names)
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("NUMBA_CACHE_DIR", None)  # as a new user has it
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    code = (
        "import cardenvs, agents, sys; assert cardenvs.__file__.startswith(sys.argv[1]), cardenvs.__file__; "
        "assert agents.__file__.startswith(sys.argv[1]); from cardenvs.cli import main; "
        "raise SystemExit(main(['arena', 'war', '--agents', 'random,random', '--games', '3', '--no-progress']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(target)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "random#1" in out.stdout
    # numba's cache went to the user's cache folder, not into the installed package (where pip's uninstall
    # would leave folders that shadow a later editable install)
    assert not [p for p in (target / "cardenvs").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert list((tmp_path / "cache" / "cardenvs" / "numba").rglob("*.nbi"))
