"""Luck-adjusted estimates (``cardenvs arena --luck-adjusted``): control variates in the manner of AIVAT (Burch et
al., AAAI 2018), unbiased by construction, beside every plain win rate, mean score and head-to-head score margin.

**The value function** (:mod:`.values`): ``f(position)`` is each seat's result when one player plays every
seat from the position to the end: a numba policy of the game (one rollout, its draws from the
``luck_rollouts`` stream of :mod:`cardenvs.core.seeds`, so independent of the game played) or a learned
model's greedy moves. The game declares one in its spec (``luck_value``); ``luck_value=`` (``--luck-value``)
names another. Two scales: the win indicator (the seat's outcome is positive) for win rates and the score
for mean scores and margins. Any function of the position keeps the estimator unbiased; a good one (close
to what the agents will score from there) removes much luck.

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
  from the same stream. Its mean given ``s`` is zero whatever ``f``.
* *Decisions of agents whose distribution the arena samples*: an agent that declares ``stateless`` (its move
  depends on the position and its generator alone, as a search's does) is asked again ``samples`` times at
  the same position with independent generators (stream ``luck_samples``), and the term is
  ``f(s, a_taken) - mean_j f(s, a_j)``: the resampled moves are draws of the same distribution as the taken
  one and independent of it, so the term's mean given ``s`` is zero too (the sampled frequencies are an
  unbiased estimate of ``pi``). Each resample costs one more decision of the agent.

  The rollouts after a move seat the table's own players where the arena knows them (:func:`rollout_seats`:
  random, the game's numba policies; the value function's player elsewhere) and are averaged over
  ``rollouts`` repeats where they seat random play. Any such ``f`` keeps the mean: it is a function of the
  position and of random numbers of its own. The deal term keeps the value function's own self-play (its mean
  comes from reference deals, which with the table's players would be more games of the agents themselves).

  A deterministic agent (a greedy model, a heuristic that does not draw) would add ``f(s, a) - f(s, a) = 0``,
  and an agent whose distribution the arena can neither query nor sample (programs, which keep state) gets
  no term; leaving a term out keeps the mean. These terms need the state at each decision: they are
  recorded by the aec engine, which a table with such an agent is played on.

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

import json
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from ..agent.base import PolicyAgent, RandomAgent
from ..core import seeds
from ..core.env import legal_actions
from ..registry import make, spec_of
from ..search.kernels import apply_rows
from .records import GameRecord, game_seed, seatings
from .values import ModelValue, PolicyValue, load_value

#: reference deals per deal played, by default
REFERENCE_PER_DEAL = 10
#: resamples per decision of an agent whose distribution is sampled, by default
SAMPLES = 4
#: rollouts averaged per move in a decision term whose rollouts seat random play, by default
ROLLOUTS = 16
#: positions the value function is asked for at once
CHUNK = 512
#: the normal quantile of a two-sided 95% interval (the plain intervals' too)
Z95 = NormalDist().inv_cdf(0.975)


# ---------------------------------------------------------------- checks and settings
def check(
    env_id: str,
    probe: Any,
    reference: Any,
    games: int,
    deal_file: bool,
    value: str | None = None,
    samples: Any = None,
    rollouts: Any = None,
) -> dict:
    """The settings of a luck-adjusted tournament (``{"value", "kind", "reference", "samples", "rollouts"}``), or a
    ``ValueError`` saying why it cannot be one. ``value``: the value function's name (default: the game's
    ``luck_value``); ``samples``: the resamples per decision of an agent whose distribution is sampled (0:
    such agents get no term); ``rollouts``: the rollouts averaged per move of a decision term whose rollouts
    seat random play."""
    spec = spec_of(env_id)
    if probe.numba_core() is None:
        raise ValueError(f"luck_adjusted: {env_id} has no numba core, which the value function's rollouts need")
    name = spec.luck_value if value is None else value
    if not name:
        raise ValueError(f"luck_adjusted: {env_id} declares no value function (its spec's luck_value)")
    found = load_value(probe, name)
    if deal_file:
        raise ValueError(
            "luck_adjusted: the deals of a deal file are not drawn from the game's dealing, so the deal term's "
            "mean (over seeded reference deals) does not hold for them; play seeded deals"
        )
    if reference is None:
        reference = REFERENCE_PER_DEAL * games
    if not _count(reference) or reference < 2:
        raise ValueError(f"luck_reference must be an integer >= 2 (reference deals), got {reference!r}")
    if samples is None:
        samples = SAMPLES
    if not _count(samples) or samples < 0:
        raise ValueError(f"luck_samples must be an integer >= 0 (resamples per decision; 0: none), got {samples!r}")
    if rollouts is None:
        rollouts = ROLLOUTS
    if not _count(rollouts) or rollouts < 1:
        raise ValueError(f"luck_rollouts must be an integer >= 1 (rollouts per move), got {rollouts!r}")
    return {
        "value": found.name,
        "kind": found.kind,
        "reference": int(reference),
        "samples": int(samples),
        "rollouts": int(rollouts),
    }


def _count(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def value_for(env_id: str, options: dict, settings: dict) -> PolicyValue | ModelValue:
    """The value function of ``settings`` for ``env_id`` with ``options``, loaded once per process."""
    key = (env_id, json.dumps(options, sort_keys=True, default=str), settings["value"])
    if key not in _VALUES:
        _VALUES[key] = load_value(make(env_id, **options).unwrapped, settings["value"])
    return _VALUES[key]


_VALUES: dict[tuple, Any] = {}


def knows_distribution(agent: Any) -> bool:
    """Whether the arena can query ``agent``'s action distribution (a decision term at its moves)."""
    return isinstance(agent, RandomAgent) or callable(getattr(agent, "action_probabilities", None))


