"""Loading agents by name: the names (:func:`known_agents`), the parsing of ``NAME(key=value,...)``
(:func:`parse_agent_name`, :func:`split_agent_names`), the table of agent kinds (:func:`agent_table`: name
pattern -> matcher and load function, one ``KIND:PATH`` row per entry point of :data:`AGENT_KINDS_GROUP`) and
:func:`load_agent`; the forms of names are in the docstring of :mod:`cardenvs.agent`.

A kind with a module of its own keeps its parameters and its loading there, and this table points at it:
programs (``cmd:COMMAND``, ``KIND:COMMAND``) in :mod:`.program_names`, chat models (``llm:MODEL``) in
:func:`.llm.load_seat`, the search agents (``GAME.pimc``) in :mod:`cardenvs.search.names`; what every kind
shares (the request, a row, a name's parameters) is :mod:`.kinds`. The kinds without a module of their own are
here: ``random``, the numba policies, the shipped models (``GAME.dmc``, ``GAME.dmc_v1`` for a model a stronger one
replaced: :func:`shipped_models`; one loaded object per process), model files (``KIND:PATH``), ``module:Class`` and
the Python agents of ``cardenvs.agents``."""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import pkgutil
import threading
from collections.abc import Callable
from functools import partial
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from .base import Agent, PolicyAgent, RandomAgent, _game_of
from .kinds import ANY_GAME, AgentKind, AgentRequest, short_game
from .program_names import load_program, program_protocols

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


def pinned_runs() -> dict[str, str]:
    """Shipped names pinned to a run folder under ``training/results``, before the newest-run rule of
    :data:`SHIPPED_EXPERIMENTS`, from every game's spec (``shipped_runs``): how a stronger model takes a name users
    already use (``GAME.dmc``) while the model it replaces keeps a versioned one (``GAME.dmc_v1``). A pinned folder
    missing from the installed package is an error (:func:`shipped_models`), not a silent fallback to another
    model."""
    from ..registry import env_ids, spec_of

    return {f"{spec.name}.{name}": run for spec in map(spec_of, env_ids()) for name, run in spec.shipped_runs.items()}


def _results_folders() -> list[Path]:
    """The ``results`` folders of the installed ``cardenvs.training`` package (none when it is not installed),
    found without importing it."""
    spec = importlib.util.find_spec("cardenvs.training")
    return [Path(location) / "results" for location in (spec.submodule_search_locations or [])] if spec else []


def shipped_models() -> dict[str, Path]:
    """``{"doudizhu.dmc": path, "doudizhu.dmc_stakes": path, ...}``: the DMC models shipped as package data (found
    on disk, without importing ``cardenvs.training``): each name of :func:`pinned_runs` is its pinned run's model,
    and every other ``GAME.EXP`` of :data:`SHIPPED_EXPERIMENTS` the newest run of that game and experiment (a run
    pinned under another name is not a candidate: the model a pin replaces keeps only its versioned name)."""
    folders = _results_folders()
    if not folders:
        return {}
    pinned: dict[str, Path] = {}
    pins = pinned_runs()
    for name, run in pins.items():
        found = [folder / run / "model.pt" for folder in folders if (folder / run / "model.pt").is_file()]
        if not found:
            raise ValueError(
                f"shipped model {name} is pinned to the run {run}, which has no model.pt in "
                f"{', '.join(str(f) for f in folders)} (the game spec's shipped_runs)"
            )
        pinned[name] = found[0]
    best: dict[str, tuple[int, Path]] = {}
    for folder in folders:
        for exp in SHIPPED_EXPERIMENTS:
            for model in folder.glob(f"*__{exp}__*/model.pt"):
                game, _, run = model.parent.name.partition(f"__{exp}__")
                name = f"{game}.{exp}"
                if name in pinned or model.parent.name in pins.values() or not run.isdigit():
                    continue
                if name not in best or int(run) > best[name][0]:
                    best[name] = (int(run), model)
    found_by_rule = {name: path for name, (_, path) in best.items()}
    return dict(sorted({**found_by_rule, **pinned}.items()))


