"""Relative skill (Borm and van der Genugten): ``cardenvs analyze skill --relative-skill``.

Three players each take one seat against the same *field* (one agent in every other seat) on the same
duplicate deals: a ``beginner``, the ``best`` agent and a ``fictive`` player who knows the chance outcomes
(the other hands and every later draw: a cheating agent). A player's *result* is the mean win-scale outcome
of its seat over the deals (each deal over the arena's seatings, so it holds every seat). Then

* learning effect ``LE = result(best) - result(beginner)``: what playing well gains;
* chance effect ``CE = result(fictive) - result(best)``: what knowing the chance outcomes would still add;
* relative skill ``RS = LE / (LE + CE)``: 0 in a game where playing well gains nothing (roulette), 1 where
  knowing the cards would add nothing to good play.

Degenerate and noisy cases. By definition the best player is at least as good as the beginner and the
fictive player (who could play as the best does) at least as good as the best, so both effects are at least
0; a measured effect below 0 is noise (or a fictive player weaker than the best agent: the report shows the
effects as measured) and counts as 0 in the ratio: ``RS = max(LE, 0) / (max(LE, 0) + max(CE, 0))``, in [0,
1]. When both are 0 (a game without decisions such as War, where every player plays every deal alike, so
both effects are exactly 0) nothing separates the players: ``RS = 0``, as for roulette.

The field. Each game declares it (``GameSpec.relative_skill``: its heuristic): a typical player. A field of
beginners (random play) would leave no room above the best agent, which already wins nearly every deal
against random play in these games, so every game's chance effect would shrink toward 0 and its relative
skill toward 1, whatever the cards decide; the ladder's other agents as the field would cost a table per
agent. RS depends on the field as it does on the three players: the report names all four.

Intervals: percentile bootstrap over deals (:func:`.measures.resample_weights`, the skill share's machinery;
each resample draws the same deals for the three players, so their differences keep the duplicate pairing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardenvs import arena
from cardenvs.core.spec import RelativeSkill
from cardenvs.registry import make, spec_of

from .measures import _interval, resample_weights

#: the three measured players, in the order of :class:`RelativeSkill`
PLAYERS = ("beginner", "best", "fictive")
KEY = "relative skill"  # the JSON's key and the table's words


def relative_players(env_id: str, names: Sequence[str] | None = None) -> RelativeSkill:
    """The game's declared players (``GameSpec.relative_skill``), or ``names``: beginner, best, fictive and
    field. ``ValueError`` when the game declares none and none are named, or for a wrong count."""
    if names is None:
        declared = spec_of(env_id).relative_skill
        if declared is None:
            raise ValueError(
                f"{env_id} declares no relative-skill players (GameSpec.relative_skill); name them with "
                "--relative-players BEGINNER,BEST,FICTIVE,FIELD"
            )
        return declared
    names = list(names)
    if len(names) != 4 or any(not n for n in names):
        raise ValueError(
            f"--relative-players takes four agent names, beginner, best, fictive and field; got {len(names)} "
            f"({', '.join(names) or 'none'})"
        )
    return RelativeSkill(*names)


@dataclass
class RelativeRun:
    """The checked plans of one option set: one per measured player, that player in the first seat's label."""

    players: RelativeSkill
    plans: list[arena.Plan]


def plan_relative(
    env_id: str,
    players: RelativeSkill,
    options: dict,
    games: int,
    seed: int,
    role_phase: bool,
    workers: int = 1,
) -> RelativeRun:
    """A duplicate tournament per measured player: that player and the field in every other seat, the same
    ``games`` deals of ``seed`` (the arena's checks: unknown agents, agents of another game)."""
    seats = make(env_id, **options).unwrapped.num_players
    plans = []
    for name in (players.beginner, players.best, players.fictive):
        table = [name] + [players.field] * (seats - 1)
        plans.append(
            arena.plan_tournament(
                env_id, table, games, seed, options, duplicate=True, workers=workers, role_phase=role_phase
            )
        )
    return RelativeRun(players, plans)


