"""War as pure functions over a small state (RULES.md "War").

Rules, in plain words:

* Two players, 26 cards each, face down; index 0 of a pile is flipped first. Cards compare by rank,
  2 low, A high; suits do not matter.
* A battle: player_0 flips, then player_1; the higher card wins. A tie is a *war*: each player puts
  ``war_face_down`` cards face down and one face up (one flip action each), and so on while tied.
* The battle's winner puts every card of the battle at the bottom of their pile: their own cards in the
  order played, then the loser's (with ``shuffle_won`` the won cards are shuffled instead, by a generator
  seeded from the dealing seed).
* A player who cannot complete a war plays what they have, the last card face up. A player who must flip
  and holds no card at all loses; both out at once is a draw.
* The game ends when one player holds every card; it is truncated after ``max_turns`` battles.
* ``single_pass``: the Riddler form. Exactly 26 battles, no wars (a tie is a battle nobody wins), no
  recycling; the score is the number of battles won.

Readings this implementation chooses: the battle counter counts battles, a war being part of its battle;
cards of a battle stay on the table until it resolves (they are counted there by the conservation
invariant); when a player runs out during a war the game ends at once with the cards still on the table.

The state is one ``int64`` array (offsets below) so that the same numba functions drive the env and the
Monte Carlo simulator in :mod:`cardenvs.analysis.war`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core.rng import uniform_index

DECK_SIZE = 52
HALF = 26
# state layout
PILE = 0  # 2 x 52 ring buffers
HEAD = 104  # 2 entries: index of the next card to flip
SIZE = 106  # 2 entries: cards in the pile
TABLE = 108  # 2 x 52: cards each player put on the table this battle, in order
TABLE_N = 212  # 2 entries
TO_MOVE = 214
BATTLES = 215
BATTLES_WON = 216  # 2 entries (single pass score)
RESULT = 218  # -1 running, 0 / 1 winner, 2 draw
LAST_FLIP = 219  # 2 entries: last face-up card of each player (-1 none)
IN_WAR = 221  # 1 while a tie is being settled
OUT_OF_PLAY = 222  # cards set aside (single-pass ties and battles); stack of 52
OUT_N = 274
RNG = 275  # xorshift state for shuffle_won
STATE_SIZE = 276

RUNNING, DRAW = -1, 2


@njit(cache=True)
def card_rank(card: int) -> int:
    return card // 4


@njit(cache=True)
def new_state(deck: np.ndarray, rng_seed: int) -> np.ndarray:
    """Deal ``deck`` (top first): the first 26 cards to player_0, the next 26 to player_1."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    for p in range(2):
        for i in range(HALF):
            s[PILE + 52 * p + i] = deck[HALF * p + i]
        s[SIZE + p] = HALF
    s[RESULT] = RUNNING
    s[LAST_FLIP] = -1
    s[LAST_FLIP + 1] = -1
    s[RNG] = rng_seed | 1
    return s


@njit(cache=True)
def _take(s: np.ndarray, p: int) -> int:
    card = s[PILE + 52 * p + s[HEAD + p]]
    s[HEAD + p] = (s[HEAD + p] + 1) % 52
    s[SIZE + p] -= 1
    return card


@njit(cache=True)
def _put_bottom(s: np.ndarray, p: int, card: int) -> None:
    s[PILE + 52 * p + (s[HEAD + p] + s[SIZE + p]) % 52] = card
    s[SIZE + p] += 1


@njit(cache=True)
def _to_table(s: np.ndarray, p: int, card: int) -> None:
    s[TABLE + 52 * p + s[TABLE_N + p]] = card
    s[TABLE_N + p] += 1


@njit(cache=True)
def flip(s: np.ndarray, war_face_down: int, shuffle_won: bool, single_pass: bool) -> None:
    """The player to move flips (in a war: up to ``war_face_down`` face down, then one face up)."""
    p = s[TO_MOVE]
    if s[IN_WAR] == 1:
        down = min(war_face_down, s[SIZE + p] - 1)
        for _ in range(down):
            _to_table(s, p, _take(s, p))
    card = _take(s, p)
    _to_table(s, p, card)
    s[LAST_FLIP + p] = card
    if p == 0:
        s[TO_MOVE] = 1
        return
    s[TO_MOVE] = 0
    _resolve(s, shuffle_won, single_pass)


