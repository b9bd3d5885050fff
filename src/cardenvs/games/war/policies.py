"""War's numba policy: nobody has a choice, so the one policy, ``flip``, plays the only legal action."""

from __future__ import annotations

from numba import njit

from cardenvs.core import kernels

from .rules import status


@njit(cache=True)
def policy(state, b, params, which, rng) -> int:
    """The game's numba policies by number (``rules.POLICIES``): 0 = ``flip``, the only action (0); -1 once
    the game is over or truncated. Reads the state; writes nothing."""
    if status(state, b, params) != kernels.RUNNING:
        return -1
    return 0
