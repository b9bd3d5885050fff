"""The measures of ``cardenvs analyze skill`` (:mod:`cardenvs.analysis.skill`, whose docstring states them):
the games of a run as a balanced layout of per-deal sums, the variance split, Bradley-Terry ratings, games to a
95% lead, win rates, their bootstrap intervals over deals and the coin-flip calibration; NumPy only, vectorized
over resamples."""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardenvs.arena import GameRecord
from cardenvs.core import seeds

KEEPS = (0.0, 0.25, 0.5, 0.75)  # calibration: share of results kept (0: a coin flip)
COIN_DRAWS = 20  # calibration: independent draws of the coin flips
Z_ONE_SIDED_95 = 1.6448536269514722
BT_PRIOR = 0.5  # Bradley-Terry: wins added each way per pair that met
BT_ITERATIONS = 2000
ELO = 400.0 / math.log(10.0)


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


def games_of(records: Sequence[GameRecord], agent_of: dict[str, int], seats: int, seatings: int) -> Games:
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
                coin_flipped(games, keep, seeds.generator(seed, k, draw, stream="skill_coin_flips")),
                agents,
                deals,
                hands,
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
