"""The searches in Python: :func:`pimc`, :func:`pimc_learned` and :func:`ismcts` size the batches of the
numba kernels (:mod:`cardenvs.search.kernels`) to a playout budget or a time limit and read the root's values
into a :class:`SearchResult` (the algorithms: :mod:`cardenvs.search`)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ..core import kernels
from ..core.rng import splitmix64
from ..core.seeds import seed64
from .kernels import (
    ORACLE,
    apply_rows,
    ismcts_trees,
    ismcts_trees_parallel,
    learned_leaves,
    legal_rows,
    observe_to_move,
    outcome_rows,
    pimc_deals,
    pimc_deals_parallel,
    rollout_rows,
    root_moves,
    score_rows,
    seat_to_move,
    status_and_seat,
)

DEFAULT_PLAYOUTS = 1000
#: the largest budgets a search accepts: ten million playouts, ten minutes a move (beyond them a search
#: would look hung; a non-finite ``ms`` would never return)
MAX_PLAYOUTS = 10_000_000
MAX_MS = 600_000.0
DEFAULT_C = 0.7
#: rows (positions) per call of a learned model in :func:`pimc_learned`: bounds its memory
MODEL_ROWS = 1024


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


def _next_batch(start: float, t0: float, limit: float, count: int, least: int, grown: int) -> int:
    """The size of a search's next batch, 0 to stop: its time limit (seconds since ``start``) is reached; else,
    with a limit, a quarter of the time left at the pace of the last batch (``count`` items since ``t0``), at
    least ``least``; without one, ``grown``."""
    spent = time.perf_counter() - t0
    now = time.perf_counter() - start
    if now >= limit:
        return 0
    if math.isfinite(limit):
        return max(least, int((limit - now) / 4 / max(spent / count, 1e-7)))
    return grown


def _best_mean(blocks: list[np.ndarray], moves: np.ndarray, start: float) -> SearchResult:
    """The move with the best mean value over the deals (``blocks`` of ``[deals, moves]``); the first maximum,
    the lowest id among ties (moves are ascending)."""
    table = np.concatenate(blocks)
    means = table.mean(axis=0)
    n_moves, deals = len(moves), len(table)
    return SearchResult(
        int(moves[int(np.argmax(means))]),
        moves,
        means,
        np.full(n_moves, deals, dtype=np.int64),
        deals * n_moves,
        time.perf_counter() - start,
        {"deals": deals},
    )


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
    oracle: bool = False,
) -> SearchResult:
    """Determinized Monte Carlo for the seat to act in game ``b`` (module docstring); reads the state only
    through :func:`kernels.determinize`, writes nothing. ``counting=False``: the determinizer forgets the
    cards seen (the game must offer it, :class:`SearchAgent` checks). ``oracle=True`` CHEATS: no
    determinization, every deal is the true state (every hidden card and every later draw seen; the
    rollouts still vary), a perfect-information Monte Carlo search for the skill analysis's all-seeing
    player (:mod:`cardenvs.analysis.skill`). ``to_end``: rollouts play to the end
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
    forget = (0 if counting else kernels.FORGET_SEEN) | (ORACLE if oracle else 0)
    blocks: list[np.ndarray] = []
    done = 0
    batch = chunks
    while done < deals_cap:
        hi = min(deals_cap, done + batch)
        values = np.empty((hi - done, n_moves), dtype=np.float64)
        t0 = time.perf_counter()
        args = (state, b, params, seat, moves, seed_u, done, hi, rollout, dets, sims, results, values, forget, to_end)
        if threads > 1:
            _with_threads(threads, pimc_deals_parallel, *args)
        else:
            pimc_deals(*args)
        blocks.append(values)
        done, batch = hi, _next_batch(start, t0, limit, len(values), chunks, max(batch, min(deals_cap - hi, 4 * batch)))
        if not batch:
            break
    return _best_mean(blocks, moves, start)


