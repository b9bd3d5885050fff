"""Guandan's web view for ``cardenvs serve`` (the ``view`` of its spec): :func:`fill_view` fills the seats (hands in
card order at the hand's level, team, place out), the table and the info lines (each team's level, the hand's
level and its wild cards, the declarer, A attempts, the tribute and who is out in which order) of
:func:`cardenvs.seatview.table_view`; :func:`fill_plays` draws the play to beat and each seat's last play as the
cards played, and the tribute and the returned cards once they are shown; :func:`public_move` names a move as a
viewer may see it (a tribute or return card given by another seat: no card); :func:`describe_result` says how
the hand (or the match) ended.

Tribute and return cards travel face down until every payer has paid (every receiver has returned): until
then only their giver sees them here too."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from cardenvs.core.cards import RANKS, card_code
from cardenvs.core.view import Play, names_and, plural, shown

PLACES = ("1st", "2nd", "3rd", "4th")
TEAMS = ("player_0 and player_2", "player_1 and player_3")


def _team(t: int) -> str:
    return f"team {t} ({TEAMS[t]})"


#: each card id's code, looked up rather than built: a view is drawn at every step
CODES = tuple(card_code(c) for c in range(54))


def _state(base: Any) -> Any:
    """The env's game record as a structured scalar (``base.states[0]``): its fields are read as ``s["name"]``,
    six times faster than the attributes of ``base.state`` (a ``np.record``), and a view reads dozens."""
    return base.states[0]


def _cards(row: Any) -> list[str]:
    """Card codes of a count row (int8[54]), each copy once."""
    return [CODES[c] for c in np.repeat(np.arange(len(row)), row)]


@functools.cache
def _order_table() -> np.ndarray:
    """``rules.card_order`` of every card (columns) at every level (rows), read once: a view sorts four hands
    a step."""
    from .rules import NUM_CARDS, card_order

    return np.array([[card_order(c, level) for c in range(NUM_CARDS)] for level in range(13)], dtype=np.int64)


def _sorted_hand(row: Any, level: int) -> list[str]:
    """The codes of a count row in card order at ``level`` (rule 5: 2 .. A, the level rank, BJ, RJ), suits in
    S C D H order."""
    ids = np.repeat(np.arange(len(row)), row)
    return [CODES[c] for c in ids[np.lexsort((ids, _order_table()[level][ids]))]]


def _play_cards(s: Any, i: int) -> list[str]:
    return [card_code(int(c)) for c in s["hist_cards"][i] if c >= 0]


def _given(s: Any, viewer: int | None, base: Any) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
    """The tribute and return cards this viewer may see: (giver, receiver, card) each."""
    paid, back = [], []
    for i in range(int(s["n_paid"])):
        payer = int(s["payers"][i])
        if s["tribute_shown"] or shown(base, viewer, payer):
            receiver = next((int(s["return_seats"][j]) for j in range(2) if s["return_to"][j] == payer), -1)
            paid.append((payer, receiver if s["tribute_shown"] else -1, int(s["paid"][i])))
    for j in range(int(s["n_returned"])):
        giver = int(s["return_seats"][j])
        if s["returns_shown"] or shown(base, viewer, giver):
            back.append((giver, int(s["return_to"][j]), int(s["returned"][j])))
    return paid, back


def public_move(base: Any, seat: int, action: int, viewer: int | None) -> str:
    """The name of ``seat``'s move as ``viewer`` sees it: a card paid or returned by another seat is named
    without the card (the table shows it once every card of the exchange is shown); every play is public."""
    from . import moves

    if viewer is not None and viewer != seat and moves.CARD0 <= action < moves.SUIT0:
        return "gives a card"
    return base.action_name(int(action))


def fill_view(base: Any, viewer: int | None, view: dict) -> None:
    from . import rules

    s = _state(base)
    level = int(s["hand_level"])
    view["card_moves"] = bool(
        s["phase"] in (rules.PAY, rules.RETURN) or (s["phase"] == rules.PLAY and s["pending"] < 0)
    )
    places = {int(s["out_order"][i]): i for i in range(int(s["n_out"]))}
    for p, seat in enumerate(view["seats"]):
        seat["count"] = int(s["n_cards"][p])
        if shown(base, viewer, p):
            seat["cards"] = _sorted_hand(s["hands"][p], level)
        seat["notes"].append(f"team {p % 2}")
        if p in places:
            seat["notes"].append(f"out {PLACES[places[p]]}")
        if s["resisted"] and s["red_jokers"][p]:
            seat["notes"].append(f"resisted with {plural(int(s['red_jokers'][p]), 'red joker')}")
    own = [f"team {t} at {RANKS[int(s['levels'][t])]}" for t in range(2)]
    view["info"].append(f"levels: {', '.join(own)}")
    wild = card_code(4 * level + 3)
    wilds = f"both {wild} are wild" if base.config["wilds"] else f"no wild cards ({wild} plays as itself)"
    view["info"].append(
        f"this hand is played at {RANKS[level]}, team {int(s['declarer'])}'s level: the {RANKS[level]}s rank above the"
        f" aces, and {wilds}"
    )
    if s["a_failures"][0] or s["a_failures"][1]:
        view["info"].append(f"failed attempts at A: team 0 {int(s['a_failures'][0])}, team 1 {int(s['a_failures'][1])}")
    if base.config["episode"] == "match":
        view["info"].append(f"hands played: {int(s['hands_played'])}")
    if s["previous"][0] >= 0:
        view["info"].append("previous hand's order: " + ", ".join(f"player_{int(q)}" for q in s["previous"]))
    if s["resisted"]:
        view["info"].append("tribute resisted: the payers hold both red jokers")
    elif s["phase"] == rules.PAY:
        payers = [f"player_{int(s['payers'][i])}" for i in range(int(s["n_payers"]))]
        view["info"].append(f"tribute: {names_and(payers)} pay their highest card (no wild)")
    elif s["phase"] == rules.RETURN:
        view["info"].append(
            f"return: player_{int(s['to_move'])} gives a card back to player_{int(s['return_to'][s['n_returned']])}"
        )
    if s["n_out"]:
        order = [f"player_{int(s['out_order'][i])} {PLACES[i]}" for i in range(int(s["n_out"]))]
        view["info"].append("out: " + ", ".join(order))
    if s["phase"] == rules.PLAY and s["last_pid"] < 0 and s["pending"] < 0:
        view["info"].append(f"a new trick: player_{int(s['to_move'])} leads")


def fill_plays(base: Any, viewer: int | None, view: dict, plays: Sequence[Play] | None) -> None:
    """The play to beat (its cards, its name by rule 34), the tribute and returned cards as far as the viewer may
    see them, and each seat's last play (a pass: none): the plays of the hand are public in the state, so
    ``plays`` only tells passes apart."""
    from . import moves, rules

    s = _state(base)
    level = int(s["hand_level"])
    flags = int(base.params["flags"][0])
    if s["phase"] == rules.PLAY and s["last_pid"] >= 0:
        i = int(s["last_play"])
        cards = [int(c) for c in s["hist_cards"][i] if c >= 0]
        view["table"].append(
            {
                "label": "to beat",
                "text": f"{moves.move_name(cards, int(s['last_pid']), level, flags)} by player_{int(s['last_player'])}",
                "cards": _play_cards(s, i),
            }
        )
    paid, back = _given(s, viewer, base)
    for label, given in (("tribute", paid), ("returned", back)):
        if given:
            words = [f"player_{g} to player_{r}" if r >= 0 else f"player_{g} (not shown yet)" for g, r, _ in given]
            view["table"].append(
                {"label": label, "text": "; ".join(words), "cards": [card_code(c) for _, _, c in given]}
            )
    if s["pending"] >= 0 and shown(base, viewer, int(s["to_move"])):
        chosen = _cards(s["chosen"])
        view["table"].append(
            {
                "label": "choosing",
                "text": f"player_{int(s['to_move'])}: {moves.pattern_name(int(s['pending']))}",
                "cards": chosen,
            }
        )
    if plays is None:
        return
    latest = {p.seat: p for p in plays}
    for seat in view["seats"]:
        p = seat["seat"]
        step = latest.get(p)
        seat["last_cards"] = []
        if step is None or step.action == moves.PASS or moves.CARD0 <= step.action < moves.SUIT0:
            continue
        for i in range(int(s["n_hist"]) - 1, -1, -1):
            if s["hist_player"][i] == p:
                seat["last_cards"] = _play_cards(s, i)
                break


def describe_result(base: Any) -> str:
    """Who went out first, the finishing order and the levels won; in a match, who won it (or where it stopped)."""
    s = _state(base)
    hands = int(s["hands_played"])
    if s["status"] == 2:  # truncated
        levels = f"team 0 at {RANKS[int(s['levels'][0])]}, team 1 at {RANKS[int(s['levels'][1])]}"
        return f"stopped after {plural(hands, 'hand')} (max_hands): nobody wins; levels {levels}"
    order = ", ".join(f"player_{int(s['out_order'][i])}" for i in range(int(s["n_out"])))
    first = int(s["out_order"][0])
    team = first % 2
    gain = int(s["gain"])
    if s["match_winner"] >= 0:
        return (
            f"{_team(int(s['match_winner']))} wins the match at A after {plural(hands, 'hand')} "
            f"(last hand: player_{first} out first, order {order})"
        )
    return f"player_{first} went out first: {_team(team)} wins the hand and {plural(gain, 'level')} (order {order})"
