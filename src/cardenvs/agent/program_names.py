"""Outside programs as agent names: ``cmd:COMMAND(key=value,...)``, a program speaking the line protocol, and
``KIND:COMMAND`` for every protocol of another platform a game declares (its spec's ``program_protocols``:
:func:`program_protocols`), each a row of the loader's table (:mod:`.loader`). This module reads a name's
parameters (:data:`.program.PARAMETERS`, the protocol class's own ``PARAMETERS`` and, for a protocol whose
``transport`` is ``"websocket"``, :data:`.websocket.PARAMETERS`) and builds the agent; running the program, its
limits, faults and sandbox are :mod:`.program`'s."""

from __future__ import annotations

from typing import Any

from .base import Agent, _game_of
from .kinds import AgentRequest, parameters


def load_program(request: AgentRequest, game: str, protocol: str = "") -> Agent:
    """``cmd:COMMAND(key=value,...)``: a program speaking the line protocol (:mod:`.program`); with ``protocol``
    (an agent kind a game declares, :func:`program_protocols`), ``KIND:COMMAND``: a program speaking that
    platform's protocol, which the env's game declares (:class:`.program.ProtocolAgent`)."""
    from .program import PARAMETERS, ProgramAgent, ProtocolAgent

    kind = protocol or "cmd"
    if request.registered_only:
        raise ValueError(f"agent {request.name!r}: programs ({kind}:COMMAND) are not run here")
    protocol_class = _protocol_class(request, protocol) if protocol else None
    accepted = {**PARAMETERS, **(getattr(protocol_class, "PARAMETERS", {}))}
    if getattr(protocol_class, "transport", "") == "websocket":
        from .websocket import PARAMETERS as SOCKET_PARAMETERS

        accepted.update(SOCKET_PARAMETERS)
    values, fallback = parameters(request, accepted, kind)
    command = request.base.partition(":")[2]
    if protocol_class is None:
        return ProgramAgent(
            request.env,
            command,
            name=request.name,
            fallback=fallback,
            unsandboxed=request.unsandboxed,
            **values,
        )
    own = {k: values.pop(k) for k in list(values) if k not in PARAMETERS}
    try:
        speaker = protocol_class(
            request.env, **{k: v for k, v in own.items() if k in getattr(protocol_class, "PARAMETERS", {})}
        )
    except ValueError as exc:
        raise ValueError(f"agent {request.name!r}: {exc}") from None
    agent_class: Any = ProtocolAgent
    extra: dict[str, Any] = {}
    if getattr(protocol_class, "transport", "") == "websocket":  # the bot is a client of the arena's server
        from .websocket import PARAMETERS as SOCKET_PARAMETERS
        from .websocket import WebSocketAgent

        agent_class, extra = WebSocketAgent, {k: v for k, v in own.items() if k in SOCKET_PARAMETERS}
    return agent_class(
        request.env,
        command,
        speaker,
        name=request.name,
        fallback=fallback,
        unsandboxed=request.unsandboxed,
        **values,
        **extra,
    )


def program_protocols() -> dict[str, dict[str, str]]:
    """The agent kinds of programs written for another platform (the games' specs' ``program_protocols``):
    kind -> {short name of a game that declares it: its ``"module:Class"``}."""
    from ..registry import env_ids, spec_of

    kinds: dict[str, dict[str, str]] = {}
    for env_id in env_ids():
        spec = spec_of(env_id)
        for kind, path in spec.program_protocols.items():
            kinds.setdefault(kind, {})[spec.name] = path
    return kinds


def _protocol_class(request: AgentRequest, protocol: str) -> Any:
    """The protocol class the env's game declares for the agent kind ``protocol``; a ValueError naming the
    games that declare it where the env's game does not."""
    from ..core.spec import load

    games = program_protocols().get(protocol, {})
    game = _game_of(request.env)
    if game not in games:
        raise ValueError(
            f"agent {request.name!r}: {protocol}:COMMAND runs programs written for the {protocol} protocol, "
            f"which only {', '.join(sorted(games))} declare{'s' if len(games) == 1 else ''}; "
            f"{game or 'this env'} does not (use cmd:COMMAND and the line protocol there)"
        )
    try:
        return load(games[game])
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"agent {request.name!r}: the {protocol} protocol of {game} does not load: {exc}") from None
