"""The search agent: :class:`SearchAgent` plays :func:`~cardenvs.search.drivers.pimc`,
:func:`~cardenvs.search.drivers.ismcts` or :func:`~cardenvs.search.drivers.pimc_learned` for the seat to act,
with the parameters of :data:`PARAMETERS` (agent names such as ``doudizhu.pimc(playouts=2000)``,
:mod:`cardenvs.agent`). A learned model (``leaf=dmc``, ``rollout=dmc:PATH``, ``prior=dmc``) is loaded by the
``model_loader`` the agent loader passes: the names of models are the loader's, not the search's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import kernels
from ..core.seeds import decision_seed, seed64
from .drivers import (
    DEFAULT_C,
    DEFAULT_PLAYOUTS,
    MAX_PLAYOUTS,
    SearchResult,
    check_budget,
    ismcts,
    model_action_values,
    pimc,
    pimc_learned,
)

METHODS = ("pimc", "ismcts")
TO_END = (
    "true: rollouts play to the end of the game even where it declares an earlier horizon (for example the end "
    "of a hand, scored by the match standings)"
)
#: the agents' parameters: name -> (type, default, meaning); ``playouts`` None means DEFAULT_PLAYOUTS
#: unless ``ms`` is given
PARAMETERS: dict[str, dict[str, tuple[type, Any, str]]] = {
    "pimc": {
        "playouts": (int, None, f"rollouts per move ({DEFAULT_PLAYOUTS} unless ms is given)"),
        "ms": (float, None, "time limit per move in milliseconds"),
        "seed": (int, 0, "search seed (mixed with the caller's rng)"),
        "threads": (int, 1, "cores for the rollouts (same result for any number under a playout budget)"),
        "rollout": (
            str,
            "",
            "the game's numba heuristic for rollouts (default: its first), or dmc (the game's shipped DMC model) "
            "or dmc:PATH: a learned model plays every seat",
        ),
        "leaf": (
            str,
            "",
            "dmc or dmc:PATH: score each move at the seat's next decision by the model's value (its best Q), "
            "the other seats' replies played by the rollout policy (none: rollouts to the end)",
        ),
        "prior": (
            str,
            "",
            "dmc or dmc:PATH: search only the top legal moves by the model's values in the seat's own observation "
            "(its Q), with heuristic rollouts",
        ),
        "top": (int, 8, "with prior: how many of the model's best moves the search compares"),
        "weight": (
            float,
            0.0,
            "with prior: the move played maximises its search value plus weight x the model's Q of it "
            "(0: the search value alone)",
        ),
        "mix": (
            float,
            1.0,
            "with leaf and a heuristic rollout: the weight of the model's value; the rest goes to the outcome of "
            "a heuristic rollout from the same position to the end (AlphaGo's mixing; 1: the model alone)",
        ),
        "counting": (
            str,
            "true",
            "false: the sampled deals ignore the cards seen (every card the seat does not hold is dealt, as if "
            "none had been played), for games whose determinizer offers it",
        ),
        "to_end": (str, "false", TO_END),
        "oracle": (
            str,
            "false",
            "true CHEATS: every deal searched is the true state (the other hands and every later draw seen); the "
            "all-seeing player of cardenvs analyze skill's relative skill, refused where names come from outside "
            "(the web app)",
        ),
    },
    "ismcts": {
        "playouts": (int, None, f"iterations per move ({DEFAULT_PLAYOUTS} unless ms is given)"),
        "ms": (float, None, "time limit per move in milliseconds"),
        "seed": (int, 0, "search seed (mixed with the caller's rng)"),
        "threads": (int, 1, "cores for the trees (same result for any number under a playout budget)"),
        "trees": (int, 1, "independent trees sharing the budget (root parallelization)"),
        "c": (float, DEFAULT_C, "UCB1 exploration constant (outcomes on -1..1)"),
        "rollout": (str, "", "the game's numba heuristic for rollouts (default: its first)"),
        "to_end": (str, "false", TO_END),
    },
}


def has_search(env: Any) -> bool:
    """Does the env's game register a determinizer (so ``GAME.pimc`` and ``GAME.ismcts`` play it)?"""
    numba_core = getattr(getattr(env, "unwrapped", env), "numba_core", None)
    core = numba_core() if numba_core is not None else None
    return core is not None and kernels.has_determinize(core.STATE)


