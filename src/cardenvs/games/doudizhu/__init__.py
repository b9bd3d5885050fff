"""Dou Dizhu: move table and generator (:mod:`.moves`), the numba rules over a batched state (:mod:`.rules`),
numba heuristics (:mod:`.policies`), determinization for search (:mod:`.determinize`), the env (:mod:`.env`)."""

from __future__ import annotations

import numpy as np

from cardenvs.core import kernels

from . import determinize, moves, policies, rules
from .moves import classify  # noqa: F401

kernels.register_rules(rules, policies.policy)
kernels.register_determinize(rules.STATE, determinize.determinize)


def legal_moves(hand: str, last: str | None = None) -> list[str]:
    """Every legal move of ``hand`` (ranks ``"33344BR"`` or card codes ``"3S 3C BJ"``) against ``last`` (a move
    string such as ``"333+4"``; None when leading), as move strings, plus ``"pass"`` when following."""
    cards = moves.hand_counts_from_string(hand)
    last_id = -1
    if last is not None:
        text = last.strip().upper()
        if text in moves.MOVE_ID:
            last_id = moves.MOVE_ID[text]
        else:
            options = moves.readings(moves.counts_of(text)) if "+" not in text else []
            if not options:
                raise ValueError(f"last {last!r} is not a Dou Dizhu move")
            last_id = options[0]
    mask = np.zeros(moves.NUM_ACTIONS, dtype=np.int8)
    moves.legal_mask(cards, last_id, mask)
    out = [moves.move_string(int(m)) for m in np.flatnonzero(mask)]
    return out + (["pass"] if last_id >= 0 else [])
