"""The games the web app holds (:class:`SessionStore`): at most :data:`MAX_SESSIONS`, no more than the memory
budget admits (:class:`~.memory.MemoryBudget`), and a game in use is never dropped to make room for a new one."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from .memory import MemoryBudget
from .session import GameSession

#: games the server holds at once
MAX_SESSIONS = 200
#: a game used (any request naming it) this recently is never dropped to make room for a new one
ACTIVE_SECONDS = 30 * 60.0


class StoreFull(Exception):
    """No room for a new game: every game held was used in the last :data:`ACTIVE_SECONDS`, or the memory
    budget is spent (503)."""


class SessionStore:
    """Sessions by id. A new session needs a place (fewer than ``limit`` held) and memory (``memory.fits``);
    to make them, it takes the place of the sessions used longest ago, but only of ones idle for
    ``active_seconds``: otherwise the new one is refused (:class:`StoreFull`), so a flood of new games cannot
    push out the games people are playing. Each idle session dropped counts its estimate
    (``memory.per_session``) as freed memory (the process reuses it, though its RSS does not fall) until a new
    session takes it."""

    def __init__(
        self,
        limit: int = MAX_SESSIONS,
        active_seconds: float = ACTIVE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        memory: MemoryBudget | None = None,
    ):
        self.limit, self.active_seconds, self.clock = limit, active_seconds, clock
        self.memory = memory if memory is not None else MemoryBudget()
        self._sessions: OrderedDict[str, GameSession] = OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}
        self._freed = 0  # bytes of dropped sessions no new session has taken yet
        self._lock = threading.Lock()

    def _make_room(self) -> str | None:
        """Drop idle sessions until one more fits; the reason (:meth:`full_message` or the memory's) when it
        cannot, every session left being active."""
        while len(self._sessions) >= self.limit or not self.memory.fits(self._freed):
            sid = next(iter(self._sessions), None)
            if sid is None or self.clock() - self._used[sid] < self.active_seconds:
                return self.full_message() if len(self._sessions) >= self.limit else self.memory.full_message()
            del self._sessions[sid], self._used[sid]
            self._freed += self.memory.per_session
        return None

    def full_message(self) -> str:
        return (
            f"the server holds {self.limit} games, each used in the last {self.active_seconds / 60:g} minutes; "
            "no room for a new one now (try again later, or restart cardenvs serve)"
        )

    def refusal(self) -> str | None:
        """Why a new session would be refused now (None: it fits), after dropping idle ones to make room."""
        with self._lock:
            return self._make_room()

    def has_room(self) -> bool:
        return self.refusal() is None

    def add(self, session: GameSession) -> str:
        with self._lock:
            problem = self._make_room()
            if problem is not None:
                raise StoreFull(problem)
            self._sessions[session.id] = session
            self._used[session.id] = self.clock()
            self._freed = max(0, self._freed - self.memory.per_session)
        return session.id

    def get(self, sid: str) -> GameSession | None:
        """The session (and it counts as used now), or None."""
        with self._lock:
            session = self._sessions.get(sid)
            if session is not None:
                self._sessions.move_to_end(sid)
                self._used[sid] = self.clock()
            return session

    def __len__(self) -> int:
        return len(self._sessions)
