"""cardenvs: card-game environments for reinforcement learning.

``cardenvs.make(env_id, **options)`` builds an env; ``ENV_IDS`` lists the ids; versioned shims follow
PettingZoo's convention (``from cardenvs import war_v0; env = war_v0.env()``).
"""
from __future__ import annotations

import importlib

from .registry import env_ids, make, resolve_id

__version__ = "0.1.0"
ENV_IDS = env_ids()
__all__ = ["make", "ENV_IDS", "resolve_id", "__version__", *ENV_IDS]


def __getattr__(name: str):
    # `from cardenvs import war_v0` imports the shim lazily
    if name in ENV_IDS:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'cardenvs' has no attribute {name!r}")
