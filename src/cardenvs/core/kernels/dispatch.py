"""The generic functions of the batched game core (:mod:`cardenvs.core.kernels`), which numba compiles to calls
of the functions a game registered for its state's dtype, and the machinery that generates their
implementations (and the batch loops' parallel drivers, :mod:`.parallel`) from templates."""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any, TypeVar

import numpy as np
from numba import njit, types
from numba.extending import overload
from numba.np.numpy_support import from_dtype

RUNNING, OVER, TRUNCATED = 0, 1, 2
#: the overloads' jit options: compiled code cached on disk (typed Any: numba's stub of jit_options omits "cache")
CACHED: Any = {"cache": True}
FUNCTIONS = ("init", "to_move", "legal_ids", "apply", "status", "scores", "outcome", "observe", "policy")
#: the registries the generic functions dispatch on: (state dtype, {generic function's name: numba function})
_GAMES: list[tuple[np.dtype, dict]] = []
_DETERMINIZERS: list[tuple[np.dtype, dict]] = []
_HORIZONS: list[tuple[np.dtype, dict]] = []
F = TypeVar("F", bound=Callable)


def register(state_dtype: np.dtype, **functions) -> None:
    """Make a game's numba functions the implementations of the generic ones for ``state_dtype``."""
    missing = [name for name in FUNCTIONS if name not in functions]
    extra = [name for name in functions if name not in FUNCTIONS]
    if missing or extra:
        raise ValueError(f"register: missing {missing}, unknown {extra}; a game provides {FUNCTIONS}")
    _GAMES.append((np.dtype(state_dtype), functions))


def register_rules(rules, policy) -> None:
    """:func:`register` a game's rules module (its ``STATE`` and the functions of :data:`FUNCTIONS` by name)
    with its numba ``policy`` dispatcher."""
    functions = {name: getattr(rules, name) for name in FUNCTIONS if name != "policy"}
    register(rules.STATE, policy=policy, **functions)


def register_determinize(state_dtype: np.dtype, function) -> None:
    """Make ``function`` the implementation of :func:`determinize` for ``state_dtype`` (games with hidden
    cards register one in their ``__init__``)."""
    _DETERMINIZERS.append((np.dtype(state_dtype), {"determinize": function}))


def register_horizon(state_dtype: np.dtype, horizon, horizon_value) -> None:
    """Make ``horizon`` and ``horizon_value`` the implementations of :func:`horizon` and :func:`horizon_value`
    for ``state_dtype`` (games whose search rollouts may stop before the end; the others get the defaults:
    no horizon)."""
    _HORIZONS.append((np.dtype(state_dtype), {"horizon": horizon, "horizon_value": horizon_value}))


def has_determinize(state_dtype: np.dtype) -> bool:
    return any(dtype == np.dtype(state_dtype) for dtype, _ in _DETERMINIZERS)


# ---------------------------------------------------------------- generated numba functions
# The generic functions' implementations and the batch loops' parallel drivers are copies of a template
# made by bind, not closures: numba keys a closure's cache entry by pickling its cells, and a numba
# function pickles with a uuid drawn anew in each process, so the next process would never find the entry,
# compile again and append one more (numba issue #6264). A copy has no cells: the function it calls is its
# global _callee, resolved at compile time and left out of the key, which is the argument types (a game's
# state record among them) and the template's bytecode; the copy's qualified name names its cache files. Like
# every cached function here, a copy is as fresh as its cache folder, keyed by the package's source and
# cleared when a game registered from outside the package has changed (cardenvs.cache).


def _callee(*args):
    """Stands for the numba function that a copy of a template calls (:func:`bind` sets it)."""
    raise NotImplementedError("template only")


def bind(template: Callable, qualname: str, callee) -> Callable:
    """A copy of ``template`` (a function of this package whose global ``_callee`` stands for the function it
    calls) named ``qualname`` whose global ``_callee`` is ``callee``."""
    copy = FunctionType(template.__code__, {**template.__globals__, "_callee": callee}, qualname.rpartition(".")[2])
    copy.__qualname__ = qualname
    return copy


