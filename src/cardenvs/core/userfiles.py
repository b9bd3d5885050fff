"""Reading a file the user names (deal files, leaderboards, anchors, configs, replays, results).

One way in for every such file: it is opened without blocking (a FIFO or a device never makes the reader
wait), must be a regular file (not a folder, a pipe, a socket or a device such as ``/dev/zero``), is read up
to a stated number of bytes (a larger file is refused, not read whole), and JSON is refused beyond
:data:`MAX_DEPTH` nested arrays or objects before it is parsed (``json.loads`` would recurse). Each refusal
is one ``ValueError`` naming the file and the problem, which the CLI prints as a one-line error.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

#: the most nested arrays or objects a JSON file may hold (a deal file or a replay nests four or five)
MAX_DEPTH = 64
#: the default size limit of a file read here
MAX_BYTES = 64 * 1024 * 1024


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_bytes(path: str | Path, what: str = "file", limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; ``ValueError`` ("``what`` ``path``:
    the problem") for a missing or unreadable file, a folder, a pipe, a device, or a file over ``limit``."""
    try:
        mode = os.stat(path).st_mode  # a device is not even opened (opening some has effects)
        if stat.S_ISREG(mode):
            # O_NONBLOCK: a FIFO swapped in since the stat does not make the open wait; fstat checks again
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ValueError(f"{what} {path} does not exist") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise ValueError(f"cannot read {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"{what} {path} is {_kind(mode)}, not a regular file")
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ValueError(f"{what} {path} is {_kind(info.st_mode)}, not a regular file")
    with os.fdopen(fd, "rb") as file:
        if info.st_size > limit:
            raise ValueError(f"{what} {path} is too large ({info.st_size:,} bytes; the limit is {limit:,})")
        try:
            data = file.read(limit + 1)  # the file may have grown since fstat
        except OSError as exc:
            raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ValueError(f"{what} {path} is too large (over {limit:,} bytes)")
    return data


def check_writable(path: str | Path, what: str = "file") -> None:
    """``ValueError`` unless ``path`` is a regular file or does not exist yet (writing to a pipe would wait for
    a reader; a folder or a device is no place for a file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot write {what} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{what} {path} is {_kind(info.st_mode)}, not a regular file")


def read_text(path: str | Path, what: str = "file", limit: int = MAX_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a file that is not text is the same one-line ``ValueError``)."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} {path} is not UTF-8 text (byte {exc.start})") from None


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether the brackets of a JSON text (or YAML flow collections) nest deeper than ``limit`` outside
    strings, found without parsing it."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def load_json(path: str | Path, what: str = "file", limit: int = MAX_BYTES, depth: int = MAX_DEPTH) -> Any:
    """The JSON content of the file ``path`` (read as :func:`read_text` does), refused beyond ``depth`` nested
    arrays or objects; ``ValueError`` naming the file for anything that is not such JSON."""
    text = read_text(path, what, limit)
    if too_deep(text, depth):
        raise ValueError(f"{what} {path} nests arrays or objects more than {depth} deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} {path} is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"{what} {path} nests arrays or objects too deeply") from None
