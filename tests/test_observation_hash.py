"""Observations and masks stay what they were: hashes over thousands of positions of seeded random play,
in the AEC env and the vector env, for every game and a variant of most, recorded before the speed work on
observations and masks (issue 28). A change of any observation or mask byte changes its hash; a layout
change on purpose must update the table in the same commit, saying why."""

import hashlib

import numpy as np
import pytest

import cardenvs
from cardenvs import vector

#: (env id, options) -> (AEC hash over 2,000 positions, vector hash over 200 steps of 16 games)
RECORDED = {
    ("twos_v0", ()): ("16d3e536aebf43b2", "e0d4cd7e08f80c1b"),
    ("twos_v0", (("players", 2),)): ("53c03648f6d478a8", "9d5b543a5cef00a5"),
    ("twenty_v0", ()): ("ba9c2e212520c1eb", "99d7e18cb3043c31"),
    ("twenty_v0", (("exposed_hands", True),)): ("f369941379632cf7", "4654dad981597a2e"),
    ("war_v0", ()): ("7f0ebe2092093480", "4cb137f052c3db7b"),
    ("two_way_street_v0", ()): ("3e937ec91505d42c", "84bbe9df997510f7"),
    ("two_way_street_v0", (("players", 6),)): ("9f283223c900ba08", "5a9db73cc5bd8668"),
    ("doudizhu_v0", ()): ("59bb0e9de9170a3d", "617d577be076016e"),
    ("doudizhu_v0", (("bidding", False),)): ("092ae5579eb92868", "dfeb374c479fa5cb"),
    ("guandan_v0", ()): ("55bee3180056b812", "fa9c023626c1b201"),
    # issue 53: a later hand's tribute and return no longer show the previous hand's last play as the play to beat
    ("guandan_v0", (("episode", "match"), ("max_hands", 2))): ("4f0189d146bf6bff", "f7853a9335f96e59"),
}


def aec_hash(env_id: str, options: dict, positions: int = 2000, seed: int = 0) -> str:
    env = cardenvs.make(env_id, **options)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    count = game = 0
    while count < positions:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            h.update(obs["observation"].tobytes())
            h.update(obs["action_mask"].tobytes())
            count += 1
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    return h.hexdigest()[:16]


def vector_hash(env_id: str, options: dict, steps: int = 200, num_envs: int = 16, seed: int = 0) -> str:
    venv = vector.make(env_id, num_envs, **options)
    obs, _ = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    for _ in range(steps):
        h.update(obs["observation"].tobytes())
        h.update(obs["action_mask"].tobytes())
        legal, counts = venv.legal_ids()
        obs, *_ = venv.step(legal[np.arange(num_envs), rng.integers(counts)].astype(np.int64))
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case", list(RECORDED), ids=lambda c: c[0] + "".join(f"-{k}={v}" for k, v in c[1]))
def test_observations_and_masks_are_unchanged(case):
    env_id, options = case
    assert (aec_hash(env_id, dict(options)), vector_hash(env_id, dict(options))) == RECORDED[case]


def test_the_hash_sees_a_changed_byte():
    """The hash is over every observation and mask byte: another seed (other positions) gives another one."""
    assert aec_hash("war_v0", {}, positions=200, seed=1) != aec_hash("war_v0", {}, positions=200, seed=0)
