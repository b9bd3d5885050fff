"""Search agents over the numba game core: determinized Monte Carlo (PIMC) and information-set MCTS.

API
===
``pimc(state, b, params, *, num_actions, num_players, playouts=None, ms=None, seed=0, threads=1, rollout=0, ...)``
    Perfect-information Monte Carlo for the seat to act in game ``b`` of the batched ``state``: deals
    ``d = 0, 1, ...`` are sampled by :func:`cardenvs.core.kernels.determinize` for that seat (stream
    ``2d`` of ``seed``); on each deal every legal move is applied and the game rolled out to the end with
    the game's numba heuristic ``rollout`` (:func:`kernels.policy`, stream ``2d + 1``, the same for every
    move: common random numbers). The move with the best mean :func:`kernels.outcome` for the seat wins
    (ties: the lower action id). ``playouts`` is the total number of rollouts (each deal costs one per legal
    move, at least one deal); ``ms`` a time limit checked between batches of deals; with neither,
    :data:`DEFAULT_PLAYOUTS`. ``threads > 1`` spreads the deals over cores (``prange``): with a playout
    budget the result does not depend on the thread count. ``counting=False`` (default True) asks the
    determinizer to forget the cards seen (bit :data:`cardenvs.core.kernels.FORGET_SEEN` of a second word
    of its stream array, ``rng[1]``): it deals every card the seat does not hold, as if none had been
    played, to measure what card counting is worth; only games whose determinizer module lists ``"counting"`` in
    ``SEARCH_OPTIONS`` offer it. A game may declare a *horizon* (:func:`cardenvs.core.kernels.horizon`, the
    env's ``HORIZON``): a rollout then stops where the horizon count changes and the position is scored by
    :func:`kernels.horizon_value` (Two Way Street: at the end of the hand, by the match standings, instead of
    playing the rest of the match); ``to_end=True`` plays to the end anyway.
``ismcts(state, b, params, *, ..., rollout=0, c=DEFAULT_C, trees=1)`` (the other arguments as for ``pimc``)
    Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012): each iteration
    determinizes (stream ``i`` of the tree's seed), descends the tree choosing among the children whose
    action is legal in this deal by UCB1 with availability counts (``c`` the exploration constant, on the
    outcome scale -1..1), expands one untried legal action, rolls out with the heuristic, and credits each
    node with the outcome of the seat that moved into it. ``trees`` independent trees (root
    parallelization, seeds ``seed + t``) share the ``playouts`` budget; ``threads`` runs them on several
    cores, so with a playout budget the result depends on ``trees`` but not on ``threads``. The move is
    the root child with the most visits (ties: the lower action id).

``pimc_learned(state, b, params, *, num_actions, num_players, model, observation, leaf=True, ...)``
    PIMC guided by a learned model (``model.action_values(obs, ids, counts)``: Q of each legal move, the
    acting seat's expected return after it, as the DMC models of ``training/dmc.py`` give it). On each deal
    every legal move is applied, then with ``leaf`` the other seats reply (heuristic ``rollout``, or the
    model's greedy move with ``rollout=-1``) until the seat is to act again, and the move is worth the
    model's best Q there (the outcome if the game ended first): a one-ply search whose leaves the model
    evaluates over determinizations. Without ``leaf`` the model plays every seat to the end. The model is
    asked once per step for all the games of a batch of deals. ``mix < 1`` (``leaf`` with a heuristic
    ``rollout``) weighs the model's value against the outcome of that heuristic played on from the leaf.

Both return a :class:`SearchResult` (``action``, candidate ``actions``, their mean ``values`` and
``visits``, ``playouts`` run, ``seconds``). With ``ms`` only, results depend on the machine's speed.

:class:`SearchAgent` ``(env, method="pimc", **parameters)`` is the agent (``act(observation, rng)``): it reads
the env's current state (``env.unwrapped.states``, ``params``) only through ``determinize`` for the seat to
act; the search seed of each move mixes ``seed`` with one draw from the caller's ``rng`` (the arena seeds
it), so a game replays exactly under a playout budget. Its parameters (:data:`PARAMETERS`) come from agent
names such as ``doudizhu.pimc(playouts=2000)`` or ``twos.ismcts(ms=50,seed=3)`` (:mod:`cardenvs.agent`).
``GAME.pimc(leaf=dmc)`` and ``GAME.pimc(rollout=dmc)`` use the game's shipped DMC model (and
``GAME.pimc(prior=dmc,top=K)`` runs plain PIMC over the K moves the model values highest in the seat's own
observation; with ``weight=W`` it plays the move whose search value plus W times the model's Q is highest)
(:func:`cardenvs.agent.shipped_models`; ``dmc:PATH`` names another), loaded through
:func:`cardenvs.agent.load_agent` (torch, the ``train`` extra; a clear ``ValueError`` without it), and run
:func:`pimc_learned`; the model's torch threads are torch's setting (``OMP_NUM_THREADS``), not ``threads``.

How a game plugs in: its package registers its rules (:func:`kernels.register_rules`: the generic
``init/to_move/legal_ids/apply/status/outcome/policy`` the search calls) and a determinizer
(``kernels.register_determinize(rules.STATE, determinize)``, contract in :func:`kernels.determinize`). The
agent names ``GAME.pimc`` and ``GAME.ismcts`` then exist for that game (:func:`has_search`); nothing here
names a game, and the numba functions compile once per state dtype (cached).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from .core import kernels
from .core.rng import splitmix64, stream, uniform_index
from .core.seeds import seed64

DEFAULT_PLAYOUTS = 1000
#: the largest budgets a search accepts: ten million playouts, ten minutes a move (beyond them a search
#: would look hung; a non-finite ``ms`` would never return)
MAX_PLAYOUTS = 10_000_000
MAX_MS = 600_000.0
DEFAULT_C = 0.7
#: rows (positions) per call of a learned model in :func:`pimc_learned`: bounds its memory
MODEL_ROWS = 1024
METHODS = ("pimc", "ismcts")
TO_END = (
    "true: rollouts play to the end of the game even where it declares an earlier horizon (Two Way Street: "
    "the end of the hand, scored by the match standings)"
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


# ---------------------------------------------------------------- numba: shared pieces
@njit(cache=True)
def seat_to_move(state, b, params) -> int:
    """The seat to act in game ``b`` (a Python-callable twin of :func:`kernels.to_move`)."""
    return kernels.to_move(state, b, params)


@njit(cache=True)
def root_moves(state, b, params, ids) -> int:
    """The legal ids of the seat to act into ``ids``; returns how many (Python-callable)."""
    return kernels.legal_ids(state, b, params, ids)


@njit(cache=True)
def determinize_into(state, b, params, p, seed, k, out, ob) -> None:
    """:func:`kernels.determinize` of game ``b`` for seat ``p`` with stream ``k`` of ``seed`` into ``out[ob]``
    (Python-callable; tests and tools)."""
    kernels.determinize(state, b, params, p, stream(seed, k), out, ob)


def determinized(state: np.ndarray, b: int, params: np.ndarray, p: int, seed: int, k: int = 0) -> np.ndarray:
    """A new one-game state: game ``b`` determinized for seat ``p`` by stream ``k`` of ``seed``."""
    out = np.zeros(1, dtype=state.dtype)
    determinize_into(state, b, params, p, np.uint64(seed), k, out, 0)
    return out


@njit(cache=True)
def rollout_value(sim, params, seat, rollout, rng, result, mark) -> float:
    """Play game 0 of ``sim`` with heuristic ``rollout`` for every seat (in place) to its end, or, with
    ``mark >= 0``, until :func:`kernels.horizon` differs from ``mark`` (the horizon the rollout started at);
    the outcome of ``seat`` (all outcomes, or :func:`kernels.horizon_value` at the horizon, in ``result``)."""
    while kernels.status(sim, 0, params) == kernels.RUNNING:
        if mark >= 0 and kernels.horizon(sim, 0, params) != mark:
            kernels.horizon_value(sim, 0, params, result)
            return result[seat]
        kernels.apply(sim, 0, params, kernels.policy(sim, 0, params, rollout, rng))
    kernels.outcome(sim, 0, params, result)
    return result[seat]


# ---------------------------------------------------------------- numba: PIMC
@njit(cache=True)
def _determinizer_stream(seed, k, forget):
    """Stream ``k`` of ``seed`` for a determinizer; with option bits ``forget`` (:data:`kernels.FORGET_SEEN`) the
    array has a second word holding them (``rng[1]``; draws use ``rng[0]`` only)."""
    rng = stream(seed, k)
    if forget == 0:
        return rng
    out = np.empty(2, dtype=np.uint64)
    out[0] = rng[0]
    out[1] = np.uint64(forget)
    return out


@njit(cache=True)
def _pimc_deal(state, b, params, seat, moves, seed, d, rollout, det, sim, result, values_row, forget, to_end) -> None:
    """Deal ``d``: one determinization, then every move of ``moves`` rolled out on it with the same stream,
    to the game's horizon (:func:`kernels.horizon`) unless ``to_end``."""
    kernels.determinize(state, b, params, seat, _determinizer_stream(seed, 2 * d, forget), det, 0)
    mark = -1 if to_end else kernels.horizon(det, 0, params)
    for i in range(moves.shape[0]):
        sim[0] = det[0]
        kernels.apply(sim, 0, params, moves[i])
        values_row[i] = rollout_value(sim, params, seat, rollout, stream(seed, 2 * d + 1), result, mark)


