"""DanZero's 513 state features (:mod:`.danzero`'s table) in numba, batched over the rules' state: what a learner
sees of a Guandan decision with ``features: danzero`` (:mod:`cardenvs.training.dmc`), declared on the game's spec
as the learner features ``danzero``.

:func:`state_rows` writes, for each game asked, the 513 features of the seat to move, in DanZero's order and
column layout (its own cards, the 12 wild-card flags, the unseen cards, the last action of DanZero's action record,
the partner's last action, the cards the next player, the partner and the previous player played, their cards left
and the three levels), as ``int8`` (every feature is -1, 0, 1 or 2). They equal what :class:`.danzero.SeatMemory`
and :func:`.danzero.state_features` compute from the seat's observations (``tests/test_guandan_features.py``
checks it on seeded games), but in one kernel call for a batch and from one state, without a memory kept
between decisions:

* **The action record** (:class:`.danzero.ActionRecord`) is rebuilt from the hand's plays the state keeps (who,
  which cards; passes are not kept): from the first play, each next seat in turn either makes the next play
  (when that play is its) or passes, with :class:`.danzero.SeatMemory`'s order of turns (the next player still
  in; when every other player still in passed, the play's owner leads, or its partner when it is out); after the
  last play, the passes since it (the state's ``passes``, or, when a trick has just ended, every other player's)
  lead to the seat to move. The record's entries for players out follow :class:`.danzero.ActionRecord`'s rules.
* **Only what the seat may know** is read: its own hand, the cards each seat played, the hand's plays, the passes
  since the last play, the cards left and the levels (the other hands are never read).

The move's part of DanZero's 567 (the play's 54 cards) is not here: our actions are patterns whose suits are
chosen in later decisions, and a learner describes them by the game's move table (:mod:`.features`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from . import rules
from .danzero import COLUMN, STATE_SIZE, write_wild_flags

NO_ENTRY, OUT_ENTRY, PASS_ENTRY = -2, -1, -3  # record entries that are not a play (a play: its index >= 0)
HEART = 3  # our suit index of hearts (cards.SUITS = "SCDH"); DanZero's column puts hearts first in each rank
# where each part of the 513 starts
AT_HAND, AT_WILD, AT_UNSEEN, AT_LAST, AT_PARTNER, AT_PLAYED, AT_LEFT, AT_LEVELS = 0, 54, 66, 120, 174, 228, 390, 474
SIZE = STATE_SIZE
assert AT_LEVELS + 3 * 13 == SIZE


@njit(cache=True)
def _write(record, seat, entry) -> None:
    """``record`` = [last, last_of x4, left x4, out x4, n_out, stage]: a new newest entry, which is also ``seat``'s."""
    record[0] = entry
    record[1 + seat] = entry


@njit(cache=True)
def _add(record, seat, entry, cards) -> None:
    """:meth:`.danzero.ActionRecord.add`: ``seat`` played ``cards`` cards (0: passed), its entry ``entry``."""
    _write(record, seat, entry)
    n_out, stage = record[13], record[14]
    if n_out == 1:
        x = record[9]
        before_x = seat == (x + 3) % 4
        if cards > 0 and stage == 1:
            record[14] = 2
            if before_x:
                _write(record, x, OUT_ENTRY)
        elif stage == 1 and before_x:
            record[14] = 2
            _write(record, x, OUT_ENTRY)
            _write(record, (seat + 2) % 4, PASS_ENTRY)
        elif before_x and stage == 2:
            _write(record, x, OUT_ENTRY)
    elif n_out == 2:
        after = (seat + 1) % 4
        next_out = after == record[9] or after == record[10]
        if (cards > 0 and stage <= 2) or (stage <= 2 and next_out) or (next_out and stage == 3):
            first = stage <= 2
            record[14] = 3
            if next_out:
                _write(record, after, OUT_ENTRY)
                _write(record, (seat + 2) % 4, OUT_ENTRY)
                if first and cards == 0 and seat == (record[10] + 2) % 4:
                    _write(record, (seat + 3) % 4, PASS_ENTRY)
    record[5 + seat] -= cards
    if record[5 + seat] == 0:
        record[9 + record[13]] = seat
        record[13] += 1


@njit(cache=True)
def _next(record, seat, owner, passes) -> int:
    """:meth:`.danzero.SeatMemory._next`: who acts after ``seat``."""
    others = 0
    for q in range(4):
        if record[5 + q] > 0 and q != owner:
            others += 1
    if passes >= others:  # every other player still in passed: the trick is over
        return owner if record[5 + owner] > 0 else (owner + 2) % 4
    q = (seat + 1) % 4
    while record[5 + q] == 0:
        q = (q + 1) % 4
    return q


@njit(cache=True)
def _play_size(s, i) -> int:
    n = 0
    for j in range(rules.MAX_PLAY_CARDS):
        if s.hist_cards[i, j] < 0:
            break
        n += 1
    return n


