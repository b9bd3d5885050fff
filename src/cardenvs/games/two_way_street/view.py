"""Two Way Street's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.seatview.table_view`; :func:`describe_result` says how the
match ended; :func:`public_move` hides other players' discards and duel bids."""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.cards import card_code
from cardenvs.core.view import names_and, number, plural, shown


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from cardenvs.core.cards import SUITS

    from . import rules
    from .env import _bid_name

    s = base.state
    n = base.num_players
    for q, seat in enumerate(view["seats"]):
        ids = np.repeat(np.arange(55), s.hands[q])
        seat["count"] = len(ids)
        if shown(base, viewer, q):
            seat["cards"] = [card_code(int(c)) for c in sorted(ids, key=lambda c: (c % 4 if c < 52 else 4, c))]
        direction = {rules.HIGH: "high", rules.LOW: "low"}.get(int(s.direction[q]))
        if direction:
            seat["notes"].append(f"declared {direction}" + (" (forced)" if s.forced[q] else ""))
        seat["notes"].append(f"tricks {int(s.taken[q])}")
        if n == 2:
            seat["notes"].append(f"captured {int(s.captured_tricks[q])}")
            if s.bids[q] >= 0 and (q != s.first or s.revealed or shown(base, viewer, q)):
                seat["notes"].append(f"bid {_bid_name(int(s.bids[q]))}")
    phase = int(s.phase)
    view["card_moves"] = phase in (rules.DISCARD, rules.PLAY)
    hand = int(s.hand_no) + (0 if s.over else 1)  # the hand counter moves on when a hand ends, the last too
    view["info"].append(
        f"hand {hand}, {'dealer' if n == 2 else 'first declarer'} player_{int(s.first)}, "
        f"phase {rules.PHASES[phase] if phase >= 0 else 'over'}, target {base.config['target']}"
    )
    trick = rules.trick_cards(s)
    if len(trick):
        led = SUITS[s.led_suit] if s.led_suit >= 0 else "?"
        order = ", ".join(f"player_{(int(s.trick_leader) + i) % n}" for i in range(len(trick)))
        view["table"].append(
            {
                "label": f"trick {min(int(s.trick_no) + 1, rules.TRICKS)}, led {led} ({order})",
                "cards": [card_code(int(c)) for c in trick],
            }
        )
    _last_event(s, n, view)


def _last_event(s: Any, n: int, view: dict) -> None:
    """The last trick taken, drawn as its cards, or the last hand's scores in words, or a redeal."""
    from . import rules

    if s.last_event == rules.EVENT_TRICK and s.trick_no > 0:
        k = int(s.trick_no) - 1
        view["table"].append(
            {
                "label": f"trick {k + 1}, taken by player_{int(s.trick_winners[k])}",
                "cards": [card_code(int(c)) for c in s.taken_cards[k * n : (k + 1) * n]],
            }
        )
    elif s.last_event == rules.EVENT_HAND:
        scored = ", ".join(f"player_{p} {plural(number(s.last_hand[p]), 'point')}" for p in range(n))
        totals = ", ".join(f"player_{p} {number(s.totals[p])}" for p in range(n))
        view["info"].append(f"hand {int(s.hand_no)} scored: {scored} (totals: {totals})")
    elif s.last_event == rules.EVENT_REDEAL:
        view["info"].append(f"equal strength, opposite directions: redealt ({int(s.redeals)} in a row)")


def describe_result(base: Any) -> str:
    """Who has the most points once a player reached the target, or the truncation after too many redeals."""
    from .rules import MAX_REDEALS

    s = base.state
    n = base.num_players
    totals = [number(x) for x in s.totals[:n]]
    hands = plural(int(s.hand_no), "hand")
    if s.truncated or not s.over:
        return f"stopped after {MAX_REDEALS} redeals in a row ({hands} played): nobody wins"
    best = max(totals)
    winners = [f"player_{p}" for p in range(n) if totals[p] == best]
    verb = "wins" if len(winners) == 1 else "share the win"
    return f"{names_and(winners)} {verb} with {plural(best, 'point')} after {hands} (target {base.config['target']})"


def public_move(base: Any, seat: int, action: int, viewer: int | None) -> str:
    """The name of a move as the viewer may see it: other players' discards and duel bids are hidden."""
    from . import rules

    name = base.action_name(int(action))
    if viewer is None or viewer == seat:
        return name
    if rules.DISCARD0 <= action < rules.SUIT0:
        return "discards a card"
    if action >= rules.BID0:
        return "bids"
    return name
