"""DouZero's evaluation deals as a deal-file format (``douzero:FILE`` in ``cardenvs arena --deals`` and
``--save-deals``; :mod:`cardenvs.arena.deals`).

DouZero's ``generate_eval_data.py`` writes, and its ``evaluate.py`` reads, a pickled list of dicts
``card_play_data``: ``landlord`` (20 cards, the three kitty cards among them), ``landlord_down`` (the next
player after the landlord, 17), ``landlord_up`` (17) and ``three_landlord_cards``, each card a rank value
(3..14 for 3..A, 17 for the two, 20 and 30 for the black and red joker; no suits). DouZero's files hold
Python lists of ints; numpy arrays (and scalars) of integers are read too.

A pickle can name any function to call while it loads, so the file is read by :class:`DealUnpickler`, which
admits only what such a file holds: lists, dicts, ints and strings (which need no global), and numpy integer
arrays and scalars through the exact ``(module, name)`` pairs of :data:`ALLOWED` that their pickles name, each
resolved to a checked stand-in, never to numpy's own function (``numpy.ndarray`` resolves to a marker that
only ``_reconstruct`` accepts, so it cannot be called to make an array of any size). Every other name is
refused before anything runs: whole modules are never admitted, so numpy's own gadgets
(``numpy.testing._private.utils.runstring``, ``numpy.load`` with ``allow_pickle``, ``numpy.memmap``, the
``os`` and ``builtins`` its modules import) stay out. The whole file is read through
:mod:`cardenvs.core.userfiles` (a regular file of at most :data:`MAX_BYTES`), and a seat's array is at most
:data:`MAX_VALUES` long before it is turned into a list.

Read: the landlord is ``player_0`` (the arena's duplicate mode fixes it there), dealt first (``first_bidder``
0), then ``player_1`` (landlord_down), ``player_2`` (landlord_up), then the kitty; the copies of a rank get
the suits ``S C D H`` in that order (suits never matter in Dou Dizhu). Write: the same, backwards, from each
deal's deck and first bidder (a deal's seat 0 is its landlord, as in the duplicate mode).
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

import numpy as np

from cardenvs.core.cards import card_code, parse_cards
from cardenvs.core.rng import stream, uniform_index
from cardenvs.core.userfiles import read_bytes

from .rules import FIRST_BIDDER_STREAM, HAND, KITTY, PLAYERS

#: DouZero's value of each card id's rank (ids 4r..4r+3 are the natural rank r = 2..A; 52, 53 the jokers)
VALUES = np.array([17 if c < 4 else c // 4 + 2 for c in range(52)] + [20, 30], dtype=np.int64)
SEATS = ("landlord", "landlord_down", "landlord_up")
#: the largest DouZero file read (DouZero's default 10,000 deals pickle to about 1.3 MB)
MAX_BYTES = 64 * 1024 * 1024
#: the longest array of card values read (a landlord holds 20)
MAX_VALUES = 64


class _NdarrayType:
    """What ``numpy.ndarray`` resolves to: the subtype argument of ``_reconstruct``, never a callable."""

    def __repr__(self) -> str:
        return "numpy.ndarray (as a deal file's pickle names it)"


NDARRAY = _NdarrayType()


def _reconstruct(subtype: Any, shape: Any, dtype: Any) -> np.ndarray:
    """numpy's ``_reconstruct`` as its pickles call it: an empty ndarray that BUILD then fills."""
    if subtype is not NDARRAY or shape != (0,) or dtype != b"b":
        raise pickle.UnpicklingError("numpy _reconstruct called with other arguments than an array's pickle uses")
    return np.ndarray.__new__(np.ndarray, (0,), np.int8)  # BUILD then sets the array's own dtype and data


def _dtype(name: Any, align: Any = False, copy: Any = False) -> np.dtype:
    """``numpy.dtype`` of an integer type named by its code (``i8``), as an int array's pickle names it."""
    if not isinstance(name, str) or not isinstance(align, bool) or not isinstance(copy, bool):
        raise pickle.UnpicklingError("numpy dtype called with other arguments than an array's pickle uses")
    dtype = np.dtype(name)
    if dtype.kind not in "iu":
        raise pickle.UnpicklingError(f"a numpy array of {dtype} (only integer arrays are card values)")
    return dtype


def _scalar(dtype: Any, data: Any) -> Any:
    """numpy's ``scalar`` (a pickled ``np.int64``) of an integer dtype."""
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu" or not isinstance(data, bytes):
        raise pickle.UnpicklingError("numpy scalar of other than an integer type")
    return np.frombuffer(data, dtype=dtype, count=1)[0]


