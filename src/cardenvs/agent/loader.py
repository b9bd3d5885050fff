"""Loading agents by name: the names (:func:`known_agents`), the table of agent kinds (:func:`agent_table`:
name pattern -> loader, one ``KIND:PATH`` row per entry point of :data:`AGENT_KINDS_GROUP`) and
:func:`load_agent`; the forms of names are in the docstring of :mod:`cardenvs.agent`."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import pkgutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from ..core import kernels
from .base import Agent, PolicyAgent, RandomAgent, _game_of

#: the entry-point group of agent kinds (``KIND:PATH`` names): ``KIND = "module:Class"``, built as Class(env, PATH)
AGENT_KINDS_GROUP = "cardenvs.agents"


def _agent_modules() -> list[str]:
    """The game modules of the ``cardenvs.agents`` package (none when it is not installed)."""
    try:
        package = importlib.import_module("cardenvs.agents")
    except ModuleNotFoundError as exc:
        if exc.name == "cardenvs.agents":
            return []
        raise
    return [m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_")]


#: DMC experiments shipped by name: runs ``GAME__EXP__N`` under ``training/results`` play as ``GAME.EXP``, the
#: newest run of each (``dmc_stakes``: Dou Dizhu trained for the game's points, bidding included)
SHIPPED_EXPERIMENTS = ("dmc", "dmc_stakes")


def shipped_models() -> dict[str, Path]:
    """``{"doudizhu.dmc": path, "doudizhu.dmc_stakes": path, ...}``: the DMC models shipped as package data, the
    newest run of each game and experiment of :data:`SHIPPED_EXPERIMENTS` (found on disk, without importing
    ``cardenvs.training``)."""
    spec = importlib.util.find_spec("cardenvs.training")
    locations = list(spec.submodule_search_locations or []) if spec else []
    best: dict[str, tuple[int, Path]] = {}
    for location in locations:
        for exp in SHIPPED_EXPERIMENTS:
            for model in Path(location).glob(f"results/*__{exp}__*/model.pt"):
                game, _, run = model.parent.name.partition(f"__{exp}__")
                name = f"{game}.{exp}"
                if run.isdigit() and (name not in best or int(run) > best[name][0]):
                    best[name] = (int(run), model)
    return {name: path for name, (_, path) in sorted(best.items())}


def play_agent(env_id: str) -> tuple[str, str | None]:
    """The agent people play against where they name none (the game spec's ``play_agent``), and why another is
    seated instead (None when it is not): ``random`` where the game declares none, or where its agent cannot be
    loaded here (a shipped model without torch: the ``train`` extra; the model itself, or one a Python agent
    declares it loads in its class's ``models``)."""
    from ..registry import spec_of

    name = spec_of(env_id).play_agent
    if not name:
        return "random", None
    game = _python_agent_game(name)
    loads = (name, *(getattr(_python_agent_class(name, game), "models", ()) if game else ()))
    if set(loads) & set(shipped_models()) and importlib.util.find_spec("torch") is None:
        return "random", f"{name} needs the train extra (torch): pip install 'cardenvs[train]'; seating random"
    return name, None


def split_agent_names(text: str) -> list[str]:
    """``a,b(x=1,y=2),c`` -> ``["a", "b(x=1,y=2)", "c"]``: commas inside parentheses belong to a name."""
    names: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "," and depth == 0:
            names.append("".join(current).strip())
            current = []
            continue
        depth += (ch == "(") - (ch == ")")
        current.append(ch)
    names.append("".join(current).strip())
    return names


def parse_agent_name(name: str) -> tuple[str, dict[str, str] | None]:
    """``NAME(key=value,...)`` -> (``NAME``, {key: value text}); a name without parentheses -> (name, None)."""
    text = name.strip()
    if "(" not in text and ")" not in text:
        return text, None
    base, _, rest = text.partition("(")
    if not rest.endswith(")") or rest.count("(") or rest.count(")") != 1:
        raise ValueError(f"agent {name!r}: write parameters as NAME(key=value,...), e.g. GAME.pimc(playouts=500)")
    params: dict[str, str] = {}
    body = rest[:-1].strip()
    for item in body.split(",") if body else []:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(f"agent {name!r}: parameter {item.strip()!r} must look like key=value")
        if key in params:
            raise ValueError(f"agent {name!r}: parameter {key!r} is given twice")
        params[key] = value
    return base.strip(), params


def _short(game: str | None) -> str | None:
    """The short name of a registered game's id or short name; any other name as it is (it matches no game)."""
    from ..registry import short_name

    try:
        return short_name(game) if game else None
    except ValueError:
        return game


def _search_games() -> list[str]:
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
    from ..search import METHODS

    short = _short(game)
    return [f"{g}.{m}" for g in _search_games() if short is None or g == short for m in METHODS]


def policy_agent_names(game: str | None = None) -> list[str]:
    """``GAME.NAME`` for every numba policy of every game (its core's ``POLICIES``), or only ``game``'s."""
    from ..registry import env_ids, spec_of

    short = _short(game)
    return [
        name
        for env_id in env_ids()
        if short in (None, spec_of(env_id).name)
        for name in spec_of(env_id).policy_agents()
    ]


def known_agents(game: str | None = None, *, cheating: bool = True) -> list[str]:
    """Every agent name that can be loaded without a path; with ``game`` (an env id or short name), only
    those that play it; with ``cheating=False``, not the agents that see hidden cards (``sees_hidden``: the
    web app lists only what it may load)."""
    short = _short(game)
    names = ["random", *policy_agent_names(game)]
    for module_name in _agent_modules():
        if short is not None and module_name != short:
            continue
        module = importlib.import_module(f"cardenvs.agents.{module_name}")
        agents = getattr(module, "AGENTS", {})
        names += [f"{module_name}.{n}" for n, a in agents.items() if cheating or not getattr(a, "sees_hidden", False)]
        names += list(getattr(module, "ALIASES", {}))
    models = [n for n in shipped_models() if short is None or n.partition(".")[0] == short]
    return names + search_agent_names(game) + models


def _convert(agent: str, key: str, text: str, kind: type, accepted: str) -> Any:
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


@dataclass(frozen=True)
class AgentRequest:
    """What :func:`load_agent` was asked: the ``name`` as given, its ``base`` and ``params``
    (``NAME(key=value,...)``, :func:`parse_agent_name`), the ``env``, and where model files may come from."""

    name: str
    base: str
    params: dict[str, str]
    env: Any
    models_dir: str | Path | None = None
    registered_only: bool = False
    unsandboxed: bool = False  # programs may run without a sandbox where none can be made (.sandbox)


@dataclass(frozen=True)
class AgentKind:
    """A row of the table of agent names (:func:`agent_table`): names of the form ``pattern`` are recognized by
    ``match(base)`` (the name without parameters -> the short name of the game the agent plays, :data:`ANY_GAME`,
    or None when the name is not of this kind) and built by ``load(request, game)``; only kinds with
    ``parameters`` take ``NAME(key=value,...)``."""

    pattern: str
    match: Callable[[str], str | None]
    load: Callable[[AgentRequest, str], Agent]
    parameters: bool = False


#: what :attr:`AgentKind.match` returns for a name that plays every game
ANY_GAME = ""


def _load_search(request: AgentRequest, game: str) -> Agent:
    from ..search import PARAMETERS, SearchAgent, describe_parameters, game_policies

    method = request.base.partition(".")[2]
    accepted = PARAMETERS[method]
    described = describe_parameters(method, game_policies(game))
    for key in request.params:
        if key not in accepted:
            raise ValueError(f"agent {request.name!r}: unknown parameter {key!r}; {request.base} accepts {described}")
    values = {k: _convert(request.name, k, v, accepted[k][0], described) for k, v in request.params.items()}
    if request.registered_only and str(values.get("oracle", "false")).strip().lower() != "false":
        raise ValueError(f"agent {request.name!r}: oracle=true sees every hidden card; not for names from outside")
    agent = SearchAgent(request.env, method, model_loader=partial(_search_model, request, game), **values)
    agent.name = request.name
    return agent


def _search_model(request: AgentRequest, game: str, value: str) -> Agent:
    """The learned model a search parameter names (``dmc``: the game's shipped model, ``GAME.dmc``; else an
    agent name such as ``dmc:PATH``), loaded as the search agent was (``models_dir``, ``registered_only``)."""
    name = value
    if value == "dmc":
        name = f"{game}.dmc"
        shipped = shipped_models()
        if name not in shipped:
            raise ValueError(
                f"{request.base}: no DMC model is shipped for {game} (shipped: {', '.join(shipped) or 'none'}); "
                "name a model file as dmc:PATH"
            )
    try:
        return load_agent(name, request.env, models_dir=request.models_dir, registered_only=request.registered_only)
    except ValueError as exc:
        raise ValueError(f"{request.base}: {value} cannot be loaded: {exc}") from None


def agent_kinds() -> dict[str, EntryPoint]:
    """The agent kinds installed packages register (entry points of :data:`AGENT_KINDS_GROUP`), by name."""
    return {ep.name: ep for ep in entry_points(group=AGENT_KINDS_GROUP)}


def agent_name_forms() -> str:
    """``ppo:PATH, rllib:PATH, module:Class``: the forms of names with a colon, for messages."""
    return ", ".join(kind.pattern for kind in agent_table() if ":" in kind.pattern)


#: the extra that installs what each agent kind of this project imports
KIND_EXTRAS = {"ppo": "train", "dmc": "train", "rllib": "scale", "llm": "llm"}


def _load_kind(name: str, entry: EntryPoint, path: str, env: Any) -> Agent:
    try:
        cls = entry.load()
    except ImportError as exc:
        extra = KIND_EXTRAS.get(entry.name)
        if extra and isinstance(exc, ModuleNotFoundError):
            raise ValueError(
                f"agent {name!r} needs the {extra} extra ({exc.name} is missing): pip install 'cardenvs[{extra}]'"
            ) from None
        raise ValueError(
            f"cannot load agent {name!r}: the agent kind {entry.name} ({entry.value}) does not import: {exc}"
        ) from exc
    return cls(env, path)


#: the shipped models loaded in this process, by (name, game, the env's options): one object for every env that
#: plays them (a model's greedy move keeps nothing between calls; each held a Dou Dizhu move table of 90 MiB)
_SHIPPED_LOADED: dict[tuple[str, str, str], Agent] = {}
_SHIPPED_LOCK = threading.Lock()


def _load_shipped(request: AgentRequest, game: str) -> Agent:
    kinds = agent_kinds()
    if "dmc" not in kinds:
        raise ValueError(
            f"agent {request.name!r} needs the dmc agent kind of cardenvs.training, which is not installed"
        )
    base = getattr(request.env, "unwrapped", request.env)
    key = (request.base, type(base).__qualname__, repr(sorted(dict(getattr(base, "config", {})).items())))
    with _SHIPPED_LOCK:  # one load however many threads ask at once
        if key not in _SHIPPED_LOADED:
            agent = _load_kind(request.base, kinds["dmc"], str(shipped_models()[request.base]), request.env)
            agent.name = request.base
            _SHIPPED_LOADED[key] = agent
        return _SHIPPED_LOADED[key]


def _load_model_file(entry: EntryPoint, request: AgentRequest, game: str) -> Agent:
    """``KIND:PATH``: the class ``entry`` names, built as Class(env, PATH)."""
    path = request.base.partition(":")[2]
    if request.registered_only or request.models_dir is not None:
        path = _model_path(request.base, path, request.models_dir)
    return _load_kind(request.base, entry, path, request.env)


def _load_class(request: AgentRequest, game: str) -> Agent:
    name, env = request.base, request.env
    if request.registered_only:
        raise ValueError(
            f"agent {name!r}: module:Class agents are not loaded here; name a registered agent such as random"
        )
    module_name, _, attr = name.partition(":")
    if not module_name or not attr:
        raise ValueError(f"cannot load agent {name!r}: write module:Class, e.g. mypackage.bots:MyAgent")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except ModuleNotFoundError as exc:
        if exc.name == module_name and "." not in module_name:  # KIND:PATH with an unknown kind, or a module
            raise ValueError(
                f"cannot load agent {name!r}: {module_name!r} is neither an agent kind ({agent_name_forms()}) nor "
                f"a module for module:Class (the kinds come from installed packages: pip install the one that "
                f"registers {module_name}:)"
            ) from None
        raise ValueError(f"cannot load agent {name!r}: {exc}") from None
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


def _model_path(name: str, path: str, models_dir: str | Path | None) -> str:
    """``path`` inside the folder ``models_dir``, resolved; one message for every refusal (it tells nothing of
    the disk)."""
    if models_dir is None:
        raise ValueError(f"agent {name!r}: models (KIND:PATH) load here only from a models folder (--models DIR)")
    root = Path(models_dir).resolve()
    try:
        resolved = (root / path).resolve()
        inside = bool(path) and resolved.is_relative_to(root) and resolved != root and resolved.exists()
    except (OSError, ValueError):
        inside = False
    if not inside:
        raise ValueError(f"agent {name!r}: no model by that name in the models folder")
    return str(resolved)


def _python_agent_game(name: str) -> str | None:
    """``GAME.NAME`` of a Python agent: ``AGENTS["NAME"]`` in ``cardenvs.agents.GAME``."""
    module_name, dot, key = name.partition(".")
    if dot and module_name in _agent_modules() and key in _agents_of(module_name, "AGENTS"):
        return module_name
    return None


def _python_agent_class(name: str, game: str) -> Any:
    """The class of the Python agent ``GAME.NAME`` (``AGENTS["NAME"]`` of ``cardenvs.agents.GAME``)."""
    return _agents_of(game, "AGENTS")[name.partition(".")[2]]


def _load_python_agent(request: AgentRequest, game: str) -> Agent:
    """A Python agent by name; one that declares ``sees_hidden`` (it reads the true state: a cheating player
    for analysis) is refused for names from outside (``registered_only``)."""
    agent_class = _python_agent_class(request.base, game)
    if request.registered_only and getattr(agent_class, "sees_hidden", False):
        raise ValueError(f"agent {request.name!r} sees every hidden card; not for names from outside")
    return agent_class(request.env)


def _alias_game(name: str) -> str | None:
    """The module of the Python agent ``name`` is another name of (its ``ALIASES``)."""
    return next((m for m in _agent_modules() if name in _agents_of(m, "ALIASES")), None)


def _agents_of(module_name: str, table: str) -> dict[str, Any]:
    return getattr(importlib.import_module(f"cardenvs.agents.{module_name}"), table, {})


def _load_alias(request: AgentRequest, game: str) -> Agent:
    agent = _agents_of(game, "AGENTS")[_agents_of(game, "ALIASES")[request.base]](request.env)
    agent.name = request.base
    return agent


def _game_part(names: Callable[[], Any]) -> Callable[[str], str | None]:
    """A matcher for the ``GAME.NAME`` names ``names()`` lists (asked at each match): the game part."""
    return lambda base: base.partition(".")[0] if base in names() else None


def _kind_prefix(kind: str) -> Callable[[str], str | None]:
    """A matcher for the names ``KIND:PATH`` of the agent kind ``kind``: they play any game."""
    return lambda base: ANY_GAME if ":" in base and base.partition(":")[0] == kind else None


def _parameters(request: AgentRequest, accepted: dict[str, tuple], kind: str) -> tuple[dict[str, Any], Any]:
    """The parameters of a program's or a model seat's name, each converted to its type (``accepted``: name ->
    (type, default, what)), and its ``fallback`` agent built (None without one); an unknown parameter, a bad
    value or a fallback that does not load is a ``ValueError`` naming what ``kind:`` accepts."""
    described = ", ".join(f"{k} (default {d!r}: {what})" for k, (_, d, what) in accepted.items())
    unknown = [k for k in request.params if k not in accepted]
    if unknown:
        raise ValueError(f"agent {request.name!r}: unknown parameter {unknown[0]!r}; {kind}: accepts {described}")
    values = {k: _convert(request.name, k, v, accepted[k][0], described) for k, v in request.params.items()}
    fallback = values.pop("fallback", "")
    if fallback:
        try:
            fallback = load_agent(str(fallback), request.env, unsandboxed=request.unsandboxed)
        except ValueError as exc:
            raise ValueError(f"agent {request.name!r}: fallback {fallback!r}: {exc}") from None
    return values, fallback or None


def _load_program(request: AgentRequest, game: str, protocol: str = "") -> Agent:
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
    values, fallback = _parameters(request, accepted, kind)
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


def _load_llm(request: AgentRequest, game: str) -> Agent:
    """``llm:MODEL(key=value,...)``: a chat model behind an OpenAI-compatible endpoint (:mod:`.llm`)."""
    if request.registered_only:
        raise ValueError(f"agent {request.name!r}: language-model seats (llm:MODEL) are not run here")
    try:
        import openai  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"agent {request.name!r} needs the llm extra ({exc.name} is missing): pip install 'cardenvs[llm]'"
        ) from None
    from .llm import PARAMETERS, LLMAgent

    values, fallback = _parameters(request, PARAMETERS, "llm")
    return LLMAgent(request.env, request.base.partition(":")[2], name=request.name, fallback=fallback, **values)


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


#: the built-in kinds of names, in the order they are tried; agent_table adds the installed KIND:PATH kinds
#: after the first three
BUILT_IN_KINDS = (
    AgentKind("GAME.pimc(key=value,...)", _game_part(lambda: search_agent_names()), _load_search, parameters=True),
    AgentKind("GAME.dmc", _game_part(lambda: shipped_models()), _load_shipped),
    AgentKind("random", lambda base: ANY_GAME if base == "random" else None, lambda r, g: RandomAgent(r.env)),
    AgentKind("cmd:COMMAND", lambda base: ANY_GAME if base.startswith("cmd:") else None, _load_program, True),
    AgentKind("llm:MODEL", lambda base: ANY_GAME if base.startswith("llm:") else None, _load_llm, True),
    AgentKind("module:Class", lambda base: ANY_GAME if ":" in base else None, _load_class),
    AgentKind(
        "GAME.POLICY",
        _game_part(lambda: policy_agent_names()),
        lambda r, g: PolicyAgent(r.env, r.base.partition(".")[2]),
    ),
    AgentKind("GAME.NAME", _python_agent_game, _load_python_agent),
    AgentKind("ALIAS", _alias_game, _load_alias),
)


def agent_table() -> list[AgentKind]:
    """The kinds of agent names in the order :func:`load_agent` tries them: :data:`BUILT_IN_KINDS`, with a
    ``KIND:PATH`` row before ``module:Class`` for every agent kind an installed package registers under the
    entry-point group :data:`AGENT_KINDS_GROUP` (:func:`agent_kinds`), and a ``KIND:COMMAND`` row after
    ``cmd:COMMAND`` for every protocol of programs a game declares (:func:`program_protocols`)."""
    kinds = agent_kinds()
    installed = [AgentKind(f"{k}:PATH", _kind_prefix(k), partial(_load_model_file, kinds[k])) for k in sorted(kinds)]
    protocols = [
        AgentKind(f"{k}:COMMAND", _kind_prefix(k), partial(_load_program, protocol=k), parameters=True)
        for k in sorted(program_protocols())
        if k not in kinds and k != "cmd"
    ]
    return [*BUILT_IN_KINDS[:3], *installed, *BUILT_IN_KINDS[3:5], *protocols, *BUILT_IN_KINDS[5:]]


def load_agent(
    name: str,
    env: Any,
    *,
    models_dir: str | Path | None = None,
    registered_only: bool = False,
    unsandboxed: bool = False,
) -> Agent:
    """Build the agent called ``name`` for ``env`` (see the module docstring for the forms of names): the first
    kind of :func:`agent_table` that knows the name builds it, once its parameters and game are checked.

    ``registered_only`` is for names from untrusted input (the web app): ``module:Class`` is refused (it would
    import and call any installed code), and ``KIND:PATH`` loads only with a ``models_dir``. With
    ``models_dir``, a ``KIND:PATH`` path is relative to that folder and must resolve inside it (``..`` and links
    followed; model files can run code when loaded).

    ``unsandboxed``: programs (``cmd:COMMAND``, ``botzone:COMMAND``) may run without a sandbox where none can be
    made here (:func:`.sandbox.unavailable`); without it such an agent is a ValueError saying why."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"agent name {name!r} is empty; name an agent such as random")
    base, params = parse_agent_name(name)
    game = _game_of(env)
    for kind in agent_table():
        plays = kind.match(base)
        if plays is None:
            continue
        if params and not kind.parameters:
            if base in known_agents():
                raise ValueError(
                    f"agent {base!r} takes no parameters (got {name!r}); only the search agents, cmd: programs and "
                    "llm: models do"
                )
            break  # parameters after a name that is no agent: say so, with the close names
        if plays and game is not None and plays != game:
            shown = name if kind.parameters else base
            raise ValueError(
                f"agent {shown!r} plays {plays}, not {game}; agents for {game}: {', '.join(known_agents(game))}"
            )
        return kind.load(AgentRequest(name, base, params or {}, env, models_dir, registered_only, unsandboxed), plays)
    raise _unknown(base, game)


def _unknown(name: str, game: str | None) -> ValueError:
    """The error for an agent name that names nothing: the close names first, then every known one."""
    known = known_agents(game)
    others = [a for a in known_agents() if a not in known]
    close = difflib.get_close_matches(name, known + others, n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return ValueError(
        f"unknown agent {name!r}{hint}; known agents{f' for {game}' if game else ''}: {', '.join(known)}, "
        f"or {agent_name_forms()}" + (f" (agents of other games: {', '.join(others)})" if others and game else "")
    )
