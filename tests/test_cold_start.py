"""First use of a game (:func:`cardenvs.cache.first_use`): what the AEC env compiles with an empty numba cache.

Each compile costs a tenth of a second or more of a newcomer's first ``reset`` (``cardenvs bench --only cold``
measures it), so the AEC env's first use compiles each kernel of the package once (a literal ``0`` or an
int32 where another call passes an int64 is a second compile of the same function) and none of the vector
env's or the search's kernels. Each game runs in a new process with a cache of its own."""

from __future__ import annotations

import pytest

from cardenvs.cache import first_use_in_new_process
from cardenvs.registry import env_ids

#: War keeps each game's random stream in its state (a record field) and deals from a fresh one (an array):
#: two types of the same 8 bytes, so its two rng draws compile twice (two small functions)
TWO_TYPES = {("war_v0", "cardenvs.core.rng.next_u64"), ("war_v0", "cardenvs.core.rng.uniform_index")}

#: kernels of other uses: the vector env's batch loops and drivers, the search's, the policies' and the
#: determinizers'
BATCH = (
    "reset_range", "observe_range", "observe_rows", "step_range", "random_range", "policy_range",
    "advance_range", "table_range", "apply_range", "_drive", "_drive_and_count", "policy", "determinize",
)  # fmt: skip
OTHER_USES = tuple(f"cardenvs.core.kernels.{name}" for name in BATCH)
OTHER_MODULES = ("cardenvs.search",) + tuple(
    f"cardenvs.games.{env_id.rpartition('_v')[0]}.{module}" for env_id in env_ids()
    for module in ("policies", "determinize", "playout", "solver")
)  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("env_id", env_ids())
def test_first_use_compiles_each_kernel_once(env_id, tmp_path):
    compiles = first_use_in_new_process(env_id, str(tmp_path))["compiles"]
    names = [name for name, _ in compiles]
    assert any(name.endswith(".aec_step") for name in names), "nothing compiled: the cache was not empty"
    twice = {}
    for name, args in compiles:
        if names.count(name) > 1 and (env_id, name) not in TWO_TYPES:
            twice.setdefault(name, []).append(args[-120:])  # the end: the arguments after the state
    assert not twice, f"{env_id}: compiled more than once (one call passes other types): {twice}"
    other = sorted(
        {n for n in names if n.split(".<")[0] in OTHER_USES or any(n.startswith(m + ".") for m in OTHER_MODULES)}
    )
    assert not other, f"{env_id}: the AEC env's first use compiled kernels of other uses: {other}"
