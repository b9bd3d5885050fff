"""The arena's AEC engine: a job's games played one by one in the AEC env (:func:`cardenvs.core.env.play_episode`),
each optionally written as a replay."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..agent import load_agent
from ..agent.program import BotFault
from ..core import seeds
from ..core.play import play_episode
from ..registry import make, spec_of
from .records import GameRecord, agent_rng, deal_games, fault_record, game_seed


def play_one(
    env,
    agents: Sequence[Any],
    seats: Sequence[str],
    seed: int,
    rng: np.random.Generator,
    reset_options: dict | None = None,
    deal: int = 0,
    replay: int = 0,
    table: int = 0,
    terms: Any = None,
) -> GameRecord:
    """Play one game with ``agents[s]`` in seat ``s``; ``seats`` are their labels; ``terms``: a luck-adjusted
    tournament's :class:`~cardenvs.arena.luck.DecisionTerms`, told of every decision."""
    base = env.unwrapped
    for agent in agents:
        if hasattr(agent, "reset"):
            agent.reset()
    moved: list[int] = []  # the seat of each decision asked for

    def choose(seat: int, observation: dict) -> int:
        moved.append(seat)
        action = agents[seat].act(observation, rng)
        if terms is not None:
            terms.decision(base, agents[seat], observation, action)
        return action

    try:
        episode = play_episode(env, choose, seed=seed, options=reset_options)
    except BotFault as fault:  # a program's fault loses the game for its seat, as an illegal action does
        zeros = [0.0] * len(seats)
        lost = [-1.0 if s == moved[-1] else 0.0 for s in range(len(seats))]
        faults = [fault_record(seats[moved[-1]], fault, forfeit=True)]
        return GameRecord(deal, replay, table, list(seats), zeros, zeros, lost, steps=len(moved) - 1, faults=faults)
    illegal = None if episode.illegal is None else seats[episode.illegal]
    if illegal is None:
        outcome = base.outcome()
    else:
        outcome = np.array([-1.0 if label == illegal else 0.0 for label in seats])
    roles = spec_of(base.metadata["name"]).roles
    seat_roles, role_values = roles.game_roles(base) if roles is not None else (None, {})
    return GameRecord(
        deal,
        replay,
        table,
        list(seats),
        episode.scores,
        episode.rewards,
        [float(o) for o in outcome],
        illegal,
        episode.steps,
        episode.truncated,
        seat_roles,
        role_values,
        [
            fault_record(seats[s], f, forfeit=False)
            for s, agent in enumerate(agents)
            for f in getattr(agent, "faults", [])
        ],
    )


def play_deals(
    env_id: str,
    agent_names: list[str],
    labels: list[str],
    options: dict,
    seed: int,
    deals: Sequence[int],
    duplicate: bool,
    table: int,
    role_phase: bool = False,
    replays_dir: str | None = None,
    total_deals: int = 0,
    deal_resets: dict[int, dict] | None = None,
    luck: dict | None = None,
    terms: dict | None = None,
    unsandboxed: bool = False,
) -> list[GameRecord]:
    """An arena job on this engine: the games of ``deals``, one by one; with ``replays_dir`` each is written
    as a replay numbered over the whole tournament (``total_deals`` per table); ``deal_resets``: the reset
    options that deal each deal, from a deal file (:mod:`.deals`); ``luck``: a luck-adjusted tournament's settings,
    whose decision terms of each game go to ``terms[deal, replay]``; ``unsandboxed``: programs may run without a
    sandbox where none can be made (:func:`cardenvs.agent.load_agent`)."""
    env = make(env_id, **options)
    base = env.unwrapped
    games = deal_games(base, deals, duplicate, role_phase)
    built = [load_agent(name, base, unsandboxed=unsandboxed) for name in agent_names]
    recorder = None
    if replays_dir is not None:
        from ..replay import Recorder

        recorder = Recorder(env)
    records = []
    per_deal = len(games) // max(1, len(deals))  # every deal has the same set of games
    for d, k, perm, reset_options in games:
        game_terms = None
        if luck is not None and terms is not None:
            from .luck import DecisionTerms, rollout_seats, value_for

            value = value_for(env_id, options, luck)
            game_terms = terms[d, k] = DecisionTerms(
                value,
                base.num_players,
                seeds.seed_from(seed, d, k, stream="luck_rollouts"),
                luck["samples"],
                rollout_seats(value, [built[i] for i in perm]),
                luck.get("rollouts", 1),
            )
        record = play_one(
            recorder or env,
            [built[i] for i in perm],
            [labels[i] for i in perm],
            game_seed(seed, d),
            agent_rng(seed, d, k),
            {**(deal_resets or {}).get(d, {}), **reset_options} or None,
            d,
            k,
            table,
            game_terms,
        )
        records.append(record)
        if recorder is not None and replays_dir is not None:
            index = (table * total_deals + d) * per_deal + k
            _write_replay(
                recorder, record, [agent_names[i] for i in perm], options, seed, d, reset_options, replays_dir, index
            )
    for agent in built:  # programs playing as agents stop with their table
        if hasattr(agent, "close"):
            agent.close()
    return records


def _write_replay(
    recorder, record: GameRecord, names: list[str], options: dict, seed: int, deal: int, reset_options, folder, index
) -> None:
    from ..replay import FILE_PATTERN, from_game

    game = from_game(recorder, record, names, options, game_seed(seed, deal), reset_options, tournament_seed=seed)
    game.save(Path(folder) / FILE_PATTERN.format(index=index))
