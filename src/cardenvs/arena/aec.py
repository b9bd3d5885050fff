"""The arena's AEC engine: a job's games played in the AEC env (:func:`cardenvs.core.env.play_episode`), each
optionally written as a replay and as a transcript.

Agents' hooks the engine reads, each optional: ``reset()`` before a game; ``faults`` (the faults a fallback agent
covered in the game); ``game_usage()`` after a game, a dict of numbers and lists of numbers (an ``llm:`` seat's
calls, tokens, latencies, cost), kept per label in the game's record (:attr:`GameRecord.usage`) and summed per
agent by the results; ``game_transcript()`` after a game, a list of dicts (one per decision, with its ``step``),
written with ``transcripts`` as JSON lines, one file per game; ``in_flight`` (an integer): with any agent's above
1, the job's games are played that many at once on threads (:func:`play_deals`).

Games at once: each thread plays with an env and agents of its own (a *lane*, built as the first; lanes are
reused, one game at a time each), every game with the seeds it has when played alone, and the records come back
in the order of the games, so a table whose agents' moves depend only on their position and generator (as the
arena already assumes when it splits deals between worker processes; an ``llm:`` seat at a deterministic
endpoint) gives the records it gives one game at a time. A luck-adjusted tournament's decision terms, which share
the process's value function, are computed under a lock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..agent import load_agent
from ..agent.program import BotFault
from ..core import seeds
from ..core.play import play_episode
from ..registry import make, spec_of
from .records import GameRecord, agent_rng, deal_games, fault_record, game_seed

#: how arena transcript files are named (as replays are: the game's index over the whole tournament)
TRANSCRIPT_PATTERN = "game_{index:06d}.jsonl"


def game_usage(agents: Sequence[Any], seats: Sequence[str]) -> dict[str, dict]:
    """The ``game_usage()`` of the agents that have it, by label, with each list's median and 90th percentile."""
    out = {}
    for label, agent in zip(seats, agents, strict=True):
        if not callable(getattr(agent, "game_usage", None)):
            continue
        usage = dict(agent.game_usage())
        for key, values in list(usage.items()):
            if isinstance(values, list):
                usage[f"{key}_median"] = float(np.median(values)) if values else None
                usage[f"{key}_p90"] = float(np.percentile(values, 90)) if values else None
        out[label] = usage
    return out


def game_transcript(agents: Sequence[Any], seats: Sequence[str]) -> list[dict]:
    """The decisions of the agents that keep a ``game_transcript()``, each with its agent's label, by step."""
    lines = []
    for label, agent in zip(seats, agents, strict=True):
        if callable(getattr(agent, "game_transcript", None)):
            lines += [{"agent": label, **entry} for entry in agent.game_transcript()]
    return sorted(lines, key=lambda line: line.get("step", 0))


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
    chose: list[int] = []  # the seat of each decision with more than one legal move

    def choose(seat: int, observation: dict) -> int:
        moved.append(seat)
        if int(np.count_nonzero(observation["action_mask"])) > 1:
            chose.append(seat)
        action = agents[seat].act(observation, rng)
        if terms is not None:
            terms.decision(base, agents[seat], observation, action)
        return action

    can_fault = any(hasattr(agent, "faults") for agent in agents)

    def decisions() -> list[int]:
        return [moved.count(s) for s in range(len(seats))] if can_fault else []

    def choices() -> list[int]:
        return [chose.count(s) for s in range(len(seats))] if can_fault else []

    try:
        episode = play_episode(env, choose, seed=seed, options=reset_options)
    except BotFault as fault:  # a program's fault loses the game for its seat, as an illegal action does
        zeros = [0.0] * len(seats)
        lost = [-1.0 if s == moved[-1] else 0.0 for s in range(len(seats))]
        faults = [
            fault_record(seats[s], f, forfeit=False) for s, a in enumerate(agents) for f in getattr(a, "faults", [])
        ]
        faults.append(fault_record(seats[moved[-1]], fault, forfeit=True))  # after the covered faults, as they came
        return GameRecord(
            deal,
            replay,
            table,
            list(seats),
            zeros,
            zeros,
            lost,
            steps=len(moved) - 1,
            faults=faults,
            usage=game_usage(agents, seats),
            decisions=decisions(),
            choices=choices(),
        )
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
        usage=game_usage(agents, seats),
        decisions=decisions(),
        choices=choices(),
    )


