"""DouZero's evaluation deals as a deal-file format (``douzero:FILE`` in ``cardenvs arena --deals`` and
``--save-deals``; :mod:`cardenvs.arena.deals`).

DouZero's ``generate_eval_data.py`` writes, and its ``evaluate.py`` reads, a pickled list of dicts
``card_play_data``: ``landlord`` (20 cards, the three kitty cards among them), ``landlord_down`` (the next
player after the landlord, 17), ``landlord_up`` (17) and ``three_landlord_cards``, each card a rank value
(3..14 for 3..A, 17 for the two, 20 and 30 for the black and red joker; no suits).

Read: the landlord is ``player_0`` (the arena's duplicate mode fixes it there), dealt first (``first_bidder``
0), then ``player_1`` (landlord_down), ``player_2`` (landlord_up), then the kitty; the copies of a rank get
the suits ``S C D H`` in that order (suits never matter in Dou Dizhu). Write: the same, backwards, from each
deal's deck and first bidder (a deal's seat 0 is its landlord, as in the duplicate mode).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.core.cards import card_code, parse_cards
from cardenvs.core.rng import stream, uniform_index

from .rules import FIRST_BIDDER_STREAM, HAND, KITTY, PLAYERS

#: DouZero's value of each card id's rank (ids 4r..4r+3 are the natural rank r = 2..A; 52, 53 the jokers)
VALUES = np.array([17 if c < 4 else c // 4 + 2 for c in range(52)] + [20, 30], dtype=np.int64)
SEATS = ("landlord", "landlord_down", "landlord_up")


def _cards(values: Any, where: str, count: int, taken: set[int]) -> list[int]:
    """DouZero values -> our card ids (the lowest suit not yet taken of each rank)."""
    if not isinstance(values, (list, tuple)) or len(values) != count:
        raise ValueError(f"{where}: expected a list of {count} card values")
    ids = []
    for v in values:
        free = [int(c) for c in np.flatnonzero(VALUES == v) if int(c) not in taken]
        if not free:
            raise ValueError(f"{where}: card value {v!r} is not a card (3..14, 17, 20, 30) or appears too often")
        taken.add(free[0])
        ids.append(free[0])
    return ids


def read(path: str) -> list[dict[str, Any]]:
    """The deals of a DouZero evaluation file, as deal-file entries (decks and reset options)."""
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)  # noqa: S301 - a file the user names, as DouZero's own evaluate.py reads it
    except OSError as exc:
        raise ValueError(f"cannot read DouZero deals {path}: {exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - anything unpickling can raise
        raise ValueError(f"{path} is not a DouZero deal file (a pickled list): {exc}") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path} is not a DouZero deal file: expected a non-empty pickled list of deals")
    deals = []
    for k, deal in enumerate(data):
        where = f"{path}: deal {k}"
        if not isinstance(deal, dict) or any(key not in deal for key in (*SEATS, "three_landlord_cards")):
            raise ValueError(f"{where}: expected a dict with {', '.join(SEATS)} and three_landlord_cards")
        taken: set[int] = set()
        kitty = _cards(deal["three_landlord_cards"], f"{where}: three_landlord_cards", KITTY, taken)
        landlord = list(deal["landlord"])
        for v in deal["three_landlord_cards"]:
            if v not in landlord:
                raise ValueError(f"{where}: landlord: the kitty card {v} is not in the landlord's 20 cards")
            landlord.remove(v)
        blocks = [_cards(landlord, f"{where}: landlord", HAND, taken)]
        blocks += [_cards(deal[seat], f"{where}: {seat}", HAND, taken) for seat in SEATS[1:]]
        deck = [c for block in blocks for c in block] + kitty
        deals.append({"decks": [" ".join(card_code(c) for c in deck)], "reset": {"first_bidder": 0}})
    return deals


def write(deals: list[dict[str, Any]], path: str) -> None:
    """Deal-file entries as a DouZero evaluation file (seat 0 the landlord)."""
    out = []
    for deal in deals:
        deck = parse_cards(deal["decks"][0])
        first = (deal.get("reset") or {}).get("first_bidder")
        if first is None and deal.get("deal_seed") is None:
            raise ValueError("a deal without first_bidder or deal_seed: its first bidder is unknown")
        if first is None:
            first = int(uniform_index(stream(np.uint64(deal["deal_seed"]), np.int64(FIRST_BIDDER_STREAM)), 3))
        hands = {(first + k) % PLAYERS: deck[k * HAND : (k + 1) * HAND] for k in range(PLAYERS)}
        kitty = deck[PLAYERS * HAND :]
        values = {seat: sorted(int(VALUES[c]) for c in hands[p]) for p, seat in enumerate(SEATS)}
        values["landlord"] = sorted(values["landlord"] + [int(VALUES[c]) for c in kitty])
        values["three_landlord_cards"] = sorted(int(VALUES[c]) for c in kitty)
        out.append(values)
    Path(path).write_bytes(pickle.dumps(out))
