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
from cardenvs.core.seeds import deal_seed_of

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
    """The root is the user's cache folder, or the package's subfolder of NUMBA_CACHE_DIR; an inherited folder
    of ours is a sibling's root. Pruning keeps the newest folders and any written to in the last hour, and
    never the current one."""
    assert cache.cache_root({"XDG_CACHE_HOME": "/x"}) == Path("/x/cardenvs/numba")
    assert cache.cache_root({"NUMBA_CACHE_DIR": "/n"}) == Path("/n/cardenvs")
    inherited = f"/n/cardenvs/0.1-{'a' * 16}"
    assert cache.cache_root({"NUMBA_CACHE_DIR": inherited, cache.MARKER: inherited}) == Path("/n/cardenvs")
    root = tmp_path / "root"
    now = time.time()
    names = [f"0.1.0-{i:016x}" for i in range(6)]
    for i, name in enumerate(names):
        folder = cache.make_folder(root / name)
        (folder / "f.nbi").write_bytes(b"x" * (i + 1))
        age = 0 if i == 5 else 7200 + 100 * i  # 5: just written; 0..4 two hours old or more, 0 the newest
        for p in (folder / "f.nbi", folder / cache.OWNER_FILE, folder):
            os.utime(p, (now - age, now - age))
    owner_bytes = len((root / names[0] / cache.OWNER_FILE).read_bytes())
    removed = cache.prune(root, current=root / names[3], keep=2)  # keeps 5 and 0 (newest), 3 (current)
    assert sorted(p.name for p in removed) == [names[1], names[2], names[4]]
    assert [f.path.name for f in cache.folders(root)] == [names[5], names[0], names[3]]
    assert cache.clear(root) == (3, 6 + 1 + 4 + 3 * owner_bytes)
    assert cache.folders(root) == []


def old_tree(root: Path, now: float) -> dict[Path, bytes | None]:
    """Things of the user's (and of others) in a cache folder, all two hours old: folders, files, another
    project's numba folder, a folder named like ours without the owner file, a link to a folder of ours, a
    file named like the owner file outside any folder of ours. Returns every path and its bytes (None: a
    folder)."""
    made: dict[Path, bytes | None] = {}
    for name in ["my_notes", "results_2025", "otherproject-numba", f"0.1.0-{'b' * 16}", "cardenvs-old"]:
        folder = root / name
        folder.mkdir(parents=True)
        made[folder] = None
        (folder / "keep.txt").write_bytes(name.encode())
        made[folder / "keep.txt"] = name.encode()
    (root / "otherproject-numba" / "f.nbi").write_bytes(b"theirs")
    made[root / "otherproject-numba" / "f.nbi"] = b"theirs"
    (root / "notes.md").write_bytes(b"mine")
    made[root / "notes.md"] = b"mine"
    (root / "results_2025" / cache.OWNER_FILE).write_bytes(b"not a cache folder's name")
    made[root / "results_2025" / cache.OWNER_FILE] = b"not a cache folder's name"
    for path in made:
        os.utime(path, (now - 7200, now - 7200))
    return made


def assert_untouched(made: dict[Path, bytes | None]) -> None:
    for path, content in made.items():
        assert path.exists(), f"{path} was deleted"
        if content is not None:
            assert path.read_bytes() == content, f"{path} was changed"


