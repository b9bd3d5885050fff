"""What a game's web view (``games/<game>/view.py``, named by its spec's ``view``) needs to fill a table: card
names as the pictures show them, scores as numbers, plurals, and :class:`Play`, one step of a game with the
cards it took. Below the games, so a game's view imports only the core; the web app (:mod:`cardenvs.web.views`)
builds on it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SUIT_SYMBOLS = {"S": "\u2660", "C": "\u2663", "D": "\u2666", "H": "\u2665"}
SUIT_COLOURS = {"S": "#1a1a1a", "C": "#1b5e20", "D": "#0d47a1", "H": "#c62828"}
JOKER_COLOURS = {"BJ": "#1a1a1a", "RJ": "#c62828", "JK": "#6a1b9a"}
JOKER_SYMBOL = "\u2605"


def card_face(code: str) -> tuple[str, str, str]:
    """What a card's picture shows: its rank (``10`` for a ten), its suit symbol (a star for a joker, whose
    rank is its code's first letter) and the colour of both."""
    if code in JOKER_COLOURS:
        return code[0], JOKER_SYMBOL, JOKER_COLOURS[code]
    rank, suit = code[:-1], code[-1]
    return ("10" if rank == "T" else rank), SUIT_SYMBOLS[suit], SUIT_COLOURS[suit]


def card_name(code: str) -> str:
    """A card as the page names it, as its picture shows it: ``10♣`` for ``TC``, ``A♠`` for ``AS``, ``B★``
    for the black joker."""
    rank, symbol, _ = card_face(code)
    return rank + symbol


def number(x: Any) -> float | int:
    """A score as JSON shows it: an integer when it is one (12, not 12.0)."""
    x = float(x)
    return int(x) if x.is_integer() else x


@dataclass(frozen=True)
class Play:
    """One step of a game: who moved, the action, and the cards it took from the mover's hand (in the order
    the hand shows them; none for a pass, a bid, a declaration). Hidden or not: a game view's ``fill_plays``
    decides what of it is shown."""

    seat: int
    action: int
    cards: tuple[str, ...]


def latest_play(plays: Sequence[Play], seat: int, action: int) -> Play | None:
    """The last of ``plays`` in which ``seat`` played ``action`` (None if there is none)."""
    return next((p for p in reversed(plays) if p.seat == seat and p.action == action), None)


def last_plays(view: dict[str, Any], plays: Sequence[Play]) -> None:
    """Each seat's ``last_cards``: the cards of its latest step (empty when it took none), for a game whose
    plays are all face up."""
    latest = {p.seat: p for p in plays}
    for seat in view["seats"]:
        play = latest.get(seat["seat"])
        seat["last_cards"] = list(play.cards) if play is not None else []


def plural(count: float, word: str, many: str | None = None) -> str:
    """``1 card``, ``2 cards`` (``many``: the plural when it is not ``word + "s"``)."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def names_and(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def shown(base: Any, viewer: int | None, p: int) -> bool:
    """Whether ``viewer`` (None: everyone) may see seat ``p``'s hand."""
    return viewer is None or viewer == p
