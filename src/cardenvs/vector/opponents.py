"""What the vector views play besides the caller: the kernels' code of a numba opponent (``"random"`` or one of
the game's policies) and :class:`AgentOpponent`, any other agent by name, played in Python."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core import seeds
from ..core.env import CardEnv
from ..opponents import OpponentPool
from ..registry import raw_env_class
from .batch import Batch

Opponent = Any  # "random", a policy name of the game, or a callable
#: what the learner view's ``opponents`` takes: one opponent per other seat (or one for all), or a pool
Opponents = Sequence[Opponent] | Mapping[Opponent, float] | OpponentPool


def _policy_name(batch: Batch, opponent: str) -> str:
    """``opponent`` without the game's prefix (``"twos.heuristic"`` -> ``"heuristic"``)."""
    return opponent[len(batch.game) + 1 :] if opponent.startswith(batch.game + ".") else opponent


def policy_kind(batch: Batch, opponent: Any) -> int:
    """The kernels' code of an opponent played in numba: 1 random, 2 + k the game's policy k."""
    if not isinstance(opponent, str):
        raise ValueError(f"opponent {opponent!r}: expected 'random', a policy name or a callable")
    if opponent == "random":
        return 1
    names = batch.policies
    name = _policy_name(batch, opponent)
    if name not in names:
        known = ", ".join(["random"] + [f"{batch.game}.{p}" for p in names])
        raise ValueError(
            f"opponent {opponent!r} is not a numba policy of {batch.env_id}; known: {known}, or a callable"
        )
    return 2 + names.index(name)


def is_policy(batch: Batch, opponent: Any) -> bool:
    return opponent == "random" or _policy_name(batch, opponent) in batch.policies


class AgentOpponent:
    """An agent by name as a batched opponent: any name :func:`cardenvs.agent.load_agent` accepts that is not
    a numba policy (``twenty.solver``, ``twos.pimc(playouts=200)``, a ``KIND:PATH`` model), played in Python.

    One agent per game of the batch, built on the game's first decision with its own AEC env (the batch's
    options); before each decision the env is given that game's state (``states``, ``params``, the seat to
    act), so agents that read the env's state (the search agents, a numba policy's fallback) see their game.
    ``__call__(observations, games)`` returns the action of each game ``games[i]`` from its observation row.
    Decision ``k`` of game ``b`` gets the agent the rng ``default_rng([seed, b, k, ...])`` of the batch's
    ``reset`` seed: a seeded batch replays exactly (``decisions`` counts, and is restored with the batch).
    """

    def __init__(self, name: str, batch: Batch):
        from ..agent import load_agent

        self.name = name
        self.batch = batch
        try:
            load_agent(name, batch.proto)  # an unknown name fails here, not at the first decision
        except ValueError as exc:
            raise ValueError(f"opponent {name!r} for {batch.env_id}: {exc}; or pass a callable") from None
        self.players: dict[int, tuple[CardEnv, Any]] = {}
        self.decisions = np.zeros(batch.num_envs, dtype=np.int64)

    def _player(self, b: int) -> tuple[CardEnv, Any]:
        """Game ``b``'s env and agent, built on first use."""
        if b not in self.players:
            from ..agent import load_agent

            batch = self.batch
            env: CardEnv = raw_env_class(batch.env_id)(**batch.options)
            env.reset(seed=0)  # every attribute of a running game; its state is replaced before each decision
            env.set_state(params=batch.params)
            self.players[b] = (env, load_agent(self.name, env))
        return self.players[b]

    def restart(self) -> None:
        """After the batch's reset: decisions count from 0 again, and the games' envs take the batch's params
        (reset options such as Dou Dizhu's ``landlord`` live there)."""
        self.decisions[:] = 0
        for env, _ in self.players.values():
            env.set_state(params=self.batch.params)

    def __call__(self, observations: dict[str, np.ndarray], games: np.ndarray) -> np.ndarray:
        batch = self.batch
        out = np.zeros(len(games), dtype=np.int64)
        for i, b in enumerate(np.asarray(games, dtype=np.int64).tolist()):
            env, agent = self._player(b)
            env.set_state(batch.state[b])
            rng = seeds.generator(batch.seed, b, int(self.decisions[b]), stream="vector_agents")
            self.decisions[b] += 1
            row = {
                "observation": observations["observation"][i],
                "action_mask": observations["action_mask"][i].astype(np.int8),
            }
            out[i] = agent.act(row, rng)
        return out

    def __repr__(self) -> str:
        return f"AgentOpponent({self.name!r})"