def _forward(*args):
    """Template of the generic functions' implementations: the registered function, same arguments."""
    return _callee(*args)


def _dispatched(registry: list[tuple[np.dtype, dict]], default: Callable | None = None) -> Callable[[F], F]:
    """Decorator of a generic function: numba compiles a call of it to a call of the function ``registry``
    holds under its name for the record dtype of the state (the first argument), or of ``default`` (a numba
    function) for a state no entry names."""

    def decorate(generic: F) -> F:
        name = generic.__name__

        def typer(*args):
            state = args[0]
            if isinstance(state, types.Array) and isinstance(state.dtype, types.Record):
                for dtype, functions in registry:
                    if from_dtype(dtype) == state.dtype:
                        return bind(_forward, f"{name}.<overload>", functions[name])
                if default is not None:
                    return bind(_forward, f"{name}.<default>", default)
            return None

        overload(generic, jit_options=CACHED)(typer)
        return generic

    return decorate


# ---------------------------------------------------------------- generic functions (dispatch on the state)
def _game_function(name: str) -> Callable:
    """The generic function ``name`` of :data:`FUNCTIONS` (its signature in :mod:`cardenvs.core.kernels`'s
    table), numba only."""

    def generic(*args):
        raise NotImplementedError("numba only")

    generic.__name__ = generic.__qualname__ = name
    return _dispatched(_GAMES)(generic)


init, to_move, legal_ids, apply, status, scores, outcome, observe, policy = map(_game_function, FUNCTIONS)


#: option bit of a determinizer's second stream word ``rng[1]``: forget the cards seen (a search's
#: ``counting=false``; games offering it list ``"counting"`` in their determinizer module's ``SEARCH_OPTIONS``)
FORGET_SEEN = 1


@_dispatched(_DETERMINIZERS)
def determinize(state, b, params, p, rng, out, ob):
    """Write to ``out[ob]`` a copy of game ``b`` in which every card seat ``p`` cannot see is re-dealt at
    random (from ``rng``, a ``uint64[1]`` stream), consistently with everything ``p`` has observed; cards
    ``p`` can see and all public fields are unchanged. It must read nothing of ``state[b]`` that ``p``
    has not observed, except to copy it through to where it is overwritten. ``rng`` may carry a second
    word of option bits (:data:`FORGET_SEEN`); draws use ``rng[0]`` only."""
    raise NotImplementedError("numba only")


@njit(cache=True)
def _no_horizon(state, b, params) -> int:
    return -1


@njit(cache=True)
def _no_horizon_value(state, b, params, out) -> None:
    outcome(state, b, params, out)


@_dispatched(_HORIZONS, default=_no_horizon)
def horizon(state, b, params):
    """A count that grows at each point where a search rollout may stop and score the game with
    :func:`horizon_value` (Two Way Street: hands played, so a rollout can stop at the end of its hand instead
    of playing the whole match); -1 (the default, for games that register none): rollouts play to the end."""
    raise NotImplementedError("numba only")


@_dispatched(_HORIZONS, default=_no_horizon_value)
def horizon_value(state, b, params, out):
    """Each seat's estimated result on the win scale (the scale of :func:`outcome`) of game ``b``, still
    running, into ``out`` (default: :func:`outcome`)."""
    raise NotImplementedError("numba only")


# ---------------------------------------------------------------- helpers games share
@njit(cache=True)
def win_share(scores_: np.ndarray, out: np.ndarray) -> None:
    """Zero-sum result from scores: the best score wins; winners share +1, losers share -1; all equal: 0."""
    best = scores_[0]
    for s in scores_:  # a loop, not scores_.max(): cheaper to compile
        best = max(best, s)
    n_win = 0
    for s in scores_:
        if s == best:
            n_win += 1
    n = scores_.shape[0]
    for i in range(n):
        if n_win == n:
            out[i] = 0.0
        elif scores_[i] == best:
            out[i] = 1.0 / n_win
        else:
            out[i] = -1.0 / (n - n_win)
