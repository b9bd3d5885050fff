"""The batched game core: what every game's numba rules provide, and the loops over a batch, written once.

A game's core (in ``games/<game>/rules.py``) is a NumPy **structured dtype** ``STATE`` (one record per game:
a few small arrays and counters, so the state of ``B`` games is one array of ``B`` records and
``state["hands"]`` is a ``[B, ...]`` view) and a handful of ``@njit(cache=True)`` functions that touch only
game ``b``. ``params`` is a one-element structured array of the constants of one configuration (number of
players, tables that depend on options, stacked decks). The functions, with the signatures every game
uses (all write in place; none allocates Python objects):

==============================================  ===========================================================
``init(state, b, params, deal_seed)``           start game ``b``: deal 0 is ``params[0].stacked[0]`` if
                                                decks are stacked, else :func:`rng.deal_deck` of
                                                ``deal_seed``; later deals of the episode likewise
``to_move(state, b, params) -> int``            the seat to act
``legal_ids(state, b, params, ids) -> int``     ids of the legal actions of the seat to act, ascending,
                                                written to ``ids``; returns how many (0 once over)
``apply(state, b, params, action)``             play a legal action
``status(state, b, params) -> int``             :data:`RUNNING`, :data:`OVER` or :data:`TRUNCATED`
``scores(state, b, params, out)``               each seat's score in the game's units (float64)
``outcome(state, b, params, out)``              the ``"win"`` scale result (zeros unless over)
``observe(state, b, params, p, out)``           seat ``p``'s observation into the zeroed row ``out``
``policy(state, b, params, which, rng) -> int`` the game's numba heuristic number ``which`` (names in
                                                the game's ``POLICIES``) choosing for the seat to act;
                                                ``rng`` is a ``uint64[1]`` stream (:mod:`.rng`)
==============================================  ===========================================================

A game registers them with :func:`register` for its ``STATE`` dtype. The generic functions below of the
same names dispatch on the state's dtype at compile time (``numba.extending.overload``), so the batch loops
(:func:`reset_range`, :func:`step_range`, :func:`observe_range`, :func:`advance_range`, ...; :func:`run`
picks the serial or the parallel form) are written once and compiled per game, cached. The AEC envs run
the same functions on a batch of one (:mod:`.env`); the vector envs (:mod:`cardenvs.vector`) on ``B``
games, on every core with ``prange`` when asked. The generic functions' implementations and the loops'
parallel drivers are generated, each from one template (see "generated numba functions" below).
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any, TypeVar

import numba
import numpy as np
from numba import njit, prange, types
from numba.extending import overload
from numba.np.numpy_support import from_dtype

from .rng import splitmix64, uniform_index

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
# The generic functions' implementations and the batch loops' parallel drivers are copies of a template of
# this file made by _bind, not closures: numba keys a closure's cache entry by pickling its cells, and a numba
# function pickles with a uuid drawn anew in each process, so the next process would never find the entry,
# compile again and append one more (numba issue #6264). A copy has no cells: the function it calls is its
# global _callee, resolved at compile time and left out of the key, which is the argument types (a game's
# state record among them) and the template's bytecode; the copy's qualified name names its cache files. Like
# every cached function here, a copy is as fresh as its cache folder, keyed by the package's source and
# cleared when a game registered from outside the package has changed (cardenvs.cache).


def _callee(*args):
    """Stands for the numba function that a copy of a template calls (:func:`_bind` sets it)."""
    raise NotImplementedError("template only")


def _bind(template: Callable, qualname: str, callee) -> Callable:
    """A copy of ``template`` named ``qualname`` whose global ``_callee`` is ``callee``."""
    copy = FunctionType(template.__code__, {**globals(), "_callee": callee}, qualname.rpartition(".")[2])
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
                        return _bind(_forward, f"{name}.<overload>", functions[name])
                if default is not None:
                    return _bind(_forward, f"{name}.<default>", default)
            return None

        overload(generic, jit_options=CACHED)(typer)
        return generic

    return decorate


# ---------------------------------------------------------------- generic functions (dispatch on the state)
@_dispatched(_GAMES)
def init(state, b, params, deal_seed):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def to_move(state, b, params):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def legal_ids(state, b, params, ids):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def apply(state, b, params, action):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def status(state, b, params):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def scores(state, b, params, out):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def outcome(state, b, params, out):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def observe(state, b, params, p, out):
    raise NotImplementedError("numba only")


@_dispatched(_GAMES)
def policy(state, b, params, which, rng):
    raise NotImplementedError("numba only")


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


# ---------------------------------------------------------------- one game (used by the AEC envs too)
@njit(cache=True)
def observe_one(state, b, params, p, obs_row, mask_row, legal_row, n_old, scratch) -> int:
    """Seat ``p``'s observation into ``obs_row``; if ``p`` is to move and the game is on, its legal actions
    into ``mask_row`` and the first ``len(legal_row)`` of their ids into ``legal_row``; returns how many are
    legal. ``n_old`` is the previous count (the mask is cleared through the old ids when they all fit in
    ``legal_row``, else wholly); ``scratch`` holds ``num_actions`` ids."""
    obs_row[:] = 0
    observe(state, b, params, p, obs_row)
    if n_old <= legal_row.shape[0]:
        for i in range(n_old):
            mask_row[legal_row[i]] = 0
    else:
        mask_row[:] = 0
    if status(state, b, params) != RUNNING or to_move(state, b, params) != p:
        return 0
    n = legal_ids(state, b, params, scratch)
    for i in range(n):
        mask_row[scratch[i]] = 1
    for i in range(min(n, legal_row.shape[0])):
        legal_row[i] = scratch[i]
    return n


@njit(cache=True)
def _rewards_of_move(state, b, params, points, last_scores_row, rewards_row, scratch) -> int:
    """After a move: the move's rewards of every seat into ``rewards_row`` (score changes with ``points``,
    else the win-scale outcome when the game is over), ``last_scores_row`` updated; returns the status."""
    st = status(state, b, params)
    scores(state, b, params, scratch)
    if points:
        for i in range(scratch.shape[0]):
            rewards_row[i] = scratch[i] - last_scores_row[i]
    elif st == OVER:
        outcome(state, b, params, rewards_row)
    else:
        rewards_row[:] = 0.0
    for i in range(scratch.shape[0]):  # a loop: an array assigned to a slice compiles numba's slow shape check
        last_scores_row[i] = scratch[i]
    return st


@njit(cache=True)
def aec_step(state, params, action, points, last_scores, rewards, mask, ids) -> tuple[int, int, int]:
    """The AEC env's step of its one game in a single call: play ``action``, the move's rewards of every
    seat into ``rewards`` (``last_scores`` updated), then the int8 ``mask`` of the seat to move (cleared
    first). Returns (status, seat to move, number of legal actions). (The observation stays a call of its
    own: compiled into this kernel too, it cost a tenth more of a game's first-use compile time.)"""
    scratch = np.empty(last_scores.shape[0], dtype=np.float64)
    apply(state, 0, params, action)
    st = _rewards_of_move(state, 0, params, points, last_scores, rewards, scratch)
    mask[:] = 0
    n = 0
    if st == RUNNING:
        n = legal_ids(state, 0, params, ids)
        for i in range(n):
            mask[ids[i]] = 1
    return st, to_move(state, 0, params), n


def compiled(dispatcher: Any, args: tuple) -> Callable:
    """``dispatcher``'s compiled function for the types of ``args`` (compiled, or loaded from the cache, now),
    called without numba's per-call type dispatch: about 0.15 us a call instead of 0.6 us for a function of
    record arrays. The caller must call it with arguments of exactly these types every time (the AEC env's
    own buffers, :meth:`cardenvs.core.env.CardEnv.step`)."""
    signature = tuple(numba.typeof(a) for a in args)
    if signature not in dispatcher.overloads:
        dispatcher.compile(signature)
    return dispatcher.overloads[signature].entry_point


@njit(cache=True)
def _chunk(c: int, chunks: int, total: int) -> tuple[int, int]:
    return c * total // chunks, (c + 1) * total // chunks


# ---------------------------------------------------------------- batch loops
# Each loop is a serial function over games ``which[lo:hi]`` (what one thread runs); its parallel driver,
# generated from it (:func:`_parallel`), splits ``which`` into ``chunks`` and runs them with ``prange``. One
# thread calls the serial function on the whole range: numba's parallel lowering costs about a third of the
# speed of a single-thread loop.


@njit(cache=True)
def reset_range(state, params, which, deal_seeds, episodes, advance, last_scores, lo, hi) -> None:
    """Games ``which[lo:hi]`` start a deal: from ``deal_seeds[b]`` as it is, or, with ``advance``, from the
    next seed of its chain (splitmix64; ``episodes[b]`` counts). ``last_scores`` gets the starting scores."""
    for i in range(lo, hi):
        b = which[i]
        if advance:
            deal_seeds[b] = splitmix64(np.uint64(deal_seeds[b]))
            episodes[b] += 1
        init(state, b, params, np.uint64(deal_seeds[b]))
        scores(state, b, params, last_scores[b])


@njit(cache=True)
def observe_range(state, params, which, seats, obs, mask, legal, num_legal, lo, hi) -> None:
    """Games ``which[lo:hi]``: the observation of seat ``seats[b]`` (the seat to move if ``seats[b] < 0``,
    then written back) into ``obs[b]``, its legal actions into ``mask[b]``, their number into
    ``num_legal[b]`` (0 unless that seat is to move) and the first ids into ``legal[b]``."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    for i in range(lo, hi):
        b = which[i]
        if seats[b] < 0:
            seats[b] = to_move(state, b, params)
        num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


@njit(cache=True)
def observe_rows(state, params, which, seat, out) -> None:
    """Seat ``seat``'s observation of each game ``which[i]`` into ``out[i]`` (nothing else is written)."""
    for i in range(which.shape[0]):
        row = out[i]
        row[:] = 0
        observe(state, which[i], params, seat, row)


@njit(cache=True)
def first_illegal(mask, actions, which) -> int:
    """The first ``i`` whose game ``which[i]`` may not play ``actions[which[i]]`` by ``mask``; -1 if none."""
    for i in range(which.shape[0]):
        b = which[i]
        a = actions[b]
        if a < 0 or a >= mask.shape[1] or not mask[b, a]:
            return i
    return -1


@njit(cache=True)
def step_range(
    state,
    params,
    which,
    actions,
    points,
    last_scores,
    rewards,
    terminated,
    truncated,
    final_scores,
    deal_seeds,
    episodes,
    autoreset,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """Games ``which[lo:hi]`` play ``actions[b]`` (legal: checked by the caller). Rewards of every seat, ends,
    and the final scores of ended games are written out; with ``autoreset`` an ended game starts its next deal
    at once (Gymnasium's same-step autoreset: ``deal_seeds[b]`` advances by splitmix64, ``episodes[b]``
    counts), else it stays at its end (its mask empty); then each game's observation of the seat to move, its
    mask and legal ids (``seats`` gets that seat).

    The vector env's hot loop, written out in one function on purpose: what :func:`_rewards_of_move` and
    :func:`observe_one` do is repeated here, indexing the batch's arrays by ``b`` rather than passing row
    views to calls, because each call with array arguments cost about 30 ns a step (War's step went from 105
    to 45 ns written out). ``tests/test_vector.py`` checks it against the AEC env over whole games, and
    ``tests/test_observation_hash.py`` every observation and mask byte against recorded hashes."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    n_seats = last_scores.shape[1]
    scratch = np.empty(n_seats, dtype=np.float64)
    width = legal.shape[1]
    for i in range(lo, hi):
        b = which[i]
        apply(state, b, params, actions[b])
        # the move's rewards (as _rewards_of_move)
        st = status(state, b, params)
        scores(state, b, params, scratch)
        if points:
            for s in range(n_seats):
                rewards[b, s] = scratch[s] - last_scores[b, s]
        elif st == OVER:
            outcome(state, b, params, rewards[b])
        else:
            for s in range(n_seats):
                rewards[b, s] = 0.0
        for s in range(n_seats):
            last_scores[b, s] = scratch[s]
        terminated[b] = st == OVER
        truncated[b] = st == TRUNCATED
        if st != RUNNING:
            for s in range(n_seats):
                final_scores[b, s] = scratch[s]
            if autoreset:
                deal_seeds[b] = splitmix64(np.uint64(deal_seeds[b]))
                episodes[b] += 1
                init(state, b, params, np.uint64(deal_seeds[b]))
                scores(state, b, params, scratch)
                for s in range(n_seats):
                    last_scores[b, s] = scratch[s]
                st = status(state, b, params)
        # the observation, mask and legal ids of the seat to move (as observe_one)
        p = np.int64(to_move(state, b, params))  # int64 as observe_range passes it: one compile of observe
        seats[b] = p
        row = obs[b]
        row[:] = 0
        observe(state, b, params, p, row)
        n_old = num_legal[b]
        if n_old <= width:
            for k in range(n_old):
                mask[b, legal[b, k]] = 0
        else:
            mask[b, :] = 0
        n = 0
        if st == RUNNING:
            n = legal_ids(state, b, params, ids)
            for k in range(n):
                mask[b, ids[k]] = 1
            for k in range(min(n, width)):
                legal[b, k] = ids[k]
        num_legal[b] = n


@njit(cache=True)
def random_range(state, params, which, steps, rngs, num_actions, lo, hi) -> int:
    """Uniformly random play of games ``which[lo:hi]`` for ``steps`` moves each, restarting ended games (no
    observations: the speed of the rules alone); returns how many games ended."""
    ids = np.empty(num_actions, dtype=np.int64)
    ended = 0
    for i in range(lo, hi):
        b = which[i]
        for _ in range(steps):
            n = legal_ids(state, b, params, ids)
            apply(state, b, params, ids[uniform_index(rngs[b], n)])
            if status(state, b, params) != RUNNING:
                ended += 1
                init(state, b, params, splitmix64(rngs[b, 0]))
    return ended


@njit(cache=True)
def _pick(state, b, params, kind, rng, ids) -> int:
    """An internal opponent's action: kind 1 uniformly random legal, kind 2 + k the game's policy k."""
    if kind == 1:
        n = legal_ids(state, b, params, ids)
        return ids[uniform_index(rng, n)]
    return policy(state, b, params, kind - 2, rng)


@njit(cache=True)
def policy_range(state, params, which, kind, rngs, num_actions, out) -> None:
    """``out[i]``: the action of internal opponent ``kind`` (1 random, 2 + k the game's policy k) for the seat
    to act in game ``which[i]``; the games are not changed (only the streams ``rngs[b]`` advance)."""
    ids = np.empty(num_actions, dtype=np.int64)
    for i in range(which.shape[0]):
        b = which[i]
        out[i] = _pick(state, b, params, kind, rngs[b], ids)


@njit(cache=True)
def advance_range(
    state,
    params,
    which,
    seat_kinds,
    points,
    last_scores,
    learner_seat,
    acc_rewards,
    ended,
    final_scores,
    rngs,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """The single-agent view's inner loop, for games ``which[lo:hi]``: internal opponents
    (``seat_kinds[b, p]`` >= 1: 1 random, 2 + k the game's numba policy k) move until the learner (kind 0)
    or an external opponent (kind < 0) is to move or the game ends. The learner seat's rewards accumulate
    in ``acc_rewards[b]``; a game that ends gets ``ended[b]`` (1 over, 2 truncated) and its final scores.
    A game still on gets the observation of the seat to move (``seats``, ``obs``, ``mask``, ``num_legal``)."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    for i in range(lo, hi):
        b = which[i]
        while True:
            p = to_move(state, b, params)
            kind = seat_kinds[b, p]
            if kind <= 0:
                break
            a = _pick(state, b, params, kind, rngs[b], ids)
            apply(state, b, params, a)
            st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
            acc_rewards[b] += rewards[learner_seat[b]]
            if st != RUNNING:
                ended[b] = st
                final_scores[b] = last_scores[b]
                break
        if ended[b] == 0:
            seats[b] = to_move(state, b, params)
            num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


#: the fixed stream a numba policy is first asked with: a decision that leaves it unchanged drew nothing
#: (:class:`cardenvs.agent.PolicyAgent`; :func:`table_range`)
PROBE = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def table_range(
    state,
    params,
    which,
    seat_kinds,
    points,
    last_scores,
    pending,
    total,
    steps,
    ended,
    final_scores,
    obs,
    mask,
    legal,
    seats,
    num_legal,
    lo,
    hi,
) -> None:
    """The batched arena's inner loop (:mod:`cardenvs.arena.batched`), for games ``which[lo:hi]``: the seats of numba
    policies (``seat_kinds[b, p]`` = 2 + k, the game's policy k) play, each decision asked with the
    :data:`PROBE` stream, until a seat of another agent (kind < 2) is to move, a policy would draw (the stream
    changed: the caller asks again with its generator's draw), a policy chose an illegal action (the caller
    reports it), or the game ends (``ended[b]``: 1 over, 2 truncated; its final scores). Rewards are summed
    as the AEC loop sums them: the seat to move collects ``pending[b, p]`` into ``total[b, p]``, the move's
    rewards go to ``pending[b]``, and at the end every seat collects the rest; ``steps[b]`` counts the moves.
    A game that moved gets the observation of the seat to move (and an empty mask if it ended)."""
    ids = np.empty(mask.shape[1], dtype=np.int64)
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    stream = np.empty(1, dtype=np.uint64)
    n = last_scores.shape[1]
    for i in range(lo, hi):
        b = which[i]
        moved = False
        while True:
            p = to_move(state, b, params)
            kind = seat_kinds[b, p]
            if kind < 2:
                break
            stream[0] = PROBE
            a = policy(state, b, params, kind - 2, stream)
            if stream[0] != PROBE:
                break
            count = legal_ids(state, b, params, ids)
            found = False
            for j in range(count):
                if ids[j] == a:
                    found = True
                    break
            if not found:
                break
            total[b, p] += pending[b, p]
            pending[b, p] = 0.0
            steps[b] += 1
            apply(state, b, params, a)
            moved = True
            st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
            for s in range(n):
                pending[b, s] += rewards[s]
            if st != RUNNING:
                ended[b] = st
                for s in range(n):
                    final_scores[b, s] = last_scores[b, s]
                    total[b, s] += pending[b, s]
                    pending[b, s] = 0.0
                break
        if moved:  # as step_range leaves it: an ended game's mask is empty
            seats[b] = to_move(state, b, params)
            num_legal[b] = observe_one(state, b, params, seats[b], obs[b], mask[b], legal[b], num_legal[b], ids)


@njit(cache=True)
def apply_range(
    state, params, which, actions, points, last_scores, learner_seat, acc_rewards, ended, final_scores, lo, hi
) -> None:
    """Games ``which[lo:hi]`` play ``actions[b]`` (legal: checked by the caller) for the seat to move; the
    learner seat's reward accumulates; a game that ends gets ``ended[b]`` (1 over, 2 truncated)."""
    scratch = np.empty(last_scores.shape[1], dtype=np.float64)
    rewards = np.empty(last_scores.shape[1], dtype=np.float64)
    for i in range(lo, hi):
        b = which[i]
        apply(state, b, params, actions[b])
        st = _rewards_of_move(state, b, params, points, last_scores[b], rewards, scratch)
        acc_rewards[b] += rewards[learner_seat[b]]
        if st != RUNNING:
            ended[b] = st
            for s in range(scratch.shape[0]):  # a loop: an array assigned to a row compiles a slow shape check
                final_scores[b, s] = last_scores[b, s]


def _drive(*args) -> None:
    """Template of the parallel drivers: ``args`` are the serial function's with ``chunks`` in place of
    ``lo, hi``; each chunk of ``which`` (the third argument) runs the serial function on a thread."""
    chunks = args[-1]
    head = args[:-1]
    total = args[2].shape[0]
    for c in prange(chunks):
        lo, hi = _chunk(c, chunks, total)
        _callee(*head, lo, hi)


def _drive_and_count(*args) -> int:
    """:func:`_drive` for a serial function that returns a count: the sum of the chunks' counts."""
    chunks = args[-1]
    head = args[:-1]
    total = args[2].shape[0]
    counts = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        lo, hi = _chunk(c, chunks, total)
        counts[c] = _callee(*head, lo, hi)
    return counts.sum()


def _parallel(loop: str, serial) -> Any:
    """The cached parallel driver of batch loop ``loop`` whose serial function is ``serial`` (annotated
    ``-> None``, or ``-> int`` for a count the driver sums)."""
    template = {"None": _drive, "int": _drive_and_count}[serial.py_func.__annotations__["return"]]
    return njit(cache=True, parallel=True)(_bind(template, f"{loop}_parallel", serial))


# numba dispatchers, called as functions (mypy sees them as unrelated objects)
SERIAL: dict[str, Any] = {
    "reset": reset_range,
    "observe": observe_range,
    "step": step_range,
    "random": random_range,
    "advance": advance_range,
    "apply": apply_range,
    "table": table_range,
}
PARALLEL: dict[str, Any] = {loop: _parallel(loop, serial) for loop, serial in SERIAL.items()}


def check_threads(threads: Any, what: str = "threads") -> int:
    """``threads`` as an int from 1 to the threads numba has on this machine (``NUMBA_NUM_THREADS``, the
    core count by default): the one rule of the vector envs and the search agents. Else a ``ValueError``."""
    available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # numba's stubs omit config
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"{what}={threads!r}: expected an integer from 1 to {available}")
    if threads > available:
        raise ValueError(
            f"{what}={threads}: numba has {available} threads on this machine (NUMBA_NUM_THREADS); "
            f"expected an integer from 1 to {available}"
        )
    return int(threads)


def run(loop: str, threads: int, *args):
    """Run batch loop ``loop`` over all of ``which`` (the third argument): on one thread the serial function,
    else the parallel driver with ``4 * threads`` chunks (numba's thread count set for this call only)."""
    which = args[2]
    if threads <= 1 or len(which) < 2:
        return SERIAL[loop](*args, 0, len(which))
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return PARALLEL[loop](*args, min(len(which), 4 * threads))
    finally:
        numba.set_num_threads(saved)


@njit(cache=True)
def padded_ids(mask, legal, num_legal) -> np.ndarray:
    """Padded legal id lists ``[B, max(num_legal)]`` (-1 past ``num_legal[b]``): from ``legal`` where the
    ids fit in it, else from the mask."""
    width = max(1, num_legal.max())
    out = np.full((mask.shape[0], width), -1, dtype=np.int64)
    for b in range(mask.shape[0]):
        n = num_legal[b]
        if n <= legal.shape[1]:
            for i in range(n):
                out[b, i] = legal[b, i]
        else:
            k = 0
            for a in range(mask.shape[1]):
                if mask[b, a]:
                    out[b, k] = a
                    k += 1
    return out
