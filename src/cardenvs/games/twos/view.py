"""Twos's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.seatview.table_view`; :func:`fill_plays` draws the trick,
the combination to beat and each seat's last play as the cards played (every play is face up);
:func:`describe_result` says how the game ended."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardenvs.core.view import Play, last_plays, latest_play, plural, shown


def describe_result(base: Any) -> str:
    """Who went out first, and what the others still held."""
    s = base.state
    n = base.num_players
    left = ", ".join(f"player_{p} {plural(int(s.hands[p].sum()), 'card')}" for p in range(n) if p != s.winner)
    return f"player_{int(s.winner)} went out first and wins (left in hand: {left})"


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import moves

    s = base.state
    for p, seat in enumerate(view["seats"]):
        values = np.flatnonzero(s.hands[p])
        seat["count"] = len(values)
        if shown(base, viewer, p):
            seat["cards"] = [moves.value_code(int(v)) for v in values]
        if s.passed[p]:
            seat["notes"].append("passed")
    if s.to_beat_shape < 0:
        view["info"].append("a new trick: the player to move leads")
    view["info"].append(f"{plural(base.config['hand_size'], 'card')} each, bomb order {base.config['bomb_order']}")
    view["info"].append(
        "move names: NxL is L consecutive ranks with N cards of each (1x1 a single card, 2x1 a pair, 1x3 a run of"
        " three, 2x3 three pairs in a row), named by its highest card (to 9D: the nine of diamonds)"
    )


def fill_plays(base: Any, viewer: int | None, view: dict, plays: Sequence[Play] | None) -> None:
    """The trick (each turn's cards, or pass), the combination to beat and each seat's last play, drawn as the
    cards played: the trick's turns are the last steps of ``plays``. Without ``plays``, the moves' names."""
    from . import moves, rules

    s = base.state
    trick = rules.trick(s)
    turns = list(plays[len(plays) - len(trick) :]) if plays is not None and len(plays) >= len(trick) else []
    if [(p.seat, p.action) for p in turns] != trick:  # not the trick's turns: draw its moves in words
        turns = []
    if turns:
        drawn = [{"who": f"player_{p.seat}", "cards": list(p.cards), "move": moves.describe(p.action)} for p in turns]
        view["table"].append({"label": "trick", "plays": drawn})
    elif trick:
        view["table"].append(
            {"label": "trick", "text": "; ".join(f"player_{who}: {moves.describe(a)}" for who, a in trick)}
        )
    if s.to_beat_shape >= 0:
        shape = moves.shape_name(moves.SHAPES[s.to_beat_shape])
        pile: dict[str, Any] = {
            "label": "to beat",
            "text": f"{shape} to {moves.value_code(int(s.to_beat_top))} by player_{s.last_player}",
        }
        action = moves.ACTION_ID[(int(s.to_beat_shape), int(s.to_beat_top))]
        beaten = latest_play(plays or [], int(s.last_player), action)
        if beaten is not None:
            pile["cards"] = list(beaten.cards)
        view["table"].append(pile)
    if plays is not None:
        last_plays(view, plays)
