"""What the numba heuristics play, locked: each game's policies (its ``rules.POLICIES``) play seeded batches of
games in the vector env (``VectorEnv.policy_actions``, the numba path the batched arena, the learner's
opponents and search rollouts share), and the sha256 of every action they took (the ``int64`` array, step by
step) must equal the hash written here.

A change of what a heuristic plays fails this test. When the change is meant (a better rule, a fixed bug),
print the new hashes and copy them into ``HASHES`` in the same commit, saying why they changed:

    CARDENVS_PRINT_HASHES=1 python -m pytest -p no:xdist -o addopts="" -q -s tests/test_heuristic_hashes.py

(with the variable set the test prints each policy's line and checks nothing)."""

import hashlib
import importlib
import os

import numpy as np
import pytest

import cardenvs
from cardenvs.registry import short_name
from cardenvs.vector import VectorEnv

GAMES, STEPS, SEED = 64, 300, 0  # 64 games dealt again as they end, 300 steps: a few seconds a policy
#: policy name -> the first 16 hex digits of the sha256 of its actions (module docstring)
HASHES = {
    "doudizhu.rule": "87cfc9ed32e8ec3c",
    "guandan.heuristic": "a7503164e015c998",
    "guandan.random": "51d4d65d7fbb294c",
    "guandan.return_search": "a7503164e015c998",  # the heuristic's moves: a hand episode has no return
    "twenty.greedy": "d0d7138ba7856146",
    "two_way_street.heuristic": "3126abcdf40be526",
    "twos.heuristic": "c2cfb7b2f9c27eeb",
    "war.flip": "0c5cc90b079d0d9c",
}


def numba_policies() -> dict[str, str]:
    """Every game's numba policies, by name (``twos.heuristic``) -> env id."""
    out = {}
    for env_id in cardenvs.ENV_IDS:
        game = short_name(env_id)
        for policy in importlib.import_module(f"cardenvs.games.{game}.rules").POLICIES:
            out[f"{game}.{policy}"] = env_id
    return out


def actions_hash(env_id: str, policy: str) -> str:
    env = VectorEnv(env_id, GAMES)
    env.reset(seed=SEED)
    taken = []
    for _ in range(STEPS):
        actions = env.policy_actions(policy)
        taken.append(actions.astype(np.int64))
        env.step(actions)
    return hashlib.sha256(np.stack(taken).tobytes()).hexdigest()[:16]


def test_every_numba_policy_has_a_hash():
    assert sorted(numba_policies()) == sorted(HASHES)


@pytest.mark.parametrize("policy", sorted(HASHES))
def test_the_policy_plays_what_it_played(policy):
    got = actions_hash(numba_policies()[policy], policy)
    if os.environ.get("CARDENVS_PRINT_HASHES"):
        print(f'\n    "{policy}": "{got}",')
        return
    assert got == HASHES[policy], f"{policy} plays other moves: if that is meant, see this module's docstring"
