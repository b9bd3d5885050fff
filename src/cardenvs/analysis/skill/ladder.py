"""Running a ladder of ``cardenvs analyze skill``: the arena plans of one option set, their games played,
and the measures of them (:mod:`.measures`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardenvs import arena
from cardenvs.core import seeds
from cardenvs.registry import make, spec_of

from .measures import calibrate, games_of, layout_of, measure


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


def role_phase_of(env_id: str, options: dict) -> bool:
    """Do ``options`` play the game's role phase (its :class:`~cardenvs.core.spec.RolePhase`'s option set
    true)?"""
    roles = spec_of(env_id).roles
    phase = roles.phase if roles is not None else None
    return phase is not None and bool(phase.option) and options.get(phase.option) is True


def plan_ladder(
    env_id: str, ladder: Sequence[str], options: dict, games: int, seed: int, workers: int = 1
) -> LadderRun:
    """Check everything about one option set's run (arena's checks: options, agents and their game) and plan
    it. The option that plays the game's role phase (its spec's :class:`~cardenvs.core.spec.RolePhase`, e.g.
    Dou Dizhu's ``bidding=True``) among the options plays the duplicate deals with the roles chosen in that
    phase (the arena's ``role_phase``); otherwise the game's duplicate mode sets them."""
    check_ladder(ladder)
    probe = make(env_id, **options).unwrapped
    seats = probe.num_players
    role_phase = role_phase_of(env_id, options)
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
    measured = measure(layout, resamples, seeds.generator(seed, stream="skill_bootstrap"))
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
