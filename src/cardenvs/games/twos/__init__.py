"""Twos: move table and generator (:mod:`.moves`), the numba rules over a batched state (:mod:`.rules`),
numba heuristics (:mod:`.policies`), determinization for search (:mod:`.determinize`), the env (:mod:`.env`)."""

from __future__ import annotations

from cardenvs.core import kernels

from . import determinize, moves, policies, rules

kernels.register_rules(rules, policies.policy)
kernels.register_determinize(rules.STATE, determinize.determinize)


def legal_moves(hand: str, to_beat: str | None = None, bomb_order: str = "classic", hand_size: int = 13) -> list[str]:
    """The legal moves of ``hand`` against ``to_beat`` (both space-separated card codes), as the cards each
    canonical action plays, plus ``"pass"`` when there is something to beat.

    >>> legal_moves("5S 6C 7H 7S", "4H")
    ['5S', '6C', '7S', '7H', 'pass']
    """
    values = moves.parse_values(hand)
    if len(set(values)) != len(values):
        raise ValueError(f"hand {hand!r} holds a card twice")
    hand_values = moves.np.zeros(52, dtype=moves.np.int8)
    hand_values[values] = 1
    target = None
    if to_beat is not None:
        target = moves.classify(moves.parse_values(to_beat))
        if target is None:
            raise ValueError(f"to_beat {to_beat!r} is not a Twos combination")
    mask = moves.legal_mask_for(hand_values, target, rules.bomb_strength(bomb_order, hand_size))
    out = []
    for action in moves.np.flatnonzero(mask):
        if action == moves.PASS:
            out.append("pass")
        else:
            out.append(" ".join(moves.value_code(v) for v in moves.cards_of(hand_values, int(action))))
    return out
