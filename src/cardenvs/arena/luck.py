"""Luck-adjusted estimates (``cardenvs arena --luck-adjusted``): control variates in the manner of AIVAT (Burch et
al., AAAI 2018), unbiased by construction, beside every plain win rate, mean score and head-to-head score margin.

**The value function.** A game declares one of its numba policies as ``luck_value`` in its spec
(:class:`cardenvs.core.spec.GameSpec`): ``f(position)`` is each seat's result when that policy plays every seat
from the position to the end (one rollout, its draws from the ``luck_rollouts`` stream of
:mod:`cardenvs.core.seeds`, so independent of the game played). Two scales: the win indicator (the seat's
outcome is positive) for win rates and the score for mean scores and margins. Any function of the position
keeps the estimator unbiased; a good one (close to what the agents will score from there) removes much luck.

**The terms.** For a seat's result ``r`` (its win indicator or score in one game), the adjusted result is
``r - beta * (X - C)``, where ``X`` sums the terms below and ``C`` is the deal term's mean:

* *The deal*: ``f(after the deal)`` for the seat, with mean ``E[f | seat, reset options]`` over the game's
  dealing. The arena estimates that mean on ``reference`` deals of their own seed stream (``luck_reference``),
  dealt with the same reset options, independent of the games played; its sampling error enters the interval.
  The state after the reset holds every card the game will deal (later draws come from the deck shuffled at
  the reset), so this one term covers the draws too, with ``f`` reading the position after the reset.
* *Decisions of agents whose action distribution the arena knows*: ``random`` (uniform over the legal moves)
  and any agent with ``action_probabilities(observation)`` (probabilities over the action ids): at each of its
  decisions in state ``s``, ``f(s, a_taken) - sum_a pi(a | s) f(s, a)``, every legal move's ``f`` rolled out
  from the same stream. Its mean given ``s`` is zero whatever ``f``. A deterministic agent (a greedy model, a
  heuristic that does not draw) would add ``f(s, a) - f(s, a) = 0``, and an agent whose distribution the arena
  cannot query (search, programs, a heuristic that draws on ties) gets no term; leaving a term out keeps the
  mean. These terms need the state at each decision: they are recorded by the aec engine, which a table with
  such an agent is played on.

**Why the mean is unchanged.** Each term has conditional mean zero given what came before it, so ``X - C``
has mean zero whatever ``f``. ``beta`` (one per estimate: agent and scale, or pair) scales the terms to the
agents actually playing: it is fitted by cross-fitting over the units (``cov(r, X) / var(X)`` on the units of
the other half, units split by their order: deals are independent, so a unit's ``beta`` is independent of
its own ``X`` and ``E[beta (X - C)] = E[beta] E[X - C] = 0``).

**Intervals.** Over the same units as the plain numbers (duplicate sets, or games), the same normal interval
(:func:`cardenvs.arena.results.mean_ci`), the units' variance with the fitted slopes counted out of its
degrees of freedom, plus the variance of the estimated ``C``. ``variance_ratio`` is the
plain estimate's variance over the adjusted one's (both of the mean, so deals needed for a width scale by
it). A value function that does not follow the agents' results can make the adjusted variance larger: the
ratio is then below 1 and reported as it is; the arena never swaps one estimator for the other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
from numba import njit

from ..agent.base import RandomAgent
from ..core import kernels, seeds
from ..core.env import legal_actions
from ..core.rng import stream
from ..registry import make, spec_of
from .records import GameRecord, game_seed, seatings

#: reference deals per deal played, by default
REFERENCE_PER_DEAL = 10
#: the normal quantile of a two-sided 95% interval (the plain intervals' too)
Z95 = NormalDist().inv_cdf(0.975)


# ---------------------------------------------------------------- numba: rollouts
@njit(cache=True)
def _roll(sim, params, policy, rng, outcome, scores) -> None:
    """Play game 0 of ``sim`` (in place) to its end with heuristic ``policy`` in every seat; its outcome and
    scores into ``outcome`` and ``scores``."""
    while kernels.status(sim, 0, params) == kernels.RUNNING:
        kernels.apply(sim, 0, params, kernels.policy(sim, 0, params, policy, rng))
    kernels.outcome(sim, 0, params, outcome)
    kernels.scores(sim, 0, params, scores)


@njit(cache=True)
def position_values(state, b, params, policy, seed, wins, scores, outcome) -> None:
    """``f`` of game ``b``: each seat's win indicator, score and outcome (win scale) after a rollout of
    ``policy`` from its position (a copy), with stream 0 of ``seed``, into ``wins``, ``scores`` and ``outcome``."""
    sim = np.zeros(1, dtype=state.dtype)
    sim[0] = state[b]
    _roll(sim, params, policy, stream(seed, 0), outcome, scores)
    for s in range(wins.shape[0]):
        wins[s] = 1.0 if outcome[s] > 0 else 0.0


@njit(cache=True)
def move_values(state, b, params, ids, policy, seed, wins, scores) -> None:
    """``f`` after each move ``ids[i]`` of game ``b``: rows ``i`` of ``wins`` and ``scores`` (every move rolled out
    with stream 0 of ``seed``, common numbers)."""
    sim = np.zeros(1, dtype=state.dtype)
    outcome = np.zeros(wins.shape[1], dtype=np.float64)
    for i in range(ids.shape[0]):
        sim[0] = state[b]
        kernels.apply(sim, 0, params, ids[i])
        _roll(sim, params, policy, stream(seed, 0), outcome, scores[i])
        for s in range(wins.shape[1]):
            wins[i, s] = 1.0 if outcome[s] > 0 else 0.0


# ---------------------------------------------------------------- checks and settings
def check(env_id: str, probe: Any, reference: Any, games: int, deal_file: bool) -> dict:
    """The settings of a luck-adjusted tournament (``{"policy", "policy_index", "reference"}``), or a
    ``ValueError`` saying why it cannot be one."""
    spec = spec_of(env_id)
    if probe.numba_core() is None:
        raise ValueError(f"luck_adjusted: {env_id} has no numba core, which the value function's rollouts need")
    policy = spec.luck_value
    if policy is None:
        raise ValueError(f"luck_adjusted: {env_id} declares no value function (its spec's luck_value)")
    names = list(probe.policy_names())
    if policy not in names:
        raise ValueError(f"luck_adjusted: {env_id}'s luck_value {policy!r} is not one of its policies {names}")
    if deal_file:
        raise ValueError(
            "luck_adjusted: the deals of a deal file are not drawn from the game's dealing, so the deal term's "
            "mean (over seeded reference deals) does not hold for them; play seeded deals"
        )
    if reference is None:
        reference = REFERENCE_PER_DEAL * games
    if isinstance(reference, (bool, np.bool_)) or not isinstance(reference, (int, np.integer)) or reference < 2:
        raise ValueError(f"luck_reference must be an integer >= 2 (reference deals), got {reference!r}")
    return {"policy": policy, "policy_index": names.index(policy), "reference": int(reference)}


def knows_distribution(agent: Any) -> bool:
    """Whether the arena can query ``agent``'s action distribution (a decision term at its moves)."""
    return isinstance(agent, RandomAgent) or callable(getattr(agent, "action_probabilities", None))


