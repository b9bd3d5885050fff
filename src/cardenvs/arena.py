"""Tournaments: seeded games between agents, with results per agent.

``play(env_id, agents, games, seed, options=None)`` plays ``games`` games with the agents rotated over the
seats (game ``g`` puts agent ``(s + g) mod n`` in seat ``s``) and returns a :class:`Results`. Game ``g``
resets the env with a seed derived from ``(seed, g)`` and gives the agents a generator derived from the
same pair, so any game can be replayed alone and the results do not depend on how games are split
between workers.

A win is a positive result on the env's ``"win"`` scale (:meth:`CardEnv.outcome`), whatever the reward
option; an illegal action loses the game for the agent that made it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .agent import load_agent
from .registry import make, resolve_id


def game_seed(seed: int, game: int) -> int:
    """The env reset seed of game ``game`` of a tournament seeded ``seed``."""
    return int(np.random.SeedSequence([seed, game]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def agent_rng(seed: int, game: int) -> np.random.Generator:
    return np.random.default_rng([seed, game, 7])


@dataclass
class GameRecord:
    game: int
    seats: list[str]  # agent label per seat
    scores: list[float]
    rewards: list[float]  # total reward per seat
    outcome: list[float]  # win-scale result per seat
    illegal: str | None = None
    steps: int = 0
    truncated: bool = False


@dataclass
class AgentStats:
    label: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    total_score: float = 0.0
    total_reward: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        return self.total_score / self.games if self.games else 0.0

    @property
    def mean_reward(self) -> float:
        return self.total_reward / self.games if self.games else 0.0


@dataclass
class Results:
    env_id: str
    agents: list[str]
    options: dict
    seed: int
    records: list[GameRecord] = field(default_factory=list)

    def stats(self) -> dict[str, AgentStats]:
        out = {label: AgentStats(label) for label in self.agents}
        for rec in self.records:
            for seat, label in enumerate(rec.seats):
                st = out[label]
                st.games += 1
                st.total_score += rec.scores[seat]
                st.total_reward += rec.rewards[seat]
                result = rec.outcome[seat]
                if result > 0:
                    st.wins += 1
                elif result < 0:
                    st.losses += 1
                else:
                    st.draws += 1
        return out

    def table(self) -> str:
        rows = [f"{'agent':24s} {'games':>6s} {'wins':>6s} {'win rate':>9s} {'mean score':>11s} {'mean reward':>12s}"]
        for st in self.stats().values():
            rows.append(f"{st.label:24s} {st.games:6d} {st.wins:6d} {st.win_rate:9.3f} {st.mean_score:11.3f} "
                        f"{st.mean_reward:12.3f}")
        return "\n".join(rows)


def labels_for(agent_names: Sequence[str]) -> list[str]:
    """Unique labels: repeated names get ``#1``, ``#2`` suffixes so identical agents are told apart."""
    counts = {n: agent_names.count(n) for n in agent_names}
    seen: dict[str, int] = {}
    labels = []
    for n in agent_names:
        if counts[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            labels.append(f"{n}#{seen[n]}")
        else:
            labels.append(n)
    return labels


def play_one(env, agents: Sequence[Any], seats: Sequence[str], seed: int, rng: np.random.Generator,
             reset_options: dict | None = None, game: int = 0) -> GameRecord:
    """Play one game with ``agents[s]`` in seat ``s``; ``seats`` are their labels."""
    env.reset(seed=seed, options=reset_options)
    base = env.unwrapped
    n = base.num_players
    rewards = np.zeros(n)
    scores = np.zeros(n)
    illegal = None
    steps = 0
    truncated = False
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        seat = base.agent_name_mapping[name]
        if term or trunc:
            scores[seat] = info.get("score", 0.0)
            truncated = truncated or trunc
            if info.get("illegal_action"):
                illegal = seats[seat]
            env.step(None)
            continue
        action = agents[seat].act(obs, rng)
        env.step(action)
        steps += 1
        for a, r in env.rewards.items():
            rewards[base.agent_name_mapping[a]] += r
    outcome = base.outcome() if illegal is None else np.where(np.array(seats) == illegal, -1.0, 0.0)
    return GameRecord(game, list(seats), scores.tolist(), rewards.tolist(), list(map(float, outcome)),
                      illegal, steps, truncated)


def play(env_id: str, agents: Sequence[str], games: int, seed: int = 0, options: dict | None = None,
         progress: bool = False) -> Results:
    """Play ``games`` seeded games between the named agents, seats rotated each game."""
    env_id = resolve_id(env_id)
    options = dict(options or {})
    env = make(env_id, **options)
    n = env.unwrapped.num_players
    if len(agents) != n:
        raise ValueError(f"{env_id} with these options seats {n} players; got {len(agents)} agents "
                         f"({', '.join(agents)}): name one agent per seat")
    labels = labels_for(list(agents))
    built = [load_agent(name, env.unwrapped) for name in agents]
    results = Results(env_id, labels, options, seed)
    iterator = range(games)
    if progress:
        from tqdm import tqdm
        iterator = tqdm(iterator, desc=env_id, unit="game")
    for g in iterator:
        order = [(s + g) % n for s in range(n)]
        results.records.append(play_one(env, [built[i] for i in order], [labels[i] for i in order],
                                        game_seed(seed, g), agent_rng(seed, g), game=g))
    return results
