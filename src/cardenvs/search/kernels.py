"""The search's numba kernels: determinizing, rolling out, PIMC's deals (plain and with a learned model's
leaves) and ISMCTS's iterations, over the generic kernels of :mod:`cardenvs.core.kernels` (the game's
``determinize``, ``policy``, ``legal_ids``, ``apply``, ``status``, ``outcome``). They compile once per state
dtype (cached); the drivers of :mod:`cardenvs.search.drivers` call them."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..core import kernels
from ..core.rng import splitmix64, stream, uniform_index


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
#: an option bit of PIMC's ``forget`` word, the search's own (never handed to a determinizer): no
#: determinization, every deal is the true state (``GAME.pimc(oracle=true)``, the cheating player of the skill
#: analysis's relative skill, :mod:`cardenvs.analysis.skill`)
ORACLE = 1 << 16


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
    """Deal ``d``: one determinization (with the :data:`ORACLE` bit of ``forget``: the true state, copied), then
    every move of ``moves`` rolled out on it with the same stream, to the game's horizon
    (:func:`kernels.horizon`) unless ``to_end``."""
    if forget & ORACLE:
        det[0] = state[b]
    else:
        kernels.determinize(state, b, params, seat, _determinizer_stream(seed, 2 * d, forget), det, 0)
    mark = -1 if to_end else kernels.horizon(det, 0, params)
    for i in range(moves.shape[0]):
        sim[0] = det[0]
        kernels.apply(sim, 0, params, moves[i])
        values_row[i] = rollout_value(sim, params, seat, rollout, stream(seed, 2 * d + 1), result, mark)


def _pimc_chunks(
    state, b, params, seat, moves, seed, d_lo, d_hi, rollout, dets, sims, results, values, forget, to_end
) -> None:
    """Deals ``d_lo .. d_hi - 1``: the outcome for ``seat`` of each move into ``values[d - d_lo]``, the deals
    spread over ``dets.shape[0]`` chunks (each with its own buffers)."""
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


#: :func:`_pimc_chunks` on one thread (releasing the GIL: a server thread searching blocks no other) and on
#: the cores
pimc_deals, pimc_deals_parallel = kernels.serial_and_parallel(_pimc_chunks, "pimc_deals", nogil=True)


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


@njit(cache=True)
def score_rows(sims, params, which, out) -> None:
    """Every seat's score (:func:`kernels.scores`) in each game ``which[i]`` into ``out[i]`` (``[k, players]``)."""
    for i in range(which.shape[0]):
        kernels.scores(sims, which[i], params, out[i])


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


def _ismcts_trees(
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
    """:func:`ismcts_iterations` for every tree ``t`` (seed ``seeds[t]``)."""
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


#: :func:`_ismcts_trees` on one thread (releasing the GIL) and with the trees over the cores
ismcts_trees, ismcts_trees_parallel = kernels.serial_and_parallel(_ismcts_trees, "ismcts_trees", nogil=True)