def describe_parameters(method: str, policies: tuple[str, ...] = ()) -> str:
    """``playouts=None, ms=None, seed=0, ...``: a method's parameters with their defaults (``rollout``: the
    first of the game's ``policies`` when given)."""
    first = policies[0] if policies else "<the game's first heuristic>"
    return ", ".join(
        f"{k}={first if k == 'rollout' and not v[1] else v[1] if v[1] != '' else 'none'}"
        for k, v in PARAMETERS[method].items()
    )


def names_model(value: str) -> bool:
    """Does a ``rollout`` or ``leaf`` value name a learned model (``dmc``, or ``KIND:PATH`` such as
    ``dmc:runs/x/model.pt``) rather than a heuristic?"""
    return value == "dmc" or ":" in value


def load_model(value: str, who: str, loader: Any) -> Any:
    """The learned model a ``rollout``, ``leaf`` or ``prior`` value names (``dmc``, ``KIND:PATH``), loaded by
    ``loader(value)``: the agent loader (:func:`cardenvs.agent.load_agent`) passes one that knows the names
    of models (``dmc``: the game's shipped model) and loads with its ``registered_only`` and ``models_dir``,
    so a name from the web loads no file outside the models folder. It must score moves:
    ``action_values(observations, ids, counts)``, and with ``reads_state`` true it is also given ``state`` and
    ``games`` (:func:`~cardenvs.search.drivers.model_action_values`). Errors are ``ValueError`` saying what is
    missing."""
    if loader is None:
        raise ValueError(f"{who}: {value} names a learned model: load the agent by name or give a model_loader")
    model = loader(value)
    if not callable(getattr(model, "action_values", None)):
        raise ValueError(
            f"{who}: {value} loads {type(model).__name__}, which does not score moves (no action_values method)"
        )
    return model


def game_policies(game: str) -> tuple[str, ...]:
    """The numba heuristics (``POLICIES``) of a game by env id or short name."""
    from ..registry import spec_of

    return spec_of(game).env_class().policy_names()


