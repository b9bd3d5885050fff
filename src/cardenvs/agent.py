"""The agent protocol, the random agent, and loading agents by name.

An agent is any object with a ``name`` and ``act(observation, rng) -> int``, where ``observation`` is the
env's ``{"observation", "action_mask"}`` dict and ``rng`` a ``np.random.Generator`` owned by the caller
(the arena seeds it, so tournaments are reproducible). Agents are built with the env they will play in
(``Agent(env)``) so they can read its options and observation layout; they must only use the public API.

Names (:func:`load_agent`):

* ``random``: uniformly random legal action.
* ``GAME.NAME`` (``twos.heuristic``): ``AGENTS["NAME"]`` in the top-level module ``agents.GAME``; it plays
  only the game ``GAME`` (loading it for another game's env is a ``ValueError``).
* ``KIND:PATH``: a trained model of an *agent kind* registered by an installed package under the entry-point
  group ``cardenvs.agents`` (:data:`AGENT_KINDS_GROUP`): the entry point names a class built as
  ``Class(env, PATH)``. This project's ``training/`` registers ``ppo`` (a MaskablePPO model,
  ``training.policies:PPOAgent``) and ``rllib`` (an RLlib checkpoint, ``training.rllib_policies:RLlibAgent``)
  in ``pyproject.toml``; ``cardenvs`` itself never imports them.
* ``module:Class``: any importable class taking the env (``Class(env)``) whose instances have ``act``.

A name that cannot be loaded is a ``ValueError`` saying why and what is known. An ``agents`` package that
is not installed means no heuristics; one that fails to import (a missing dependency, a broken module)
raises its ``ImportError``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Protocol, runtime_checkable

import numpy as np

#: the entry-point group of agent kinds (``KIND:PATH`` names): ``KIND = "module:Class"``, built as Class(env, PATH)
AGENT_KINDS_GROUP = "cardenvs.agents"


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int: ...


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids of a masked observation (the view trick is ~15x faster than on the int8 mask)."""
    return np.flatnonzero(observation["action_mask"].view(np.bool_))


class RandomAgent:
    """Uniformly random among the legal actions."""

    name = "random"

    def __init__(self, env: Any = None):
        self.env = env

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        legal = legal_actions(observation)
        if len(legal) == 0:
            raise ValueError("random agent asked to act with an empty action mask")
        return int(legal[rng.integers(len(legal))])


def _agent_modules() -> list[str]:
    """The game modules of the ``agents`` package ([] when the package is not installed at all)."""
    try:
        package = importlib.import_module("agents")
    except ModuleNotFoundError as exc:
        if exc.name != "agents":  # the package is there but imports something missing: say so
            raise
        return []
    return [m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]


def _game_of(env: Any) -> str | None:
    """The short game name of an env (``twos`` for ``twos_v0``), or None for an object without metadata."""
    metadata = getattr(getattr(env, "unwrapped", env), "metadata", None) or {}
    name = metadata.get("name")
    return name.rsplit("_v", 1)[0] if isinstance(name, str) else None


def known_agents(game: str | None = None) -> list[str]:
    """Every agent name that can be loaded without a path; with ``game`` (an env id or short name), only
    those that play it."""
    short = game.rsplit("_v", 1)[0] if game else None
    names = ["random"]
    for module_name in _agent_modules():
        if short is not None and module_name != short:
            continue
        module = importlib.import_module(f"agents.{module_name}")
        names += [f"{module_name}.{n}" for n in getattr(module, "AGENTS", {})]
    return names


def agent_kinds() -> dict[str, EntryPoint]:
    """The agent kinds installed packages register (entry points of :data:`AGENT_KINDS_GROUP`), by name."""
    return {ep.name: ep for ep in entry_points(group=AGENT_KINDS_GROUP)}


def agent_name_forms() -> str:
    """``ppo:PATH, rllib:PATH, module:Class``: the forms of names with a colon, for messages."""
    return ", ".join([f"{kind}:PATH" for kind in sorted(agent_kinds())] + ["module:Class"])


def _load_kind(name: str, entry: EntryPoint, path: str, env: Any) -> Agent:
    try:
        cls = entry.load()
    except ImportError as exc:
        raise ValueError(
            f"cannot load agent {name!r}: the agent kind {entry.name} ({entry.value}) does not import: {exc}"
        ) from exc
    return cls(env, path)


def _load_class(name: str, env: Any) -> Agent:
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        raise ValueError(f"cannot load agent {name!r}: write module:Class, e.g. mypackage.bots:MyAgent")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot load agent {name!r}: {exc}") from None
    if not inspect.isclass(obj):
        raise ValueError(
            f"cannot load agent {name!r}: {module_name}:{attr} is a {type(obj).__name__}, not a "
            "class; module:Class names a class built as Class(env)"
        )
    try:
        inspect.signature(obj).bind(env)
    except TypeError as exc:
        raise ValueError(f"cannot load agent {name!r}: {obj.__name__}(env) does not take the env ({exc})") from None
    except ValueError:  # no signature to inspect (a builtin): let the call decide
        pass
    agent = obj(env)
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"cannot load agent {name!r}: {obj.__name__} is not an agent (it has no act(observation, rng) method)"
        )
    if not hasattr(agent, "name"):
        agent.name = name
    return agent


def load_agent(name: str, env: Any) -> Agent:
    """Build the agent called ``name`` for ``env`` (see the module docstring for the forms of names)."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"agent name {name!r} is empty; name an agent such as random")
    if name == "random":
        return RandomAgent(env)
    if ":" in name:
        kind, _, path = name.partition(":")
        kinds = agent_kinds()
        if kind in kinds:
            return _load_kind(name, kinds[kind], path, env)
        return _load_class(name, env)
    game = _game_of(env)
    if "." in name:
        module_name, _, key = name.partition(".")
        if module_name in _agent_modules():
            table = getattr(importlib.import_module(f"agents.{module_name}"), "AGENTS", {})
            if key in table:
                if game is not None and module_name != game:
                    raise ValueError(
                        f"agent {name!r} plays {module_name}, not {game}; agents for {game}: "
                        f"{', '.join(known_agents(game))}"
                    )
                return table[key](env)
    known = known_agents(game)
    others = [a for a in known_agents() if a not in known]
    raise ValueError(
        f"unknown agent {name!r}; known agents{f' for {game}' if game else ''}: {', '.join(known)}, "
        f"or {agent_name_forms()}" + (f" (agents of other games: {', '.join(others)})" if others and game else "")
    )