def _frombuffer(buffer: Any, dtype: Any, shape: Any, order: Any) -> np.ndarray:
    """numpy's ``_frombuffer`` as protocol 5 pickles of an array call it, for a short integer array."""
    if (
        not isinstance(buffer, (bytes, bytearray, pickle.PickleBuffer))
        or not isinstance(dtype, np.dtype)
        or dtype.kind not in "iu"
        or not (isinstance(shape, tuple) and len(shape) == 1 and isinstance(shape[0], int) and 0 <= shape[0] <= 64)
        or order not in ("C", "F")
    ):
        raise pickle.UnpicklingError("numpy _frombuffer called with other arguments than an int array's pickle uses")
    return np.frombuffer(bytes(buffer), dtype=dtype, count=shape[0]).copy()


def _encode(text: Any, encoding: Any = "latin1") -> bytes:
    """``_codecs.encode`` as protocol 2 pickles of bytes call it (latin-1 text to bytes)."""
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError("_codecs.encode called with other arguments than a pickle of bytes uses")
    return text.encode("latin1")


#: the only globals a DouZero deal file may name, and what each resolves to
ALLOWED = {
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy.core.multiarray", "scalar"): _scalar,
    ("numpy._core.multiarray", "scalar"): _scalar,
    ("numpy.core.numeric", "_frombuffer"): _frombuffer,
    ("numpy._core.numeric", "_frombuffer"): _frombuffer,
    ("numpy", "ndarray"): NDARRAY,
    ("numpy", "dtype"): _dtype,
    ("_codecs", "encode"): _encode,
}


class DealUnpickler(pickle.Unpickler):
    """An unpickler that resolves only the exact pairs of :data:`ALLOWED` (lists, dicts, ints and strings need
    no global); a dotted name (``os.system`` in a numpy module) is never one of them."""

    def find_class(self, module: str, name: str) -> Any:
        found = ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"it names {module}.{name}, which a deal file never holds (refused)")
        return found


def _values(values: Any, where: str) -> list[Any]:
    """A seat's card values as a list (a numpy array of integers becomes a list of ints)."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iu" or values.ndim != 1:
            raise ValueError(f"{where}: expected a list of card values, got a numpy array of {values.dtype}")
        if values.size > MAX_VALUES:
            raise ValueError(f"{where}: expected a list of card values, got a numpy array of {values.size:,}")
        return [int(v) for v in values]
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{where}: expected a list of card values, got {type(values).__name__}")
    return list(values)


def _cards(values: Any, where: str, count: int, taken: set[int]) -> list[int]:
    """DouZero values -> our card ids (the lowest suit not yet taken of each rank)."""
    values = _values(values, where)
    if len(values) != count:
        raise ValueError(f"{where}: expected a list of {count} card values")
    ids = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{where}: a card value is {type(v).__name__}, not an integer")
        free = [int(c) for c in np.flatnonzero(VALUES == v) if int(c) not in taken]
        if not free:
            raise ValueError(f"{where}: card value {v!r} is not a card (3..14, 17, 20, 30) or appears too often")
        taken.add(free[0])
        ids.append(free[0])
    return ids


def read(path: str) -> list[dict[str, Any]]:
    """The deals of a DouZero evaluation file, as deal-file entries (decks and reset options)."""
    raw = read_bytes(path, "DouZero deal file", MAX_BYTES)
    try:
        data = DealUnpickler(io.BytesIO(raw)).load()
    except Exception as exc:  # noqa: BLE001 - anything unpickling can raise
        problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"{path} is not a DouZero deal file (a pickled list): {problem}") from None
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path} is not a DouZero deal file: expected a non-empty pickled list of deals")
    deals = []
    for k, deal in enumerate(data):
        where = f"{path}: deal {k}"
        if not isinstance(deal, dict) or any(key not in deal for key in (*SEATS, "three_landlord_cards")):
            raise ValueError(f"{where}: expected a dict with {', '.join(SEATS)} and three_landlord_cards")
        taken: set[int] = set()
        kitty = _cards(deal["three_landlord_cards"], f"{where}: three_landlord_cards", KITTY, taken)
        landlord = _values(deal["landlord"], f"{where}: landlord")
        for v in _values(deal["three_landlord_cards"], f"{where}: three_landlord_cards"):
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
