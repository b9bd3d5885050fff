"""What one seat may see of a game, read through the game's view hooks (its spec's ``view`` module): the table
and the hands (:func:`table_view`), a seat's own cards (:func:`hand_codes`) and a move as a viewer may see it
(:func:`public_move`). The web app draws these; programs playing as agents (:mod:`cardenvs.agent.program`) are
sent them. A hand the viewer may not see is never put in what these return."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .core.spec import load
from .core.view import Play, number
from .registry import short_name, spec_of


def game_view(env_id: str) -> Any:
    """The module a game's spec names as its ``view`` (None without one)."""
    spec = spec_of(env_id)
    return load(spec.view) if spec.view else None


def table_view(base: Any, viewer: int | None, plays: Sequence[Play] | None = None) -> dict[str, Any]:
    """The public table and the hands ``viewer`` may see (None: every hand). ``plays``: every step so far, for
    the game view's ``fill_plays`` to draw what was played as cards (None: not known; it draws words)."""
    game = short_name(base.metadata["name"])
    n = base.num_players
    view: dict[str, Any] = {
        "game": game,
        "seats": [
            {"seat": p, "name": base.possible_agents[p], "cards": None, "count": 0, "notes": [], "last_cards": []}
            for p in range(n)
        ],
        "table": [],
        "info": [],
        "scores": [number(x) for x in base.scores()],
        "select_join": " ",
        "card_moves": True,  # whether a move now is made of cards of the hand (select them, or type it)
    }
    module = game_view(base.metadata["name"])
    if module is not None:  # a game without a view shows the seats, the scores and the text render
        module.fill_view(base, viewer, view)
        if hasattr(module, "fill_plays"):
            module.fill_plays(base, viewer, view, plays)
    return view


def hand_codes(base: Any, seat: int) -> list[str]:
    """``seat``'s hand as :func:`table_view` shows it to that seat (empty for a game without hands)."""
    return table_view(base, seat)["seats"][seat]["cards"] or []


def public_move(base: Any, seat: int, action: int, viewer: int | None) -> str:
    """The name of a move as the viewer may see it (the game view's ``public_move`` hides what the viewer may
    not see, e.g. Two Way Street's discards)."""
    hook = getattr(game_view(base.metadata["name"]), "public_move", None)
    return hook(base, seat, action, viewer) if hook else base.action_name(int(action))
