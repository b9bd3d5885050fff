"""Guandan, version 0 (PettingZoo-style versioned shim)."""

from cardenvs.games.guandan.env import __doc__, env, raw_env  # noqa: F401