def model_action_values(model: Any, sims, params, which: np.ndarray, observation: tuple[int, Any], num_actions: int):
    """(legal ids ``[k, W]``, the model's Q of each ``[k, W]``, ``-inf`` past a row's count) of the seat to act
    in games ``which`` of ``sims``, the model asked :data:`MODEL_ROWS` rows at a time. A model that computes
    features from the game's state (``reads_state`` true: a DMC model with ``features: danzero``) is also given
    ``state=sims`` and ``games`` (the rows' indices into it, each row observed by its game's seat to move);
    the others are asked with the observations alone."""
    size, dtype = observation
    obs = np.zeros((len(which), size), dtype=dtype)
    counts = np.zeros(len(which), dtype=np.int64)
    scratch = np.empty(num_actions, dtype=np.int64)
    observe_to_move(sims, params, which, obs, counts, scratch)
    ids = np.zeros((len(which), max(1, int(counts.max(initial=0)))), dtype=np.int64)
    legal_rows(sims, params, which, ids, scratch)
    q = np.empty(ids.shape, dtype=np.float64)
    reads_state = bool(getattr(model, "reads_state", False))
    for lo in range(0, len(which), MODEL_ROWS):
        hi = lo + MODEL_ROWS
        if reads_state:
            q[lo:hi] = model.action_values(obs[lo:hi], ids[lo:hi], counts[lo:hi], state=sims, games=which[lo:hi])
        else:
            q[lo:hi] = model.action_values(obs[lo:hi], ids[lo:hi], counts[lo:hi])
    return ids, q


def _points_since(state, b, sims, params, over, num_players) -> np.ndarray:
    """Each seat's score gained (:func:`kernels.scores`) from game ``b`` of ``state`` to each game ``over`` of
    the deals ``sims``, ``[len(over), players]``."""
    players = max(num_players, 1)
    root, end = np.zeros((1, players)), np.zeros((len(over), players))
    score_rows(state, params, np.array([b], dtype=np.int64), root)
    score_rows(sims, params, over, end)
    return end - root


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
        ids, q = model_action_values(model, sims, params, which, observation, num_actions)
        apply_rows(sims, params, which, ids[np.arange(len(which)), q.argmax(axis=1)])  # greedy, ties: lowest id
        status_and_seat(sims, params, status, seats)
    values = np.empty(n, dtype=np.float64)
    over = np.flatnonzero(status != kernels.RUNNING)
    ended = np.empty(len(over), dtype=np.float64)
    outcome_rows(sims, params, over, seat, np.zeros(max(num_players, 1)), ended)
    end_values = getattr(model, "end_values", None)
    if end_values is not None and len(over):  # the ends on the model's scale, as its leaves are
        ended = end_values(ended, _points_since(state, b, sims, params, over, num_players), seat)
    values[over] = ended
    live = np.flatnonzero(status == kernels.RUNNING)  # only with a leaf: the seat is to act
    if len(live):
        values[live] = model_action_values(model, sims, params, live, observation, num_actions)[1].max(axis=1)
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
    the acting seat's expected return after each move; ``observation`` = (size, dtype) of an observation row;
    a model with ``reads_state`` also gets the deals' states, :func:`model_action_values`).
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
    Q on its training target's scale: the outcome's (win) scale for models trained with ``target: win``. A deal
    that ends is worth its outcome, or, for a model with ``end_values(outcomes, points, seat)``, what that
    returns from the outcomes and every seat's score gained since the root (``[k, players]``): the end on the
    model's scale (a DMC model trained on ``win_points``: the win plus a third of a Guandan hand's levels, in
    [-2, 2], where the outcome alone would make a won hand worth less than the model's value of winning it).
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
        # without a time limit batches grow (a model call costs about the same for 1 row as for 100) up to
        # MODEL_ROWS moves
        grown = min(deals_cap - hi, max(2 * batch, MODEL_ROWS // n_moves)) or 1
        done, batch = hi, _next_batch(start, t0, limit, len(values), 1, grown)
        if not batch:
            break
    return _best_mean(blocks, moves, start)


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
        buffers = (trees_i, trees_f, n_nodes, sims, slots, ids, results)  # indexed by tree
        args = (state, b, params, seat, seeds, done, hi, rollout, c, *buffers, to_end)
        if trees > 1 and threads > 1:
            _with_threads(threads, ismcts_trees_parallel, *args)
        else:
            ismcts_trees(*args)
        done, batch = hi, _next_batch(start, t0, limit, hi - done, 1, min(per_tree - hi, 4 * batch) or 1)
        if not batch:
            break
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
