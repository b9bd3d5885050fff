"""Where agents think (:class:`Thinking`): a bounded number of worker threads, and a time budget for each
search move that shrinks as the tables waiting grow, so one busy table cannot stall the others.

Every request that can make an agent move (a new game in play mode, a move, next) runs its change in one of
``workers`` threads (:data:`DEFAULT_WORKERS`: the machine's cores); further ones wait their turn without a
thread, on the event loop, which goes on serving views, pages and other games meanwhile. More thinking threads
than cores would only share the cores (and the GIL, which numba takes back between batches of playouts).

A search move (``GAME.pimc``, ``GAME.ismcts``, also the search inside ``doudizhu.stakes_pimc``) stops at its
own ``ms`` (or its playouts), and under load sooner (:meth:`Thinking.move_ms`): once more changes are running
or waiting than there are workers, at :data:`LOADED_MS` x workers / changes (never below :data:`MIN_MOVE_MS`).
The queue's moves are made shorter as it grows, so the time a table waits stays near ``LOADED_MS`` per agent
move however many tables wait, instead of growing with them (``doudizhu.stakes_pimc``'s 5,000 playouts take
about 0.1 to 0.2 s a move on one core: 30 tables moving every 2 s ask for several cores' worth). Agents of
other kinds (models, heuristics, programs) have no time budget to shrink; they take a worker each while they
move.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

#: worker threads agents think in where ``cardenvs serve`` is not told: one per core this process may use
DEFAULT_WORKERS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
#: a search move's time under load is this x workers / changes running or waiting (:meth:`Thinking.move_ms`)
LOADED_MS = 250.0
#: the shortest time budget a search move is given under load (it still runs one batch of deals)
MIN_MOVE_MS = 20.0


class Thinking:
    """At most ``workers`` changes at once (:meth:`run`); :meth:`move_ms`, the time a search move gets now."""

    def __init__(self, workers: int = DEFAULT_WORKERS, loaded_ms: float = LOADED_MS, min_move_ms: float = MIN_MOVE_MS):
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an integer >= 1, not {workers!r}")
        self.workers, self.loaded_ms, self.min_move_ms = workers, float(loaded_ms), float(min_move_ms)
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="cardenvs-think")
        self._lock = threading.Lock()
        self.pending = 0  # changes running or waiting for a worker

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in a worker thread, once one is free (queued in the pool, no thread waits);
        a request that goes away before its turn is taken out of the queue."""

        def counted() -> T:
            try:
                return fn(*args, **kwargs)
            finally:
                self._count(-1)

        self._count(+1)
        future = self._pool.submit(counted)
        future.add_done_callback(lambda done: self._count(-1) if done.cancelled() else None)
        return await asyncio.wrap_future(future)

    def _count(self, change: int) -> None:
        with self._lock:
            self.pending += change

    def move_ms(self, own_ms: float) -> float:
        """The time budget of a search move whose agent allows ``own_ms``: all of it while the changes running
        or waiting are no more than the workers, else :attr:`loaded_ms` x workers / changes, at least
        :attr:`min_move_ms` (and never above ``own_ms``)."""
        if self.pending <= self.workers:
            return own_ms
        return min(own_ms, max(self.min_move_ms, self.loaded_ms * self.workers / self.pending))
