"""Dou Dizhu's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.web.views.table_view`; :func:`selection_token` is what a
selected card adds to a typed move."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.cards import card_code
from cardenvs.web.views import shown


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import moves

    s = base.state
    view["select_join"] = ""
    history = list(zip(s.hist_player[: s.n_hist].tolist(), s.hist_move[: s.n_hist].tolist(), strict=True))
    for p, seat in enumerate(view["seats"]):
        ids = np.flatnonzero(s.hands[p])
        seat["count"] = len(ids)
        if shown(base, viewer, p):
            seat["cards"] = [card_code(int(c)) for c in sorted(ids, key=lambda c: (moves.RANK_OF_CARD[c], c))]
        if s.landlord >= 0 and not s.bidding:
            seat["notes"].append("landlord" if p == s.landlord else "farmer")
        last = next((moves.move_string(m) for who, m in reversed(history) if who == p), None)
        if last:
            seat["notes"].append(f"last: {last}")
    if s.bidding:
        view["info"].append(f"bidding: first bidder player_{int(s.first_bidder)}, current bid {int(s.bid)}")
        bids = [("no bid" if b == 0 else f"bid {b}") for b in s.bids[: s.n_bids].tolist()]
        view["info"].append("bids so far: " + (", ".join(bids) if bids else "none"))
    elif s.landlord >= 0:
        view["info"].append(f"landlord player_{int(s.landlord)} at bid {int(s.bid)}")
        view["table"].append({"label": "kitty", "cards": [card_code(int(c)) for c in s.kitty]})
    view["info"].append(f"bombs {int(s.bombs)} (multiplier x{2 ** int(s.bombs)})")
    if s.last_move >= 0:
        view["table"].append(
            {"label": "to beat", "text": f"{moves.move_string(int(s.last_move))} by player_{int(s.last_player)}"}
        )
    if s.dead:
        view["info"].append("dead hand: nobody bid")


def selection_token(code: str) -> str:
    """What a selected card adds to a typed move: its rank (moves are rank strings: ``333+4``, ``BR``)."""
    from cardenvs.core.cards import parse_card

    from . import moves

    return {"BJ": "B", "RJ": "R"}.get(code) or moves.RANK_CHARS[moves.RANK_OF_CARD[parse_card(code)]]
