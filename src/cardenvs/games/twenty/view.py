"""Twenty's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.seatview.table_view`; :func:`describe_result` says how the
match ended. An action is a card value (``A``, ``2`` .. ``9``, ``T``: the env plays the first card of that
value held), so a move's button names the card it plays (:func:`move_label`: ``9♣``, not ``9``); the log
keeps the values, as the env names them and a person types them."""

from __future__ import annotations

from typing import Any

from cardenvs.core.cards import card_code
from cardenvs.core.view import card_name, plural, shown


def move_label(base: Any, action: int, cards: list[str]) -> str:
    """A legal move's button: the card it plays (``9♣``: the first card of that value held), not only its
    value, which two cards of different suits share."""
    return " ".join(card_name(c) for c in cards) or base.action_name(int(action))


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import rules
    from .env import VALUE_NAMES

    s = base.state
    rounds = base.config["rounds"]
    exposed = base.config["exposed_hands"]
    for p, seat in enumerate(view["seats"]):
        cards = rules.hand_cards(s, p)
        seat["count"] = len(cards)
        if shown(base, viewer, p) or exposed:
            seat["cards"] = [card_code(c) for c in sorted(cards, key=lambda c: (_value(c), c))]
        if s.leader == p:
            seat["notes"].append("leads this round")
        if s.last_scorer == p:
            seat["notes"].append("last scorer")
    r = min(int(s.round_index), rounds - 1)
    view["info"].append(f"round {r + 1} of {rounds}, hand {max(0, int(s.hand_index)) + 1} of 5")
    view["info"].append(f"stock: {plural(rules.DECK_SIZE - int(s.stock_pos), 'card')}")
    view["table"].append(
        {
            "label": f"tally {int(s.tally)} ({plural(int(s.tally_n), 'card')})",
            "cards": [card_code(int(c)) for c in s.tally_cards[: s.tally_n]],
        }
    )
    view["table"] += _hand_plays(s)
    view["table"].append(
        {"label": f"End of Round Bonus {int(s.bonus)}", "cards": [card_code(int(c)) for c in s.deck[:2]]}
    )
    if s.last_player >= 0:
        points = f", {int(s.last_points)} points" if s.last_points else ""
        view["info"].append(
            f"last: player_{int(s.last_player)} played {VALUE_NAMES[s.last_value - 1]}, tally {int(s.last_after)}"
            + points
        )


def describe_result(base: Any) -> str:
    """The match points of both players: who has more, or a draw."""
    a, b = (int(x) for x in base.state.scores)
    rounds = plural(int(base.config["rounds"]), "round")
    if a == b:
        return f"a draw after {rounds}: {plural(a, 'point')} each"
    winner = 0 if a > b else 1
    return f"player_{winner} wins the match after {rounds}, {max(a, b)} points to {min(a, b)}"


def _hand_plays(s: Any) -> list[dict[str, Any]]:
    """Piles of the cards played in this five-card hand, who played each (the round's leader first, then in
    turn), led by the last hand's while this one has fewer than two plays (so the plays that ended it stay
    in sight)."""
    from . import rules

    played = [int(c) for c in s.set_aside[: s.set_aside_n]] + [int(c) for c in s.tally_cards[: s.tally_n]]
    hand = 2 * rules.HAND_SIZE
    this_hand = hand - int(s.hand_n.sum())

    def pile(label: str, cards: list[int]) -> dict[str, Any]:
        plays = [{"who": f"player_{(int(s.leader) + i) % 2}", "card": card_code(c)} for i, c in enumerate(cards)]
        return {"label": label, "plays": plays}

    piles = []
    current = int(s.hand_index) + 1
    if this_hand < 2 and s.hand_index > 0 and len(played) >= this_hand + hand:
        start = len(played) - this_hand - hand
        piles.append(pile(f"hand {current - 1}: its plays", played[start : start + hand]))
    if this_hand:
        piles.append(pile(f"hand {current}: plays so far", played[len(played) - this_hand :]))
    return piles


def _value(card: int) -> int:
    rank = card // 4  # 0 = two ... 12 = ace
    return 1 if rank == 12 else min(rank + 2, 10)
