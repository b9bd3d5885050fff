"""Two Way Street: the numba rules over a batched state and the scoring (:mod:`.rules`), the numba
heuristic (:mod:`.policies`), the env (:mod:`.env`), the determinizer for search (:mod:`.determinize`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import determinize, policies, rules
from .rules import duel_score, hand_scores, raw_score  # noqa: F401

kernels.register_rules(rules, policies.policy)
kernels.register_determinize(rules.STATE, determinize.determinize)