class SearchAgent:
    """A search agent: PIMC or ISMCTS (``method``) for the seat to act, over the env's numba core.

    At ``act`` it reads the env's current state (``env.unwrapped.core_state()``) and hands it to
    :func:`pimc` or :func:`ismcts`, which read the true state only through the game's ``determinize`` for
    the acting seat: every card that seat cannot see is re-dealt before anything looks at it, so the agent
    plays on the acting seat's information alone. The one exception says so in its name: ``oracle=true``
    (pimc only) searches the true state itself, a cheating player for measuring what knowing the chance
    outcomes is worth (:mod:`cardenvs.analysis.skill`); :attr:`oracle` tells it. Parameters:
    :data:`PARAMETERS` (a bad one is a ``ValueError`` naming the accepted ones with their defaults);
    ``model_loader`` loads a ``rollout``, ``leaf`` or ``prior`` model by name (:func:`load_model`;
    :func:`cardenvs.agent.load_agent` passes one).
    """

    #: its move depends on the position and the ``rng`` of ``act`` alone (nothing kept between calls): the
    #: arena's luck-adjusted estimates may ask it again to sample its move's distribution
    stateless = True

    def __init__(self, env: Any, method: str = "pimc", *, model_loader: Any = None, **parameters: Any):
        if method not in METHODS:
            raise ValueError(f"search method {method!r} is unknown; known: {', '.join(METHODS)}")
        base = getattr(env, "unwrapped", env)
        game = base.SPEC.name if getattr(base, "SPEC", None) is not None else "?"
        if not has_search(base):
            raise ValueError(f"{game} has no determinizer registered, so no search agent plays it")
        accepted = PARAMETERS[method]
        self.name = f"{game}.{method}"
        policies = base.policy_names()
        hint = f"{self.name} accepts {describe_parameters(method, policies)}"
        unknown = [k for k in parameters if k not in accepted]
        if unknown:
            raise ValueError(f"{self.name}: unknown parameter {unknown[0]!r}; {hint}")
        values = {k: v[1] for k, v in accepted.items()}
        values.update(parameters)
        rollout = values.pop("rollout") or (policies[0] if policies else "0")
        leaf = values.pop("leaf", "")
        leaf = "" if leaf == "none" else leaf
        prior, top = values.pop("prior", ""), values.pop("top", None)
        weight = values.pop("weight", 0.0)
        if prior and (not names_model(prior) or leaf or names_model(rollout)):
            raise ValueError(
                f"{self.name}: prior={prior!r}: expected dmc or dmc:PATH, with heuristic rollouts and no leaf; {hint}"
            )
        if "top" in parameters and not prior:
            raise ValueError(f"{self.name}: top={top!r} counts the moves a prior keeps: give prior=dmc; {hint}")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
            raise ValueError(f"{self.name}: top={top!r} must be an integer >= 1; {hint}")
        if "weight" in parameters and not prior:
            raise ValueError(f"{self.name}: weight={weight!r} weighs a prior's values: give prior=dmc; {hint}")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight < math.inf:
            raise ValueError(f"{self.name}: weight={weight!r} must be a finite number >= 0; {hint}")
        learned = [v for v in (rollout, leaf) if v and names_model(v)]
        if learned and method != "pimc":
            raise ValueError(f"{self.name}: rollout={rollout!r}: a learned model guides only pimc; {hint}")
        if leaf and not names_model(leaf):
            raise ValueError(f"{self.name}: leaf={leaf!r}: expected dmc or dmc:PATH (a learned model); {hint}")
        if len(set(learned)) > 1:
            raise ValueError(f"{self.name}: rollout and leaf name different models ({rollout}, {leaf}); name one")
        if rollout not in policies and not names_model(rollout):
            raise ValueError(
                f"{self.name}: rollout={rollout!r} is not a heuristic of {game} ({', '.join(policies)}) nor a "
                f"learned model (dmc, dmc:PATH); {hint}"
            )
        if learned and values["threads"] != 1:
            raise ValueError(f"{self.name}: threads={values['threads']!r}: a search with a learned model runs on one")
        check_budget(values["playouts"], values["ms"], self.name)
        kernels.check_threads(values["threads"], f"{self.name}: threads")
        if "trees" in values and (not isinstance(values["trees"], int) or not 1 <= values["trees"] <= MAX_PLAYOUTS):
            raise ValueError(f"{self.name}: trees={values['trees']!r} must be an integer >= 1; {hint}")
        self.seed = seed64(values["seed"], self.name)
        if "counting" in values:
            values["counting"] = self._counting(base, game, values["counting"], bool(learned), hint)
        values["to_end"] = self._flag("to_end", values["to_end"], hint)
        if "oracle" in values:
            values["oracle"] = self._flag("oracle", values["oracle"], hint)
            if values["oracle"] and (learned or prior or not values.get("counting", True)):
                raise ValueError(
                    f"{self.name}: oracle=true searches the true state with heuristic rollouts: no learned model "
                    f"(rollout, leaf, prior) and no counting=false; {hint}"
                )
            if not values["oracle"] or learned:
                values.pop("oracle")
        if learned and "to_end" in parameters:
            raise ValueError(f"{self.name}: to_end works with heuristic rollouts, not a learned model")
        if learned:
            values.pop("to_end")
        if "mix" in values:
            mix = values["mix"]
            if not isinstance(mix, (int, float)) or not 0.0 <= float(mix) <= 1.0:
                raise ValueError(f"{self.name}: mix={mix!r} must be a number from 0 to 1; {hint}")
            if float(mix) < 1.0 and (not leaf or names_model(rollout)):
                raise ValueError(
                    f"{self.name}: mix={mix!r} weighs a leaf model against heuristic rollouts: give leaf=dmc and a "
                    f"heuristic rollout; {hint}"
                )
            if not learned:
                values.pop("mix")
        if "c" in values and not values["c"] >= 0:
            raise ValueError(f"{self.name}: c={values['c']!r} must be >= 0; {hint}")
        self.env = base
        self.method = method
        self.rollout = -1 if names_model(rollout) else policies.index(rollout)  # -1: the model plays
        self.leaf = bool(leaf)
        self.model = load_model(learned[0], self.name, model_loader) if learned else None
        self.prior = load_model(prior, self.name, model_loader) if prior else None
        self.top = int(top) if top is not None else 0
        self.weight = float(weight)
        self.parameters = values
        self.oracle = bool(values.get("oracle", False))
        self.last: SearchResult | None = None

    def _counting(self, base: Any, game: str, value: Any, learned: bool, hint: str) -> bool:
        """``counting`` as a bool: ``true``/``false`` (any case) or a bool; false needs a determinizer that
        offers it (its module's ``SEARCH_OPTIONS``) and rollouts (not a learned model)."""
        counting = self._flag("counting", value, hint)
        if not counting:
            if "counting" not in base.determinizer_options():
                raise ValueError(f"{self.name}: counting=false: {game}'s determinizer cannot ignore the cards seen")
            if learned:
                raise ValueError(f"{self.name}: counting=false works with heuristic rollouts, not a learned model")
        return counting

    def _flag(self, name: str, value: Any, hint: str) -> bool:
        """A boolean parameter: ``true``/``false`` (any case) or a bool."""
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        text = str(value).strip().lower()
        if text not in ("true", "false"):
            raise ValueError(f"{self.name}: {name}={value!r}; expected true or false; {hint}")
        return text == "true"

    def search(self, seed: int) -> SearchResult:
        """Search the env's current position for the seat to act with search seed ``seed``."""
        base = self.env
        _, states, params, layout = base.core_state()
        options = dict(self.parameters)
        options["seed"] = seed
        if self.model is not None:
            return pimc_learned(
                states,
                0,
                params,
                num_actions=int(base.num_actions),
                num_players=int(base.num_players),
                model=self.model,
                observation=(int(layout.size), layout.dtype),
                leaf=self.leaf,
                rollout=self.rollout,
                playouts=options["playouts"],
                ms=options["ms"],
                seed=seed,
                mix=float(options.get("mix", 1.0)),
            )
        prior_q = None
        if self.prior is not None:
            options["candidates"], prior_q = self.prior_moves()
        fn = pimc if self.method == "pimc" else ismcts
        result = fn(
            states,
            0,
            params,
            num_actions=int(base.num_actions),
            num_players=int(base.num_players),
            rollout=self.rollout,
            **options,
        )
        if prior_q is not None and self.weight > 0 and len(result.actions) > 1:
            # the search's mean outcome of each compared move plus weight x the model's Q of it (same scale:
            # the win scale for a model trained with target win); first maximum, the lowest id among ties
            scores = result.values + self.weight * prior_q[np.searchsorted(options["candidates"], result.actions)]
            result.action = int(result.actions[int(np.argmax(scores))])
            result.extra["prior_q"] = prior_q
        return result

    def prior_moves(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``top`` legal moves (ascending ids) the prior model values highest in the acting seat's own
        observation (ties: the lower id first; all of them when there are no more), and the model's Q of each."""
        base = self.env
        _, states, params, layout = base.core_state()
        observation = (int(layout.size), layout.dtype)
        game = np.zeros(1, np.int64)
        ids, q = model_action_values(self.prior, states, params, game, observation, int(base.num_actions))
        n = int(np.isfinite(q[0]).sum())
        order = np.argsort(-q[0, :n], kind="stable")[: self.top]
        keep = np.sort(order)  # legal ids are ascending, so are the kept ones
        return ids[0, keep], q[0, keep]

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        self.last = self.search(decision_seed(self.seed, rng))
        action = self.last.action
        if not observation["action_mask"][action]:
            raise RuntimeError(f"{self.name} chose {action}, which the observation's mask does not allow")
        return action
