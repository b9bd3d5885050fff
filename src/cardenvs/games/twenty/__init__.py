"""Twenty: the numba rules over a batched state (:mod:`.rules`), the numba greedy heuristic (:mod:`.policies`),
the env (:mod:`.env`), the hand and round solvers (:mod:`.solver`) and the determinizer for search
(:mod:`.determinize`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import determinize, policies, rules

kernels.register_rules(rules, policies.policy)
kernels.register_determinize(rules.STATE, determinize.determinize)
