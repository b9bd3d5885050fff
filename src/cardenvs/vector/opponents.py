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

Opponent = Any  # "random", a policy name of the game, another agent's name, an agent with act_batch, or a callable
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
    """An agent as a batched opponent: any name :func:`cardenvs.agent.load_agent` accepts that is not a numba
    policy (``twenty.solver``, ``twos.pimc(playouts=200)``, a ``KIND:PATH`` model), or an agent object that
    acts on batches (a frozen snapshot of the learner), played in Python.

    ``__call__(observations, games)`` returns the action of each game ``games[i]`` from its observation row.
    An agent with ``act_batch`` (:class:`cardenvs.agent.BatchAgent`: the random agent, the models ``dmc:PATH``,
    ``ppo:PATH``, ``rllib:PATH``) is one agent for every game, asked once per call for all of them (through
    :func:`cardenvs.agent.batch_actions`, as the batched arena asks it; with ``games``, a
    :class:`~cardenvs.agent.BatchGames` over the batch, where it takes them). Any other agent is one agent
    per game, built on the game's first decision with its own AEC env (the batch's options); before each
    decision the env is given that game's state (:meth:`~cardenvs.core.env.CardEnv.set_state`), so agents
    that read the env's state (the search agents) see their game, and ``act`` is called game by game.
    Decision ``k`` of game ``b`` gets the agent the rng ``default_rng([seed, b, k, ...])`` of the batch's
    ``reset`` seed (made only when it draws, for a batch agent): a seeded batch replays exactly
    (``decisions`` counts, and is restored with the batch), and both ways give the same actions.
    """

    def __init__(self, agent: Any, batch: Batch):
        from ..agent import acts_on_batches, load_agent, takes_games

        self.batch = batch
        if isinstance(agent, str):
            self.name = agent
            try:
                agent = load_agent(agent, batch.proto)  # an unknown name fails here, not at the first decision
            except ValueError as exc:
                raise ValueError(f"opponent {self.name!r} for {batch.env_id}: {exc}; or pass a callable") from None
        elif acts_on_batches(agent):
            self.name = str(getattr(agent, "name", agent))
        else:
            raise ValueError(f"opponent {agent!r}: expected an agent name or an agent with act_batch")
        #: the one agent of every game where it acts on batches, else None (an agent per game, in ``players``)
        self.agent = agent if acts_on_batches(agent) else None
        self._with_games = self.agent is not None and takes_games(self.agent)
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

    def _generator(self, b: int) -> np.random.Generator:
        """The generator of game ``b``'s decision being made (``decisions[b]`` counts it already)."""
        return seeds.generator(self.batch.seed, b, int(self.decisions[b]) - 1, stream="vector_agents")

    def __call__(self, observations: dict[str, np.ndarray], games: np.ndarray) -> np.ndarray:
        batch = self.batch
        if self.agent is not None:  # one call for every game where it is to act
            from ..agent import BatchGames, Generators, batch_actions

            which = np.asarray(games, dtype=np.int64)
            self.decisions[which] += 1
            rows = BatchGames(batch, which, batch.mask) if self._with_games else None
            return batch_actions(self.agent, observations, Generators(self._generator, which), rows)
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
