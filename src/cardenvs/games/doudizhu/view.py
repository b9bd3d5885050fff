"""Dou Dizhu's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.seatview.table_view`; :func:`fill_plays` draws the move to
beat and each seat's last play as the cards played (every play is face up); :func:`describe_result` says
how the hand ended; :func:`selection_token` is what a selected card adds to a typed move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cardenvs.core.cards import card_code
from cardenvs.core.view import Play, last_plays, latest_play, number, plural, shown


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import moves

    s = base.state
    view["select_join"] = ""
    view["card_moves"] = not s.bidding
    for p, seat in enumerate(view["seats"]):
        ids = np.flatnonzero(s.hands[p])
        seat["count"] = len(ids)
        if shown(base, viewer, p):
            seat["cards"] = [card_code(int(c)) for c in sorted(ids, key=lambda c: (moves.RANK_OF_CARD[c], c))]
        if s.landlord >= 0 and not s.bidding:
            seat["notes"].append("landlord" if p == s.landlord else "farmer")
    if s.bidding:
        view["info"].append(f"bidding: first bidder player_{int(s.first_bidder)}, current bid {int(s.bid)}")
        first = int(s.first_bidder)
        bids = [
            f"player_{(first + i) % len(view['seats'])} " + ("no bid" if b == 0 else f"bid {b}")
            for i, b in enumerate(s.bids[: s.n_bids].tolist())
        ]
        view["info"].append("bids so far: " + (", ".join(bids) if bids else "none"))
    elif s.landlord >= 0:
        view["info"].append(f"landlord player_{int(s.landlord)} at bid {int(s.bid)}")
        view["table"].append({"label": "kitty", "cards": [card_code(int(c)) for c in s.kitty]})
    view["info"].append(f"bombs {int(s.bombs)} (multiplier x{2 ** int(s.bombs)})")
    if s.dead:
        view["info"].append("dead hand: nobody bid")


def fill_plays(base: Any, viewer: int | None, view: dict, plays: Sequence[Play] | None) -> None:
    """The move to beat drawn as the cards played (named under them), and each seat's last play. Without
    ``plays``, the move's name only."""
    from . import moves

    s = base.state
    if s.last_move >= 0:
        pile: dict[str, Any] = {
            "label": "to beat",
            "text": f"{moves.move_string(int(s.last_move))} by player_{int(s.last_player)}",
        }
        beaten = latest_play(plays or [], int(s.last_player), int(s.last_move))
        if beaten is not None:
            pile["cards"] = list(beaten.cards)
        view["table"].append(pile)
    if plays is not None:
        last_plays(view, plays)


def describe_result(base: Any) -> str:
    """Who went out first, which side won, and the points with what multiplied them."""
    s = base.state
    if s.dead or s.winner < 0:
        return "nobody bid: a dead hand, nobody scores"
    scores = base.scores()
    landlord, winner = int(s.landlord), int(s.winner)
    farmer = next(p for p in range(len(scores)) if p != landlord)
    why = [f"bid {int(s.bid)}"]
    if s.bombs:
        why.append(f"{plural(int(s.bombs), 'bomb')} x{2 ** int(s.bombs)}")
    if winner == landlord and all(s.moves_played[p] == 0 for p in range(len(scores)) if p != landlord):
        why.append("spring x2")
    elif winner != landlord and s.moves_played[landlord] == 1:
        why.append("anti-spring x2")
    each, total = number(abs(scores[farmer])), number(abs(scores[landlord]))
    if winner == landlord:
        return (
            f"player_{winner}, the landlord, went out first: the landlord wins {plural(total, 'point')}, "
            f"each farmer loses {each} ({', '.join(why)})"
        )
    return (
        f"player_{winner} went out first: the farmers win, {plural(each, 'point')} each; the landlord "
        f"player_{landlord} loses {total} ({', '.join(why)})"
    )


def selection_token(code: str) -> str:
    """What a selected card adds to a typed move: its rank (moves are rank strings: ``333+4``, ``BR``)."""
    from cardenvs.core.cards import parse_card

    from . import moves

    return {"BJ": "B", "RJ": "R"}.get(code) or moves.RANK_CHARS[moves.RANK_OF_CARD[parse_card(code)]]