@njit(cache=True)
def _rebuild(s, record) -> None:
    """DanZero's action record of the hand in progress (absolute seats) from its plays: see the module docstring."""
    record[:] = 0
    record[0] = NO_ENTRY
    record[1:5] = NO_ENTRY
    record[5:9] = rules.HAND
    record[14] = 1
    if s.n_hist == 0:
        return
    seat = s.hist_player[0]
    _add(record, seat, 0, _play_size(s, 0))
    owner, passes = seat, 0
    for k in range(1, s.n_hist):  # each next seat in turn makes the next play when it is its, else passes
        seat = _next(record, seat, owner, passes)
        while s.hist_player[k] != seat:
            if passes > 4:
                raise RuntimeError("guandan danzero features: the hand's plays do not follow the order of turns")
            _add(record, seat, PASS_ENTRY, 0)
            passes += 1
            seat = _next(record, seat, owner, passes)
        _add(record, seat, k, _play_size(s, k))
        owner, passes = seat, 0
    if s.last_pid >= 0:  # the trick goes on: the passes since its play
        trailing = s.passes
    else:  # a trick just ended: every other player still in passed
        trailing = 0
        for q in range(4):
            if record[5 + q] > 0 and q != owner:
                trailing += 1
    for _ in range(trailing):
        seat = _next(record, seat, owner, passes)
        _add(record, seat, PASS_ENTRY, 0)
        passes += 1


@njit(cache=True)
def _entry(s, row, at, entry) -> None:
    """A record entry as DanZero writes it at ``row[at:at + 54]`` (zeroed): a play's cards as counts (column
    order), a pass zeros, none or a player out -1."""
    if entry == NO_ENTRY or entry == OUT_ENTRY:
        for c in range(54):
            row[at + c] = -1
    elif entry >= 0:
        for j in range(rules.MAX_PLAY_CARDS):
            c = s.hist_cards[entry, j]
            if c < 0:
                break
            row[at + COLUMN[c]] += 1


@njit(cache=True)
def state_row(state, b, row, record) -> None:
    """The 513 features of the seat to move of game ``b`` into the zeroed ``int8`` ``row`` (``record``: an
    ``int64`` scratch of 15). Reads only that seat's hand and what every seat may know."""
    s = state[b]
    p = s.to_move
    _rebuild(s, record)
    for c in range(54):
        row[AT_HAND + COLUMN[c]] = s.hands[p, c]
        seen = s.hands[p, c]
        for q in range(4):
            seen += s.played[q, c]
        row[AT_UNSEEN + COLUMN[c]] = 2 - seen
    write_wild_flags(row, AT_HAND, s.hand_level, AT_WILD)
    _entry(s, row, AT_LAST, record[0])
    partner = (p + 2) % 4
    partner_out = False
    for i in range(record[13]):
        partner_out |= record[9 + i] == partner
    _entry(s, row, AT_PARTNER, NO_ENTRY if partner_out else record[1 + partner])
    for k in range(3):
        q = (p + 1 + k) % 4
        for c in range(54):
            row[AT_PLAYED + 54 * k + COLUMN[c]] = s.played[q, c]
        row[AT_LEFT + 28 * k + record[5 + q]] = 1
    own = p % 2
    row[AT_LEVELS + s.levels[own]] = 1
    row[AT_LEVELS + 13 + s.levels[1 - own]] = 1
    row[AT_LEVELS + 26 + s.hand_level] = 1


@njit(cache=True)
def state_rows_into(state, games, out) -> None:
    """:func:`state_row` of each game of ``games`` into ``out[i]`` (``int8 [len(games), 513]``, overwritten)."""
    record = np.zeros(15, dtype=np.int64)
    for i in range(games.shape[0]):
        out[i, :] = 0
        state_row(state, games[i], out[i], record)


def state_rows(state: np.ndarray, games: Any = None) -> np.ndarray:
    """DanZero's 513 state features (``int8 [len(games), 513]``) of the seat to move in each of ``games``
    (indices into ``state``, the rules' batched state; all by default)."""
    which = np.arange(len(state), dtype=np.int64) if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
    out = np.empty((len(which), SIZE), dtype=np.int8)
    state_rows_into(state, which, out)
    return out


class DanZeroStateFeatures:
    """The learner features ``danzero`` that Guandan's spec declares: :func:`state_rows` for batches (``rows``,
    what DMC's actors and agent call with the vector env's or the AEC env's state), and the learner-features
    door ``f(env, obs, mask)`` (:func:`cardenvs.training.features.get_features`): the observation scaled by its
    bounds, then the 513 of the env's seat to move (an unwrapped AEC env; ``obs`` must be that seat's)."""

    name = "danzero"
    size = SIZE

    def rows(self, state: np.ndarray, games: Any = None) -> np.ndarray:
        return state_rows(state, games)

    def __call__(self, env: Any, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        from cardenvs.core.observation import scale_by_bounds

        base = scale_by_bounds(env.layout.high, obs)
        states = env.core_state()[1]
        if len(states) == 0:  # before the first reset: the size only (feature_size asks so)
            return np.concatenate([base, np.zeros(SIZE, dtype=np.float32)])
        return np.concatenate([base, state_rows(states, [0])[0].astype(np.float32)])


LEARNER_FEATURES = DanZeroStateFeatures()
