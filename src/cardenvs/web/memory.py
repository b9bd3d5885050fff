"""Admission by memory: a new game is refused (503) when the server's memory would pass its budget.

The server's memory is its resident set (RSS, read from ``/proc/self/statm``; where there is no procfs, the
peak RSS of ``getrusage``, which only grows, so the check errs toward refusing). A new game is admitted when
the RSS now plus :data:`SESSION_ESTIMATE` (what one more game may add) fits in the budget. The budget is
``cardenvs serve --max-memory`` (:func:`parse_size`: ``4G``, ``512M``, a plain number of MiB), by default
:data:`DEFAULT_FRACTION` of the machine's memory (:func:`machine_memory`: the physical memory, or the
cgroup's limit where that is lower, as in a container).

What a game holds: its envs (the game and the one its plays are read in, about 2 MiB for Dou Dizhu), its
actions and views; the models its agents use are loaded once per process and shared by every game
(:func:`cardenvs.agent.load_agent`), so the first Dou Dizhu game costs the model (about 450 MiB with torch and
the compiled kernels) and each one after it about 5 MiB (``benchmarks/web_sessions.py``).
"""

from __future__ import annotations

import os
import re
import resource
import sys
from collections.abc import Callable
from pathlib import Path

MIB = 1 << 20
#: what one more game may add to the server's memory: the goal of a Dou Dizhu game beyond the first (about
#: 5 MiB measured), with room for a long game's actions and views
SESSION_ESTIMATE = 20 * MIB
#: the share of the machine's memory the server admits games up to when ``--max-memory`` is not given
DEFAULT_FRACTION = 0.5
#: cgroup (v2, then v1) files that hold a container's memory limit
CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
_UNITS = {"": MIB, "k": 1 << 10, "m": MIB, "g": 1 << 30, "t": 1 << 40}


def process_rss() -> int:
    """This process's resident memory in bytes (the peak where there is no ``/proc/self/statm``)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB on Linux


def machine_memory() -> int:
    """The memory this process may use, in bytes: the machine's physical memory, or its cgroup's limit where
    that is lower."""
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    for name in CGROUP_LIMITS:
        try:
            text = Path(name).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    return total


def default_budget() -> int:
    """:data:`DEFAULT_FRACTION` of :func:`machine_memory`."""
    return int(machine_memory() * DEFAULT_FRACTION)


def parse_size(text: str) -> int:
    """``4G``, ``4GiB``, ``512M``, ``2.5g`` or a plain number of MiB, in bytes; ``ValueError`` naming the forms
    otherwise (and for a size of 0)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not match or float(match[1]) <= 0:
        raise ValueError(f"memory size {text!r}: expected a positive size such as 4G, 512M or 2048 (MiB)")
    return int(float(match[1]) * _UNITS[match[2]])


def describe(size: int) -> str:
    """``1.5 GiB``, ``300 MiB``."""
    return f"{size / (1 << 30):.1f} GiB" if size >= 1 << 30 else f"{size / MIB:.0f} MiB"


class MemoryBudget:
    """Whether one more game fits: the RSS (``rss()``, :func:`process_rss`) plus ``per_session`` bytes at most
    ``budget`` bytes. ``credit`` bytes, a share of the sessions about to be dropped, count as free (their
    memory is reused though the RSS does not fall)."""

    def __init__(
        self, budget: int | None = None, per_session: int = SESSION_ESTIMATE, rss: Callable[[], int] = process_rss
    ):
        self.budget = default_budget() if budget is None else int(budget)
        if self.budget <= 0:
            raise ValueError(f"the memory budget must be above 0 bytes, not {self.budget}")
        self.per_session, self.rss = per_session, rss

    def fits(self, credit: int = 0) -> bool:
        return self.rss() - credit + self.per_session <= self.budget

    def full_message(self) -> str:
        return (
            f"the server's memory ({describe(self.rss())}) has no room for another game within its budget of "
            f"{describe(self.budget)} (cardenvs serve --max-memory); try again later"
        )
