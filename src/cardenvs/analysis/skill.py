"""Luck and skill, measured: ``cardenvs analyze skill GAME`` plays a ladder of agents on duplicate deals and
splits the outcome variance into the agents and the deal, with 95% intervals.

The yardstick is a ladder of agents (default: the game's declaration, ``GameSpec.skill_ladder``; rising
strength: random, the heuristic, search at two budgets, the shipped trained model), not human play: a game
in which these agents differ little may still reward human skill the agents do not have.

Design. The ladder's agents play the arena's duplicate deals (:func:`cardenvs.arena.plan_tournament`; the
vector engine whenever a table's agents act on batches). With ``L`` agents and ``n`` seats: every table of
``n`` agents out of the ``L`` when ``L >= n``; else ``L`` tables, table ``t`` seating agent ``(s + t) mod L``
in seat ``s``. Each deal is replayed over the arena's seatings (every permutation up to 3 players, the
rotations beyond) and its duplicate reset options. Either way every agent holds every *hand* (a deal's seat
under one of its reset options) equally often, ``r`` times, so the games form a balanced two-way layout,
hands x agents with ``r`` games per cell, and the split below is exact.

Measures (the outcome ``y`` of a seat is the env's win-scale result, :meth:`CardEnv.outcome`):

* Variance split. Deals are the independent units (the seats of a game, and the games of a deal, are
  tied: a zero-sum game's results cancel). The agents' effect is tested against the agent x deal
  interaction, the right error term whatever ties the games of a deal: ``var_agent = (A - 1) / A x
  (MS_agent - MS_agent_x_deal) / (D h r)`` (``D`` deals of ``h`` hands, ``r`` games per hand and agent) is
  an unbiased estimate of the variance the agents' mean results add to a seat's result. The *skill share*
  is ``var_agent`` over the outcome variance (``SS_total / N``); it comes out near 0, below 0 as often as
  above, in a game without skill (the plain share of the sums of squares, ``eta2_agent``, cannot). The
  *deal share* is the hands' share of the sums of squares (the cards held: each hand's mean over its games,
  so it also holds the noise of that mean, as the coin-flip row shows; with two players and two agents a
  hand is played twice and nothing is left to estimate that noise from, so compare deal shares only between
  option sets played the same way); the rest is which hand suits which agent, the agents' own draws and
  the opponents' replies.
* Ratings: Bradley-Terry on every pair of seats of every game (a finished ahead of b; ties half), on the
  Elo scale (400 log10 odds), centred at 0, with half a win each way per pair that met as a prior so an
  agent that never wins keeps a finite rating. ``spread``: their standard deviation (Duersch, Lambrecht and
  Oechssler's measure); ``gap``: the last ladder agent's rating minus the first's (signed).
* Order: the ladder is declared in rising strength, which nothing guarantees (a search may lose to the
  heuristic it rolls out with). The report ranks the agents by rating and lists every pair rated against
  the declared order, with the difference's interval (``clear`` when it lies below 0).
* Games to 95%: for each neighbouring pair of the ladder and for the last against the first, the per-game
  difference ``x = y(stronger) - y(weaker)`` over the games both played; the number of games after which
  the stronger agent is ahead with 95% probability (normal approximation): ``n = (1.645 sd / mean)^2``, with
  ``sd`` over duplicate deals (``deals``: each a full duplicate set) and over single games (``games``);
  none when the mean is not above 0.
* Calibration: the same measures on the same games with every result replaced by a coin flip (the seats'
  results permuted at random: ``keep`` 0) and with a share ``1 - keep`` replaced (the "x%-game" of Duersch
  et al.'s "x%-chess", x = 100 keep), so the reader can place the game: the mean over 20 draws of the flips
  and the range of 95% of the draws (how far such a game strays at this size by chance alone).

Intervals (except the calibration's): percentile bootstrap over deals (each deal with all its games, so
the duplicate structure stays), ``--bootstrap`` resamples, seeded. Output: a table per option set on
stdout; with ``--out DIR``, ``DIR/<env id>.json`` (every number, the command and the machine load) and
``DIR/<env id>.png`` (with matplotlib).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs import arena
from cardenvs.registry import resolve_id, spec_of

COMMAND = "skill"
HELP = (
    "luck and skill: a ladder of agents on duplicate deals; skill share of the outcome variance, ratings, "
    "games to a 95% lead, coin-flip calibration, with 95% intervals"
)
GAMES = 200  # duplicate deals per table
QUICK_GAMES = 30
BOOTSTRAP = 1000
KEEPS = (0.0, 0.25, 0.5, 0.75)  # calibration: share of results kept (0: a coin flip)
COIN_DRAWS = 20  # calibration: independent draws of the coin flips
Z_ONE_SIDED_95 = 1.6448536269514722
BT_PRIOR = 0.5  # Bradley-Terry: wins added each way per pair that met
BT_ITERATIONS = 2000
ELO = 400.0 / math.log(10.0)
#: salts of this study's random streams (bootstrap resamples, coin flips), mixed with the user's seed
BOOTSTRAP_SALT, COIN_SALT = 0x5C111, 0xC014


# ------------------------------------------------------------------ the layout
@dataclass
class Layout:
    """The games of one ladder run as per-deal sums (the bootstrap resamples deals).

    ``cell_sum[d, h, a]``: total outcome of agent ``a`` holding hand ``h`` of deal ``d`` over its ``r`` games;
    ``square_sum[d]``: the sum of squared outcomes of deal ``d``; ``beat[d, a, b]`` / ``met[d, a, b]``: pairs of
    seats (a ahead of b, ties half) and pairs that met; ``won[d, a]`` / ``played[d, a]``: seats won (outcome
    above 0) and seats played; ``pair_n/x/xx[d, p]``: count, sum and sum of squares of the per-game
    difference of pair ``p`` (:attr:`pairs`, weaker then stronger)."""

    agents: list[str]
    replicates: int
    cell_sum: np.ndarray
    square_sum: np.ndarray
    beat: np.ndarray
    met: np.ndarray
    won: np.ndarray
    played: np.ndarray
    pairs: list[tuple[int, int]]
    pair_n: np.ndarray
    pair_x: np.ndarray
    pair_xx: np.ndarray

    @property
    def deals(self) -> int:
        return self.cell_sum.shape[0]


def ladder_pairs(size: int) -> list[tuple[int, int]]:
    """Neighbouring ladder pairs, then the first against the last (weaker index first)."""
    pairs = [(i, i + 1) for i in range(size - 1)]
    return pairs + ([(0, size - 1)] if size > 2 else [])


@dataclass
class Games:
    """The games of a run as arrays: ``deal[G]``, and per seat ``hand[G, S]`` (reset option x seats + seat),
    ``agent[G, S]`` (ladder index) and ``outcome[G, S]``."""

    deal: np.ndarray
    hand: np.ndarray
    agent: np.ndarray
    outcome: np.ndarray


def games_of(records: Sequence[arena.GameRecord], agent_of: dict[str, int], seats: int, seatings: int) -> Games:
    """:class:`Games` of arena records; ``agent_of`` maps a seat's name to its ladder index, a record's reset
    option is ``replay // seatings``."""
    deal = np.array([r.deal for r in records], dtype=np.int64)
    option = np.array([r.replay // seatings for r in records], dtype=np.int64)
    hand = option[:, None] * seats + np.arange(seats)[None, :]
    agent = np.array([[agent_of[name] for name in r.seats] for r in records], dtype=np.int64)
    outcome = np.array([r.outcome for r in records], dtype=np.float64)
    return Games(deal, hand, agent, outcome)


def layout_of(games: Games, agents: list[str], deals: int, hands: int) -> Layout:
    """The :class:`Layout` of ``games`` (``hands`` per deal). A cell played a different number of times than
    the others (an unbalanced design) is a ``ValueError``."""
    size = len(agents)
    deal, hand, agent, y = games.deal, games.hand, games.agent, games.outcome
    seats = y.shape[1]
    per_seat_deal = np.repeat(deal[:, None], seats, axis=1)
    cell_sum = np.zeros((deals, hands, size))
    cell_count = np.zeros((deals, hands, size), dtype=np.int64)
    np.add.at(cell_sum, (per_seat_deal, hand, agent), y)
    np.add.at(cell_count, (per_seat_deal, hand, agent), 1)
    replicates = int(cell_count.flat[0])
    if replicates == 0 or not (cell_count == replicates).all():
        raise ValueError(
            f"the games do not form a balanced layout (games per hand and agent from {cell_count.min()} "
            f"to {cell_count.max()})"
        )
    square_sum = np.bincount(deal, weights=(y * y).sum(axis=1), minlength=deals)
    won = np.zeros((deals, size))
    played = np.zeros((deals, size))
    np.add.at(won, (per_seat_deal, agent), (y > 0).astype(np.float64))
    np.add.at(played, (per_seat_deal, agent), 1.0)
    beat = np.zeros((deals, size, size))
    met = np.zeros((deals, size, size))
    for i, j in itertools.combinations(range(seats), 2):
        a, b = agent[:, i], agent[:, j]
        other = a != b
        ahead = np.where(y[:, i] > y[:, j], 1.0, np.where(y[:, i] == y[:, j], 0.5, 0.0))[other]
        d, a, b = deal[other], a[other], b[other]
        np.add.at(beat, (d, a, b), ahead)
        np.add.at(beat, (d, b, a), 1.0 - ahead)
        np.add.at(met, (d, a, b), 1.0)
        np.add.at(met, (d, b, a), 1.0)
    # each agent's mean result in each game (an agent may hold several seats when the ladder is short)
    holds = agent[:, :, None] == np.arange(size)[None, None, :]  # [G, S, A]
    seats_held = holds.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_result = (holds * y[:, :, None]).sum(axis=1) / seats_held
    pairs = ladder_pairs(size)
    pair_n = np.zeros((deals, len(pairs)))
    pair_x = np.zeros((deals, len(pairs)))
    pair_xx = np.zeros((deals, len(pairs)))
    for p, (weak, strong) in enumerate(pairs):
        both = (seats_held[:, weak] > 0) & (seats_held[:, strong] > 0)
        x = (mean_result[:, strong] - mean_result[:, weak])[both]
        pair_n[:, p] = np.bincount(deal[both], minlength=deals)
        pair_x[:, p] = np.bincount(deal[both], weights=x, minlength=deals)
        pair_xx[:, p] = np.bincount(deal[both], weights=x * x, minlength=deals)
    return Layout(agents, replicates, cell_sum, square_sum, beat, met, won, played, pairs, pair_n, pair_x, pair_xx)


def layout_of_array(y: np.ndarray) -> Layout:
    """A :class:`Layout` of synthetic outcomes ``y[deal, hand, agent, replicate]`` (the variance split; the
    pair counts are zeros to fill in)."""
    y = np.asarray(y, dtype=np.float64)
    deals, _, size, replicates = y.shape
    pairs = ladder_pairs(size)
    return Layout(
        [f"agent{a}" for a in range(size)],
        replicates,
        y.sum(axis=3),
        (y * y).sum(axis=(1, 2, 3)),
        np.zeros((deals, size, size)),
        np.zeros((deals, size, size)),
        np.zeros((deals, size)),
        np.zeros((deals, size)),
        pairs,
        np.zeros((deals, len(pairs))),
        np.zeros((deals, len(pairs))),
        np.zeros((deals, len(pairs))),
    )


# ------------------------------------------------------------------ measures (vectorized over resamples)
def variance_split(layout: Layout, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Sums of squares and shares (module doc) of ``layout``, one value per row of ``weights`` (``[B, deals]``,
    how often each deal is drawn; default: each deal once)."""
    w = np.ones((1, layout.deals)) if weights is None else np.asarray(weights, dtype=np.float64)
    r = layout.replicates
    _, hands_per_deal, size = layout.cell_sum.shape
    deals = w.sum(axis=1)
    per_deal_agent = hands_per_deal * r  # games of one agent in one deal
    n = deals * per_deal_agent * size
    mean = (w @ layout.cell_sum.sum(axis=(1, 2))) / n
    n_mean2 = n * mean * mean
    ss_total = w @ layout.square_sum - n_mean2
    hand_means = layout.cell_sum.sum(axis=2) / (size * r)
    ss_hand = size * r * (w @ (hand_means**2).sum(axis=1)) - n_mean2
    deal_agent_sum = layout.cell_sum.sum(axis=1)  # [D, A]
    agent_means = (w @ deal_agent_sum) / (deals * per_deal_agent)[:, None]
    ss_agent = deals * per_deal_agent * (agent_means**2).sum(axis=1) - n_mean2
    deal_means = deal_agent_sum.sum(axis=1) / (size * per_deal_agent)
    ss_deal = size * per_deal_agent * (w @ deal_means**2) - n_mean2
    ss_deal_agent = (w @ (deal_agent_sum**2).sum(axis=1)) / per_deal_agent - n_mean2
    ss_agent_by_deal = ss_deal_agent - ss_deal - ss_agent
    with np.errstate(invalid="ignore", divide="ignore"):
        ms_agent = ss_agent / (size - 1)
        ms_agent_by_deal = ss_agent_by_deal / ((deals - 1) * (size - 1))
        # the variance of the agent effects over the ladder (divided by A, as they add to an outcome's)
        var_agent = (size - 1) / size * (ms_agent - ms_agent_by_deal) / (deals * per_deal_agent)
        var_total = ss_total / n
        skill = var_agent / var_total
        deal = ss_hand / ss_total
        return {
            "ss_total": ss_total,
            "ss_deal": ss_hand,
            "ss_agent": ss_agent,
            "ss_agent_by_deal": ss_agent_by_deal,
            "var_agent": var_agent,
            "var_total": var_total,
            "skill_share": skill,
            "deal_share": deal,
            "residual_share": 1.0 - skill - deal,
            "eta2_agent": ss_agent / ss_total,
        }


def bradley_terry(beat: np.ndarray, met: np.ndarray) -> np.ndarray:
    """Elo-scale ratings ``[B, A]`` (mean 0) from pair counts ``beat[B, a, b]`` (a ahead of b) and
    ``met[B, a, b]``, by Hunter's minorization-maximization, with :data:`BT_PRIOR` wins each way per pair that
    met."""
    prior = BT_PRIOR * (met > 0)
    wins = (beat + prior).sum(axis=2)
    games = met + 2 * prior
    strength = np.ones(wins.shape)
    for _ in range(BT_ITERATIONS):
        denominator = (games / (strength[:, :, None] + strength[:, None, :])).sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            updated = np.where(denominator > 0, wins / denominator, strength)
        updated /= np.exp(np.log(updated).mean(axis=1, keepdims=True))
        if np.allclose(updated, strength, rtol=1e-10, atol=0):
            strength = updated
            break
        strength = updated
    ratings = ELO * np.log(strength)
    return ratings - ratings.mean(axis=1, keepdims=True)


def rating_measures(layout: Layout, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Ratings ``[B, A]``, their spread (SD) and the ladder's gap (last minus first), per row of ``weights``."""
    w = np.ones((1, layout.deals)) if weights is None else np.asarray(weights, dtype=np.float64)
    ratings = bradley_terry(np.tensordot(w, layout.beat, axes=1), np.tensordot(w, layout.met, axes=1))
    return {"ratings": ratings, "spread": ratings.std(axis=1), "gap": ratings[:, -1] - ratings[:, 0]}


def games_to_lead(layout: Layout, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per pair (``[B, P]``): mean difference, and games (single games) and duplicate deals after which the
    stronger agent is ahead with 95% probability (inf when the mean is not above 0)."""
    w = np.ones((1, layout.deals)) if weights is None else np.asarray(weights, dtype=np.float64)
    count = w @ layout.pair_n
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (w @ layout.pair_x) / count
        game_var = (w @ layout.pair_xx) / count - mean**2
        per_deal = np.where(layout.pair_n > 0, layout.pair_x / np.maximum(layout.pair_n, 1), 0.0)
        deals_seen = w @ (layout.pair_n > 0)
        deal_mean = (w @ per_deal) / deals_seen
        deal_var = (w @ per_deal**2) / deals_seen - deal_mean**2
        games = np.where(mean > 0, np.ceil((Z_ONE_SIDED_95**2) * np.maximum(game_var, 0) / mean**2), np.inf)
        deals = np.where(deal_mean > 0, np.ceil((Z_ONE_SIDED_95**2) * np.maximum(deal_var, 0) / deal_mean**2), np.inf)
    return {"mean_difference": mean, "games": np.maximum(games, 1), "deals": np.maximum(deals, 1)}


def win_rates(layout: Layout, weights: np.ndarray | None = None) -> np.ndarray:
    """Share of seats won (outcome above 0) per agent, ``[B, A]``."""
    w = np.ones((1, layout.deals)) if weights is None else np.asarray(weights, dtype=np.float64)
    return (w @ layout.won) / (w @ layout.played)


def resample_weights(deals: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``[resamples, deals]``: how often each deal is drawn in each bootstrap resample."""
    return rng.multinomial(deals, np.full(deals, 1.0 / deals), size=resamples).astype(np.float64)


def _interval(point: Any, draws: np.ndarray) -> dict[str, Any]:
    """A point value with its percentile 95% interval; infinities and NaN become None (JSON)."""
    # nearest ranks, not interpolation: a draw may be inf (games to a lead that never comes)
    lo = np.nanpercentile(draws, 2.5, method="lower") if np.isfinite(draws).any() else np.inf
    hi = np.nanpercentile(draws, 97.5, method="higher") if np.isfinite(draws).any() else np.inf

    def clean(v: Any) -> float | None:
        return None if not math.isfinite(float(v)) else round(float(v), 6)

    return {"value": clean(point), "ci": [clean(lo), clean(hi)]}


def measure(layout: Layout, resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """Every measure of ``layout`` with percentile bootstrap 95% intervals over deals."""
    weights = resample_weights(layout.deals, resamples, rng)
    split, split_b = variance_split(layout), variance_split(layout, weights)
    rated, rated_b = rating_measures(layout), rating_measures(layout, weights)
    lead, lead_b = games_to_lead(layout), games_to_lead(layout, weights)
    rates, rates_b = win_rates(layout), win_rates(layout, weights)
    # a resample where the stronger agent is not ahead needs infinitely many games: percentiles over inf
    lead_b = {k: np.where(np.isnan(v), np.inf, v) for k, v in lead_b.items()}
    shares = ("skill_share", "deal_share", "residual_share", "var_agent", "var_total")
    out: dict[str, Any] = {k: _interval(split[k][0], split_b[k]) for k in shares}
    out["eta2_agent"] = round(float(split["eta2_agent"][0]), 6)
    out["agents"] = {
        name: {
            "win_rate": _interval(rates[0, a], rates_b[:, a]),
            "rating": _interval(rated["ratings"][0, a], rated_b["ratings"][:, a]),
        }
        for a, name in enumerate(layout.agents)
    }
    out["rating_spread"] = _interval(rated["spread"][0], rated_b["spread"])
    out["rating_gap"] = _interval(rated["gap"][0], rated_b["gap"])
    out["ladder_order"] = ladder_order(layout.agents, rated["ratings"][0], rated_b["ratings"])
    out["games_to_lead"] = [
        {
            "weaker": layout.agents[weak],
            "stronger": layout.agents[strong],
            "mean_difference": _interval(lead["mean_difference"][0, p], lead_b["mean_difference"][:, p]),
            "games": _interval(lead["games"][0, p], lead_b["games"][:, p]),
            "deals": _interval(lead["deals"][0, p], lead_b["deals"][:, p]),
        }
        for p, (weak, strong) in enumerate(layout.pairs)
    ]
    return out


def ladder_order(agents: list[str], ratings: np.ndarray, ratings_b: np.ndarray) -> dict[str, Any]:
    """The measured order of the ladder against its declared one (module doc): the agents by rating, weakest
    first (ties keep the declared order), and every pair the ratings put the other way round, with the
    rating difference (declared stronger minus declared weaker, below 0) and its 95% interval; ``clear``
    when the interval lies below 0."""
    measured = sorted(range(len(agents)), key=lambda a: (round(float(ratings[a]), 6), a))
    inversions = []
    for weak, strong in itertools.combinations(range(len(agents)), 2):
        difference = float(ratings[strong] - ratings[weak])
        if round(difference, 6) < 0:
            entry = _interval(difference, ratings_b[:, strong] - ratings_b[:, weak])
            inversions.append(
                {
                    "weaker": agents[weak],
                    "stronger": agents[strong],
                    "rating_difference": entry,
                    "clear": entry["ci"][1] is not None and entry["ci"][1] < 0,
                }
            )
    return {
        "declared": list(agents),
        "measured": [agents[a] for a in measured],
        "agrees": not inversions,
        "inversions": inversions,
    }


def coin_flipped(games: Games, keep: float, rng: np.random.Generator) -> Games:
    """``games`` with each game's results kept with probability ``keep``, else permuted at random over its
    seats (a coin flip between the seats that keeps the game's outcome values)."""
    flip = rng.random(len(games.deal)) >= keep
    outcome = games.outcome.copy()
    outcome[flip] = rng.permuted(outcome[flip], axis=1)
    return dataclasses.replace(games, outcome=outcome)


def calibrate(games: Games, agents: list[str], deals: int, hands: int, seed: int) -> list[dict[str, Any]]:
    """The skill share, deal share and ratings of the same games with results replaced by coin flips
    (:data:`KEEPS`): the mean over :data:`COIN_DRAWS` draws of the flips, and the 2.5 and 97.5 percentiles
    over the draws (how far a game of that kind strays at this size)."""
    out = []
    for k, keep in enumerate(KEEPS):
        draws: dict[str, list[float]] = {"skill_share": [], "deal_share": [], "rating_spread": [], "rating_gap": []}
        for draw in range(COIN_DRAWS):
            layout = layout_of(
                coin_flipped(games, keep, np.random.default_rng([seed, COIN_SALT, k, draw])), agents, deals, hands
            )
            split, rated = variance_split(layout), rating_measures(layout)
            draws["skill_share"].append(float(split["skill_share"][0]))
            draws["deal_share"].append(float(split["deal_share"][0]))
            draws["rating_spread"].append(float(rated["spread"][0]))
            draws["rating_gap"].append(float(rated["gap"][0]))
        entry: dict[str, Any] = {"keep": keep, "name": "coin flip" if keep == 0 else f"{round(100 * keep)}%-game"}
        for key, values in draws.items():
            entry[key] = _interval(np.mean(values), np.array(values))
        out.append(entry)
    return out


# ------------------------------------------------------------------ running the ladder
@dataclass
class LadderRun:
    """The checked plans of one option set (one per table group), before they are played."""

    options: dict[str, Any]
    role_phase: bool
    plans: list[arena.Plan]
    seats: int
    seatings: int
    reset_options: int


def tables_for(ladder: Sequence[str], seats: int) -> list[list[str]]:
    """The agents of each plan (module doc): the whole ladder (a round robin when longer than the table), or,
    with fewer agents than seats, ``L`` cyclic tables."""
    if len(ladder) >= seats:
        return [list(ladder)]
    return [[ladder[(s + t) % len(ladder)] for s in range(seats)] for t in range(len(ladder))]


def check_ladder(ladder: Sequence[str]) -> None:
    if len(ladder) < 2:
        raise ValueError(f"a ladder needs at least 2 agents, got {len(ladder)} ({', '.join(ladder) or 'none'})")
    if any(not name for name in ladder):
        raise ValueError("the ladder has an empty agent name; separate agent names by single commas")
    repeated = sorted({name for name in ladder if list(ladder).count(name) > 1})
    if repeated:
        raise ValueError(f"the ladder names {repeated[0]} twice; name each agent once")


def plan_ladder(
    env_id: str, ladder: Sequence[str], options: dict, games: int, seed: int, workers: int = 1
) -> LadderRun:
    """Check everything about one option set's run (arena's checks: options, agents and their game) and plan
    it. The option that plays the game's role phase (its spec's :class:`~cardenvs.core.spec.RolePhase`, e.g.
    Dou Dizhu's ``bidding=True``) among the options plays the duplicate deals with the roles chosen in that
    phase (the arena's ``role_phase``); otherwise the game's duplicate mode sets them."""
    from cardenvs.registry import make

    check_ladder(ladder)
    probe = make(env_id, **options).unwrapped
    seats = probe.num_players
    roles = spec_of(env_id).roles
    phase = roles.phase if roles is not None else None
    role_phase = phase is not None and bool(phase.option) and options.get(phase.option) is True
    plans = []
    for table in tables_for(ladder, seats):
        plans.append(
            arena.plan_tournament(
                env_id,
                table,
                games,
                seed,
                options,
                duplicate=True,
                workers=workers,
                round_robin=len(table) > seats,
                role_phase=role_phase,
            )
        )
    reset_options = len(probe.duplicate_reset_options(phase=role_phase))
    return LadderRun(options, role_phase, plans, seats, len(arena.seatings(seats, True)), reset_options)


def play_ladders(runs: Sequence[LadderRun], workers: int, progress: bool) -> list[list[arena.GameRecord]]:
    """Play every plan of every run (:func:`arena.run_plans`: one pool of ``workers`` processes for all);
    each run's records with their seats relabelled by ladder name."""
    plans = [plan for run in runs for plan in run.plans]
    played = iter(arena.run_plans(plans, workers, progress))
    out = []
    for run in runs:
        records: list[arena.GameRecord] = []
        for plan in run.plans:
            name_of = dict(zip(plan.labels, plan.agent_names, strict=True))
            for record in next(played).records:
                records.append(dataclasses.replace(record, seats=[name_of[label] for label in record.seats]))
        out.append(records)
    return out


def study(
    ladder: Sequence[str],
    run: LadderRun,
    records: Sequence[arena.GameRecord],
    games: int,
    seed: int,
    resamples: int,
) -> dict[str, Any]:
    """The measures of one option set and their calibration (module doc)."""
    ladder = list(ladder)
    hands = run.reset_options * run.seats
    played = games_of(records, {name: i for i, name in enumerate(ladder)}, run.seats, run.seatings)
    layout = layout_of(played, ladder, games, hands)
    measured = measure(layout, resamples, np.random.default_rng([seed, BOOTSTRAP_SALT]))
    return {
        "options": run.options,
        "label": variant_label(run.options),
        "role_phase": run.role_phase,
        "players": run.seats,
        "deals": games,
        "games": len(records),
        "games_per_hand_and_agent": layout.replicates,
        **measured,
        "calibration": calibrate(played, ladder, games, hands, seed),
    }


def variant_label(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


# ------------------------------------------------------------------ report
def _fmt(entry: dict, digits: int = 3, missing: str = "n/a") -> str:
    """``value [lo, hi]``; a None (JSON's stand-in) prints as ``missing``: n/a, or inf for games to a lead."""

    def f(v: float | None) -> str:
        return missing if v is None else f"{v:.{digits}f}"

    lo, hi = entry["ci"]
    return f"{f(entry['value'])} [{f(lo)}, {f(hi)}]"


def report(env_id: str, result: dict) -> str:
    lines = [
        f"{env_id} {result['label']}: {result['players']} players, {result['deals']} duplicate deals, "
        f"{result['games']} games ({result['games_per_hand_and_agent']} per hand and agent); 95% intervals "
        "(bootstrap over deals)",
        f"  skill share {_fmt(result['skill_share'])}   deal share {_fmt(result['deal_share'])}   "
        f"rest {_fmt(result['residual_share'])}   (agents' share of the sums of squares "
        f"{result['eta2_agent']:.3f})",
        f"  rating spread (SD, Elo) {_fmt(result['rating_spread'], 1)}   gap last-first "
        f"{_fmt(result['rating_gap'], 1)}",
        f"  {'agent':34s} {'win rate':>24s} {'rating (Elo)':>26s}",
    ]
    if result["skill_share"]["value"] is None:
        lines.insert(2, "  (no variance to split: every seat of every game had the same result)")
    for name, a in result["agents"].items():
        lines.append(f"  {name:34s} {_fmt(a['win_rate']):>24s} {_fmt(a['rating'], 1):>26s}")
    lines += order_lines(result["ladder_order"])
    lines.append("  games (deals) until the stronger is ahead with 95% probability:")
    for p in result["games_to_lead"]:
        lines.append(
            f"    {p['stronger']} over {p['weaker']}: mean difference {_fmt(p['mean_difference'])}; "
            f"{_fmt(p['games'], 0, 'inf')} games, {_fmt(p['deals'], 0, 'inf')} duplicate deals"
        )
    lines.append("  calibration (the same games, results replaced by coin flips; mean and 95% range of 20 draws):")
    for c in result["calibration"]:
        lines.append(
            f"    {c['name']:10s} skill share {_fmt(c['skill_share'])}   deal share {_fmt(c['deal_share'])}   spread "
            f"{_fmt(c['rating_spread'], 1)}   gap {_fmt(c['rating_gap'], 1)}"
        )
    return "\n".join(lines)


def order_lines(order: dict[str, Any]) -> list[str]:
    """The measured order, and a line per pair it puts against the declared ladder."""
    lines = [f"  measured order (by rating, weakest first): {' < '.join(order['measured'])}"]
    if order["agrees"]:
        return lines + ["  (the declared ladder's order)"]
    lines.append(f"  ORDER DIFFERS from the declared ladder ({', '.join(order['declared'])}):")
    for pair in order["inversions"]:
        verdict = "clear: interval below 0" if pair["clear"] else "within noise: interval reaches 0"
        lines.append(
            f"    {pair['stronger']} rated below {pair['weaker']}: {_fmt(pair['rating_difference'], 1)} Elo ({verdict})"
        )
    return lines


def plot(env_id: str, results: list[dict], path: Path) -> None:
    """Skill and deal shares per option set, the ladder's ratings and the calibration's skill shares."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(ax, entries, labels, colour):
        values = np.array([e["value"] if e["value"] is not None else np.nan for e in entries])
        lo = np.array([e["ci"][0] if e["ci"][0] is not None else np.nan for e in entries])
        hi = np.array([e["ci"][1] if e["ci"][1] is not None else np.nan for e in entries])
        err = np.nan_to_num(np.vstack([values - lo, hi - values]))
        ax.bar(range(len(values)), values, yerr=err, capsize=4, color=colour)
        ax.set_xticks(range(len(values)), labels, rotation=30, ha="right", fontsize=7)

    fig, axes = plt.subplots(len(results), 3, figsize=(13, 3.6 * len(results)), squeeze=False)
    for row, result in zip(axes, results, strict=True):
        bars(
            row[0],
            [result[k] for k in ("skill_share", "deal_share", "residual_share")],
            ["skill", "deal", "rest"],
            "#4c78a8",
        )
        row[0].set_title(f"{result['label']}: variance shares", fontsize=9)
        names = list(result["agents"])
        bars(row[1], [result["agents"][n]["rating"] for n in names], names, "#f58518")
        row[1].set_title("ratings (Elo, 95% CI)", fontsize=9)
        cal = result["calibration"]
        bars(
            row[2],
            [c["skill_share"] for c in cal] + [result["skill_share"]],
            [c["name"] for c in cal] + ["game"],
            "#54a24b",
        )
        row[2].set_title("skill share: calibration and the game", fontsize=9)
    fig.suptitle(env_id)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------ command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    from cardenvs.cli import at_least

    parser.add_argument("game", help="env id or short name")
    parser.add_argument(
        "--option", "-o", action="append", metavar="KEY=VALUE", help="env option for every option set (repeatable)"
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        metavar="SET",
        help="option sets to measure, one each: key=value pairs joined by commas (exposed_hands=true,"
        "swap_deals=true), a named variant (cardenvs list), or default; -o options apply to all of them",
    )
    parser.add_argument(
        "--ladder",
        help="agents of rising strength, comma-separated (default: the game's declared ladder, its quick one "
        "with --quick); the option that plays a game's role phase, set true among the options, plays duplicate "
        "deals with the roles chosen in it (cardenvs arena --role-phase)",
    )
    parser.add_argument(
        "--games", type=at_least(1), help=f"duplicate deals per table (default {GAMES}, quick {QUICK_GAMES})"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the quick ladder and fewer deals (under 2 minutes a game)"
    )
    parser.add_argument("--bootstrap", type=at_least(10), default=BOOTSTRAP, help=f"resamples (default {BOOTSTRAP})")
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed of the deals, agents and resamples")
    parser.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        help="processes to play the games on (same results; with more than 1 every option set is played "
        "before the first is reported)",
    )
    parser.add_argument("--out", metavar="DIR", help="write DIR/<env id>.json (and .png with matplotlib)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def parse_variant(text: str) -> dict[str, Any]:
    """``default`` -> {}; ``NAME`` -> {"variant": NAME}; ``k=v,k2=v2`` -> options (values read as YAML)."""
    from cardenvs.agent import split_agent_names
    from cardenvs.cli import parse_option

    text = text.strip()
    if text in ("", "default"):
        return {}
    if "=" not in text:
        return {"variant": text}
    options: dict[str, Any] = {}
    for piece in split_agent_names(text):
        key, value = parse_option(piece)
        if key in options:
            raise ValueError(f"--variants {text!r} gives {key} twice")
        options[key] = value
    return options


def default_ladder(env_id: str, quick: bool) -> list[str]:
    spec = spec_of(env_id)
    ladder = list((spec.skill_ladder_quick or spec.skill_ladder) if quick else spec.skill_ladder)
    if not ladder:
        raise ValueError(f"{env_id} declares no skill ladder; name one with --ladder A,B,...")
    return ladder


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces a run (recorded in the JSON)."""
    words = ["cardenvs", "analyze", "skill", args.game]
    for option in args.option or []:
        words += ["-o", option]
    if args.variants:
        words += ["--variants", *args.variants]
    if args.ladder is not None:
        words += ["--ladder", args.ladder]
    words += ["--quick"] if args.quick else []
    words += ["--games", str(args.games)] if args.games else []
    words += ["--bootstrap", str(args.bootstrap)] if args.bootstrap != BOOTSTRAP else []
    words += ["--seed", str(args.seed)] if args.seed else []
    words += ["--workers", str(args.workers)] if args.workers != 1 else []
    words += ["--out", args.out] if args.out else []
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    from cardenvs.agent import split_agent_names
    from cardenvs.cli import game_options

    env_id = resolve_id(args.game)
    base = game_options(args, env_id)
    ladder = split_agent_names(args.ladder) if args.ladder is not None else default_ladder(env_id, args.quick)
    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    option_sets = [{**base, **parse_variant(v)} for v in args.variants] if args.variants else [base]
    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; name a folder")
    # every check (options, agents, their game, the ladder) before anything is played
    runs = [plan_ladder(env_id, ladder, options, games, args.seed, args.workers) for options in option_sets]
    command = command_line(args)
    results = []
    started = time.perf_counter()
    # one worker: each option set reported as soon as it is played; more: one pool plays them all first
    batches = [[run_] for run_ in runs] if args.workers == 1 else [runs]
    for batch in batches:
        start = time.perf_counter()
        played = play_ladders(batch, args.workers, progress=not args.no_progress)
        for run_, records in zip(batch, played, strict=True):
            result = study(ladder, run_, records, games, args.seed, args.bootstrap)
            if len(batch) == 1:
                result["seconds"] = round(time.perf_counter() - start, 1)
            results.append(result)
            print(report(env_id, result), flush=True)
    seconds = round(time.perf_counter() - started, 1)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        data = {
            "command": command,
            "env_id": env_id,
            "ladder": ladder,
            "seed": args.seed,
            "bootstrap": args.bootstrap,
            "workers": args.workers,
            "seconds": seconds,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
            "variants": results,
        }
        (out / f"{env_id}.json").write_text(json.dumps(data, indent=1))
        print(f"wrote {out / f'{env_id}.json'}")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return 0
        plot(env_id, results, out / f"{env_id}.png")
        print(f"wrote {out / f'{env_id}.png'}")
    return 0