@njit(cache=True, nogil=True)  # releases the GIL: a server thread searching blocks no other
def pimc_deals(
    state, b, params, seat, moves, seed, d_lo, d_hi, rollout, det, sim, result, values, forget, to_end
) -> None:
    """Deals ``d_lo .. d_hi - 1``: the outcome for ``seat`` of each move into ``values[d - d_lo]``."""
    for d in range(d_lo, d_hi):
        _pimc_deal(state, b, params, seat, moves, seed, d, rollout, det, sim, result, values[d - d_lo], forget, to_end)


@njit(cache=True, parallel=True, nogil=True)
def pimc_deals_parallel(
    state, b, params, seat, moves, seed, d_lo, d_hi, rollout, dets, sims, results, values, forget, to_end
) -> None:
    """:func:`pimc_deals` with the deals spread over ``dets.shape[0]`` chunks (each with its own buffers)."""
    chunks = dets.shape[0]
    for c in prange(chunks):
        for d in range(d_lo + c, d_hi, chunks):
            _pimc_deal(
                state,
                b,
                params,
                seat,
                moves,
                seed,
                d,
                rollout,
                dets[c : c + 1],
                sims[c : c + 1],
                results[c],
                values[d - d_lo],
                forget,
                to_end,
            )


# ---------------------------------------------------------------- numba: PIMC with a learned model
@njit(cache=True, nogil=True)
def learned_leaves(state, b, params, seat, moves, seed, d_lo, d_hi, replies, det, sims) -> None:
    """Deals ``d_lo .. d_hi - 1``: on the determinization of deal ``d`` (stream ``2d``) every move ``i`` of
    ``moves`` applied into game ``(d - d_lo) * len(moves) + i`` of ``sims``; with ``replies >= 0`` the other
    seats then answer with heuristic ``replies`` (stream ``2d + 1``, the same for every move) until ``seat``
    is to act again or the game ends. Writes ``det`` and ``sims``."""
    n = moves.shape[0]
    for d in range(d_lo, d_hi):
        kernels.determinize(state, b, params, seat, stream(seed, 2 * d), det, 0)
        for i in range(n):
            k = (d - d_lo) * n + i
            sims[k] = det[0]
            kernels.apply(sims, k, params, moves[i])
            if replies >= 0:
                rng = stream(seed, 2 * d + 1)
                while kernels.status(sims, k, params) == kernels.RUNNING and kernels.to_move(sims, k, params) != seat:
                    kernels.apply(sims, k, params, kernels.policy(sims, k, params, replies, rng))