def run_cardenvs(code: str, copy: Path, numba_dir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", cache.MARKER)}
    env.update(PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(numba_dir))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=copy, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_user_set_numba_cache_dir_loses_nothing(tmp_path):
    """The issue's case: a user's NUMBA_CACHE_DIR shared with other things, all of them old. ``import
    cardenvs``, an edit of the package's source (a new key: a new folder, and pruning), many such edits (so
    that pruning has old folders of its own to remove) and ``cardenvs cache clear`` remove only folders the
    package made; every other folder and file is still there with its bytes."""
    numba_dir = tmp_path / "numba"
    made = old_tree(numba_dir, time.time())
    made.update(old_tree(numba_dir / "cardenvs", time.time()))  # inside the package's subfolder too
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "cardenvs", ignore=shutil.ignore_patterns("__pycache__"))
    probe = "import cardenvs, os; print(os.environ['NUMBA_CACHE_DIR'])"
    first = Path(run_cardenvs(probe, copy, numba_dir).strip())
    assert first.parent == numba_dir / "cardenvs" and cache.is_owned(first)
    assert_untouched(made)

    init = copy / "cardenvs" / "__init__.py"
    source = init.read_text()
    ours = [first]
    for edit in range(cache.KEEP + 2):  # each edit is a new source key; age the package's folders first
        for folder in [f for f in ours if f.exists()]:  # pruned ones are gone
            for path in [folder, *folder.rglob("*")]:
                os.utime(path, (time.time() - 7200, time.time() - 7200))
        init.write_text(source + f"\n# edit {edit}\n")
        ours.append(Path(run_cardenvs(probe, copy, numba_dir).strip()))
        assert_untouched(made)
    assert len(set(ours)) == len(ours)
    kept = cache.folders(numba_dir / "cardenvs")
    assert len(kept) == cache.KEEP and ours[-1] in [f.path for f in kept]  # its own old ones were pruned
    assert not ours[0].exists()

    out = run_cardenvs("from cardenvs.cli import main; raise SystemExit(main(['cache', 'clear']))", copy, numba_dir)
    assert f"removed {cache.KEEP} cache folder(s)" in out
    assert cache.folders(numba_dir / "cardenvs") == []
    assert_untouched(made)


def test_nothing_outside_the_packages_folders_is_removed(tmp_path):
    """prune, clear and check_outside_game on folders the package did not make: nothing goes, whatever the
    names and ages."""
    made = old_tree(tmp_path / "root", time.time())
    assert cache.folders(tmp_path / "root") == []
    assert cache.prune(tmp_path / "root", current=tmp_path / "root" / "none", keep=0, stale_seconds=0) == []
    assert cache.clear(tmp_path / "root") == (0, 0)
    theirs = tmp_path / "root" / "otherproject-numba"
    (theirs / "outside-mygame_v0.digest").write_text("an old digest")
    made[theirs / "outside-mygame_v0.digest"] = b"an old digest"
    assert not cache.check_outside_game("mygame_v0", "json", theirs)  # a package outside cardenvs
    assert_untouched(made)
    ours = cache.make_folder(tmp_path / "root" / f"0.1.0-{'c' * 16}")
    link = tmp_path / "root" / f"0.1.0-{'d' * 16}"
    link.symlink_to(ours)
    assert [f.path for f in cache.folders(tmp_path / "root")] == [ours]
    assert cache.clear(tmp_path / "root")[0] == 1 and not ours.exists() and link.is_symlink()
    assert_untouched(made)


def test_cache_command_lists_and_clears(tmp_path, monkeypatch, capsys):
    from cardenvs.cli import main

    numba_dir = tmp_path / "numba"
    root = numba_dir / "cardenvs"
    name = f"0.1.0-{'a' * 16}"
    cache.make_folder(root / name)
    (root / name / "k.nbc").write_bytes(b"x" * 2048)
    (numba_dir / "someone_elses").mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(numba_dir))
    monkeypatch.delenv(cache.MARKER, raising=False)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"{root} (1 folder(s)" in out and name in out and "2 files" in out and "someone_elses" not in out
    assert main(["cache", "clear"]) == 0
    assert "removed 1 cache folder(s)" in capsys.readouterr().out
    assert not (root / name).exists() and (numba_dir / "someone_elses").is_dir()


