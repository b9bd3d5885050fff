"""What the pages show of a game, from one seat's view or with every hand revealed.

:func:`table_view` turns an env into a JSON-able dict: the seats (cards when the viewer may see them, else
only their number), what lies on the table (the trick, the tally, the move to beat, the kitty), public
lines (bidding, declarations, the round) and the scores. It reads the game's state record (``env.state``)
and draws nothing itself, so the HTML page and ``/api`` share it. A hand the viewer may not see is never
put in the dict: not as cards, not in the text render (rendered from the viewer's seat), not in the move
log (Two Way Street's discards and duel bids by other players are logged without their cards or values).

:func:`card_svg` draws one card as inline SVG, suits in colour.
"""

from __future__ import annotations

from html import escape
from typing import Any

import numpy as np

from ..core.cards import card_code

SUIT_SYMBOLS = {"S": "\u2660", "C": "\u2663", "D": "\u2666", "H": "\u2665"}
SUIT_COLOURS = {"S": "#1a1a1a", "C": "#1b5e20", "D": "#0d47a1", "H": "#c62828"}
JOKER_COLOURS = {"BJ": "#1a1a1a", "RJ": "#c62828", "JK": "#6a1b9a"}


def card_svg(code: str, width: int = 54) -> str:
    """One card as an inline SVG (four-colour suits; jokers in black, red or purple)."""
    height = round(width * 1.4)
    if code in JOKER_COLOURS:
        colour, rank, symbol = JOKER_COLOURS[code], code[0], "\u2605"
        label = {"BJ": "black joker", "RJ": "red joker"}.get(code, "joker")
    else:
        rank, suit = code[:-1], code[-1]
        colour, symbol, label = SUIT_COLOURS[suit], SUIT_SYMBOLS[suit], code
        rank = "10" if rank == "T" else rank
    return (
        f'<svg class="card" role="img" aria-label="{escape(label)}" data-code="{escape(code)}" width="{width}" '
        f'height="{height}" viewBox="0 0 50 70"><rect x="1" y="1" width="48" height="68" rx="5" fill="#fff" '
        f'stroke="#888"/><text x="5" y="16" font-size="14" font-weight="bold" fill="{colour}">{escape(rank)}</text>'
        f'<text x="25" y="50" font-size="26" text-anchor="middle" fill="{colour}">{symbol}</text></svg>'
    )


def card_back_svg(width: int = 30) -> str:
    height = round(width * 1.4)
    return (
        f'<svg class="back" width="{width}" height="{height}" viewBox="0 0 50 70" aria-hidden="true"><rect x="1" '
        'y="1" width="48" height="68" rx="5" fill="#3949ab" stroke="#1a237e"/><rect x="7" y="7" width="36" '
        'height="56" rx="3" fill="none" stroke="#c5cae9"/></svg>'
    )


def _num(x: Any) -> float | int:
    x = float(x)
    return int(x) if x.is_integer() else x


def public_move(base: Any, seat: int, action: int, viewer: int | None) -> str:
    """The name of a move as the viewer may see it (Two Way Street hides other players' discards and duel
    bids)."""
    name = base.action_name(int(action))
    if viewer is None or viewer == seat or base.metadata["name"] != "two_way_street_v0":
        return name
    from ..games.two_way_street import rules

    if rules.DISCARD0 <= action < rules.SUIT0:
        return "discards a card"
    if action >= rules.BID0:
        return "bids"
    return name


def table_view(base: Any, viewer: int | None) -> dict[str, Any]:
    """The public table and the hands ``viewer`` may see (None: every hand)."""
    game = base.metadata["name"].rsplit("_v", 1)[0]
    n = base.num_players
    view: dict[str, Any] = {
        "game": game,
        "seats": [
            {"seat": p, "name": base.possible_agents[p], "cards": None, "count": 0, "notes": []} for p in range(n)
        ],
        "table": [],
        "info": [],
        "scores": [_num(x) for x in base.scores()],
        "select_join": " ",
    }
    fill = GAME_VIEWS.get(game) or _declared_view(base.metadata["name"])
    fill(base, viewer, view)
    return view


def _declared_view(env_id: str) -> Any:
    """A game registered from outside the package: the ``fill_view(base, viewer, view)`` of the module its spec
    names as ``view``, which fills the seats, table and info lines as the functions below do; without a ``view``
    the page shows the seats, the scores and the text render."""
    from ..core.spec import load
    from ..registry import spec_of

    spec = spec_of(env_id)
    return load(spec.view).fill_view if spec.view else (lambda base, viewer, view: None)


def _shown(base: Any, viewer: int | None, p: int) -> bool:
    return viewer is None or viewer == p


