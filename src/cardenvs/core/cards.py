"""Card codes, decks and rank orders shared by every game.

A card is an integer id:

* ``0..51``: the standard cards, ``id = 4 * rank + suit`` with ranks in natural order
  ``2 3 4 5 6 7 8 9 T J Q K A`` (``rank 0`` is the two) and suits ``S C D H`` (``suit 0`` is spades).
* ``52`` = ``BJ`` (black joker), ``53`` = ``RJ`` (red joker), ``54`` = ``JK`` (a colourless joker, or
  identical jokers).

Codes are rank + suit (``"QS"``, ``"TH"``; ``"10H"`` is accepted on input), parsed case-insensitively.
Anything else is a ``ValueError`` naming the bad token. Double decks are multisets of ids, so every
hand is representable as per-card counts (``NUM_CARD_IDS`` long).

A *rank order* maps each card id to the rank index a game uses (``-1`` for cards the order does not rank):
Twos and Dou Dizhu put ``3`` lowest and ``2`` above the ace, War and Two Way Street use ace high, and
Twenty uses pip values. Every game builds its rank vectors through :func:`rank_order` and the encoder in
:mod:`cardenvs.core.encoding`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "SCDH"
NUM_STANDARD = 52
BLACK_JOKER = 52
RED_JOKER = 53
JOKER = 54
NUM_CARD_IDS = 55
JOKER_CODES = {BLACK_JOKER: "BJ", RED_JOKER: "RJ", JOKER: "JK"}
_CODE_TO_ID = {r + s: 4 * i + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}
_CODE_TO_ID.update({code: cid for cid, code in JOKER_CODES.items()})

# Rank strings for the rank lines games use; the string's order is low to high.
ACE_HIGH = RANKS  # War, Two Way Street
TWO_HIGH = "3456789TJQKA2"  # Twos, Dou Dizhu (before the jokers)


def rank_of(card: int) -> int:
    """Natural rank index (0 = two ... 12 = ace) of a standard card; -1 for a joker."""
    return card // 4 if card < NUM_STANDARD else -1


def suit_of(card: int) -> int:
    """Suit index (0 = S, 1 = C, 2 = D, 3 = H) of a standard card; -1 for a joker."""
    return card % 4 if card < NUM_STANDARD else -1


def parse_card(token: str) -> int:
    """Parse one card code (``"QS"``, ``"10h"``, ``"bj"``) into its id."""
    if not isinstance(token, str):
        raise ValueError(f"bad card code {token!r}: expected a string such as 'QS', 'TH' or 'BJ'")
    code = token.strip().upper()
    if code.startswith("10"):
        code = "T" + code[2:]
    try:
        return _CODE_TO_ID[code]
    except KeyError:
        raise ValueError(
            f"bad card code {token!r}: a card is a rank of {RANKS} (or 10) followed by a suit of "
            f"{SUITS}, or a joker BJ, RJ, JK"
        ) from None


def parse_cards(cards: str | Iterable[str]) -> list[int]:
    """Parse space- or comma-separated card codes, or an iterable of codes, into ids."""
    if isinstance(cards, str):
        tokens = cards.replace(",", " ").split()
    else:
        tokens = list(cards)
    return [parse_card(t) for t in tokens]


def card_code(card: int) -> str:
    """The code of one card id."""
    card = int(card)
    if 0 <= card < NUM_STANDARD:
        return RANKS[card // 4] + SUITS[card % 4]
    if card in JOKER_CODES:
        return JOKER_CODES[card]
    raise ValueError(f"bad card id {card}: ids are 0..{NUM_CARD_IDS - 1}")


def format_cards(cards: Iterable[int]) -> str:
    """Card ids as space-separated codes, in the given order."""
    return " ".join(card_code(c) for c in cards)


def make_deck(jokers: int = 0, distinct_jokers: bool = True, decks: int = 1) -> np.ndarray:
    """A deck as an array of card ids in canonical order (standard cards, then jokers), ``decks`` times.

    ``jokers`` per deck: 0, 1 (one colourless ``JK``) or 2 (``BJ`` and ``RJ`` when ``distinct_jokers``,
    else two identical ``JK``).
    """
    if jokers not in (0, 1, 2):
        raise ValueError(f"jokers must be 0, 1 or 2 per deck, got {jokers!r}")
    if decks < 1:
        raise ValueError(f"decks must be at least 1, got {decks!r}")
    one = list(range(NUM_STANDARD))
    if jokers == 1:
        one.append(JOKER)
    elif jokers == 2:
        one += [BLACK_JOKER, RED_JOKER] if distinct_jokers else [JOKER, JOKER]
    return np.array(one * decks, dtype=np.int64)


def rank_order(order: str, jokers: Sequence[int] = ()) -> np.ndarray:
    """Card id -> rank index under a rank line given low to high, e.g. ``"3456789TJQKA2"``.

    Jokers listed in ``jokers`` rank above the line in that order; every other id maps to -1.
    """
    table = np.full(NUM_CARD_IDS, -1, dtype=np.int64)
    for index, rank in enumerate(order):
        natural = RANKS.index(rank)
        table[4 * natural : 4 * natural + 4] = index
    for offset, joker in enumerate(jokers):
        table[joker] = len(order) + offset
    return table


def card_value_order() -> np.ndarray:
    """Card id -> pip value as used by Twenty: A = 1, 2..9 pip, T J Q K = 10 (jokers -1)."""
    table = np.full(NUM_CARD_IDS, -1, dtype=np.int64)
    for card in range(NUM_STANDARD):
        rank = RANKS[card // 4]
        table[card] = 1 if rank == "A" else (10 if rank in "TJQK" else int(rank))
    return table


def check_permutation(cards: Sequence[int], deck: Sequence[int], what: str = "deck") -> None:
    """Raise ``ValueError`` unless ``cards`` is a permutation of the multiset ``deck``.

    The message names the missing and the doubled (or foreign) cards.
    """
    have, want = Counter(int(c) for c in cards), Counter(int(c) for c in deck)
    if have == want:
        return
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    parts = []
    if missing:
        parts.append(f"missing {format_cards(missing)}")
    if extra:
        parts.append(f"doubled or not in this game's deck {format_cards(extra)}")
    raise ValueError(
        f"{what} is not a permutation of the game's {len(deck)}-card deck (got {len(cards)} cards): " + "; ".join(parts)
    )
