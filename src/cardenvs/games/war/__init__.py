"""War: the numba rules over a batched state (:mod:`.rules`), its one policy (:mod:`.policies`), the env
(:mod:`.env`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import policies, rules

kernels.register(
    rules.STATE,
    init=rules.init,
    to_move=rules.to_move,
    legal_ids=rules.legal_ids,
    apply=rules.apply,
    status=rules.status,
    scores=rules.scores,
    outcome=rules.outcome,
    observe=rules.observe,
    policy=policies.policy,
)
