"""First use of a game (:func:`cardenvs.coldstart.first_use`): what the AEC env and the vector env compile with an
empty numba cache.

Each compile costs a tenth of a second or more of a newcomer's first ``reset`` (``cardenvs bench --only cold``
measures it), so a first use compiles each kernel of the package once (a literal ``0``, an int32 or an int8
where another call passes an int64 is a second compile of the same function) and only what that use needs:
the AEC env none of the vector env's or the search's kernels, the vector env none of the AEC env's step or
the search's. Each game and use runs in a new process with a cache of its own."""

from __future__ import annotations

import pytest

from cardenvs.coldstart import first_use_in_new_process
from cardenvs.registry import env_ids

#: War keeps each game's random stream in its state (a record field) and deals from a fresh one (an array):
#: two types of the same 8 bytes, so its two rng draws compile twice (two small functions)
TWO_TYPES = {("war_v0", "cardenvs.core.rng.next_u64"), ("war_v0", "cardenvs.core.rng.uniform_index")}

#: kernels of other uses: the vector env's batch loops and drivers, the search's, the policies' and the
#: determinizers'
LOOPS, DISPATCH = "cardenvs.core.kernels.loops", "cardenvs.core.kernels.dispatch"
BATCH = (
    "reset_range", "observe_range", "observe_rows", "step_range", "random_range", "policy_range",
    "advance_range", "table_range", "apply_range",
)  # fmt: skip
OTHER_USES = (
    *(f"{LOOPS}.{name}" for name in BATCH),
    *(f"cardenvs.core.kernels.parallel.{loop}_parallel" for loop in ("reset", "observe", "step", "random")),
    *(f"cardenvs.core.kernels.parallel.{loop}_parallel" for loop in ("advance", "apply", "table")),
    *(f"{DISPATCH}.{name}" for name in ("policy", "determinize")),
)
#: what the plain vector env (no opponents) does not need: the AEC env's own step (the vector env writes its
#: step out in ``step_range``), and the policies' and the search's batch loops
NOT_VECTOR = (
    *(f"{LOOPS}.{name}" for name in ("aec_step", "_rewards_of_move", "policy_range", "table_range", "advance_range")),
    *(f"{DISPATCH}.{name}" for name in ("policy", "determinize")),
)
OTHER_MODULES = ("cardenvs.search",) + tuple(
    f"cardenvs.games.{env_id.rpartition('_v')[0]}.{module}" for env_id in env_ids()
    for module in ("policies", "determinize", "playout", "solver")
)  # fmt: skip


def compiled_twice(env_id: str, compiles: list) -> dict:
    names = [name for name, _ in compiles]
    twice: dict = {}
    for name, args in compiles:
        if names.count(name) > 1 and (env_id, name) not in TWO_TYPES:
            twice.setdefault(name, []).append(args[-120:])  # the end: the arguments after the state
    return twice


def compiled_from(compiles: list, kernels: tuple, modules: tuple) -> list:
    names = {name for name, _ in compiles}
    return sorted(n for n in names if n.split(".<")[0] in kernels or any(n.startswith(m + ".") for m in modules))


@pytest.mark.slow
@pytest.mark.parametrize("env_id", env_ids())
def test_first_use_compiles_each_kernel_once(env_id, tmp_path):
    compiles = first_use_in_new_process(env_id, str(tmp_path))["compiles"]
    assert any(name.endswith(".aec_step") for name, _ in compiles), "nothing compiled: the cache was not empty"
    twice = compiled_twice(env_id, compiles)
    assert not twice, f"{env_id}: compiled more than once (one call passes other types): {twice}"
    other = compiled_from(compiles, OTHER_USES, OTHER_MODULES)
    assert not other, f"{env_id}: the AEC env's first use compiled kernels of other uses: {other}"


@pytest.mark.slow
@pytest.mark.parametrize("env_id", env_ids())
def test_first_vector_use_compiles_each_kernel_once_and_not_the_aec_step(env_id, tmp_path):
    result = first_use_in_new_process(env_id, str(tmp_path), use="vector")
    compiles = result["compiles"]
    assert result["moves"] == 50
    assert any(name.endswith(".step_range") for name, _ in compiles), "nothing compiled: the cache was not empty"
    twice = compiled_twice(env_id, compiles)
    assert not twice, f"{env_id}: compiled more than once (one call passes other types): {twice}"
    other = compiled_from(compiles, NOT_VECTOR, OTHER_MODULES)
    assert not other, f"{env_id}: the vector env's first use compiled kernels of other uses: {other}"


def test_first_use_names_a_bad_use():
    with pytest.raises(ValueError, match="use must be one of"):
        first_use_in_new_process("war_v0", ".", use="gpu")
