"""numba's compiled kernels never outlive the source they were compiled from (cardenvs.cache).

The kernels inline functions of other files (the dealing stream of ``core/rng.py`` inside every game's
``init``), and numba checks a cached function only against its own file. The cache folder is therefore keyed
by a digest of the whole package: an edit anywhere gets a fresh folder."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardenvs import cache

PACKAGE = Path(cache.__file__).resolve().parent

# Deals seed 5 in the AEC env and the vector env (game 0 of a batch reset with seed 5 is that deal) and with
# the dealing function called directly; prints digests of the three.
PROBE = """
import hashlib, json, sys
import numpy as np
import cardenvs
from cardenvs import vector
from cardenvs.core import rng
from cardenvs.core.env import deal_seed_of

assert cardenvs.__file__.startswith(sys.argv[1]), cardenvs.__file__
out = np.empty(52, dtype=np.int64)
rng.deal_deck(np.arange(52, dtype=np.int64), np.uint64(deal_seed_of(5)), 0, out)
env = cardenvs.make("war")
env.reset(seed=5)
v = vector.make("war", 2)
v.reset(seed=5)
digest = lambda a: hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]
print(json.dumps({"direct": digest(out), "aec": digest(env.states), "vector": digest(v._b.state[:1]),
                  "folder": cardenvs.cache.cache_root().as_posix()}))
"""


def run_probe(copy: Path, cache_home: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", cache.MARKER)}
    env.update(PYTHONPATH=str(copy), XDG_CACHE_HOME=str(cache_home))
    return subprocess.Popen(
        [sys.executable, "-c", PROBE, str(copy)], env=env, cwd=copy, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def result(process: subprocess.Popen) -> dict:
    stdout, stderr = process.communicate(timeout=600)
    assert process.returncode == 0, stderr.decode()[-3000:]
    return json.loads(stdout.decode().strip().splitlines()[-1])


@pytest.mark.slow
def test_an_edit_in_an_inlined_file_reaches_the_aec_and_vector_envs(tmp_path):
    """Warm the cache with a copy of the package, change a constant of the dealing stream in ``core/rng.py``
    (inlined into War's ``init``; same version string), and run again: the AEC env and the vector env deal
    the new way, exactly as two cold processes compiling the edited source at once into an empty cache (which
    both succeed with equal results)."""
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "cardenvs", ignore=shutil.ignore_patterns("__pycache__"))
    before = result(run_probe(copy, tmp_path / "cache"))
    assert before["aec"] == before["vector"]

    rng_file = copy / "cardenvs" / "core" / "rng.py"
    source = rng_file.read_text()
    assert source.count("0x632BE59BD9B4E019") == 1
    rng_file.write_text(source.replace("0x632BE59BD9B4E019", "0x632BE59BD9B4E01B"))
    after = result(run_probe(copy, tmp_path / "cache"))
    assert after["direct"] != before["direct"], "the edit did not change the dealing function"
    assert after["aec"] != before["aec"] and after["vector"] != before["vector"], "stale kernels dealt the old way"
    assert after["aec"] == after["vector"]

    cold = [run_probe(copy, tmp_path / "empty"), run_probe(copy, tmp_path / "empty")]
    for fresh in [result(p) for p in cold]:
        assert {k: fresh[k] for k in ("direct", "aec", "vector")} == {k: after[k] for k in ("direct", "aec", "vector")}
    assert len(cache.folders(tmp_path / "cache" / "cardenvs" / "numba")) == 2  # one folder per source


def test_source_key_follows_every_file(tmp_path):
    package = tmp_path / "pkg"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "rng.py").write_text("K = 1\n")
    first = cache.source_key(package)
    assert cache.source_key(package) == first
    (package / "core" / "rng.py").write_text("K = 2\n")
    assert cache.source_key(package) != first
    (package / "core" / "rng.py").write_text("K = 1\n")
    (package / "core" / "__pycache__").mkdir()
    (package / "core" / "__pycache__" / "junk.py").write_text("ignored")
    assert cache.source_key(package) == first
    (package / "new.py").write_text("")
    assert cache.source_key(package) != first


def test_roots_and_pruning(tmp_path):
    """The root is the user's cache folder, or NUMBA_CACHE_DIR; an inherited folder of ours is a sibling's
    root. Pruning keeps the newest folders and any written to in the last hour, and never the current one."""
    assert cache.cache_root({"XDG_CACHE_HOME": "/x"}) == Path("/x/cardenvs/numba")
    assert cache.cache_root({"NUMBA_CACHE_DIR": "/n"}) == Path("/n")
    assert cache.cache_root({"NUMBA_CACHE_DIR": "/n/0.1-abc", cache.MARKER: "/n/0.1-abc"}) == Path("/n")
    root = tmp_path / "root"
    now = time.time()
    for i in range(6):
        folder = root / f"0.1.0-{i}"
        folder.mkdir(parents=True)
        (folder / "f.nbi").write_bytes(b"x" * (i + 1))
        age = 0 if i == 5 else 7200 + 100 * i  # 5: just written; 0..4 two hours old or more, 0 the newest
        for p in (folder / "f.nbi", folder):
            os.utime(p, (now - age, now - age))
    removed = cache.prune(root, current=root / "0.1.0-3", keep=2)  # keeps 5 and 0 (newest), 3 (current)
    assert sorted(p.name for p in removed) == ["0.1.0-1", "0.1.0-2", "0.1.0-4"]
    assert [f.path.name for f in cache.folders(root)] == ["0.1.0-5", "0.1.0-0", "0.1.0-3"]
    assert cache.clear(root) == (3, 6 + 1 + 4)
    assert cache.folders(root) == []


def test_cache_command_lists_and_clears(tmp_path, monkeypatch, capsys):
    from cardenvs.cli import main

    root = tmp_path / "root"
    (root / "0.1.0-aaaa").mkdir(parents=True)
    (root / "0.1.0-aaaa" / "k.nbc").write_bytes(b"x" * 2048)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root))
    monkeypatch.delenv(cache.MARKER, raising=False)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"{root} (1 folder(s)" in out and "0.1.0-aaaa" in out and "1 files" in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 cache folder(s)" in capsys.readouterr().out
    assert not (root / "0.1.0-aaaa").exists()


def test_an_outside_game_edited_since_it_was_compiled_clears_the_cache(tmp_path, monkeypatch):
    """A game registered from outside the package is compiled into the generic kernels, but its files are
    not in the key: registering it after an edit removes the folder's compiled files (they would run its old
    rules, as the example game showed)."""
    package = tmp_path / "src" / "mygame"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("RULE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    folder = tmp_path / "cache"
    folder.mkdir()
    compiled = folder / "kernels-aec_step.py311.nbi"
    compiled.write_bytes(b"old")
    assert not cache.check_outside_game("mygame_v0", "mygame", folder)  # first sight: recorded
    assert not cache.check_outside_game("mygame_v0", "mygame", folder)  # unchanged
    assert compiled.exists()
    (package / "__init__.py").write_text("RULE = 2\n")
    assert cache.check_outside_game("mygame_v0", "mygame", folder)  # edited: the compiled files go
    assert not compiled.exists()
    assert not cache.check_outside_game("mygame_v0", "mygame", folder)
    assert not cache.check_outside_game("twos_v0", "cardenvs.games.twos", folder)  # the key covers these
