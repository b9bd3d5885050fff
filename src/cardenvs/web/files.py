"""The replay folder of ``cardenvs serve --replays DIR``: the only place the web app reads replays from.

A name from a request is resolved against the folder (``..`` and links followed) and must land inside it,
on a regular ``*.json`` file of at most :data:`MAX_REPLAY_BYTES`; it is opened without blocking and without
following a link swapped in meanwhile, and checked again on the open file. Every refusal (missing, outside,
a folder, a device, a pipe, too large, unreadable) is the same :class:`Refused` with the same message, so
the answers tell nothing about the disk. A file inside the folder that is no replay is a ``ValueError``
naming the problem, as ``cardenvs.replay.load`` says it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ..replay import Replay, replay_files

#: the largest replay file read (an arena replay of a long Dou Dizhu hand is a few tens of kB)
MAX_REPLAY_BYTES = 4 * 1024 * 1024
#: the most files a folder listing shows
MAX_LISTED = 1_000
REFUSED = "no replay file by that name in the replay folder"


class Refused(Exception):
    """A replay name the folder does not serve (always :data:`REFUSED`)."""

    def __init__(self) -> None:
        super().__init__(REFUSED)


class ReplayFolder:
    def __init__(self, folder: str | Path):
        self.root = Path(folder).resolve()

    def _read(self, name: str) -> bytes:
        try:
            path = (self.root / name).resolve()
            if not (path.is_relative_to(self.root) and path.suffix == ".json"):
                raise Refused
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as file:
                info = os.fstat(file.fileno())
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_REPLAY_BYTES:
                    raise Refused
                data = file.read(MAX_REPLAY_BYTES + 1)  # the size may have grown since fstat
        except (OSError, ValueError, RuntimeError):  # ValueError: a NUL in the name; RuntimeError: a link loop
            raise Refused from None
        if len(data) > MAX_REPLAY_BYTES:
            raise Refused
        return data

    def load(self, name: str) -> Replay:
        """The replay ``name`` (relative to the folder, or an absolute path inside it): :class:`Refused`, or
        ``ValueError`` for a file of the folder that is no replay."""
        data = self._read(name)
        shown = Path(name).name
        try:
            parsed = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise ValueError(f"{shown} is not JSON: {exc}") from None
        return Replay.from_dict(parsed, shown)

    def listing(self) -> tuple[list[dict[str, Any]], int]:
        """A row per replay file of the folder (the first :data:`MAX_LISTED`), and how many there are."""
        files = replay_files(self.root)
        rows: list[dict[str, Any]] = []
        for f in files[:MAX_LISTED]:
            try:
                game = self.load(f.name)
            except (Refused, ValueError) as exc:
                rows.append({"name": f.name, "error": str(exc)})
                continue
            rows.append(
                {
                    "name": f.name,
                    "env_id": game.env_id,
                    "labels": game.labels or game.agents,
                    "scores": game.scores,
                    "steps": len(game.steps),
                    "deal": game.deal,
                }
            )
        return rows, len(files)