def distribution(agent: Any, observation: dict) -> tuple[np.ndarray, np.ndarray]:
    """The legal ids and their probabilities under ``agent`` (:func:`knows_distribution`)."""
    legal = legal_actions(observation)
    if isinstance(agent, RandomAgent):
        return legal, np.full(len(legal), 1.0 / len(legal))
    probs = np.asarray(agent.action_probabilities(observation), dtype=np.float64)
    return legal, probs[legal]


# ---------------------------------------------------------------- recording
class DecisionTerms:
    """The decision terms of one game on the aec engine: :meth:`decision` at each move of an agent whose
    distribution is known adds ``f(s, a) - sum_a pi(a) f(s, a)`` to every seat's sums."""

    def __init__(self, policy_index: int, players: int, seed: int):
        self.policy = policy_index
        self.seed = seed
        self.wins = np.zeros(players)
        self.scores = np.zeros(players)
        self.count = 0

    def decision(self, base: Any, agent: Any, observation: dict, action: int) -> None:
        if not knows_distribution(agent):
            return
        ids, probs = distribution(agent, observation)
        keep = probs > 0
        ids, probs = ids[keep].astype(np.int64), probs[keep]
        self.count += 1
        if len(ids) < 2:
            return
        _, states, params, _ = base.core_state()
        players = len(self.wins)
        wins, scores = np.zeros((len(ids), players)), np.zeros((len(ids), players))
        word = np.uint64(seeds.seed_from(self.seed, self.count, stream="luck_rollouts"))
        move_values(states, 0, params, ids, self.policy, word, wins, scores)
        taken = int(np.flatnonzero(ids == action)[0])
        self.wins += wins[taken] - probs @ wins
        self.scores += scores[taken] - probs @ scores


