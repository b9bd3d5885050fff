"""Where numba keeps the compiled kernels, keyed by the package's source.

numba re-validates a cached function only against the file that defines it, but the kernels inline
functions of other files (``core/rng.py``, ``core/encoding.py``, every game's rules): an edit there, a
``git pull`` or another checkout at the same version would run the old compiled code, silently. So the
cache folder's name carries a digest of every source file of the package, of numba's and numpy's versions
and of Python's: any change of any of them gets a fresh folder, compiled anew on first use.

The folders live under ``$XDG_CACHE_HOME/cardenvs/numba/`` (``~/.cache/cardenvs/numba/``), or under
``$NUMBA_CACHE_DIR/cardenvs/`` when the user set ``NUMBA_CACHE_DIR`` (a folder numba's docs suggest sharing, ``/tmp``
for instance: the package keeps to a subfolder of its own there), and never inside the installed package (pip's
uninstall would leave them there). When a new folder is made, older ones that no process has written to for an
hour are pruned, keeping the newest :data:`KEEP`; ``cardenvs cache info`` lists them and ``cardenvs cache clear``
removes them. Subprocesses (arena workers, Ray actors) inherit the folder through ``NUMBA_CACHE_DIR``.

**What it may delete.** Only folders it can prove it made: a folder of the root whose name is
``{version}-{16 hex digits}`` *and* that holds the file :data:`OWNER_FILE`, written when the package made it
(:func:`make_folder`). Anything else under the root, or anywhere else, is never removed, pruned or listed,
whatever its name or age: another project's numba folder, a user's notes, a folder of an older cardenvs that
had no owner file. The one other deletion, of stale compiled files of an outside game
(:func:`check_outside_game`), happens only inside such an owned folder.

A game registered from outside the package (:func:`cardenvs.registry.register`) is compiled into the
package's generic kernels too, and its files are not in the key. So registering one compares a digest of its
package's files with the one recorded in the folder when it was last registered there
(:func:`check_outside_game`): when they differ, the folder's compiled files are removed and everything is
compiled anew, rather than running the game's old rules.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np

#: folders kept however old they are (the newest by last write); older ones go after STALE_SECONDS
KEEP = 3
STALE_SECONDS = 3600.0
#: the environment variable that marks NUMBA_CACHE_DIR as set by this module (so a subprocess that imports
#: a changed copy of the package keys its own folder beside it instead of inside it)
MARKER = "CARDENVS_NUMBA_CACHE"
PACKAGE = Path(__file__).resolve().parent
#: the file that marks a cache folder as made by this package: the only folders it ever deletes have it
OWNER_FILE = ".cardenvs-numba-cache"
#: the names of the folders it makes, ``{version}-{source key}``
FOLDER_NAME = re.compile(r"[0-9A-Za-z.+_]+-[0-9a-f]{16}")
#: the subfolder of a user-set NUMBA_CACHE_DIR that holds this package's folders
SUBFOLDER = "cardenvs"


def source_key(package: Path = PACKAGE) -> str:
    """16 hex digits over every ``.py`` file of the package (relative path and bytes, in sorted order) and
    the versions of numba, numpy and Python. About 5 ms for the package's ~60 files."""
    digest = hashlib.sha256()
    for version in (numba.__version__, np.__version__, sys.version):
        digest.update(version.encode() + b"\0")
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root(environ: Mapping[str, str] = os.environ) -> Path:
    """The folder that holds one cache folder per source key: a subfolder of the package's own under a
    user's ``NUMBA_CACHE_DIR``, else under the user's cache folder."""
    numba_dir = environ.get("NUMBA_CACHE_DIR")
    if numba_dir and numba_dir == environ.get(MARKER):  # ours, inherited from a parent process
        return Path(numba_dir).parent
    if numba_dir:
        return Path(numba_dir) / SUBFOLDER
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cardenvs" / "numba"


@dataclass(frozen=True)
class CacheFolder:
    path: Path
    bytes: int
    files: int
    last_write: float


def is_owned(path: Path) -> bool:
    """Whether ``path`` is a cache folder this package made: a real folder (not a link) with the package's
    name pattern and its :data:`OWNER_FILE`. Nothing else is ever deleted."""
    return (
        FOLDER_NAME.fullmatch(path.name) is not None
        and path.is_dir()
        and not path.is_symlink()
        and (path / OWNER_FILE).is_file()
        and not (path / OWNER_FILE).is_symlink()
    )


def make_folder(path: Path) -> Path:
    """Make the cache folder ``path`` (and its parents) and mark it as the package's (:data:`OWNER_FILE`)."""
    path.mkdir(parents=True, exist_ok=True)
    owner = path / OWNER_FILE
    if not owner.is_file():
        owner.write_text("made by cardenvs for numba's compiled kernels; `cardenvs cache clear` removes it\n")
    return path


def folders(root: Path | None = None) -> list[CacheFolder]:
    """The cache folders this package made under ``root`` (every source key seen there, :func:`is_owned`),
    newest write first."""
    root = cache_root() if root is None else root
    out = []
    if root.is_dir():
        for path in root.iterdir():
            if not is_owned(path):
                continue
            sizes = [(p.stat().st_size, p.stat().st_mtime) for p in path.rglob("*") if p.is_file()]
            last = max([path.stat().st_mtime] + [m for _, m in sizes])
            out.append(CacheFolder(path, sum(s for s, _ in sizes), len(sizes), last))
    return sorted(out, key=lambda f: f.last_write, reverse=True)