@njit(cache=True)
def _resolve(s: np.ndarray, shuffle_won: bool, single_pass: bool) -> None:
    r0 = card_rank(s[LAST_FLIP])
    r1 = card_rank(s[LAST_FLIP + 1])
    if single_pass:
        if r0 != r1:
            s[BATTLES_WON + (0 if r0 > r1 else 1)] += 1
        for p in range(2):
            for i in range(s[TABLE_N + p]):
                s[OUT_OF_PLAY + s[OUT_N]] = s[TABLE + 52 * p + i]
                s[OUT_N] += 1
            s[TABLE_N + p] = 0
        s[BATTLES] += 1
        if s[BATTLES] == HALF:
            s[RESULT] = DRAW if s[BATTLES_WON] == s[BATTLES_WON + 1] else (0 if s[BATTLES_WON] > s[BATTLES_WON + 1] else 1)
        return
    if r0 == r1:
        s[IN_WAR] = 1
        empty0 = s[SIZE] == 0
        empty1 = s[SIZE + 1] == 0
        if empty0 and empty1:
            s[RESULT] = DRAW
        elif empty0:
            s[RESULT] = 1
        elif empty1:
            s[RESULT] = 0
        if s[RESULT] != RUNNING:
            s[BATTLES] += 1
        return
    winner = 0 if r0 > r1 else 1
    loser = 1 - winner
    n_won = s[TABLE_N] + s[TABLE_N + 1]
    won = np.empty(n_won, dtype=np.int64)
    k = 0
    for p in (winner, loser):
        for i in range(s[TABLE_N + p]):
            won[k] = s[TABLE + 52 * p + i]
            k += 1
        s[TABLE_N + p] = 0
    if shuffle_won:
        for i in range(n_won - 1, 0, -1):
            j = uniform_index(s[RNG:RNG + 1].view(np.uint64), i + 1)
            won[i], won[j] = won[j], won[i]
    for i in range(n_won):
        _put_bottom(s, winner, won[i])
    s[IN_WAR] = 0
    s[BATTLES] += 1
    if s[SIZE + loser] == 0:
        s[RESULT] = winner


@njit(cache=True)
def pile_cards(s: np.ndarray, p: int) -> np.ndarray:
    """Player ``p``'s pile, next flip first."""
    out = np.empty(s[SIZE + p], dtype=np.int64)
    for i in range(s[SIZE + p]):
        out[i] = s[PILE + 52 * p + (s[HEAD + p] + i) % 52]
    return out


@njit(cache=True)
def all_cards(s: np.ndarray) -> np.ndarray:
    """Every card in piles, on the table and out of play (the conservation invariant)."""
    total = s[SIZE] + s[SIZE + 1] + s[TABLE_N] + s[TABLE_N + 1] + s[OUT_N]
    out = np.empty(total, dtype=np.int64)
    k = 0
    for p in range(2):
        for c in pile_cards(s, p):
            out[k] = c
            k += 1
        for i in range(s[TABLE_N + p]):
            out[k] = s[TABLE + 52 * p + i]
            k += 1
    for i in range(s[OUT_N]):
        out[k] = s[OUT_OF_PLAY + i]
        k += 1
    return out


@njit(cache=True)
def score(s: np.ndarray, p: int, single_pass: bool) -> int:
    """Cards in own pile (battles won with ``single_pass``)."""
    return s[BATTLES_WON + p] if single_pass else s[SIZE + p]


@njit(cache=True)
def play_out(s: np.ndarray, war_face_down: int, shuffle_won: bool, single_pass: bool, max_turns: int) -> None:
    """Flip until the game ends or ``max_turns`` battles were played (the Monte Carlo inner loop)."""
    while s[RESULT] == RUNNING and s[BATTLES] < max_turns:
        flip(s, war_face_down, shuffle_won, single_pass)
