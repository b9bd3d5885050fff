"""cardenvs: card-game environments for reinforcement learning.

``cardenvs.make(env_id, **options)`` builds an env; ``ENV_IDS`` lists the ids; versioned shims follow
PettingZoo's convention (``from cardenvs import war_v0; env = war_v0.env()``).
"""

from __future__ import annotations

import importlib
import os
import sys

__version__ = "0.1.0"


def _numba_cache_outside_the_package() -> None:
    """Keep numba's compiled-function cache out of the installed package (``cache=True`` would write
    ``__pycache__`` folders into site-packages; pip's uninstall leaves them, and the folder they leave then
    shadows a later editable install as a namespace package). The cache goes to
    ``$XDG_CACHE_HOME/cardenvs/numba/<version>`` (``~/.cache`` by default) unless ``NUMBA_CACHE_DIR`` is set."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(base, "cardenvs", "numba", __version__)
    os.environ["NUMBA_CACHE_DIR"] = path  # subprocesses (arena workers, Ray) inherit it
    if "numba" in sys.modules:  # numba read its settings already
        sys.modules["numba"].config.CACHE_DIR = path


_numba_cache_outside_the_package()

from .registry import env_ids, make, resolve_id  # noqa: E402

ENV_IDS = env_ids()
__all__ = ["make", "ENV_IDS", "resolve_id", "__version__", *ENV_IDS]


def __getattr__(name: str):
    # `from cardenvs import war_v0` imports the shim lazily
    if name in ENV_IDS:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'cardenvs' has no attribute {name!r}")