def options_index(replay: int, players: int, duplicate: bool) -> int:
    """Which of the duplicate mode's reset options game ``replay`` of a deal was dealt with."""
    return replay // len(seatings(players, duplicate)) if duplicate else 0


def deal_values(base: Any, policy: int, seed: int, reset_seed: int, reset_options: dict, keys: tuple) -> np.ndarray:
    """``f`` after the deal of ``reset_seed`` with ``reset_options``: ``[3, players]`` (win indicators, scores,
    outcomes)."""
    base.reset(seed=reset_seed, options=reset_options or None)
    _, states, params, _ = base.core_state()
    n = base.num_players
    out = np.zeros((3, n))
    word = np.uint64(seeds.seed_from(seed, *keys, stream="luck_rollouts"))
    position_values(states, 0, params, policy, word, out[0], out[1], out[2])
    return out


def annotate(
    records: Sequence[GameRecord],
    env_id: str,
    options: dict,
    seed: int,
    duplicate: bool,
    role_phase: bool,
    settings: dict,
    terms: dict[tuple[int, int], DecisionTerms] | None = None,
) -> None:
    """Give each record of a job its ``luck`` (the deal's ``f`` per seat and its decision terms' sums)."""
    base = make(env_id, **options).unwrapped
    extra = base.duplicate_reset_options(phase=role_phase) if duplicate else [{}]
    n = base.num_players
    cache: dict[tuple[int, int], np.ndarray] = {}
    for r in records:
        o = options_index(r.replay, n, duplicate)
        if (r.deal, o) not in cache:
            cache[r.deal, o] = deal_values(
                base, settings["policy_index"], seed, game_seed(seed, r.deal), extra[o], (r.deal, o, 0)
            )
        values = cache[r.deal, o]
        played = (terms or {}).get((r.deal, r.replay))
        r.luck = {
            "options": o,
            "deal_win": values[0].tolist(),
            "deal_score": values[1].tolist(),
            "deal_outcome": values[2].tolist(),
            "play_win": played.wins.tolist() if played is not None else [0.0] * n,
            "play_score": played.scores.tolist() if played is not None else [0.0] * n,
        }


def reference(env_id: str, options: dict, seed: int, duplicate: bool, role_phase: bool, settings: dict) -> dict:
    """The deal term's means: ``f`` after ``settings["reference"]`` deals of the ``luck_reference`` stream, per
    reset option of the duplicate mode; per scale (``win``, ``score``) the mean and covariance of the columns
    ``(option, seat)``, and ``beat``: the mean of :func:`beat` of each ordered pair of seats, columns
    ``(option, seat, other seat)``."""
    base = make(env_id, **options).unwrapped
    extra = base.duplicate_reset_options(phase=role_phase) if duplicate else [{}]
    count = settings["reference"]
    n = base.num_players
    rows = np.zeros((count, 2, len(extra) * n))
    beats = np.zeros((count, len(extra) * n * n))
    for m in range(count):
        reset_seed = seeds.seed_from(seed, m, stream="luck_reference")
        for o, reset_options in enumerate(extra):
            values = deal_values(base, settings["policy_index"], seed, reset_seed, reset_options, (m, o, 1))
            rows[m, :, o * n : (o + 1) * n] = values[:2]
            for i in range(n):
                for j in range(n):
                    beats[m, (o * n + i) * n + j] = beat(values[2][i], values[2][j])
    out: dict[str, Any] = {"policy": settings["policy"], "deals": count, "players": n}
    for k, scale in enumerate(("win", "score")):
        out[scale] = {
            "mean": rows[:, k].mean(axis=0).tolist(),
            "cov": np.cov(rows[:, k].T, ddof=1).reshape(rows.shape[2], rows.shape[2]).tolist(),
        }
    out["beat"] = {"mean": beats.mean(axis=0).tolist()}
    return out


