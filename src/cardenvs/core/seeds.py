"""Seed derivation, in one place: every random stream of the package is a seed plus keys plus a named salt.

A user gives one seed (a tournament's, a vector env's ``reset``, a web game's); everything random under it
is derived here with NumPy's ``SeedSequence``, which mixes the entropy of every key, so streams with
different keys or salts are independent for practical purposes and never depend on global state.
:data:`STREAMS` names each salt once, so two purposes can never share a stream by accident. (The dealing
streams are apart: a deal seed drives the numba dealing generator, :mod:`cardenvs.core.rng`. An agent's
own randomness for a decision comes from one draw of the caller's generator: :func:`decision_seed`,
:func:`policy_stream`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding

from .rng import splitmix64, stream

__all__ = [
    "STREAMS",
    "LINEAR",
    "generator",
    "seed_from",
    "states",
    "linear_seed",
    "seed64",
    "draw_seed",
    "decision_seed",
    "policy_stream",
    "check_seed",
    "env_generator",
    "deal_seed",
    "deal_seed_of",
    "next_seed",
]

#: salt of each purpose's stream (the values are those the package always used: results replay exactly)
STREAMS: dict[str, int | None] = {
    "arena_deal": None,  # the env reset seed of a tournament's deal d: seed_from(seed, d)
    "arena_agents": 7,  # the agents' rng in game k of deal d: generator(seed, d, k)
    "web_agents": 11,  # the agents of a web game
    "vector_opponents": 0x0DD5,  # each vector game's numba stream for random and the heuristics' ties
    "vector_agents": 0xA6E7,  # an agent by name playing as a vector opponent: decision k of game b
    "opponent_pool": 0x5EA7,  # the learner view's draws from the opponent pool
    "learner_seat": 0x5EA8,  # the learner view's rotation offset: the learner's seat in game 0 of a reset
    "dmc_actors": None,  # a DMC run's actors (exploration, opponents), from the frames done so far
    "skill_bootstrap": 0x5C111,  # analyze skill's bootstrap resamples of deals
    "skill_coin_flips": 0xC014,  # analyze skill's coin-flip calibration: draw d at keep k, keys (k, d)
    "ladder_bootstrap": 0x1ADD,  # cardenvs ladder's bootstrap resamples of deals
    "luck_reference": 0x1C4E,  # arena --luck-adjusted: reset seed of reference deal m (the deal term's mean)
    "luck_rollouts": 0x1C4F,  # arena --luck-adjusted: the value function's rollouts, keys (deal, options, kind)
    "luck_samples": 0x1C50,  # arena --luck-adjusted: resample j of decision t of game (deal d, replay k): (d, k, t, j)
}
#: streams whose salt comes right after the seed, before the keys (kept from before the table, so documented
#: runs replay)
SALT_FIRST = frozenset({"skill_bootstrap", "skill_coin_flips"})


#: seeds derived linearly, ``seed * spacing + offset + k`` (kept from before the table, so documented runs
#: replay): stream -> (spacing, offset)
LINEAR: dict[str, tuple[int, int]] = {
    "dmc_deals": (1_000_003, 0),  # a DMC run's vector env reset after ``k`` frames
    "training_evaluation": (1, 10_000),  # the arena seed of a training run's evaluations (held-out deals)
    "baseline_hands": (100_003, 0),  # hand ``k`` of ``cardenvs analyze baselines``
}


def linear_seed(seed: int, k: int, *, stream: str) -> int:
    """The integer seed ``k`` of a linear ``stream`` (:data:`LINEAR`) for ``seed``."""
    if stream not in LINEAR:
        raise ValueError(f"unknown linear seed stream {stream!r}; known: {', '.join(LINEAR)}")
    spacing, offset = LINEAR[stream]
    return int(seed) * spacing + offset + int(k)


def _entropy(seed: int, keys: tuple[int, ...], stream: str) -> list[int]:
    if stream not in STREAMS:
        raise ValueError(f"unknown random stream {stream!r}; known: {', '.join(STREAMS)}")
    value = STREAMS[stream]
    salt = [] if value is None else [value]
    if stream in SALT_FIRST:
        return [int(seed), *salt, *(int(k) for k in keys)]
    return [int(seed), *(int(k) for k in keys), *salt]


def generator(seed: int, *keys: int, stream: str) -> np.random.Generator:
    """The ``np.random.Generator`` of ``stream`` for ``seed`` and ``keys`` (e.g. the deal and the game)."""
    return np.random.default_rng(_entropy(seed, keys, stream))


def seed_from(seed: int, *keys: int, stream: str) -> int:
    """A 63-bit integer seed of ``stream`` for ``seed`` and ``keys`` (an env reset seed, say)."""
    return int(np.random.SeedSequence(_entropy(seed, keys, stream)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def states(seed: int, count: int, *keys: int, stream: str) -> np.ndarray:
    """``count`` 64-bit words of ``stream`` (the states of per-game numba generators)."""
    return np.random.SeedSequence(_entropy(seed, keys, stream)).generate_state(count, np.uint64)


def seed64(seed: Any, who: str = "seed") -> np.uint64:
    """A seed as 64 bits: any integer >= 0, as the envs take (a seed of 2**64 or more is hashed down by
    ``np.random.SeedSequence``; smaller ones are used as they are); ``ValueError`` naming ``who`` else."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{who}: seed={seed!r}; expected an integer >= 0")
    if seed < 2**64:
        return np.uint64(seed)
    return np.random.SeedSequence(int(seed)).generate_state(1, np.uint64)[0]