@dataclass
class _Lane:
    """What one game at a time is played with: an env (the replay recorder around it, with replays) and agents."""

    env: Any
    agents: list[Any]


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
    transcripts_dir: str | None = None,
) -> list[GameRecord]:
    """An arena job on this engine: the games of ``deals``; with ``replays_dir`` each is written as a replay
    numbered over the whole tournament (``total_deals`` per table), with ``transcripts_dir`` the decisions of its
    agents that keep transcripts (``game_transcript()``) as JSON lines named likewise (embedded in the replay too);
    ``deal_resets``: the reset options that deal each deal, from a deal file (:mod:`.deals`); ``luck``: a
    luck-adjusted tournament's settings, whose decision terms of each game go to ``terms[deal, replay]``;
    ``unsandboxed``: programs may run without a sandbox where none can be made (:func:`cardenvs.agent.load_agent`).
    With an agent whose ``in_flight`` is above 1, that many games are played at once (module docstring)."""
    lock = threading.Lock()

    def new_lane() -> _Lane:
        env = make(env_id, **options)
        built = [load_agent(name, env.unwrapped, unsandboxed=unsandboxed) for name in agent_names]
        if replays_dir is not None:
            from ..replay import Recorder

            return _Lane(Recorder(env), built)
        return _Lane(env, built)

    first = new_lane()
    base = first.env.unwrapped
    games = deal_games(base, deals, duplicate, role_phase)
    per_deal = len(games) // max(1, len(deals))  # every deal has the same set of games
    at_once = min(len(games), max([int(getattr(agent, "in_flight", 1) or 1) for agent in first.agents] + [1]))
    lanes = [first]
    free = [first]

    def play(game: tuple) -> GameRecord:
        with lock:
            lane = free.pop() if free else None
        if lane is None:
            with lock:  # agents load one at a time (imports, numba's first compile)
                lane = new_lane()
                lanes.append(lane)
        try:
            return play_game(lane, game)
        finally:
            with lock:
                free.append(lane)

    def play_game(lane: _Lane, game: tuple) -> GameRecord:
        d, k, perm, reset_options = game
        agents = [lane.agents[i] for i in perm]
        game_terms: Any = None
        if luck is not None and terms is not None:
            from .luck import DecisionTerms, rollout_seats, value_for

            with lock:
                value = value_for(env_id, options, luck)
                game_terms = terms[d, k] = DecisionTerms(
                    value,
                    base.num_players,
                    seeds.seed_from(seed, d, k, stream="luck_rollouts"),
                    luck["samples"],
                    rollout_seats(value, agents),
                    luck.get("rollouts", 1),
                )
            if at_once > 1:
                game_terms = _Locked(game_terms, lock)
        seats = [labels[i] for i in perm]
        record = play_one(
            lane.env,
            agents,
            seats,
            game_seed(seed, d),
            agent_rng(seed, d, k),
            {**(deal_resets or {}).get(d, {}), **reset_options} or None,
            d,
            k,
            table,
            game_terms,
        )
        index = (table * total_deals + d) * per_deal + k
        transcript = game_transcript(agents, seats) if transcripts_dir is not None else []
        if transcripts_dir is not None:
            lines = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in transcript)
            (Path(transcripts_dir) / TRANSCRIPT_PATTERN.format(index=index)).write_text(lines)
        if replays_dir is not None:
            names = [agent_names[i] for i in perm]
            _write_replay(lane.env, record, names, options, seed, d, reset_options, replays_dir, index, transcript)
        return record

    try:
        if at_once == 1:
            return [play(game) for game in games]
        with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="cardenvs-game") as pool:
            return list(pool.map(play, games))  # in the order of the games
    finally:
        for lane in lanes:  # programs playing as agents stop with their table
            for agent in lane.agents:
                if hasattr(agent, "close"):
                    agent.close()


class _Locked:
    """A luck-adjusted game's decision terms, told of decisions under the engine's lock (games played at once)."""

    def __init__(self, terms: Any, lock: threading.Lock):
        self._terms, self._lock = terms, lock

    def decision(self, *args: Any) -> None:
        with self._lock:
            self._terms.decision(*args)


def _write_replay(
    recorder,
    record: GameRecord,
    names: list[str],
    options: dict,
    seed: int,
    deal: int,
    reset_options,
    folder,
    index,
    transcript: list[dict],
) -> None:
    from ..replay import FILE_PATTERN, from_game

    game = from_game(recorder, record, names, options, game_seed(seed, deal), reset_options, tournament_seed=seed)
    game.transcript = transcript
    game.save(Path(folder) / FILE_PATTERN.format(index=index))
