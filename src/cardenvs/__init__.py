"""cardenvs: card-game environments for reinforcement learning.

``cardenvs.make(env_id, **options)`` builds an env; ``cardenvs.single_agent(game, opponents=...)`` a single-agent
``gymnasium.Env`` (:mod:`cardenvs.single`); ``ENV_IDS`` lists the ids; versioned shims follow
PettingZoo's convention (``from cardenvs import war_v0; env = war_v0.env()``); ``cardenvs.legal_actions(obs)``
gives the legal action ids of an observation, the fast way.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

from .cache import configure as _configure_numba_cache  # noqa: E402

_configure_numba_cache(__version__)  # before any kernel is defined: see cardenvs.cache

from .core.env import legal_actions  # noqa: E402
from .registry import env_ids, make, resolve_id  # noqa: E402

ENV_IDS = env_ids()
__all__ = ["make", "legal_actions", "single_agent", "ENV_IDS", "resolve_id", "__version__", *ENV_IDS]


def __getattr__(name: str):
    # `cardenvs.single_agent(...)` (cardenvs.single: a gymnasium.Env) and `from cardenvs import war_v0` import lazily
    if name == "single_agent":
        from .single import single_agent

        return single_agent
    if name in ENV_IDS:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'cardenvs' has no attribute {name!r}")