def draw_seed(rng: np.random.Generator) -> np.uint64:
    """One draw of a caller's generator as a 63-bit seed: what an agent takes from the arena's ``rng`` for a
    decision that needs randomness of its own, so a seeded tournament replays exactly."""
    return np.uint64(rng.integers(0, 2**63, dtype=np.int64))


def decision_seed(seed: np.uint64, rng: np.random.Generator) -> int:
    """A search agent's seed for one decision: its own ``seed`` (:func:`seed64`) mixed with one draw of the
    caller's ``rng`` (63 bits)."""
    return int(splitmix64(seed ^ draw_seed(rng)) >> np.uint64(1))


def policy_stream(rng: np.random.Generator) -> np.uint64:
    """A numba policy's stream for one decision that draws (:class:`cardenvs.agent.PolicyAgent`): stream 0
    (:func:`cardenvs.core.rng.stream`) of one draw of the caller's ``rng``."""
    return stream(draw_seed(rng), 0)[0]


def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy integers accepted) or None; anything else is a ``ValueError``."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"{what}={seed!r}; expected None or a non-negative integer")
    return int(seed)


def env_generator(seed: int | None) -> np.random.Generator:
    """An AEC env's ``np_random`` after ``reset(seed)`` (Gymnasium's seeding; None: fresh entropy)."""
    return seeding.np_random(seed)[0]


def deal_seed(np_random: np.random.Generator) -> int:
    """The next deal seed of an env's ``np_random``: what ``reset`` deals from (63 bits; the numba dealing
    generator, :mod:`cardenvs.core.rng`, shuffles deal ``k`` from it)."""
    return int(np_random.integers(2**63 - 1))


def deal_seed_of(seed: int | None) -> int:
    """The deal seed an env reset with ``seed`` deals from; the vector envs deal game ``i`` of ``reset(seed=s)``
    from ``deal_seed_of(s + i)``."""
    return deal_seed(env_generator(check_seed(seed)))


def next_seed(rng: np.random.Generator | None = None) -> int:
    """A reset seed drawn from ``rng`` (62 bits): the next episode of a generator a seeded reset made, or, with
    None, fresh entropy (an unseeded vector reset)."""
    return int((np.random.default_rng() if rng is None else rng).integers(2**62))
