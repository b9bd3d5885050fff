"""The search agents as agent names, a row of the agent loader's table (:mod:`cardenvs.agent.loader`):
``GAME.pimc(key=value,...)`` and ``GAME.ismcts(...)`` exist for every game with a determinizer
(:func:`search_agent_names`), their parameters are :data:`.agent.PARAMETERS`, and :func:`load_search` builds the
:class:`.agent.SearchAgent`. A learned model a parameter names (``leaf=dmc``, ``rollout=dmc:PATH``) is loaded by
the loader the request carries, as the search agent was loaded (``models_dir``, ``registered_only``); ``dmc`` is
the game's shipped model, among those the loader passes (``shipped``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from ..agent.base import Agent
from ..agent.kinds import AgentRequest, convert, short_game
from ..core import kernels


def search_games() -> list[str]:
    """Short names of the games with a determinizer (they have the search agents ``GAME.pimc``, ``GAME.ismcts``)."""
    from ..registry import env_ids, spec_of

    out = []
    for env_id in env_ids():
        spec = spec_of(env_id)
        core = spec.core()
        if core is not None and kernels.has_determinize(core.STATE):
            out.append(spec.name)
    return out


def search_agent_names(game: str | None = None) -> list[str]:
    """``GAME.pimc`` and ``GAME.ismcts`` for every game with a determinizer (or only ``game``)."""
    from .agent import METHODS

    short = short_game(game)
    return [f"{g}.{m}" for g in search_games() if short is None or g == short for m in METHODS]


def load_search(request: AgentRequest, game: str, shipped: Callable[[], dict[str, Path]]) -> Agent:
    """``GAME.METHOD(key=value,...)``: the search agent, its parameters checked and converted; ``shipped()``
    lists the shipped models by name (``GAME.dmc``), for a parameter's ``dmc``."""
    from .agent import PARAMETERS, SearchAgent, describe_parameters, game_policies

    method = request.base.partition(".")[2]
    accepted = PARAMETERS[method]
    described = describe_parameters(method, game_policies(game))
    for key in request.params:
        if key not in accepted:
            raise ValueError(f"agent {request.name!r}: unknown parameter {key!r}; {request.base} accepts {described}")
    values = {k: convert(request.name, k, v, accepted[k][0], described) for k, v in request.params.items()}
    if request.registered_only and str(values.get("oracle", "false")).strip().lower() != "false":
        raise ValueError(f"agent {request.name!r}: oracle=true sees every hidden card; not for names from outside")
    agent = SearchAgent(request.env, method, model_loader=partial(_search_model, request, game, shipped), **values)
    agent.name = request.name
    return agent


def model_name(game: str, value: str) -> str:
    """The agent name of the model a search parameter (``rollout``, ``leaf``, ``prior``) names: ``dmc`` is the
    game's shipped model, ``GAME.dmc``; any other value is an agent name already (``dmc:PATH``)."""
    return f"{game}.dmc" if value == "dmc" else value


def _search_model(request: AgentRequest, game: str, shipped: Callable[[], dict[str, Path]], value: str) -> Agent:
    """The learned model a search parameter names (:func:`model_name`), loaded as the search agent was
    (``models_dir``, ``registered_only``)."""
    name = model_name(game, value)
    if value == "dmc":
        models = shipped()
        if name not in models:
            raise ValueError(
                f"{request.base}: no DMC model is shipped for {game} (shipped: {', '.join(models) or 'none'}); "
                "name a model file as dmc:PATH"
            )
    try:
        return request.load_other(name, models_dir=request.models_dir, registered_only=request.registered_only)
    except ValueError as exc:
        raise ValueError(f"{request.base}: {value} cannot be loaded: {exc}") from None