def play_agent(env_id: str) -> tuple[str, str | None]:
    """The agent people play against where they name none (the game spec's ``play_agent``), and why another is
    seated instead (None when it is not): ``random`` where the game declares none, or where its agent cannot be
    loaded here (a shipped model without torch: the ``train`` extra; the model itself, one a Python agent
    declares it loads in its class's ``models``, or one its parameters name: a search's ``prior=dmc``)."""
    from ..registry import spec_of
    from ..search.names import model_name

    spec = spec_of(env_id)
    name = spec.play_agent
    if not name:
        return "random", None
    base, parameters = parse_agent_name(name)
    game = _python_agent_game(base)
    loads = {base, *(getattr(_python_agent_class(base, game), "models", ()) if game else ())}
    loads |= {model_name(spec.name, value) for value in (parameters or {}).values()}  # a search's prior=dmc
    if loads & set(shipped_models()) and importlib.util.find_spec("torch") is None:
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


def search_agent_names(game: str | None = None) -> list[str]:
    """``GAME.pimc`` and ``GAME.ismcts`` for every game with a determinizer (or only ``game``):
    :func:`cardenvs.search.names.search_agent_names`."""
    from ..search.names import search_agent_names as names

    return names(game)


def policy_agent_names(game: str | None = None) -> list[str]:
    """``GAME.NAME`` for every numba policy of every game (its core's ``POLICIES``), or only ``game``'s."""
    from ..registry import env_ids, spec_of

    short = short_game(game)
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
    short = short_game(game)
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


def _load_search(request: AgentRequest, game: str) -> Agent:
    """``GAME.pimc(key=value,...)``: :func:`cardenvs.search.names.load_search`, with :func:`shipped_models` (as
    this module holds it when the agent is loaded) for a parameter's ``dmc``."""
    from ..search.names import load_search

    return load_search(request, game, shipped_models)


def _load_llm(request: AgentRequest, game: str) -> Agent:
    """``llm:MODEL(key=value,...)``: :func:`.llm.load_seat` (the module is imported only for such a name)."""
    from .llm import load_seat

    return load_seat(request, game)


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
        agent = _SHIPPED_LOADED.get(key)
        if agent is None:
            agent = _load_kind(request.base, kinds["dmc"], str(shipped_models()[request.base]), request.env)
            agent.name = request.base
            # a model that reads its env's state (features: danzero) is bound to the env it was loaded with:
            # shared, another env's games would be read from that env's state (not cached, one load each)
            if not getattr(agent, "reads_state", False):
                _SHIPPED_LOADED[key] = agent
        return agent


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
    """A matcher for the ``GAME.NAME`` names ``names()`` lists (asked at each match, and only for a name with a
    ``.``: listing them imports every game): the game part."""
    return lambda base: base.partition(".")[0] if "." in base and base in names() else None


def _kind_prefix(kind: str) -> Callable[[str], str | None]:
    """A matcher for the names ``KIND:PATH`` of the agent kind ``kind``: they play any game."""
    return lambda base: ANY_GAME if ":" in base and base.partition(":")[0] == kind else None


#: the built-in kinds of names, in the order they are tried; agent_table adds the installed KIND:PATH kinds
#: after the first three
BUILT_IN_KINDS = (
    AgentKind("GAME.pimc(key=value,...)", _game_part(lambda: search_agent_names()), _load_search, parameters=True),
    AgentKind("GAME.dmc", _game_part(lambda: shipped_models()), _load_shipped),
    AgentKind("random", lambda base: ANY_GAME if base == "random" else None, lambda r, g: RandomAgent(r.env)),
    AgentKind("cmd:COMMAND", lambda base: ANY_GAME if base.startswith("cmd:") else None, load_program, True),
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
        AgentKind(f"{k}:COMMAND", _kind_prefix(k), partial(load_program, protocol=k), parameters=True)
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
        request = AgentRequest(name, base, params or {}, env, models_dir, registered_only, unsandboxed, load_agent)
        return kind.load(request, plays)
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
