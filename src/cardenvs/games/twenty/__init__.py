"""Twenty: the numba rules over a batched state (:mod:`.rules`), the numba greedy heuristic (:mod:`.policies`),
the env (:mod:`.env`) and the exposed-hands solver (:mod:`.solver`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import policies, rules

kernels.register_rules(rules, policies.policy)
