"""Guandan's moves described for learners (the ``move_features`` of its spec): one row per action, so what a
network learns about one play carries to plays of the same kind and ranks."""

from __future__ import annotations

import numpy as np

from . import moves


def move_features() -> np.ndarray:
    """One row per Guandan action: for a rank pattern its kind (one-hot over ``moves.KIND_NAMES``), how many
    natural cards it takes of each rank index (/ 8), the wild cards it spends (/ 2), its key (one-hot over the
    rank indices and "the level rank") and whether it is of one suit; then flags for pass, the card actions
    (tribute and return: the card's rank index one-hot and its suit one-hot) and the suit codes (the cards the
    code takes of each suit, / 2)."""
    k, r = moves.NUM_KINDS, moves.NUM_RANK_INDEX
    cols = {"kind": k, "natural": r, "wilds": 1, "key": r + 1, "flush": 1, "pass": 1, "card": 1, "card_rank": r}
    cols |= {"card_suit": moves.NUM_SUITS + 1, "suit_code": 1, "suit_counts": moves.NUM_SUITS}
    start = dict(zip(cols, np.cumsum([0, *cols.values()])[:-1].tolist(), strict=True))
    out = np.zeros((moves.NUM_ACTIONS, sum(cols.values())), dtype=np.float32)
    for p in range(moves.NUM_PATTERNS):
        out[p, start["kind"] + moves.PAT_KIND[p]] = 1
        out[p, start["natural"] : start["natural"] + r] = moves.PAT_NATURAL[p] / moves.MAX_NATURAL
        out[p, start["wilds"]] = moves.PAT_WILDS[p] / moves.MAX_WILDS
        out[p, start["key"] + moves.PAT_KEY[p]] = 1
        out[p, start["flush"]] = float(moves.PAT_SUIT[p] >= 0)
    out[moves.PASS, start["pass"]] = 1
    for card in range(moves.NUM_CARDS):
        a = moves.CARD0 + card
        out[a, start["card"]] = 1
        natural = card < moves.BLACK * moves.NUM_SUITS
        rank = card // moves.NUM_SUITS if natural else moves.BLACK + card - moves.BLACK * moves.NUM_SUITS
        out[a, start["card_rank"] + rank] = 1
        suit = card % moves.NUM_SUITS if natural else moves.NUM_SUITS
        out[a, start["card_suit"] + suit] = 1
    codes = moves.SUIT0 + np.arange(moves.NUM_SUIT_CODES)
    out[codes, start["suit_code"]] = 1
    out[codes, start["suit_counts"] : start["suit_counts"] + moves.NUM_SUITS] = moves.SUIT_CODE_COUNTS / moves.DECKS
    return out
