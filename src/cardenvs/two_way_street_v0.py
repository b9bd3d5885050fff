"""Two Way Street, version 0 (PettingZoo-style versioned shim)."""

from cardenvs.games.two_way_street.env import __doc__, env, raw_env  # noqa: F401