def samples_distribution(agent: Any) -> bool:
    """Whether the arena can sample ``agent``'s action distribution: an agent that declares ``stateless``
    (its move depends on the position and its ``rng`` alone, nothing kept between calls, such as a search) is
    asked again with independent generators."""
    return bool(getattr(agent, "stateless", False)) and not knows_distribution(agent)


def has_terms(agent: Any, samples: int) -> bool:
    """Whether ``agent``'s decisions get terms (its distribution known, or sampled ``samples`` times)."""
    return knows_distribution(agent) or (samples > 0 and samples_distribution(agent))


def distribution(agent: Any, observation: dict) -> tuple[np.ndarray, np.ndarray]:
    """The legal ids and their probabilities under ``agent`` (:func:`knows_distribution`)."""
    legal = legal_actions(observation)
    if isinstance(agent, RandomAgent):
        return legal, np.full(len(legal), 1.0 / len(legal))
    probs = np.asarray(agent.action_probabilities(observation), dtype=np.float64)
    return legal, probs[legal]


def evaluate(value: Any, positions: np.ndarray, params: np.ndarray, words: np.ndarray, seats: Any = None) -> np.ndarray:
    """``f`` of ``positions`` (copies are played on), row ``i`` drawing from ``words[i]``, the seats played as
    ``seats`` says (:func:`rollout_seats`; the value function's player in every seat by default):
    ``[3, rows, players]`` (win indicators, scores, outcomes), :data:`CHUNK` rows at a time."""
    out = np.zeros((3, len(positions), value.players))
    for lo in range(0, len(positions), CHUNK):
        sims = positions[lo : lo + CHUNK].copy()
        for k, part in enumerate(value(sims, params, words[lo : lo + CHUNK], seats)):
            out[k, lo : lo + CHUNK] = part
    return out


def rollout_seats(value: Any, agents: Sequence[Any]) -> np.ndarray | None:
    """Who plays each seat of a game's decision-term rollouts, ``agents`` in seat order: a seat of random
    play plays randomly (kind 1), a seat of one of the game's numba policies plays that policy (its kind),
    every other seat the value function's policy; ``None`` for a model's value function (it plays every seat)."""
    if not isinstance(value, PolicyValue):
        return None
    own = 2 + value.index
    return np.array(
        [1 if isinstance(a, RandomAgent) else a.kind if isinstance(a, PolicyAgent) else own for a in agents],
        dtype=np.int64,
    )


# ---------------------------------------------------------------- recording
class DecisionTerms:
    """The decision terms of one game on the aec engine: :meth:`decision` at each move of an agent whose
    distribution is known adds ``f(s, a) - sum_a pi(a) f(s, a)``, and at each move of one whose distribution is
    sampled ``f(s, a) - mean_j f(s, a_j)`` over ``samples`` independent draws ``a_j``, to every seat's sums."""

    def __init__(self, value: Any, players: int, seed: int, samples: int = 1, seats: Any = None, rollouts: int = 1):
        self.value = value
        self.seats = seats  # who plays each seat in the rollouts (:func:`rollout_seats`)
        # rollouts that draw (a random seat) are averaged over ``rollouts`` repeats; the others are repeated once
        self.repeats = rollouts if seats is not None and (np.asarray(seats) == 1).any() else 1
        self.seed = seed
        self.samples = samples
        self.wins = np.zeros(players)
        self.scores = np.zeros(players)
        self.count = 0

    def decision(self, base: Any, agent: Any, observation: dict, action: int) -> None:
        if knows_distribution(agent):
            ids, probs = distribution(agent, observation)
            keep = probs > 0
            ids, probs = ids[keep].astype(np.int64), probs[keep]
        elif self.samples and samples_distribution(agent):
            ids, probs = self._sample(agent, observation)
        else:
            return
        self.count += 1
        moves = np.union1d(ids, [action]).astype(np.int64)
        if len(moves) < 2:
            return  # f(s, a) - f(s, a) = 0
        _, states, params, _ = base.core_state()
        positions = np.repeat(states[:1], len(moves))
        apply_rows(positions, params, np.arange(len(moves)), moves)
        # each of the repeats rolls every move out with the same numbers (common random numbers); the first
        # repeat's are those of a single rollout
        repeats = self.repeats
        keys = [(self.count, m) if m else (self.count,) for m in range(repeats)]
        words = [seeds.seed_from(self.seed, *k, stream="luck_rollouts") for k in keys]
        values = evaluate(
            self.value,
            np.tile(positions, repeats),
            params,
            np.repeat(np.array(words, dtype=np.uint64), len(moves)),
            self.seats,
        )
        values = values.reshape(3, repeats, len(moves), -1).mean(axis=1)
        taken = int(np.searchsorted(moves, action))
        at = np.searchsorted(moves, ids)
        self.wins += values[0, taken] - probs @ values[0, at]
        self.scores += values[1, taken] - probs @ values[1, at]

    def _sample(self, agent: Any, observation: dict) -> tuple[np.ndarray, np.ndarray]:
        """``samples`` moves of ``agent`` at this position from independent generators (the estimated
        distribution: the moves drawn and their frequencies); the agent's ``last`` is left as the game's."""
        last = getattr(agent, "last", None)
        draws = [
            agent.act(observation, seeds.generator(self.seed, self.count + 1, j, stream="luck_samples"))
            for j in range(self.samples)
        ]
        if hasattr(agent, "last"):
            agent.last = last
        ids, counts = np.unique(np.asarray(draws, dtype=np.int64), return_counts=True)
        return ids, counts / self.samples


