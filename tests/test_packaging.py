"""A plain (non-editable) install ships one package, cardenvs: agents/ and training/ inside it (as
cardenvs.agents and cardenvs.training, with the shipped DMC models), benchmarks/ not at all."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_only_cardenvs_and_plays_the_shipped_models_by_name(tmp_path):
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
        "cardenvs/agents/__init__.py",
        "cardenvs/training/__init__.py",
        "cardenvs/training/dmc.py",
        "cardenvs/training/results/twos__dmc__2/model.pt",
        "cardenvs/web/templates/game.html",
    ):
        assert required in names, f"{required} missing from the wheel"
    top_level = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top_level == {"cardenvs"}, top_level
    assert any(n.endswith("entry_points.txt") for n in names)
    # every folder of Python files in the repository's package folders is in the wheel (the package list in
    # pyproject.toml is written out by hand)
    for folder, prefix in (
        ("src/cardenvs", "cardenvs"),
        ("agents", "cardenvs/agents"),
        ("training", "cardenvs/training"),
    ):
        for source in (ROOT / folder).rglob("*.py"):
            wheel_name = f"{prefix}/{source.relative_to(ROOT / folder).as_posix()}"
            assert wheel_name in names, f"{wheel_name} missing from the wheel: list its package in pyproject.toml"
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    env.pop("NUMBA_CACHE_DIR", None)  # as a new user has it
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    code = (
        "import cardenvs, sys; assert cardenvs.__file__.startswith(sys.argv[1]), cardenvs.__file__; "
        "import cardenvs.agents; assert cardenvs.agents.__file__.startswith(sys.argv[1]); "
        "from cardenvs.cli import main; "
        "raise SystemExit(main(['arena', 'twos', '--agents', 'twos.dmc,random,random', '--games', '2', "
        "'--no-progress']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(target)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert "twos.dmc" in out.stdout and "random#1" in out.stdout
    # numba's cache went to the user's cache folder, not into the installed package (where pip's uninstall
    # would leave folders that shadow a later editable install)
    assert not [p for p in (target / "cardenvs").rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert list((tmp_path / "cache" / "cardenvs" / "numba").rglob("*.nbi"))
    # benchmarks/ is not installed: cardenvs bench outside a checkout says it needs one, in one line
    code = "from cardenvs.cli import main; raise SystemExit(main(['bench', '--quick']))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 2 and "runs the benchmarks of a checkout" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
