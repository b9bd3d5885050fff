"""High Card in the web app (``cardenvs serve``): what the table shows, from one seat's view or every hand's."""

from __future__ import annotations

from typing import Any

from cardenvs.core.cards import card_code

from .rules import DECK, NO_CARD, RANKS


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    """Fill the seats, table and info lines of ``view`` (:func:`cardenvs.seatview.table_view`); the hands of
    seats other than ``viewer`` only as counts."""
    s = base.state
    for p, seat in enumerate(view["seats"]):
        held = [card_code(int(DECK[r])) for r in range(RANKS) if s.hands[p, r]]
        seat["count"] = len(held)
        if viewer is None or viewer == p:
            seat["cards"] = held
        seat["notes"].append(f"tricks {int(s.taken[p])}")
    n = base.num_players
    order = [(int(s.leader) + i) % n for i in range(n)]
    trick = [card_code(int(DECK[s.trick[p]])) for p in order if s.trick[p] != NO_CARD]
    view["table"].append({"label": f"trick, led by player_{int(s.leader)}", "cards": trick})
    view["info"].append(f"trick {min(int(s.tricks_done) + 1, base.config['hand_size'])} of {base.config['hand_size']}")
