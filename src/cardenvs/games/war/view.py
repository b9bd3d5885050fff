"""War's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats,
the table and the info lines of :func:`cardenvs.web.views.table_view`."""

from __future__ import annotations

from typing import Any

from cardenvs.core.cards import card_code


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    s = base.state
    for p, seat in enumerate(view["seats"]):
        seat["count"] = int(s.held[p])
        seat["notes"].append(f"{int(s.table_n[p])} on the table")
        if base.config["single_pass"]:
            seat["notes"].append(f"battles won {int(s.battles_won[p])}")
    flips = [card_code(int(c)) for c in s.last_flip if c >= 0]
    view["table"].append({"label": "last flips (player_0, player_1)", "cards": flips})
    view["info"].append(f"battle {int(s.battles) + 1}" + (" (war!)" if s.in_war else ""))
