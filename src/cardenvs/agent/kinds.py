"""What every kind of agent name shares; :mod:`.loader` holds the table of kinds and the parsing of names.

* :class:`AgentRequest`: what :func:`.loader.load_agent` was asked, handed to a kind's ``load`` (with the
  loader itself, :attr:`AgentRequest.load`, for the agents a name names in turn: a ``fallback``, a search's
  model);
* :class:`AgentKind`: a row of the table (a pattern, a matcher, a ``load`` function);
* :func:`parameters`: the ``key=value`` parameters of a name read against the table of what a kind accepts
  (``name -> (type, default, what)``), each converted to its type (:func:`convert`), and its ``fallback`` built.

A kind's own module (:mod:`.program_names` for programs, :mod:`.llm` for chat models, :mod:`cardenvs.search.names`
for the search agents) imports this one and never the loader; the loader imports those modules where a name of
their kind is asked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base import Agent

#: what :attr:`AgentKind.match` returns for a name that plays every game
ANY_GAME = ""


@dataclass(frozen=True)
class AgentRequest:
    """What :func:`.loader.load_agent` was asked: the ``name`` as given, its ``base`` and ``params``
    (``NAME(key=value,...)``, :func:`.loader.parse_agent_name`), the ``env``, where model files may come from,
    and ``load``: the loader (``load(name, env, **options)``) for the agents the name names in turn."""

    name: str
    base: str
    params: dict[str, str]
    env: Any
    models_dir: str | Path | None = None
    registered_only: bool = False
    unsandboxed: bool = False  # programs may run without a sandbox where none can be made (.sandbox)
    load: Callable[..., Agent] | None = None

    def load_other(self, name: str, **options: Any) -> Agent:
        """The agent ``name`` for this request's env, loaded as :attr:`load` loads names."""
        if self.load is None:
            raise ValueError(f"agent {self.name!r}: {name!r} cannot be loaded here (the request has no loader)")
        return self.load(name, self.env, **options)


@dataclass(frozen=True)
class AgentKind:
    """A row of the table of agent names (:func:`.loader.agent_table`): names of the form ``pattern`` are
    recognized by ``match(base)`` (the name without parameters -> the short name of the game the agent plays,
    :data:`ANY_GAME`, or None when the name is not of this kind) and built by ``load(request, game)``; only kinds
    with ``parameters`` take ``NAME(key=value,...)``."""

    pattern: str
    match: Callable[[str], str | None]
    load: Callable[[AgentRequest, str], Agent]
    parameters: bool = False


def short_game(game: str | None) -> str | None:
    """The short name of a registered game's id or short name; any other name as it is (it matches no game)."""
    from ..registry import short_name

    try:
        return short_name(game) if game else None
    except ValueError:
        return game


def convert(agent: str, key: str, text: str, kind: type, accepted: str) -> Any:
    """A parameter's text as its type (int, float, or str with optional quotes)."""
    try:
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise ValueError(f"agent {agent!r}: {key}={text!r} is not {what}; accepted: {accepted}") from None
    return text.strip("'\"")


def parameters(request: AgentRequest, accepted: dict[str, tuple], kind: str) -> tuple[dict[str, Any], Any]:
    """The parameters of a program's or a model seat's name, each converted to its type (``accepted``: name ->
    (type, default, what)), and its ``fallback`` agent built (None without one); an unknown parameter, a bad
    value or a fallback that does not load is a ``ValueError`` naming what ``kind:`` accepts."""
    described = ", ".join(f"{k} (default {d!r}: {what})" for k, (_, d, what) in accepted.items())
    unknown = [k for k in request.params if k not in accepted]
    if unknown:
        raise ValueError(f"agent {request.name!r}: unknown parameter {unknown[0]!r}; {kind}: accepts {described}")
    values = {k: convert(request.name, k, v, accepted[k][0], described) for k, v in request.params.items()}
    fallback = values.pop("fallback", "")
    if fallback:
        try:
            fallback = request.load_other(str(fallback), unsandboxed=request.unsandboxed)
        except ValueError as exc:
            raise ValueError(f"agent {request.name!r}: fallback {fallback!r}: {exc}") from None
    return values, fallback or None
