"""The games the web app holds (:class:`SessionStore`): at most :data:`MAX_SESSIONS`, and a game in use is
never dropped to make room for a new one."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from .session import GameSession

#: games the server holds at once
MAX_SESSIONS = 200
#: a game used (any request naming it) this recently is never dropped to make room for a new one
ACTIVE_SECONDS = 30 * 60.0


class StoreFull(Exception):
    """No room for a new game: every game held was used in the last :data:`ACTIVE_SECONDS` (503)."""


class SessionStore:
    """Sessions by id. When full, a new session takes the place of the one used longest ago, but only of one
    idle for ``active_seconds``: otherwise the new one is refused (:class:`StoreFull`), so a flood of new
    games cannot push out the games people are playing."""

    def __init__(
        self,
        limit: int = MAX_SESSIONS,
        active_seconds: float = ACTIVE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.limit, self.active_seconds, self.clock = limit, active_seconds, clock
        self._sessions: OrderedDict[str, GameSession] = OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}
        self._lock = threading.Lock()

    def _make_room(self) -> bool:
        """Drop idle sessions until one more fits; False when every session held is active."""
        while len(self._sessions) >= self.limit:
            sid = next(iter(self._sessions))
            if self.clock() - self._used[sid] < self.active_seconds:
                return False
            del self._sessions[sid], self._used[sid]
        return True

    def full_message(self) -> str:
        return (
            f"the server holds {self.limit} games, each used in the last {self.active_seconds / 60:g} minutes; "
            "no room for a new one now (try again later, or restart cardenvs serve)"
        )

    def has_room(self) -> bool:
        with self._lock:
            return self._make_room()

    def add(self, session: GameSession) -> str:
        with self._lock:
            if not self._make_room():
                raise StoreFull(self.full_message())
            self._sessions[session.id] = session
            self._used[session.id] = self.clock()
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