@njit(cache=True, nogil=True)
def rollout_rows(sims, params, which, per_deal, seat, rollout, seed, d_lo, result, out) -> None:
    """``out[i]``: the outcome for ``seat`` of game ``which[i]`` of ``sims`` played on by heuristic ``rollout``
    for every seat (a copy: ``sims`` is not changed) to its end or horizon (:func:`rollout_value`; ``result``
    holds every seat's outcome on the way). Game ``k`` belongs to deal ``d_lo + k // per_deal`` and draws from
    stream ``2d + 1`` of ``splitmix64(seed)`` (every move of a deal is rolled out with the same numbers, which
    are not the replies' of :func:`learned_leaves`)."""
    sim = np.zeros(1, dtype=sims.dtype)
    for i in range(which.shape[0]):
        k = which[i]
        sim[0] = sims[k]
        rng = stream(splitmix64(seed), 2 * (d_lo + k // per_deal) + 1)
        out[i] = rollout_value(sim, params, seat, rollout, rng, result, kernels.horizon(sim, 0, params))


@njit(cache=True)
def status_and_seat(sims, params, status, seats) -> None:
    """Each game's status and seat to act into ``status`` and ``seats`` (the seat is -1 once over)."""
    for k in range(sims.shape[0]):
        status[k] = kernels.status(sims, k, params)
        seats[k] = kernels.to_move(sims, k, params) if status[k] == kernels.RUNNING else -1


@njit(cache=True)
def observe_to_move(sims, params, which, obs, counts, scratch) -> None:
    """Games ``which``: the observation of the seat to act into ``obs[i]`` (zeroed first) and its number of
    legal moves into ``counts[i]``; ``scratch`` holds ``num_actions`` ids."""
    for i in range(which.shape[0]):
        k = which[i]
        for j in range(obs.shape[1]):
            obs[i, j] = 0
        kernels.observe(sims, k, params, kernels.to_move(sims, k, params), obs[i])
        counts[i] = kernels.legal_ids(sims, k, params, scratch)


@njit(cache=True)
def legal_rows(sims, params, which, ids, scratch) -> None:
    """Games ``which``: the legal ids of the seat to act into ``ids[i]`` (as many as fit; ascending)."""
    for i in range(which.shape[0]):
        n = kernels.legal_ids(sims, which[i], params, scratch)
        for j in range(min(n, ids.shape[1])):
            ids[i, j] = scratch[j]


@njit(cache=True)
def apply_rows(sims, params, which, actions) -> None:
    """Game ``which[i]`` plays ``actions[i]`` (in place)."""
    for i in range(which.shape[0]):
        kernels.apply(sims, which[i], params, actions[i])


@njit(cache=True)
def outcome_rows(sims, params, which, seat, result, out) -> None:
    """The outcome of ``seat`` in each game ``which[i]`` into ``out[i]`` (``result``: scratch per seat)."""
    for i in range(which.shape[0]):
        kernels.outcome(sims, which[i], params, result)
        out[i] = result[seat]


# ---------------------------------------------------------------- numba: ISMCTS
@njit(cache=True)
def _new_node(tree_i, tree_f, n_nodes, action, parent, mover) -> int:
    """A fresh node (index returned) under ``parent``, reached by ``mover`` playing ``action``."""
    k = n_nodes[0]
    n_nodes[0] += 1
    tree_i[k, 0] = action
    tree_i[k, 1] = parent
    tree_i[k, 2] = mover
    tree_i[k, 3] = -1  # first child
    tree_i[k, 4] = tree_i[parent, 3] if parent >= 0 else -1  # next sibling
    if parent >= 0:
        tree_i[parent, 3] = k
    tree_f[k, 0] = 0.0  # visits
    tree_f[k, 1] = 1.0  # availability
    tree_f[k, 2] = 0.0  # reward sum, for the mover
    return k


@njit(cache=True, nogil=True)  # releases the GIL: a server thread searching blocks no other
def ismcts_iterations(
    state, b, params, seat, seed, it_lo, it_hi, rollout, c, tree_i, tree_f, n_nodes, sim, slot, ids, result, to_end
) -> int:
    """Iterations ``it_lo .. it_hi - 1`` of one tree (``tree_i[:, 0..4]``: action, parent, mover, first child,
    next sibling; ``tree_f[:, 0..2]``: visits, availability, reward sum; node 0 the root; ``n_nodes[0]``
    nodes used). Stops early when the tree is full; returns the iterations done. ``slot`` (``-1``
    everywhere, size ``num_actions``) is scratch and is left as found."""
    capacity = tree_i.shape[0]
    for it in range(it_lo, it_hi):
        if n_nodes[0] >= capacity:
            return it - it_lo
        rng = stream(seed, it)
        kernels.determinize(state, b, params, seat, rng, sim, 0)
        mark = -1 if to_end else kernels.horizon(sim, 0, params)
        node = 0
        while kernels.status(sim, 0, params) == kernels.RUNNING:
            if mark >= 0 and kernels.horizon(sim, 0, params) != mark:
                break  # past the horizon: rollout_value scores it
            n = kernels.legal_ids(sim, 0, params, ids)
            child = tree_i[node, 3]
            while child >= 0:
                slot[tree_i[child, 0]] = child
                child = tree_i[child, 4]
            untried = 0
            for i in range(n):
                if slot[ids[i]] < 0:
                    untried += 1
            chosen = -1
            if untried > 0:
                k = uniform_index(rng, untried)
                for i in range(n):
                    if slot[ids[i]] < 0:
                        if k == 0:
                            chosen = ids[i]
                            break
                        k -= 1
            else:
                best = -1.0e300
                for i in range(n):
                    ch = slot[ids[i]]
                    tree_f[ch, 1] += 1.0
                    visits = tree_f[ch, 0]
                    score = tree_f[ch, 2] / visits + c * math.sqrt(math.log(tree_f[ch, 1]) / visits)
                    if score > best:
                        best = score
                        chosen = ids[i]
            nxt = slot[chosen]
            child = tree_i[node, 3]
            while child >= 0:
                slot[tree_i[child, 0]] = -1
                child = tree_i[child, 4]
            mover = kernels.to_move(sim, 0, params)
            kernels.apply(sim, 0, params, chosen)
            if nxt < 0:
                node = _new_node(tree_i, tree_f, n_nodes, chosen, node, mover)
                break
            node = nxt
        rollout_value(sim, params, seat, rollout, rng, result, mark)
        while node > 0:
            tree_f[node, 0] += 1.0
            tree_f[node, 2] += result[tree_i[node, 2]]
            node = tree_i[node, 1]
        tree_f[0, 0] += 1.0
    return it_hi - it_lo


@njit(cache=True, parallel=True, nogil=True)
def ismcts_trees_parallel(
    state,
    b,
    params,
    seat,
    seeds,
    it_lo,
    it_hi,
    rollout,
    c,
    trees_i,
    trees_f,
    n_nodes,
    sims,
    slots,
    ids,
    results,
    to_end,
) -> None:
    """:func:`ismcts_iterations` for every tree ``t`` (seed ``seeds[t]``), the trees over the cores."""
    for t in prange(seeds.shape[0]):
        ismcts_iterations(
            state,
            b,
            params,
            seat,
            seeds[t],
            it_lo,
            it_hi,
            rollout,
            c,
            trees_i[t],
            trees_f[t],
            n_nodes[t],
            sims[t : t + 1],
            slots[t],
            ids[t],
            results[t],
            to_end,
        )


# ---------------------------------------------------------------- Python drivers
@dataclass
class SearchResult:
    """A search's choice and what it saw at the root (``actions`` ascending)."""

    action: int
    actions: np.ndarray
    values: np.ndarray  # mean outcome for the seat to act, per candidate
    visits: np.ndarray  # rollouts (PIMC) or root-child visits (ISMCTS), per candidate
    playouts: int
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)


def check_budget(playouts: Any, ms: Any, who: str = "search") -> None:
    """A ``ValueError`` naming the accepted range unless ``playouts`` is None or an integer from 1 to
    :data:`MAX_PLAYOUTS` and ``ms`` None or a finite number in (0, :data:`MAX_MS`]."""
    if playouts is not None and (
        isinstance(playouts, (bool, np.bool_))
        or not isinstance(playouts, (int, np.integer))
        or not 1 <= playouts <= MAX_PLAYOUTS
    ):
        raise ValueError(f"{who}: playouts={playouts!r}; expected an integer from 1 to {MAX_PLAYOUTS:,}")
    if ms is not None and (
        isinstance(ms, (bool, np.bool_))
        or not isinstance(ms, (int, float, np.integer, np.floating))
        or not 0 < ms <= MAX_MS  # False for nan as well
    ):
        raise ValueError(f"{who}: ms={ms!r}; expected a number of milliseconds above 0 and at most {MAX_MS:,.0f}")


def _budget(playouts: int | None, ms: float | None) -> tuple[int, float]:
    """(playout cap, deadline in seconds from now; inf when none)."""
    check_budget(playouts, ms)
    if playouts is None:
        playouts = DEFAULT_PLAYOUTS if ms is None else 1 << 62
    return playouts, math.inf if ms is None else ms / 1000.0


def _legal(state, b, params, num_actions: int) -> np.ndarray:
    ids = np.empty(num_actions, dtype=np.int64)
    return ids[: root_moves(state, b, params, ids)].copy()


def _with_threads(threads: int, fn, *args):
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return fn(*args)
    finally:
        numba.set_num_threads(saved)


def _trivial(moves: np.ndarray, start: float) -> SearchResult:
    if len(moves) == 0:
        raise ValueError("search: the game is over (no legal move)")
    return SearchResult(int(moves[0]), moves, np.zeros(1), np.zeros(1, dtype=np.int64), 0, time.perf_counter() - start)


def pimc(
    state: np.ndarray,
    b: int,
    params: np.ndarray,
    *,
    num_actions: int,
    num_players: int,
    playouts: int | None = None,
    ms: float | None = None,
    seed: int = 0,
    threads: int = 1,
    rollout: int = 0,
    counting: bool = True,
    to_end: bool = False,
    candidates: np.ndarray | None = None,
) -> SearchResult:
    """Determinized Monte Carlo for the seat to act in game ``b`` (module docstring); reads the state only
    through :func:`kernels.determinize`, writes nothing. ``counting=False``: the determinizer forgets the
    cards seen (the game must offer it, :class:`SearchAgent` checks). ``to_end``: rollouts play to the end
    even where the game declares an earlier horizon (:func:`kernels.horizon`). ``candidates``: compare only
    these legal moves (a learned prior's best; a move's values do not depend on which others are compared)."""
    start = time.perf_counter()
    cap, limit = _budget(playouts, ms)
    threads = kernels.check_threads(threads)
    seed_u = seed64(seed, "search")
    moves = _legal(state, b, params, num_actions)
    if candidates is not None:
        chosen = np.unique(np.asarray(candidates, dtype=np.int64))
        if len(chosen) == 0 or not np.isin(chosen, moves).all():
            raise ValueError(f"pimc: candidates {chosen.tolist()} must be legal moves ({moves.tolist()[:20]} ...)")
        moves = chosen
    if len(moves) <= 1:
        return _trivial(moves, start)
    seat = int(seat_to_move(state, b, params))
    n_moves = len(moves)
    deals_cap = max(1, cap // n_moves)
    chunks = max(1, threads)
    dets = np.zeros(chunks, dtype=state.dtype)
    sims = np.zeros(chunks, dtype=state.dtype)
    results = np.zeros((chunks, max(num_players, 1)), dtype=np.float64)
    forget = 0 if counting else kernels.FORGET_SEEN
    blocks: list[np.ndarray] = []
    done = 0
    batch = chunks
    while done < deals_cap:
        hi = min(deals_cap, done + batch)
        values = np.empty((hi - done, n_moves), dtype=np.float64)
        t0 = time.perf_counter()
        if threads > 1:
            _with_threads(
                threads,
                pimc_deals_parallel,
                state,
                b,
                params,
                seat,
                moves,
                seed_u,
                done,
                hi,
                rollout,
                dets,
                sims,
                results,
                values,
                forget,
                to_end,
            )
        else:
            pimc_deals(
                state, b, params, seat, moves, seed_u, done, hi, rollout, dets, sims, results[0], values, forget, to_end
            )
        blocks.append(values)
        spent = time.perf_counter() - t0
        done = hi
        now = time.perf_counter() - start
        if now >= limit:
            break
        if math.isfinite(limit):  # size the next batch to a quarter of the time left
            per_deal = max(spent / max(1, len(values)), 1e-7)
            batch = max(chunks, int((limit - now) / 4 / per_deal))
        else:
            batch = max(batch, min(deals_cap - done, 4 * batch))
    table = np.concatenate(blocks)
    means = table.mean(axis=0)
    best = int(np.argmax(means))  # first maximum: the lowest id among ties (moves are ascending)
    return SearchResult(
        int(moves[best]),
        moves,
        means,
        np.full(n_moves, len(table), dtype=np.int64),
        len(table) * n_moves,
        time.perf_counter() - start,
        {"deals": len(table)},
    )


def _model_values(model: Any, sims, params, which: np.ndarray, observation: tuple[int, Any], num_actions: int):
    """(legal ids ``[k, W]``, the model's Q of each ``[k, W]``, ``-inf`` past a row's count) of the seat to act
    in games ``which`` of ``sims``, the model asked :data:`MODEL_ROWS` rows at a time."""
    size, dtype = observation
    obs = np.zeros((len(which), size), dtype=dtype)
    counts = np.zeros(len(which), dtype=np.int64)
    scratch = np.empty(num_actions, dtype=np.int64)
    observe_to_move(sims, params, which, obs, counts, scratch)
    ids = np.zeros((len(which), max(1, int(counts.max(initial=0)))), dtype=np.int64)
    legal_rows(sims, params, which, ids, scratch)
    q = np.empty(ids.shape, dtype=np.float64)
    for lo in range(0, len(which), MODEL_ROWS):
        hi = lo + MODEL_ROWS
        q[lo:hi] = model.action_values(obs[lo:hi], ids[lo:hi], counts[lo:hi])
    return ids, q


def _learned_deals(state, b, params, seat, moves, seed, lo, hi, *, model, leaf, rollout, observation, num_actions,
                   num_players, det, mix=1.0) -> np.ndarray:  # fmt: skip
    """Deals ``lo .. hi - 1`` of :func:`pimc_learned`: the value for ``seat`` of each move, ``[hi - lo, moves]``."""
    n = (hi - lo) * len(moves)
    sims = np.zeros(n, dtype=state.dtype)
    learned_leaves(state, b, params, seat, moves, seed, lo, hi, rollout, det, sims)
    status = np.empty(n, dtype=np.int64)
    seats = np.empty(n, dtype=np.int64)
    status_and_seat(sims, params, status, seats)
    while rollout < 0:  # the model plays: every seat to the end, or with a leaf the other seats until ours
        running = status == kernels.RUNNING
        which = np.flatnonzero(running & (seats != seat) if leaf else running)
        if len(which) == 0:
            break
        ids, q = _model_values(model, sims, params, which, observation, num_actions)
        apply_rows(sims, params, which, ids[np.arange(len(which)), q.argmax(axis=1)])  # greedy, ties: lowest id
        status_and_seat(sims, params, status, seats)
    values = np.empty(n, dtype=np.float64)
    over = np.flatnonzero(status != kernels.RUNNING)
    ended = np.empty(len(over), dtype=np.float64)
    outcome_rows(sims, params, over, seat, np.zeros(max(num_players, 1)), ended)
    values[over] = ended
    live = np.flatnonzero(status == kernels.RUNNING)  # only with a leaf: the seat is to act
    if len(live):
        values[live] = _model_values(model, sims, params, live, observation, num_actions)[1].max(axis=1)
        if mix < 1.0:
            played = np.empty(len(live), dtype=np.float64)
            result = np.zeros(max(num_players, 1))
            rollout_rows(sims, params, live, len(moves), seat, rollout, seed, lo, result, played)
            values[live] = mix * values[live] + (1.0 - mix) * played
    return values.reshape(hi - lo, len(moves))


def pimc_learned(
    state: np.ndarray,
    b: int,
    params: np.ndarray,
    *,
    num_actions: int,
    num_players: int,
    model: Any,
    observation: tuple[int, Any],
    leaf: bool = True,
    rollout: int = -1,
    playouts: int | None = None,
    ms: float | None = None,
    seed: int = 0,
    mix: float = 1.0,
) -> SearchResult:
    """PIMC guided by a learned model (``model.action_values(obs, ids, counts)``: Q of each row's legal ids,
    the acting seat's expected return after each move; ``observation`` = (size, dtype) of an observation row).
    Deals as :func:`pimc` (stream ``2d`` of ``seed``); on each deal every legal move is applied, then:

    * ``leaf`` and ``rollout >= 0``: the other seats reply with heuristic ``rollout`` (stream ``2d + 1``)
      until the seat is to act again; the move's value is the model's best Q there (its estimate of the
      seat's return), or the outcome if the game ended first (one-ply search with a learned evaluation);
    * ``leaf`` and ``rollout = -1``: the same with the model's greedy moves as the replies;
    * no ``leaf`` (``rollout = -1``): the model's greedy moves for every seat to the end, the outcome.

    ``mix < 1`` (``leaf`` and ``rollout >= 0`` only): a leaf where the seat is to act is worth ``mix`` times the
    model's value plus ``1 - mix`` times the outcome of heuristic ``rollout`` played on from it to the end or
    the game's horizon (:func:`rollout_rows`), as AlphaGo mixed its value network with rollouts.

    The model is asked once per step for every game of a batch of deals. ``playouts`` counts evaluated
    moves (one per legal move a deal), as in :func:`pimc`; ``ms`` as there. Leaf values are the model's
    Q on its training target's scale: the outcome's (win) scale for models trained with ``target: win``.
    Reads the state only through :func:`kernels.determinize`, writes nothing."""
    start = time.perf_counter()
    cap, limit = _budget(playouts, ms)
    if not leaf and rollout >= 0:
        raise ValueError("pimc_learned: with a heuristic rollout and no leaf nothing is learned; call pimc")
    if not 0.0 <= mix <= 1.0:
        raise ValueError(f"pimc_learned: mix={mix!r} must be from 0 to 1 (the weight of the model's value)")
    if mix < 1.0 and (not leaf or rollout < 0):
        raise ValueError("pimc_learned: mix < 1 mixes a leaf value with a heuristic rollout: give leaf and a heuristic")
    seed_u = seed64(seed, "search")
    moves = _legal(state, b, params, num_actions)
    if len(moves) <= 1:
        return _trivial(moves, start)
    seat = int(seat_to_move(state, b, params))
    n_moves = len(moves)
    deals_cap = max(1, cap // n_moves)
    det = np.zeros(1, dtype=state.dtype)
    blocks: list[np.ndarray] = []
    done, batch = 0, 1
    while done < deals_cap:
        hi = min(deals_cap, done + batch)
        t0 = time.perf_counter()
        values = _learned_deals(
            state, b, params, seat, moves, seed_u, done, hi, model=model, leaf=leaf, rollout=rollout,
            observation=observation, num_actions=num_actions, num_players=num_players, det=det, mix=mix,
        )  # fmt: skip
        blocks.append(values)
        spent = time.perf_counter() - t0
        done = hi
        now = time.perf_counter() - start
        if now >= limit:
            break
        if math.isfinite(limit):  # size the next batch to a quarter of the time left
            batch = max(1, int((limit - now) / 4 / max(spent / len(values), 1e-7)))
        else:  # batches grow (a model call costs about the same for 1 row as for 100) up to MODEL_ROWS moves
            batch = min(deals_cap - done, max(2 * batch, MODEL_ROWS // n_moves)) or 1
    table = np.concatenate(blocks)
    means = table.mean(axis=0)
    best = int(np.argmax(means))  # first maximum: the lowest id among ties (moves are ascending)
    return SearchResult(
        int(moves[best]),
        moves,
        means,
        np.full(n_moves, len(table), dtype=np.int64),
        len(table) * n_moves,
        time.perf_counter() - start,
        {"deals": len(table)},
    )


def ismcts(
    state: np.ndarray,
    b: int,
    params: np.ndarray,
    *,
    num_actions: int,
    num_players: int,
    playouts: int | None = None,
    ms: float | None = None,
    seed: int = 0,
    threads: int = 1,
    rollout: int = 0,
    c: float = DEFAULT_C,
    trees: int = 1,
    to_end: bool = False,
) -> SearchResult:
    """Information-set MCTS for the seat to act in game ``b`` (module docstring); reads the state only
    through :func:`kernels.determinize`, writes nothing. ``to_end`` as for :func:`pimc`."""
    start = time.perf_counter()
    cap, limit = _budget(playouts, ms)
    threads = kernels.check_threads(threads)
    seed = int(seed64(seed, "search"))
    if trees < 1:
        raise ValueError(f"trees must be >= 1, got {trees}")
    moves = _legal(state, b, params, num_actions)
    if len(moves) <= 1:
        return _trivial(moves, start)
    seat = int(seat_to_move(state, b, params))
    per_tree = max(1, cap // trees) if cap < (1 << 62) else cap
    capacity = min(per_tree, 1 << 12) + 1
    seeds = np.array([splitmix64(np.uint64((seed + t) % 2**64)) for t in range(trees)], dtype=np.uint64)
    trees_i = np.zeros((trees, capacity, 5), dtype=np.int32)
    trees_f = np.zeros((trees, capacity, 3), dtype=np.float64)
    n_nodes = np.ones((trees, 1), dtype=np.int64)  # node 0: the root
    trees_i[:, 0, :] = -1
    sims = np.zeros(trees, dtype=state.dtype)
    slots = np.full((trees, num_actions), -1, dtype=np.int32)
    ids = np.empty((trees, num_actions), dtype=np.int64)
    results = np.zeros((trees, max(num_players, 1)), dtype=np.float64)
    done = 0
    batch = 8
    while done < per_tree:
        hi = min(per_tree, done + batch)
        need = int(n_nodes.max()) + (hi - done)
        if need > trees_i.shape[1]:  # grow the trees: at most one node per iteration
            grow = max(need, 2 * trees_i.shape[1]) - trees_i.shape[1]
            trees_i = np.concatenate([trees_i, np.zeros((trees, grow, 5), dtype=np.int32)], axis=1)
            trees_f = np.concatenate([trees_f, np.zeros((trees, grow, 3), dtype=np.float64)], axis=1)
        t0 = time.perf_counter()
        if trees > 1 and threads > 1:
            _with_threads(
                threads,
                ismcts_trees_parallel,
                state,
                b,
                params,
                seat,
                seeds,
                done,
                hi,
                rollout,
                c,
                trees_i,
                trees_f,
                n_nodes,
                sims,
                slots,
                ids,
                results,
                to_end,
            )
        else:
            for t in range(trees):
                ismcts_iterations(
                    state,
                    b,
                    params,
                    seat,
                    seeds[t],
                    done,
                    hi,
                    rollout,
                    c,
                    trees_i[t],
                    trees_f[t],
                    n_nodes[t],
                    sims[t : t + 1],
                    slots[t],
                    ids[t],
                    results[t],
                    to_end,
                )
        spent = time.perf_counter() - t0
        n_batch = hi - done
        done = hi
        now = time.perf_counter() - start
        if now >= limit:
            break
        if math.isfinite(limit):
            per_it = max(spent / n_batch, 1e-7)
            batch = max(1, int((limit - now) / 4 / per_it))
        else:
            batch = min(per_tree - done, 4 * batch) or 1
    index = {int(a): i for i, a in enumerate(moves)}
    visits = np.zeros(len(moves), dtype=np.float64)
    rewards = np.zeros(len(moves), dtype=np.float64)
    for t in range(trees):
        child = trees_i[t, 0, 3]
        while child >= 0:
            i = index[int(trees_i[t, child, 0])]
            visits[i] += trees_f[t, child, 0]
            rewards[i] += trees_f[t, child, 2]
            child = trees_i[t, child, 4]
    best = int(np.argmax(visits))
    values = np.divide(rewards, visits, out=np.zeros_like(rewards), where=visits > 0)
    return SearchResult(
        int(moves[best]),
        moves,
        values,
        visits.astype(np.int64),
        done * trees,
        time.perf_counter() - start,
        {"nodes": n_nodes[:, 0].tolist()},
    )


# ---------------------------------------------------------------- the agent
def has_search(env: Any) -> bool:
    """Does the env's game register a determinizer (so ``GAME.pimc`` and ``GAME.ismcts`` play it)?"""
    core = getattr(getattr(env, "unwrapped", env), "CORE", None)
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


def load_model(env: Any, game: str, value: str, who: str = "search", loader: Any = None) -> Any:
    """The learned model a ``rollout`` or ``leaf`` value names: ``dmc`` is the shipped DMC model of ``game``
    (a short name; ``GAME.dmc`` of :func:`cardenvs.agent.shipped_models`), ``KIND:PATH`` a model file of an
    installed agent kind; loaded by :func:`cardenvs.agent.load_agent` (the ``dmc`` kind needs torch, the
    train extra), or by ``loader(name)`` when given (:func:`cardenvs.agent.load_agent` passes itself with
    its ``registered_only`` and ``models_dir``, so a name from the web loads no file outside the models
    folder). It must score moves: ``action_values(observations, ids, counts)``. Errors are ``ValueError``
    saying what is missing."""
    from .agent import load_agent, shipped_models

    name = value
    if value == "dmc":
        name = f"{game}.dmc"
        shipped = shipped_models()
        if name not in shipped:
            raise ValueError(
                f"{who}: no DMC model is shipped for {game} (shipped: {', '.join(shipped) or 'none'}); "
                "name a model file as dmc:PATH"
            )
    try:
        model = loader(name) if loader is not None else load_agent(name, env)
    except ValueError as exc:
        raise ValueError(f"{who}: {value} cannot be loaded: {exc}") from None
    if not callable(getattr(model, "action_values", None)):
        raise ValueError(
            f"{who}: {value} loads {type(model).__name__}, which does not score moves (no action_values method)"
        )
    return model


def game_policies(game: str) -> tuple[str, ...]:
    """The numba heuristics (``POLICIES``) of a game by env id or short name."""
    from .registry import raw_env_class

    return tuple(getattr(getattr(raw_env_class(game), "CORE", None), "POLICIES", ()))


class SearchAgent:
    """A search agent: PIMC or ISMCTS (``method``) for the seat to act, over the env's numba core.

    At ``act`` it reads the env's current state (``env.unwrapped.states`` and ``params``) and hands it to
    :func:`pimc` or :func:`ismcts`, which read the true state only through the game's ``determinize`` for
    the acting seat: every card that seat cannot see is re-dealt before anything looks at it, so the agent
    plays on the acting seat's information alone. Parameters: :data:`PARAMETERS` (a bad one is a
    ``ValueError`` naming the accepted ones with their defaults); ``model_loader`` loads a ``rollout`` or
    ``leaf`` model by name (:func:`load_model`).
    """

    def __init__(self, env: Any, method: str = "pimc", *, model_loader: Any = None, **parameters: Any):
        if method not in METHODS:
            raise ValueError(f"search method {method!r} is unknown; known: {', '.join(METHODS)}")
        base = getattr(env, "unwrapped", env)
        game = str(getattr(base, "metadata", {}).get("name", "?")).rsplit("_v", 1)[0]
        if not has_search(base):
            raise ValueError(f"{game} has no determinizer registered, so no search agent plays it")
        accepted = PARAMETERS[method]
        self.name = f"{game}.{method}"
        policies = tuple(getattr(base.CORE, "POLICIES", ()))
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
        self.model = load_model(base, game, learned[0], self.name, model_loader) if learned else None
        self.prior = load_model(base, game, prior, self.name, model_loader) if prior else None
        self.top = int(top) if top is not None else 0
        self.weight = float(weight)
        self.parameters = values
        self.last: SearchResult | None = None

    def _counting(self, base: Any, game: str, value: Any, learned: bool, hint: str) -> bool:
        """``counting`` as a bool: ``true``/``false`` (any case) or a bool; false needs a determinizer that
        offers it (its module's ``SEARCH_OPTIONS``) and rollouts (not a learned model)."""
        counting = self._flag("counting", value, hint)
        if not counting:
            det = getattr(base, "DETERMINIZE", None)
            module = sys.modules.get(getattr(getattr(det, "py_func", det), "__module__", ""), None)
            if "counting" not in getattr(module, "SEARCH_OPTIONS", ()):
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
        options = dict(self.parameters)
        options["seed"] = seed
        if self.model is not None:
            return pimc_learned(
                base.states,
                0,
                base.params,
                num_actions=int(base.num_actions),
                num_players=int(base.num_players),
                model=self.model,
                observation=(int(base.layout.size), base.layout.dtype),
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
            base.states,
            0,
            base.params,
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
        observation = (int(base.layout.size), base.layout.dtype)
        game = np.zeros(1, np.int64)
        ids, q = _model_values(self.prior, base.states, base.params, game, observation, int(base.num_actions))
        n = int(np.isfinite(q[0]).sum())
        order = np.argsort(-q[0, :n], kind="stable")[: self.top]
        keep = np.sort(order)  # legal ids are ascending, so are the kept ones
        return ids[0, keep], q[0, keep]

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        draw = np.uint64(rng.integers(0, 2**63, dtype=np.int64))
        seed = int(splitmix64(self.seed ^ draw) >> np.uint64(1))
        self.last = self.search(seed)
        action = self.last.action
        if not observation["action_mask"][action]:
            raise RuntimeError(f"{self.name} chose {action}, which the observation's mask does not allow")
        return action