def test_an_outside_game_edited_since_it_was_compiled_clears_the_cache(tmp_path, monkeypatch):
    """A game registered from outside the package is compiled into the generic kernels, but its files are
    not in the key: registering it after an edit removes the folder's compiled files (they would run its old
    rules, as the example game showed)."""
    package = tmp_path / "src" / "mygame"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("RULE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    folder = cache.make_folder(tmp_path / "cache" / f"0.1.0-{'e' * 16}")
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


# Two processes compile different specialisations of one cached function into one folder at once; numba's
# index read is slowed down so that, unserialized, both read the empty index and choose the same data-file
# name. argv: folder, "lock" or "plain", the argument's type, when to start.
RACE = """
import os, sys, time
os.environ["NUMBA_CACHE_DIR"] = sys.argv[1]
import numba
from numba.core import caching

read_index = caching.IndexDataCacheFile._load_index
reads = []
def slow_read_index(self):
    overloads = read_index(self)
    reads.append(1)
    if len(reads) == 2:  # the read of a save, after the compilation (the first is the load that missed)
        time.sleep(3.0)
    return overloads
caching.IndexDataCacheFile._load_index = slow_read_index
if sys.argv[2] == "lock":  # importing cardenvs points numba at its folder and serializes the writes
    import cardenvs
    assert cardenvs.cache.serialize_cache_writes()
sys.path.insert(0, os.path.join(sys.argv[1], "src"))
time.sleep(max(0.0, float(sys.argv[4]) - time.time()))  # both start compiling at once
from racing_kernel import kind
print(kind(getattr(numba, sys.argv[3])(1)))
"""


@pytest.mark.slow  # seconds of sleeping processes, to make the race
@pytest.mark.parametrize("mode", ["lock", "plain"])
def test_concurrent_writes_of_one_folder_keep_each_specialisation_its_own_file(mode, tmp_path):
    """With the writes serialized (cardenvs.cache.serialize_cache_writes, which pytest's workers and the
    arena's workers rely on to share a folder) the two specialisations get two data files and a third process
    loads each correctly; without it (the check that the race is real) they claim one name."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "racing_kernel.py").write_text(
        "import numba\n\n@numba.njit(cache=True)\ndef kind(x):\n    return x * 2\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", cache.MARKER)}
    start = str(time.time() + 6)
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(tmp_path), mode, kind, start], env=env, stdout=subprocess.PIPE, text=True
        )
        for kind in ("int64", "float64")
    ]
    assert [r.communicate(timeout=120)[0].split() for r in racers] == [["2"], ["2.0"]]
    data_files = sorted(p.name for p in tmp_path.rglob("*.nbc"))
    if mode == "plain":
        assert len(data_files) == 1, data_files  # both chose the first free name: one entry's code is lost
        return
    assert len(data_files) == 2, data_files
    check = (
        f"import os, sys; os.environ['NUMBA_CACHE_DIR'] = {str(tmp_path)!r}\n"
        f"sys.path.insert(0, {str(tmp_path / 'src')!r})\n"
        "import numba, cardenvs; from racing_kernel import kind\n"
        "print(kind(numba.int64(3)), kind(numba.float64(1.5)), sum(kind.stats.cache_hits.values()))"
    )
    out = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["6", "3.0", "2"], out.stderr  # both loaded from the folder, both right


MANGLE = """
import sys
import numpy as np
import numba
import cardenvs  # noqa: F401  (configures the cache: stable record names)
from numba.core.itanium_mangler import mangle_type_or_value
for n in range(int(sys.argv[1])):  # other record types first: numba numbers its types as it meets them
    numba.from_dtype(np.dtype([("y", np.int16, (n + 1,))]))
print(mangle_type_or_value(numba.from_dtype(np.dtype([("x", np.int8, (104,)), ("z", np.float64)]))))
"""


def test_record_types_get_one_symbol_name_in_every_process_and_one_per_layout():
    """numba names a record type in symbols by a number given as a process meets it, so two processes could give
    two layouts one name and a process loading both cached specialisations linked the wrong code (a segfault in
    Two Way Street's observe). The name is now the layout's digest: equal across processes whatever they met
    first, different for different layouts."""
    import numba
    import numpy as np
    from numba.core.itanium_mangler import mangle_type_or_value

    assert cache.stable_record_names()
    names = {
        subprocess.run([sys.executable, "-c", MANGLE, str(k)], capture_output=True, text=True, check=True).stdout
        for k in (0, 7)
    }
    assert len(names) == 1, names
    one = mangle_type_or_value(numba.from_dtype(np.dtype([("x", np.int8, (53,)), ("z", np.float64)])))
    other = mangle_type_or_value(numba.from_dtype(np.dtype([("x", np.int8, (104,)), ("z", np.float64)])))
    assert one != other and names == {other + "\n"}
