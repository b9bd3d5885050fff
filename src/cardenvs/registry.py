"""The registry of env ids: id -> module holding ``env`` and ``raw_env``.

Each game adds one line here. ``make`` imports lazily, so ``import cardenvs`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_ENVS: dict[str, str] = {
    "doudizhu_v0": "cardenvs.games.doudizhu.env",
    "twenty_v0": "cardenvs.games.twenty.env",
    "twos_v0": "cardenvs.games.twos.env",
    "two_way_street_v0": "cardenvs.games.two_way_street.env",
    "war_v0": "cardenvs.games.war.env",
}


def env_ids() -> tuple[str, ...]:
    return tuple(_ENVS)


def resolve_id(name: str) -> str:
    """An env id from its id or short name (``"twos"`` -> ``"twos_v0"``)."""
    if name in _ENVS:
        return name
    for env_id in _ENVS:
        if env_id.rsplit("_v", 1)[0] == name:
            return env_id
    raise ValueError(
        f"unknown game {name!r}; known games: {', '.join(_ENVS)} (or their short names "
        f"{', '.join(i.rsplit('_v', 1)[0] for i in _ENVS)})"
    )


def env_module(name: str):
    return importlib.import_module(_ENVS[resolve_id(name)])


def raw_env_class(name: str):
    return env_module(name).raw_env


def make(env_id: str, **options: Any):
    """Build an env by id or short name, as ``<game>_v0.env(**options)`` would (illegal move ends the game).

    Pass ``illegal_action="raise"`` for the raw behaviour. Unknown ids and unknown or out-of-range options
    raise ``ValueError`` naming what is accepted.
    """
    return env_module(env_id).env(**options)
