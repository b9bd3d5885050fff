"""War's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.seatview.table_view`; :func:`describe_result` says how the
game ended."""

from __future__ import annotations

from typing import Any

from cardenvs.core.cards import card_code
from cardenvs.core.view import plural


def describe_result(base: Any) -> str:
    """All the cards in one pile, a player out during a war, the battles won (single pass), or a truncation."""
    from .rules import DECK_SIZE, DRAW, NO_RESULT

    s = base.state
    held = [int(x) for x in s.held]
    if base.config["single_pass"]:
        won = [int(x) for x in s.battles_won]
        if s.result == DRAW:
            return f"a draw: each player won {plural(won[0], 'battle')} of {int(s.battles)}"
        w = int(s.result)
        return f"player_{w} wins, {won[w]} battles to {won[1 - w]} ({int(s.battles)} battles, ties won by nobody)"
    if s.result == NO_RESULT:
        return (
            f"stopped after {plural(int(s.battles), 'battle')} (max_turns): nobody wins; player_0 holds "
            f"{plural(held[0], 'card')}, player_1 {held[1]}"
        )
    if s.result == DRAW:
        return "both players ran out of cards in the same war: a draw"
    w = int(s.result)
    if held[w] == DECK_SIZE:
        return f"player_{w} holds all {DECK_SIZE} cards (after {plural(int(s.battles), 'battle')})"
    return (
        f"player_{1 - w} ran out of cards during a war: player_{w} wins with {plural(held[w], 'card')} "
        f"(the war's cards stay on the table)"
    )


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    s = base.state
    for p, seat in enumerate(view["seats"]):
        seat["count"] = int(s.held[p])
        seat["notes"].append(f"{plural(int(s.table_n[p]), 'card')} on the table")
        if base.config["single_pass"]:
            seat["notes"].append(f"battles won {int(s.battles_won[p])}")
    view["card_moves"] = False  # one move, flip: nothing to select
    flips = [card_code(int(c)) for c in s.last_flip if c >= 0]
    if flips:
        view["table"].append({"label": "last flips (player_0, player_1)", "cards": flips})
    from cardenvs.core.kernels import RUNNING

    from .rules import status

    if status(base.states, 0, base.params) != RUNNING:  # over or stopped: no next battle
        view["info"].append(f"{plural(int(s.battles), 'battle')} played")
    else:
        view["info"].append(f"battle {int(s.battles) + 1}" + (" (war!)" if s.in_war else ""))
