"""The batch loops' parallel drivers, generated from the serial loops of :mod:`.loops`, and :func:`run`, which
picks the serial or the parallel form; :func:`check_threads`, the one rule of a thread count;
:func:`serial_and_parallel`, the two forms of another loop (the search's) from one template."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from .dispatch import _callee, bind
from .loops import advance_range, apply_range, observe_range, random_range, reset_range, step_range, table_range


@njit(cache=True)
def _chunk(c: int, chunks: int, total: int) -> tuple[int, int]:
    return c * total // chunks, (c + 1) * total // chunks


def _drive(*args) -> None:
    """Template of the parallel drivers: ``args`` are the serial function's with ``chunks`` in place of
    ``lo, hi``; each chunk of ``which`` (the third argument) runs the serial function on a thread."""
    chunks = args[-1]
    head = args[:-1]
    total = args[2].shape[0]
    for c in prange(chunks):
        lo, hi = _chunk(c, chunks, total)
        _callee(*head, lo, hi)


def _drive_and_count(*args) -> int:
    """:func:`_drive` for a serial function that returns a count: the sum of the chunks' counts."""
    chunks = args[-1]
    head = args[:-1]
    total = args[2].shape[0]
    counts = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        lo, hi = _chunk(c, chunks, total)
        counts[c] = _callee(*head, lo, hi)
    return counts.sum()


#: the parallel drivers are compiled in each process that uses them, never cached: numba's cache of a
#: ``parallel=True`` function is not safe for processes that compile at once (numba issue 10128): a cold
#: ``pytest -n 2`` left a cached two_way_street ``step_parallel`` whose later loads crashed the process
#: (segmentation fault in ``run("reset", ...)``) until the cache folder was cleared; the serial loops,
#: which every caller uses, stay cached. Every ``parallel=True`` kernel of the package reads it (the War and
#: Twos studies too). A later crash of the same kind, in a serial entry, was numba naming record types by a
#: per-process number (fixed by :func:`cardenvs.cache.stable_record_names`); whether that was this one's cause
#: too was not tested, so these stay uncached
CACHE_PARALLEL = False


def _parallel(loop: str, serial) -> Any:
    """The parallel driver of batch loop ``loop`` whose serial function is ``serial`` (annotated ``-> None``,
    or ``-> int`` for a count the driver sums); compiled on first use (:data:`CACHE_PARALLEL`)."""
    template = {"None": _drive, "int": _drive_and_count}[serial.py_func.__annotations__["return"]]
    return njit(cache=CACHE_PARALLEL, parallel=True)(bind(template, f"{loop}_parallel", serial))


# numba dispatchers, called as functions (mypy sees them as unrelated objects)
SERIAL: dict[str, Any] = {
    "reset": reset_range,
    "observe": observe_range,
    "step": step_range,
    "random": random_range,
    "advance": advance_range,
    "apply": apply_range,
    "table": table_range,
}
PARALLEL: dict[str, Any] = {loop: _parallel(loop, serial) for loop, serial in SERIAL.items()}


def serial_and_parallel(template: Callable, name: str, **options: Any) -> tuple[Any, Any]:
    """Numba functions ``name`` (cached) and ``name_parallel`` (``parallel=True``, compiled on first use:
    :data:`CACHE_PARALLEL`) made from one template whose ``prange`` loops the first runs as plain loops: copies
    named apart (:func:`.dispatch.bind`). ``options`` go to both (``nogil``)."""
    serial = njit(cache=True, **options)(bind(template, name, None))
    return serial, njit(cache=CACHE_PARALLEL, parallel=True, **options)(bind(template, f"{name}_parallel", None))


def check_threads(threads: Any, what: str = "threads") -> int:
    """``threads`` as an int from 1 to the threads numba has on this machine (``NUMBA_NUM_THREADS``, the
    core count by default): the one rule of the vector envs and the search agents. Else a ``ValueError``."""
    available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # numba's stubs omit config
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"{what}={threads!r}: expected an integer from 1 to {available}")
    if threads > available:
        raise ValueError(
            f"{what}={threads}: numba has {available} threads on this machine (NUMBA_NUM_THREADS); "
            f"expected an integer from 1 to {available}"
        )
    return int(threads)


def run(loop: str, threads: int, *args):
    """Run batch loop ``loop`` over all of ``which`` (the third argument): on one thread the serial function,
    else the parallel driver with ``4 * threads`` chunks (numba's thread count set for this call only)."""
    which = args[2]
    if threads <= 1 or len(which) < 2:
        return SERIAL[loop](*args, 0, len(which))
    saved = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return PARALLEL[loop](*args, min(len(which), 4 * threads))
    finally:
        numba.set_num_threads(saved)