def options_index(replay: int, players: int, duplicate: bool) -> int:
    """Which of the duplicate mode's reset options game ``replay`` of a deal was dealt with."""
    return replay // len(seatings(players, duplicate)) if duplicate else 0


def deal_values(base: Any, value: Any, seed: int, deals: Sequence[tuple[int, dict, tuple]]) -> list[np.ndarray]:
    """``f`` after each deal ``(reset seed, reset options, rollout keys)``: ``[3, players]`` each (win indicators,
    scores, outcomes); the deals whose games have the same parameters evaluated together."""
    out: list[np.ndarray] = [np.zeros(0)] * len(deals)
    positions: dict[bytes, tuple[list[int], list[np.ndarray], np.ndarray]] = {}  # by the game's params
    for i, (reset_seed, reset_options, _) in enumerate(deals):
        base.reset(seed=reset_seed, options=reset_options or None)
        _, states, params, _ = base.core_state()
        members, rows, _ = positions.setdefault(params.tobytes(), ([], [], params.copy()))
        members.append(i)
        rows.append(states[:1].copy())
    for members, rows, params in positions.values():
        words = np.array([seeds.seed_from(seed, *deals[i][2], stream="luck_rollouts") for i in members], np.uint64)
        values = evaluate(value, np.concatenate(rows), params, words)
        for j, i in enumerate(members):
            out[i] = values[:, j]
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
    wanted = sorted({(r.deal, options_index(r.replay, n, duplicate)) for r in records})
    found = deal_values(
        base,
        value_for(env_id, options, settings),
        seed,
        [(game_seed(seed, d), extra[o], (d, o, 0)) for d, o in wanted],
    )
    cache = dict(zip(wanted, found, strict=True))
    for r in records:
        o = options_index(r.replay, n, duplicate)
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
    deals = [
        (seeds.seed_from(seed, m, stream="luck_reference"), reset_options, (m, o, 1))
        for m in range(count)
        for o, reset_options in enumerate(extra)
    ]
    found = deal_values(base, value_for(env_id, options, settings), seed, deals)
    rows = np.zeros((count, 2, len(extra) * n))
    beats = np.zeros((count, len(extra) * n * n))
    for (_, _, (m, o, _)), values in zip(deals, found, strict=True):
        rows[m, :, o * n : (o + 1) * n] = values[:2]
        for i in range(n):
            for j in range(n):
                beats[m, (o * n + i) * n + j] = beat(values[2][i], values[2][j])
    out: dict[str, Any] = {"value": settings["value"], "deals": count, "players": n}
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
    width = results.label_width()
    lines = [
        f"luck-adjusted (value function: {ref['value']} self-play; deal term's mean over {ref['deals']} "
        "reference deals; variance ratio = plain variance / adjusted, >1 means fewer deals for the same width):",
        f"  {'agent':{width}s} {'win rate':>8s} {'adjusted [95% CI]':>24s} {'variance ratio':>14s} "
        f"{'mean score':>10s} {'adjusted [95% CI]':>30s} {'variance ratio':>14s}",
    ]
    for label, adjusted in agents.items():
        w, s = adjusted["win_rate"], adjusted["mean_score"]
        lines.append(
            f"  {label:{width}s} {stats[label]['win_rate']:8.3f} {w['mean']:8.3f} [{w['low']:6.3f},{w['high']:6.3f}] "
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
