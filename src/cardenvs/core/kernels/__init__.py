"""The batched game core: what every game's numba rules provide, and the loops over a batch, written once.

A game's core (in ``games/<game>/rules.py``) is a NumPy **structured dtype** ``STATE`` (one record per game:
a few small arrays and counters, so the state of ``B`` games is one array of ``B`` records and
``state["hands"]`` is a ``[B, ...]`` view) and a handful of ``@njit(cache=True)`` functions that touch only
game ``b``. ``params`` is a one-element structured array of the constants of one configuration (number of
players, tables that depend on options, stacked decks). The functions, with the signatures every game
uses (all write in place; none allocates Python objects):

==============================================  ===========================================================
``init(state, b, params, deal_seed)``           start game ``b``: deal 0 is ``params[0].stacked[0]`` if
                                                decks are stacked, else :func:`rng.deal_deck` of
                                                ``deal_seed``; later deals of the episode likewise
``to_move(state, b, params) -> int``            the seat to act
``legal_ids(state, b, params, ids) -> int``     ids of the legal actions of the seat to act, ascending,
                                                written to ``ids``; returns how many (0 once over)
``apply(state, b, params, action)``             play a legal action
``status(state, b, params) -> int``             :data:`RUNNING`, :data:`OVER` or :data:`TRUNCATED`
``scores(state, b, params, out)``               each seat's score in the game's units (float64)
``outcome(state, b, params, out)``              the ``"win"`` scale result (zeros unless over)
``observe(state, b, params, p, out)``           seat ``p``'s observation into the zeroed row ``out``
``policy(state, b, params, which, rng) -> int`` the game's numba heuristic number ``which`` (names in
                                                the game's ``POLICIES``) choosing for the seat to act;
                                                ``rng`` is a ``uint64[1]`` stream (:mod:`cardenvs.core.rng`)
==============================================  ===========================================================

A game registers them with :func:`register` for its ``STATE`` dtype. The generic functions below of the
A game registers them with :func:`register` for its ``STATE`` dtype. The generic functions of the same names
(:mod:`.dispatch`) dispatch on the state's dtype at compile time (``numba.extending.overload``), so the batch
loops (:mod:`.loops`: :func:`reset_range`, :func:`step_range`, :func:`observe_range`, :func:`advance_range`,
...; :func:`run` of :mod:`.parallel` picks the serial or the parallel form) are written once and compiled per
game, cached. The AEC envs run the same functions on a batch of one (:mod:`cardenvs.core.env`); the vector envs
(:mod:`cardenvs.vector`) on ``B`` games, on every core with ``prange`` when asked. The generic functions'
implementations and the loops' parallel drivers are generated, each from one template (:func:`.dispatch.bind`).
"""

from .dispatch import (
    FORGET_SEEN,
    FUNCTIONS,
    OVER,
    RUNNING,
    TRUNCATED,
    apply,
    determinize,
    has_determinize,
    horizon,
    horizon_value,
    init,
    legal_ids,
    observe,
    outcome,
    policy,
    register,
    register_determinize,
    register_horizon,
    register_rules,
    scores,
    status,
    to_move,
    win_share,
)
from .loops import (
    PROBE,
    advance_range,
    aec_step,
    apply_range,
    compiled,
    first_illegal,
    observe_one,
    observe_range,
    observe_rows,
    padded_ids,
    policy_range,
    random_range,
    reset_range,
    step_range,
    table_range,
)
from .parallel import PARALLEL, SERIAL, check_threads, run, serial_and_parallel

__all__ = [
    "FORGET_SEEN", "FUNCTIONS", "OVER", "PARALLEL", "PROBE", "RUNNING", "SERIAL", "TRUNCATED", "advance_range",
    "aec_step", "apply", "apply_range", "check_threads", "compiled", "determinize", "first_illegal",
    "has_determinize", "horizon", "horizon_value", "init", "legal_ids", "observe", "observe_one", "observe_range",
    "observe_rows", "outcome", "padded_ids", "policy", "policy_range", "random_range", "register",
    "register_determinize", "register_horizon", "register_rules", "reset_range", "run", "scores",
    "serial_and_parallel", "status", "step_range", "table_range", "to_move", "win_share",
]  # fmt: skip