def player_results(records: Sequence[arena.GameRecord], label: str, deals: int) -> np.ndarray:
    """``[deals]``: the mean outcome of the seat labelled ``label`` over each deal's games. A deal without
    games, or a game without (or with more than one) such seat, is a ``ValueError``."""
    total = np.zeros(deals)
    count = np.zeros(deals)
    for record in records:
        seats = [s for s, name in enumerate(record.seats) if name == label]
        if len(seats) != 1:
            raise ValueError(f"a game of deal {record.deal} seats {label} {len(seats)} times; expected once")
        total[record.deal] += record.outcome[seats[0]]
        count[record.deal] += 1
    if (count == 0).any():
        raise ValueError(f"deal {int(np.flatnonzero(count == 0)[0])} has no game of {label}")
    return total / count


def relative_skill(le: np.ndarray, ce: np.ndarray) -> np.ndarray:
    """``RS = max(LE, 0) / (max(LE, 0) + max(CE, 0))``, 0 where both are at most 0 (module doc)."""
    learning = np.maximum(np.asarray(le, dtype=np.float64), 0.0)
    chance = np.maximum(np.asarray(ce, dtype=np.float64), 0.0)
    both = learning + chance
    return np.where(both > 0, learning / np.where(both > 0, both, 1.0), 0.0)


def measure_relative(results: np.ndarray, resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """Relative skill, the two effects and each player's result with percentile bootstrap 95% intervals over
    deals, from ``results[3, deals]`` (beginner, best, fictive: each one's mean outcome per deal)."""
    results = np.asarray(results, dtype=np.float64)
    if results.ndim != 2 or results.shape[0] != 3 or results.shape[1] < 1:
        raise ValueError(f"results must be [3, deals] (beginner, best, fictive), got shape {results.shape}")
    deals = results.shape[1]
    weights = np.vstack([np.ones(deals), resample_weights(deals, resamples, rng)]) / deals
    means = weights @ results.T  # [1 + B, 3]: row 0 the measured values
    le = means[:, 1] - means[:, 0]
    ce = means[:, 2] - means[:, 1]
    rs = relative_skill(le, ce)
    out = _interval(rs[0], rs[1:])
    out["learning_effect"] = _interval(le[0], le[1:])
    out["chance_effect"] = _interval(ce[0], ce[1:])
    out["results"] = {role: _interval(means[0, i], means[1:, i]) for i, role in enumerate(PLAYERS)}
    return out


def study_relative(
    run: RelativeRun, played: Sequence[Sequence[arena.GameRecord]], games: int, resamples: int, rng
) -> dict[str, Any]:
    """The measure of one option set's played plans (:func:`plan_relative`, in its order)."""
    results = np.vstack(
        [player_results(records, plan.labels[0], games) for plan, records in zip(run.plans, played, strict=True)]
    )
    out = measure_relative(results, resamples, rng)
    players = run.players
    out["players"] = {"beginner": players.beginner, "best": players.best, "fictive": players.fictive}
    out["field"] = players.field
    out["deals"] = games
    out["games"] = int(sum(len(records) for records in played))
    return out


def relative_lines(entry: dict[str, Any], fmt) -> list[str]:
    """The report's lines (``fmt``: :func:`.report._fmt`)."""
    players, results = entry["players"], entry["results"]
    lines = [
        f"  {KEY} {fmt(entry)}   learning effect {fmt(entry['learning_effect'])}   chance effect "
        f"{fmt(entry['chance_effect'])}   (against {entry['field']} in every other seat; {entry['deals']} deals, "
        f"{entry['games']} games)"
    ]
    for role in PLAYERS:
        lines.append(f"    {role:9s} {players[role]:42s} result {fmt(results[role])}")
    return lines