def prune(root: Path, current: Path, keep: int = KEEP, stale_seconds: float = STALE_SECONDS) -> list[Path]:
    """Remove the package's folders of ``root`` (:func:`folders`) beyond the newest ``keep`` that nothing wrote
    to for ``stale_seconds`` (a process may still be loading from a recent one); ``current`` always stays.
    Returns what went."""
    removed = []
    now = time.time()
    for folder in folders(root)[keep:]:
        if folder.path != current and now - folder.last_write > stale_seconds:
            shutil.rmtree(folder.path, ignore_errors=True)
            removed.append(folder.path)
    return removed


def clear(root: Path | None = None) -> tuple[int, int]:
    """Remove every cache folder the package made under ``root`` (:func:`folders`; nothing else); returns
    (folders, bytes) removed."""
    gone = folders(root)
    for folder in gone:
        shutil.rmtree(folder.path, ignore_errors=True)
    return len(gone), sum(f.bytes for f in gone)


#: the file, in a cache folder, whose lock serializes numba's cache writes across processes
LOCK_FILE = ".cardenvs-write-lock"


def serialize_cache_writes() -> bool:
    """Make numba's cache writes safe for processes that share a folder (arena workers, Ray actors, pytest's
    workers), by holding an exclusive lock on :data:`LOCK_FILE` of the folder while an entry is saved.

    numba saves an entry by reading the folder's index of a function, choosing the first free data-file name
    for a new specialisation, writing the index, then the data. Two processes that compile different
    specialisations of one function at once both choose the same name, and the index can then name a file
    holding the other one's code. Under the lock the read, the choice and both writes happen as one step;
    loads need no lock (numba writes each file to a temporary name and renames it, and a load that finds the
    data file missing compiles instead). Returns whether the lock is in place (not where ``fcntl`` is
    missing, as on Windows, or numba's cache class has changed shape: then writes stay as numba makes them)."""
    try:
        import fcntl

        from numba.core import caching
    except ImportError:
        return False
    cache_file = getattr(caching, "IndexDataCacheFile", None)
    save = getattr(cache_file, "save", None)
    if cache_file is None or save is None or getattr(save, "_cardenvs_locked", False):
        return save is not None
    unlocked = save

    def locked_save(self: object, key: object, data: object) -> None:
        folder = getattr(self, "_cache_path", None)
        if not isinstance(folder, str):
            return unlocked(self, key, data)
        with open(os.path.join(folder, LOCK_FILE), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                return unlocked(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    locked_save._cardenvs_locked = True  # type: ignore[attr-defined]
    cache_file.save = locked_save
    return True


def stable_record_names() -> bool:
    """Name numba's record types in compiled code by a digest of their layout, the same in every process.

    numba mangles a record type into its functions' symbol names by a number it assigns when the process first
    meets the type (``Record._code``), so two processes can give one number to two different layouts. Two
    cached specialisations of a function for such types then define the same symbol, and a process that loads
    both links the second's calls to the first's code: wrong offsets, a segmentation fault (Two Way Street's
    ``observe`` for one and for two decks did, loaded one after the other by ``tests/test_pickle.py``). With the
    layout's digest (:attr:`Record.name` spells every field, offset and the size) a symbol names one layout in
    every process. Returns whether numba's record type has the shape this expects (else it is left alone)."""
    from numba.core import types

    record = types.Record
    current = record.__dict__.get("mangling_args")
    if not isinstance(current, property):
        return False
    if getattr(current.fget, "_cardenvs_stable", False):
        return True

    def mangling_args(self: Any) -> tuple[str, tuple[str, ...]]:
        return type(self).__name__, ("d" + hashlib.sha256(self.name.encode()).hexdigest()[:24],)

    mangling_args._cardenvs_stable = True  # type: ignore[attr-defined]
    record.mangling_args = property(mangling_args)  # type: ignore[method-assign,assignment]
    return True


def configure(version: str) -> Path:
    """Point numba's cache at this source's folder (made, and the package's old folders of the root pruned,
    when it is new), with its writes safe for several processes (:func:`serialize_cache_writes`) and its
    record types named alike in every process (:func:`stable_record_names`)."""
    root = cache_root()
    path = root / f"{version}-{source_key()}"
    if not is_owned(path):
        try:
            make_folder(path)
            prune(root, path)
        except OSError:  # a read-only home: numba then warns and compiles without a cache
            pass
    os.environ["NUMBA_CACHE_DIR"] = os.environ[MARKER] = str(path)
    numba.config.CACHE_DIR = str(path)  # type: ignore[attr-defined]  # numba read its settings at import
    serialize_cache_writes()
    stable_record_names()
    return path


def check_outside_game(env_id: str, package: str, folder: Path | None = None) -> bool:
    """Record the digest of a registered outside game's files in the cache folder; if a different one was
    recorded (the game changed since it was compiled here), remove the folder's compiled files (``.nbi``,
    ``.nbc``). Returns whether it removed them. A package of cardenvs itself is covered by the key already.
    Does nothing in a folder the package did not make (:func:`is_owned`)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations or Path(locations[0]).resolve().is_relative_to(PACKAGE):
        return False
    folder = Path(os.environ.get("NUMBA_CACHE_DIR", "")) if folder is None else folder
    if not is_owned(folder):  # only inside a folder the package made
        return False
    digest = source_key(Path(locations[0]))
    stamp = folder / f"outside-{env_id}.digest"
    try:
        old = stamp.read_text().strip() if stamp.is_file() else None
        stale = old is not None and old != digest
        if stale:
            for path in folder.rglob("*"):
                if path.suffix in (".nbi", ".nbc"):
                    path.unlink(missing_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only cache: numba compiles without it anyway
        return False
    return stale
