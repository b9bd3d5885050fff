"""What the pages show of a game, from one seat's view or with every hand revealed.

:func:`table_view` turns an env into a JSON-able dict: the seats (cards when the viewer may see them, else
only their number), what lies on the table (the trick, the tally, the move to beat, the kitty), public
lines (bidding, declarations, the round) and the scores. It reads the game's state record (``env.state``)
and draws nothing itself, so the HTML page and ``/api`` share it. Until the game is over, a hand the viewer
may not see is never put in the dict: not as cards, not in the text render (rendered from the viewer's
seat), not in the move log (Two Way Street's discards and duel bids by other players are logged without
their cards or values). Once it is over, every hand is shown, and :func:`result_view` says how it ended.

:func:`card_svg` draws one card as inline SVG, suits in colour; :func:`card_name` names it as the picture
shows it (``10♣``, not the code ``TC``), and the page writes every card code of its text (the text view, move
names, the log, the table's lines) that way (:func:`card_names_in`, the ``card_names`` filter of the
templates). The JSON API keeps the codes, which the envs parse.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from html import escape
from typing import Any

from ..core.view import SUIT_SYMBOLS, card_face, card_name, names_and, number
from ..seatview import game_view, hand_codes

#: a card code as a whole word of a text: a rank (10 or T for ten) and a suit letter, or a joker's code
CARD_CODE = re.compile(r"(?<!\w)(?:10|[2-9TJQKA])[SCDH](?!\w)|(?<!\w)(?:BJ|RJ|JK)(?!\w)")


def card_names_in(text: str, names: dict[str, str] | None = None) -> str:
    """``text`` with every card code that is a whole word written as :func:`card_name` writes it. ``names``:
    the codes of the game's deck and their names (:func:`deck_names`), so that a word of another game's
    notation is left alone (Dou Dizhu writes a jack and a king as ``JK``); None: every code."""

    def name(match: re.Match) -> str:
        code = match.group(0).replace("10", "T", 1)
        if names is None:
            return card_name(code)
        return names.get(code, match.group(0))

    return CARD_CODE.sub(name, text)


def deck_names(base: Any) -> dict[str, str]:
    """The name of each card of the game's deck (``base.deck``, card ids), by code."""
    from ..core.cards import card_code

    return {code: card_name(code) for code in {card_code(int(c)) for c in base.deck}}


def typed_codes(text: str) -> str:
    """A typed move with card names written back as codes (``10♣`` -> ``10C``, ``B★`` -> ``BJ``), so a person
    may type a card as the page names it."""
    for letter, symbol in SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    return re.sub(r"(?<!\w)([BRJ])\u2605", lambda m: {"B": "BJ", "R": "RJ", "J": "JK"}[m.group(1)], text)


def card_svg(code: str, width: int = 54) -> str:
    """One card as an inline SVG (four-colour suits; jokers in black, red or purple), labelled with its
    :func:`card_name` (a joker in words)."""
    height = round(width * 1.4)
    rank, symbol, colour = card_face(code)
    label = {"BJ": "black joker", "RJ": "red joker", "JK": "joker"}.get(code, rank + symbol)
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


def cards_taken(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The cards of ``before`` that ``after`` no longer holds, each copy once, in ``before``'s order."""
    left = Counter(after)
    taken = []
    for code in before:
        if left[code]:
            left[code] -= 1
        else:
            taken.append(code)
    return taken


def shows_plays(env_id: str) -> bool:
    """Whether the game's view draws the plays (has a ``fill_plays`` hook): only then the session reads them."""
    return hasattr(game_view(env_id), "fill_plays")


def move_label(base: Any, action: int, cards: Sequence[str]) -> str:
    """A legal move's name on its button: the game view's ``move_label`` (Twenty: the card it plays, where
    the action names only a value), else the action's name."""
    hook = getattr(game_view(base.metadata["name"]), "move_label", None)
    return hook(base, action, cards) if hook else base.action_name(int(action))


def result_view(base: Any) -> dict[str, Any]:
    """How a finished game ended, for people: ``text`` says who won and why in words (the game view's
    ``describe_result``, else :func:`generic_result`), ``scores`` each seat's score in the game's own units."""
    hook = getattr(game_view(base.metadata["name"]), "describe_result", None)
    scores = [number(x) for x in base.scores()]
    return {
        "text": hook(base) if hook else generic_result(base),
        "scores": [{"seat": p, "name": base.possible_agents[p], "score": x} for p, x in enumerate(scores)],
    }


def move_cards(base: Any, seat: int, actions: list[int]) -> dict[int, list[str]]:
    """The cards each of ``actions`` takes from ``seat``'s hand (its turn), to draw the moves as cards: the hand
    as :func:`table_view` shows it, before and after the move applied by the game's rules to a copy of the env
    (:meth:`~cardenvs.core.env.CardEnv.preview`), so no game is named here. A move that takes no card (pass, a
    bid, a declaration, a flip from a hidden pile) gets none; so does one after which the hand is redealt with
    a card of the same name (the difference would not show it). The env is not touched."""
    before = hand_codes(base, seat)
    if base.numba_core() is None or not before:
        return {a: [] for a in actions}
    return {action: cards_taken(before, hand_codes(base.preview(action), seat)) for action in actions}


def generic_result(base: Any) -> str:
    """Who won, read from the zero-sum outcome and the scores (a game view without ``describe_result``)."""
    names, outcome = base.possible_agents, base.outcome()
    winners = [names[p] for p in range(len(outcome)) if outcome[p] > 0]
    scores = ", ".join(f"{names[p]} {number(x)}" for p, x in enumerate(base.scores()))
    if not winners:
        return f"nobody wins (scores: {scores})"
    verb = "wins" if len(winners) == 1 else "share the win"
    return f"{names_and(winners)} {verb} (scores: {scores})"


def selection_token(env_id: str, code: str) -> str:
    """What a selected card adds to a typed move: the game view's ``selection_token`` (Dou Dizhu: the card's
    rank), else the card's code."""
    module = game_view(env_id)
    token = getattr(module, "selection_token", None)
    return token(code) if token else code


def _parse(code: str) -> int:
    from ..core.cards import parse_card

    return parse_card(code)
