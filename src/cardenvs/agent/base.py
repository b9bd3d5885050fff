"""The agent protocol (:class:`Agent`, :class:`BatchAgent`, :class:`BatchGames`) and the agents every game
has: :class:`RandomAgent` and :class:`PolicyAgent` (a game's numba policy); the protocol in full is the
docstring of :mod:`cardenvs.agent`."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core import kernels
from ..core.env import legal_actions
from ..core.seeds import policy_stream


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int: ...


@runtime_checkable
class BatchAgent(Protocol):
    """An agent that also acts on a batch of games (module docstring, "Batches")."""

    name: str

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int: ...

    def act_batch(self, observations: Mapping[str, np.ndarray], rngs: Sequence[np.random.Generator]) -> np.ndarray: ...


@dataclass(frozen=True)
class BatchGames:
    """Where the rows of an ``act_batch`` call are: row ``i`` is game ``indices[i]`` of ``env`` (a
    :class:`cardenvs.vector.VectorEnv`, whose state a numba policy reads; for an opponent in the learner view,
    the batch under it, which gives ``legal_ids()`` only); ``mask`` is every game's bool action mask ``[B, A]``
    (the rows' are ``mask[indices]``)."""

    env: Any
    indices: np.ndarray
    mask: np.ndarray

    def legal_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows' legal action ids, ascending and padded with -1 (``[k, K]``), and their counts (``[k]``):
        the vector env's own lists (:meth:`cardenvs.vector.VectorEnv.legal_ids`), much cheaper than reading
        a long mask (Dou Dizhu's has 28,242 entries)."""
        ids, counts = self.env.legal_ids()
        return ids[self.indices], counts[self.indices]


class Generators(Sequence[np.random.Generator]):
    """The generators of an ``act_batch`` call's rows, each made when first asked for (a greedy model asks for
    none): row ``i``'s is ``make(games[i])``, kept in ``cache`` by game (shared by every call that should see
    the same generator of a game, e.g. every decision of an arena game)."""

    def __init__(self, make: Callable[[int], np.random.Generator], games: np.ndarray, cache: dict | None = None):
        self._make, self._games = make, games
        self._cache: dict[int, np.random.Generator] = {} if cache is None else cache

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self))[i]]
        g = int(self._games[i])
        if g not in self._cache:
            self._cache[g] = self._make(g)
        return self._cache[g]

    def __len__(self) -> int:
        return len(self._games)


def batch_actions(
    agent: Any, observations: Mapping[str, np.ndarray], rngs: Sequence[np.random.Generator], games: BatchGames | None
) -> np.ndarray:
    """One ``act_batch`` call of ``agent`` for the rows of ``observations`` (``games`` passed where given: pass
    it to an agent that :func:`takes_games`), its actions checked: one integer per row, else a ``ValueError``
    naming the agent. The batched arena and the vector envs' agent opponents call agents through this."""
    count = len(rngs)
    if games is not None:
        chosen = np.asarray(agent.act_batch(observations, rngs, games=games))
    else:
        chosen = np.asarray(agent.act_batch(observations, rngs))
    if chosen.shape != (count,) or not np.issubdtype(chosen.dtype, np.integer):
        raise ValueError(
            f"agent {getattr(agent, 'name', agent)}: act_batch returned {chosen.dtype} of shape "
            f"{chosen.shape} for {count} games; expected one integer action per game"
        )
    return chosen


def acts_on_batches(agent: Any) -> bool:
    """Whether ``agent`` has an ``act_batch`` method (the arena then plays it on a vector env)."""
    return callable(getattr(agent, "act_batch", None))


def takes_games(agent: Any) -> bool:
    """Whether ``agent.act_batch`` takes the keyword ``games`` (a :class:`BatchGames`)."""
    try:
        return "games" in inspect.signature(agent.act_batch).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin)
        return False


class RandomAgent:
    """Uniformly random among the legal actions."""

    name = "random"

    def __init__(self, env: Any = None):
        self.env = env

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        legal = legal_actions(observation)
        if len(legal) == 0:
            raise ValueError("random agent asked to act with an empty action mask")
        return int(legal[rng.integers(len(legal))])

    def act_batch(self, observations: Mapping[str, np.ndarray], rngs: Sequence[np.random.Generator]) -> np.ndarray:
        """:meth:`act` on each row, one draw from each row's generator."""
        masks = observations["action_mask"]
        out = np.empty(len(masks), dtype=np.int64)
        for i, mask in enumerate(masks):
            out[i] = self.act({"action_mask": mask}, rngs[i])
        return out


