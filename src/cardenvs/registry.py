"""The registry of games: env id -> the game's declaration (:class:`cardenvs.core.spec.GameSpec`).

Every package under ``cardenvs/games/`` declares its game as ``SPEC`` in its ``__init__.py``, which imports
nothing heavy; the registry reads them all on first use and imports a game's env module only when an env
of it is made, so ``import cardenvs`` stays cheap. A game defined elsewhere (a research project's own game,
the example under ``tests/``) registers its spec with :func:`register`; nothing in this package names it.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from typing import Any

from .core.spec import GameSpec

_SPECS: dict[str, GameSpec] = {}
_BUILT_IN_READ = False


def _built_in() -> dict[str, GameSpec]:
    global _BUILT_IN_READ
    if not _BUILT_IN_READ:
        from . import games

        for module in sorted(pkgutil.iter_modules(games.__path__), key=lambda m: m.name):
            if module.ispkg:
                spec = importlib.import_module(f"{games.__name__}.{module.name}").SPEC
                _SPECS.setdefault(spec.env_id, spec)
        _BUILT_IN_READ = True
    return _SPECS


def register(spec: GameSpec) -> None:
    """Add a game (its ``env`` module must define ``raw_env`` and ``env``); an id taken by another game is a
    ``ValueError``. Registering the same spec again does nothing."""
    specs = _built_in()
    if not isinstance(spec, GameSpec):
        raise ValueError(f"register takes a GameSpec, got {type(spec).__name__}")
    if spec.env_id in specs and specs[spec.env_id] != spec:
        raise ValueError(f"game id {spec.env_id} is taken by {specs[spec.env_id].package}")
    if specs.get(spec.env_id) != spec:
        from .cache import check_outside_game

        if check_outside_game(spec.env_id, spec.package):  # its files changed since they were compiled here
            warnings.warn(
                f"{spec.env_id} changed since it was last compiled: the compiled kernels were removed and are "
                "compiled anew",
                stacklevel=2,
            )
    specs[spec.env_id] = spec


def env_ids() -> tuple[str, ...]:
    return tuple(_built_in())


def resolve_id(name: str) -> str:
    """An env id from its id or short name (``"twos"`` -> ``"twos_v0"``)."""
    specs = _built_in()
    if name in specs:
        return name
    for env_id, spec in specs.items():
        if spec.name == name:
            return env_id
    raise ValueError(
        f"unknown game {name!r}; known games: {', '.join(specs)} (or their short names "
        f"{', '.join(s.name for s in specs.values())})"
    )


def short_name(name: str) -> str:
    """A game's short name from its env id or short name (``"twos_v0"`` -> ``"twos"``)."""
    return spec_of(name).name


def spec_of(name: str) -> GameSpec:
    """The declaration of a game by env id or short name."""
    return _built_in()[resolve_id(name)]


def env_module(name: str):
    return importlib.import_module(spec_of(name).env_module)


def raw_env_class(name: str):
    return env_module(name).raw_env


def make(env_id: str, **options: Any):
    """Build an env by id or short name, as ``<game>_v0.env(**options)`` would (illegal move ends the game).

    Pass ``illegal_action="raise"`` for the raw behaviour. Unknown ids and unknown or out-of-range options
    raise ``ValueError`` naming what is accepted.
    """
    return env_module(env_id).env(**options)