def beat(mine: float, other: float) -> float:
    """1 when ``mine`` is ahead of ``other`` (outcomes on the win scale), 1/2 when level, else 0: the pair
    counts of :mod:`cardenvs.analysis.grading`."""
    return 1.0 if mine > other else 0.5 if mine == other else 0.0


# ---------------------------------------------------------------- estimates
def estimate(
    y: np.ndarray, x: np.ndarray, weights: np.ndarray, ref: dict, deals: int, rate: bool = False
) -> dict[str, float]:
    """The adjusted mean of unit results ``y`` with terms ``x`` (``[units, 2]``: the deal's ``f``, the decision
    terms' sum) and the deal term's column weights ``weights`` (``[units, columns]``: what each column's mean adds
    to a unit's ``C``) against reference ``ref`` (one scale of :func:`reference`, over ``deals`` reference
    deals): ``{"mean", "low", "high", "variance_ratio"}`` (module doc). Each kind of term has its own ``beta``,
    fitted on the other half of the units by least squares; the units' variance counts the fitted slopes out of
    its degrees of freedom."""
    n = len(y)
    nan = {"mean": math.nan, "low": math.nan, "high": math.nan, "variance_ratio": math.nan}
    if n == 0:
        return nan
    mean_c = np.asarray(ref["mean"])
    cov_c = np.asarray(ref["cov"])
    fold = np.arange(n) % 2
    beta = np.zeros((n, x.shape[1]))
    for f in (0, 1):
        beta[fold == f] = fit_slopes(y[fold != f], x[fold != f])
    centred = x.copy()
    centred[:, 0] -= weights @ mean_c
    adjusted = y - (beta * centred).sum(axis=1)
    m = float(adjusted.mean())
    if n < 2:
        return {**nan, "mean": m}
    lam = (beta[:, :1] * weights).mean(axis=0)
    var_plain = float(np.var(y, ddof=1)) / n
    # the slopes are fitted: count them out of the units' degrees of freedom, as a regression's residual
    # variance does (without it the intervals covered a known truth 91.5% of the time at 20 units)
    fitted = int((np.abs(beta).max(axis=0) > 0).sum())
    inflate = (n - 1) / max(1, n - 1 - fitted)
    var_adjusted = float(np.var(adjusted, ddof=1)) * inflate / n + float(lam @ cov_c @ lam) / deals
    half = Z95 * math.sqrt(var_adjusted)
    low, high = m - half, m + half
    if rate:
        low, high = max(0.0, low), min(1.0, high)
    ratio = var_plain / var_adjusted if var_adjusted > 0 else math.nan
    return {"mean": m, "low": low, "high": high, "variance_ratio": ratio}