class PolicyAgent:
    """``GAME.NAME``: the game's numba policy ``NAME`` (one of its ``POLICIES``) in the AEC world, the one
    function the vector envs' opponents and the search rollouts also call.

    At ``act`` it reads the env's current state (``env.unwrapped.core_state()``, as
    :class:`cardenvs.search.SearchAgent` does) and asks the policy for the seat to act
    (:func:`cardenvs.core.kernels.policy_range`). A policy's random draws come from a ``uint64[1]`` stream
    (:func:`cardenvs.core.rng.stream`) seeded from one draw of the caller's ``rng``, so a seeded arena
    replays exactly. The policy is first asked with a fixed stream and the draw is made only if it used
    that stream: a heuristic that draws nothing at a decision (most do, Twenty's greedy only on ties) leaves
    the caller's ``rng`` as it found it.
    """

    #: the fixed stream of the first call: a decision that leaves it unchanged drew nothing
    PROBE = kernels.PROBE

    def __init__(self, env: Any, policy: str):
        base = getattr(env, "unwrapped", env)
        game = _game_of(base)
        policies = base.policy_names() if callable(getattr(base, "policy_names", None)) else ()
        if policy not in policies:
            known = ", ".join(policies) or "none"
            raise ValueError(f"{policy!r} is not a numba policy of {game} (its policies: {known})")
        self.env = base
        self.name = f"{game}.{policy}"
        self.kind = 2 + policies.index(policy)  # the kernels' code of policy k (1 is random)
        self._which = np.zeros(1, dtype=np.int64)
        self._stream = np.zeros((1, 1), dtype=np.uint64)
        self._out = np.zeros(1, dtype=np.int64)

    def _choose(self) -> int:
        _, states, params, _ = self.env.core_state()
        kernels.policy_range(states, params, self._which, self.kind, self._stream, int(self.env.num_actions), self._out)
        return int(self._out[0])

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        self._stream[0, 0] = self.PROBE
        action = self._choose()
        if self._stream[0, 0] != self.PROBE:  # it drew: again, with a stream from the caller's rng
            self._stream[0, 0] = policy_stream(rng)
            action = self._choose()
        mask = observation["action_mask"]
        if not 0 <= action < len(mask) or not mask[action]:
            raise RuntimeError(f"{self.name} chose {action}, which the observation's mask does not allow")
        return action

    def act_batch(
        self,
        observations: Mapping[str, np.ndarray],
        rngs: Sequence[np.random.Generator],
        games: BatchGames | None = None,
    ) -> np.ndarray:
        """:meth:`act` in every game of ``games`` at once: the policy on the vector env's states
        (:meth:`cardenvs.vector.VectorEnv.policy_actions`), probed with the fixed stream, then again where it
        drew, with a stream from one draw of that game's generator."""
        if games is None:
            raise ValueError(f"{self.name} reads the game's state: act_batch needs games (a BatchGames)")
        streams = np.full(len(games.indices), self.PROBE, dtype=np.uint64)
        actions = games.env.policy_actions(self.name, games.indices, streams)
        drew = np.flatnonzero(streams != self.PROBE)
        if len(drew):
            again = np.array([policy_stream(rngs[i]) for i in drew.tolist()], dtype=np.uint64)
            actions[drew] = games.env.policy_actions(self.name, games.indices[drew], again)
        legal = (actions >= 0) & (actions < games.mask.shape[1])
        legal[legal] = games.mask[games.indices[legal], actions[legal]]
        if not legal.all():
            bad = int(actions[np.flatnonzero(~legal)[0]])
            raise RuntimeError(f"{self.name} chose {bad}, which the observation's mask does not allow")
        return actions


def _game_of(env: Any) -> str | None:
    """The short game name of an env (``twos`` for ``twos_v0``): its spec's, or the registered game's of its
    id; the id itself for an env of no registered game; None for an object without one."""
    base = getattr(env, "unwrapped", env)
    spec = getattr(base, "SPEC", None)
    if spec is not None:
        return spec.name
    name = (getattr(base, "metadata", None) or {}).get("name")
    if not isinstance(name, str):
        return None
    from ..registry import short_name

    try:
        return short_name(name)
    except ValueError:  # a name no game has: it matches no agent's game
        return name
