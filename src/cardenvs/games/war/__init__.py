"""War: the numba rules over a batched state (:mod:`.rules`), its one policy (:mod:`.policies`), the env
(:mod:`.env`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import policies, rules

kernels.register_rules(rules, policies.policy)