def fit_slopes(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Least-squares slopes of ``y`` on the columns of ``x`` (with an intercept); 0 for a column that does not
    vary, and all 0 with fewer units than columns + 1."""
    beta = np.zeros(x.shape[1])
    varies = np.flatnonzero(x.std(axis=0) > 1e-12) if len(y) else np.zeros(0, dtype=np.int64)
    if len(varies) == 0 or len(y) < len(varies) + 1:
        return beta
    design = x[:, varies] - x[:, varies].mean(axis=0)
    beta[varies] = np.linalg.lstsq(design, y - y.mean(), rcond=None)[0]
    return beta


def adjusted_stats(results: Any) -> tuple[dict[str, dict], dict[str, dict[str, dict]]]:
    """Per agent ``{"win_rate": estimate, "mean_score": estimate}`` and per ordered pair at a table
    ``{"score_margin": estimate}`` of a luck-adjusted tournament's :class:`~cardenvs.arena.results.Results`."""
    ref = results.luck
    n = ref["players"]
    columns = len(ref["win"]["mean"])
    units = [games for _, games in sorted(results._units().items())]
    agents: dict[str, dict] = {}
    for label in results.agents:
        rows: dict[str, list] = {"win": [], "score": []}
        for games in units:
            seats = [(r, s) for r in games for s, who in enumerate(r.seats) if who == label]
            if not seats:
                continue
            for scale in ("win", "score"):
                y = [(1.0 if r.outcome[s] > 0 else 0.0) if scale == "win" else r.scores[s] for r, s in seats]
                x = [(r.luck[f"deal_{scale}"][s], r.luck[f"play_{scale}"][s]) for r, s in seats]
                w = np.zeros(columns)
                for r, s in seats:
                    w[r.luck["options"] * n + s] += 1.0 / len(seats)
                rows[scale].append((np.mean(y), np.mean(x, axis=0), w))
        agents[label] = {
            name: estimate(*_arrays(rows[scale], columns), ref[scale], ref["deals"], rate=scale == "win")
            for name, scale in (("win_rate", "win"), ("mean_score", "score"))
        }
    pairs: dict[str, dict[str, dict]] = {}
    for a in results.agents:
        pairs[a] = {}
        for b in results.agents:
            if a == b:
                continue
            found = []
            for games in units:
                both = [r for r in games if a in r.seats and b in r.seats]
                if not both:
                    continue
                w = np.zeros(columns)
                y, x = [], []
                for r in both:
                    ia, ib = r.seats.index(a), r.seats.index(b)
                    y.append(r.scores[ia] - r.scores[ib])
                    luck = r.luck
                    x.append(
                        (
                            luck["deal_score"][ia] - luck["deal_score"][ib],
                            luck["play_score"][ia] - luck["play_score"][ib],
                        )
                    )
                    w[luck["options"] * n + ia] += 1.0 / len(both)
                    w[luck["options"] * n + ib] -= 1.0 / len(both)
                found.append((np.mean(y), np.mean(x, axis=0), w))
            if found:
                pairs[a][b] = {"score_margin": estimate(*_arrays(found, columns), ref["score"], ref["deals"])}
    return agents, pairs


def _arrays(rows: list, columns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not rows:
        return np.zeros(0), np.zeros((0, 2)), np.zeros((0, columns))
    return (
        np.array([r[0] for r in rows], dtype=np.float64),
        np.vstack([r[1] for r in rows]).astype(np.float64),
        np.vstack([r[2] for r in rows]),
    )


def report_lines(results: Any) -> list[str]:
    """The report's luck-adjusted section: per agent its win rate and mean score, plain and adjusted with 95%
    intervals and the variance ratio; per pair the score margin likewise."""
    agents, pairs = adjusted_stats(results)
    stats, h2h = results.stats(), results.head_to_head()
    ref = results.luck
    lines = [
        f"luck-adjusted (value function: {ref['policy']} self-play rollouts; deal term's mean over {ref['deals']} "
        "reference deals; variance ratio = plain variance / adjusted, >1 means fewer deals for the same width):",
        f"  {'agent':26s} {'win rate':>8s} {'adjusted [95% CI]':>24s} {'variance ratio':>14s} "
        f"{'mean score':>10s} {'adjusted [95% CI]':>30s} {'variance ratio':>14s}",
    ]
    for label, adjusted in agents.items():
        w, s = adjusted["win_rate"], adjusted["mean_score"]
        lines.append(
            f"  {label:26s} {stats[label]['win_rate']:8.3f} {w['mean']:8.3f} [{w['low']:6.3f},{w['high']:6.3f}] "
            f"{w['variance_ratio']:14.2f} {stats[label]['mean_score']:10.2f} {s['mean']:10.2f} "
            f"[{s['low']:8.2f},{s['high']:8.2f}] {s['variance_ratio']:14.2f}"
        )
    lines.append(
        f"  {'score margin (row - column)':40s} {'plain':>8s} {'adjusted [95% CI]':>30s} {'variance ratio':>14s}"
    )
    for a, row in pairs.items():
        for b, adjusted in row.items():
            m = adjusted["score_margin"]
            lines.append(
                f"  {(a + ' - ' + b)[:40]:40s} {h2h[a][b]['score_margin']:8.2f} {m['mean']:10.2f} "
                f"[{m['low']:8.2f},{m['high']:8.2f}] {m['variance_ratio']:14.2f}"
            )
    return lines