def _twenty(base: Any, viewer: int | None, view: dict) -> None:
    from ..games.twenty import rules
    from ..games.twenty.env import VALUE_NAMES

    s = base.state
    rounds = base.config["rounds"]
    exposed = base.config["exposed_hands"]
    for p, seat in enumerate(view["seats"]):
        cards = rules.hand_cards(s, p)
        seat["count"] = len(cards)
        if _shown(base, viewer, p) or exposed:
            seat["cards"] = [card_code(c) for c in sorted(cards, key=lambda c: (_twenty_value(c), c))]
        if s.leader == p:
            seat["notes"].append("leads this round")
        if s.last_scorer == p:
            seat["notes"].append("last scorer")
    r = min(int(s.round_index), rounds - 1)
    view["info"].append(f"round {r + 1} of {rounds}, hand {max(0, int(s.hand_index)) + 1} of 5")
    view["info"].append(f"stock: {rules.DECK_SIZE - int(s.stock_pos)} cards")
    view["table"].append(
        {
            "label": f"tally {int(s.tally)} ({int(s.tally_n)} cards)",
            "cards": [card_code(int(c)) for c in s.tally_cards[: s.tally_n]],
        }
    )
    view["table"].append(
        {"label": f"End of Round Bonus {int(s.bonus)}", "cards": [card_code(int(c)) for c in s.deck[:2]]}
    )
    if s.last_player >= 0:
        points = f", {int(s.last_points)} points" if s.last_points else ""
        view["info"].append(
            f"last: player_{int(s.last_player)} played {VALUE_NAMES[s.last_value - 1]}, tally {int(s.last_after)}"
            + points
        )


def _twenty_value(card: int) -> int:
    rank = card // 4  # 0 = two ... 12 = ace
    return 1 if rank == 12 else min(rank + 2, 10)


def _twos(base: Any, viewer: int | None, view: dict) -> None:
    from ..games.twos import moves, rules

    s = base.state
    for p, seat in enumerate(view["seats"]):
        values = np.flatnonzero(s.hands[p])
        seat["count"] = len(values)
        if _shown(base, viewer, p):
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
    view["info"].append(f"{base.config['hand_size']} cards each, bomb order {base.config['bomb_order']}")


def _doudizhu(base: Any, viewer: int | None, view: dict) -> None:
    from ..games.doudizhu import moves

    s = base.state
    view["select_join"] = ""
    history = list(zip(s.hist_player[: s.n_hist].tolist(), s.hist_move[: s.n_hist].tolist(), strict=True))
    for p, seat in enumerate(view["seats"]):
        ids = np.flatnonzero(s.hands[p])
        seat["count"] = len(ids)
        if _shown(base, viewer, p):
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


def _two_way_street(base: Any, viewer: int | None, view: dict) -> None:
    from ..core.cards import SUITS
    from ..games.two_way_street import rules
    from ..games.two_way_street.env import _bid_name

    s = base.state
    n = base.num_players
    for q, seat in enumerate(view["seats"]):
        ids = np.repeat(np.arange(55), s.hands[q])
        seat["count"] = len(ids)
        if _shown(base, viewer, q):
            seat["cards"] = [card_code(int(c)) for c in sorted(ids, key=lambda c: (c % 4 if c < 52 else 4, c))]
        direction = {rules.HIGH: "high", rules.LOW: "low"}.get(int(s.direction[q]))
        if direction:
            seat["notes"].append(f"declared {direction}" + (" (forced)" if s.forced[q] else ""))
        seat["notes"].append(f"tricks {int(s.taken[q])}")
        if n == 2:
            seat["notes"].append(f"captured {int(s.captured_tricks[q])}")
            if s.bids[q] >= 0 and (q != s.first or s.revealed or _shown(base, viewer, q)):
                seat["notes"].append(f"bid {_bid_name(int(s.bids[q]))}")
    phase = int(s.phase)
    view["info"].append(
        f"hand {int(s.hand_no) + 1}, {'dealer' if n == 2 else 'first declarer'} player_{int(s.first)}, "
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
    last = base._last_event()
    if last:
        view["info"].append("last: " + last)


def _war(base: Any, viewer: int | None, view: dict) -> None:
    s = base.state
    for p, seat in enumerate(view["seats"]):
        seat["count"] = int(s.held[p])
        seat["notes"].append(f"{int(s.table_n[p])} on the table")
        if base.config["single_pass"]:
            seat["notes"].append(f"battles won {int(s.battles_won[p])}")
    flips = [card_code(int(c)) for c in s.last_flip if c >= 0]
    view["table"].append({"label": "last flips (player_0, player_1)", "cards": flips})
    view["info"].append(f"battle {int(s.battles) + 1}" + (" (war!)" if s.in_war else ""))


GAME_VIEWS = {
    "twenty": _twenty,
    "twos": _twos,
    "doudizhu": _doudizhu,
    "two_way_street": _two_way_street,
    "war": _war,
}


def selection_token(game: str, code: str) -> str:
    """What a selected card adds to a typed move: its rank in Dou Dizhu (moves are rank strings), else its code."""
    if game != "doudizhu":
        return code
    from ..games.doudizhu import moves

    return {"BJ": "B", "RJ": "R"}.get(code) or moves.RANK_CHARS[moves.RANK_OF_CARD[_parse(code)]]


def _parse(code: str) -> int:
    from ..core.cards import parse_card

    return parse_card(code)
