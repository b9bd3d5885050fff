"""Twos's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.web.views.table_view`; :func:`describe_result` says how the
game ended."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.web.views import plural, shown


def describe_result(base: Any) -> str:
    """Who went out first, and what the others still held."""
    s = base.state
    n = base.num_players
    left = ", ".join(f"player_{p} {plural(int(s.hands[p].sum()), 'card')}" for p in range(n) if p != s.winner)
    return f"player_{int(s.winner)} went out first and wins (left in hand: {left})"


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import moves, rules

    s = base.state
    for p, seat in enumerate(view["seats"]):
        values = np.flatnonzero(s.hands[p])
        seat["count"] = len(values)
        if shown(base, viewer, p):
            seat["cards"] = [moves.value_code(int(v)) for v in values]
        if s.passed[p]:
            seat["notes"].append("passed")
    trick = rules.trick(s)
    if trick:
        view["table"].append(
            {
                "label": "trick",
                "text": "; ".join(
                    f"player_{who}: " + ("pass" if a == moves.PASS else moves.describe(a)) for who, a in trick
                ),
            }
        )
    if s.to_beat_shape >= 0:
        shape = moves.shape_name(moves.SHAPES[s.to_beat_shape])
        view["table"].append(
            {"label": "to beat", "text": f"{shape} to {moves.value_code(int(s.to_beat_top))} by player_{s.last_player}"}
        )
    else:
        view["info"].append("a new trick: the player to move leads")
    view["info"].append(f"{plural(base.config['hand_size'], 'card')} each, bomb order {base.config['bomb_order']}")
