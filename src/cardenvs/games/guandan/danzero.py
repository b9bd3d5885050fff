"""``danzero:PATH``: DanZero's Q-network (Lu et al., AAAI 2023) playing ``guandan_v0`` from an ONNX file a user
downloaded, on DanZero's features computed from what the seat may know (:class:`DanZeroAgent`).

## DanZero's features (567 per legal play)

DanZero's actor (its competition client, ``prepare`` in ``wintest/danzero/client0.py`` of submit-paper's
repositories) keeps a record of the platform's ``notify`` messages and, at each play decision, writes one row per
entry of the platform's ``actionList``: the state's 513 features, then the play's 54. In its order:

| features | size | what |
|---|---|---|
| own hand | 54 | card counts |
| wild-card flags | 12 | :func:`wild_flags` (all zero without the level's heart) |
| unseen cards | 54 | two decks less the own hand and every card played |
| last action | 54 | the newest entry of its action record: a play, a pass (zeros), a player out (-1), -1 at first |
| partner's last action | 54 | the partner's newest entry; -1 while it has none or once it is out |
| cards played by the next player, the partner, the previous player | 3 x 54 | counts |
| cards left of the next player, the partner, the previous player | 3 x 28 | one-hot over 0..27 |
| own team's level, the other team's, the hand's level | 3 x 13 | one-hot over 2..A |
| the play | 54 | its cards (a pass: zeros) |

A card set's 54 are counts in DanZero's column order: the ranks 2..A, within each the suits hearts, spades, clubs,
diamonds (:data:`COLUMN`), then the black and the red joker. The action record inserts entries for players
who are out as the platform skips them (its "-1" rows), with the client's own rules for the first round after
a player goes out (:class:`ActionRecord`); the record here is rebuilt from the observations the seat saw
(:class:`SeatMemory`: the last 8 plays, the cards played, the passes and the order of turns), so the agent
reads nothing a seat may not know.

## The choice

The network scores every row; the agent plays the first best (DanZero's ``np.argmax``); with one legal play it
plays that one without asking the network. The rows are our legal plays, every reading of a card set its own row
(as the platform lists them), in :func:`cardenvs.games.guandan.moves.exact_plays` order with the pass last; the
readings of one card set score alike, and the first is played. Tribute: DanZero pays the first card the platform
offers unless it is the level's heart; our rules never offer a wild card, so the agent pays the lowest card id
offered. Return: DanZero's client uses a randomized hand-written rule; this agent gives back the card
``guandan.heuristic`` chooses (not DanZero's rule). It draws nothing from ``rng``.

## Where the games differ

* DanZero's client was written for the competition platform's rules; the record here follows ours (who leads
  after a player goes out, 接风, when a hand ends), which ``tests/test_danzero.py`` checks against DanZero's own
  client fed our games as the platform's messages. A position the platform would not reach under its own
  rules is scored like any other.
* Options DanZero's features do not know (``wilds=False``, ``sf_as_straight``, ``joker_fullhouse=False``, the
  return rules): the features are computed as DanZero's client computes them (the wild-card flags from the
  level's heart even where it is not wild), and the agent scores the plays our rules allow, never another.
* Ties: values exactly equal (an int8-quantized network gives some) go to the first row in our order, which
  need not be the platform's order of ``actionList``.

## The files

DanZero's released weights are a pickled TensorFlow variable list (``q_network.ckpt``: not loaded here, nothing
is unpickled); the ONNX exports of a DanZero network published with DanLM (``ckpts/DanZero_v3/*.onnx`` in
dashidhy/DanLM, a DanZero network retrained by DanLM's authors on DanZero's 567 features) take the same features
with each card set's 54 in card order (hearts 2..A, spades, clubs, diamonds, then the jokers, :data:`CARD_ORDER`)
instead of DanZero's column order. An ONNX file's metadata entry ``danzero_layout`` says which (``column`` or
``card``); without it the layout is ``card``, as in DanLM's exports. The network takes ``[N, 567]`` float32 and
returns ``N`` values (or ``[N, 1]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from cardenvs.core import kernels
from cardenvs.core.cards import SUITS

from . import moves, rules
from .env import LAYOUT
from .rules import HISTORY

#: DanZero's suits in its card numbering (``H2`` = 0 ... ``DA`` = 51, ``SB`` = 52, ``HR`` = 53)
DANZERO_SUITS = "HSCD"
STATE_SIZE = 513
FEATURE_SIZE = 567
#: the marker DanZero's record writes for a player who is out when the platform skips it
OUT = (-1,)


def _column_index() -> np.ndarray:
    index = np.empty(moves.NUM_CARDS, dtype=np.int64)
    for card in range(52):
        rank, suit = divmod(card, 4)
        index[card] = 4 * rank + DANZERO_SUITS.index(SUITS[suit])
    index[52:] = [52, 53]
    return index


def _card_index() -> np.ndarray:
    index = np.empty(moves.NUM_CARDS, dtype=np.int64)
    for card in range(52):
        rank, suit = divmod(card, 4)
        index[card] = 13 * DANZERO_SUITS.index(SUITS[suit]) + rank
    index[52:] = [52, 53]
    return index


#: our card id -> DanZero's feature column (column order: rank-major, suits H S C D)
COLUMN = _column_index()
#: our card id -> the column of DanLM's ONNX exports (DanZero's card numbering: suit-major H S C D, rank)
CARD_ORDER = _card_index()
_perm = np.empty(54, dtype=np.int64)
_perm[CARD_ORDER] = COLUMN  # card-order column j holds DanZero column _perm[j]


def _card_from_column() -> np.ndarray:
    """Indices taking a 567 row in DanZero's column order to the card order (only the eight 54-card blocks
    move: hand, unseen, last, partner's last, three played, the play)."""
    index = np.arange(FEATURE_SIZE)
    for start in (0, 66, 120, 174, 228, 282, 336, 513):
        index[start : start + 54] = start + _perm
    return index


#: DanZero's column order -> the card order, within each 54 of the 567 (``x[:, CARD_FROM_COLUMN]``)
CARD_FROM_COLUMN = _card_from_column()


def cards_vector(counts: np.ndarray) -> np.ndarray:
    """54 counts in our card ids -> DanZero's 54 (column order)."""
    out = np.zeros(54, dtype=np.float32)
    out[COLUMN] = np.asarray(counts[: moves.NUM_CARDS], dtype=np.float32)
    return out


def entry_vector(entry: tuple[int, ...] | None) -> np.ndarray:
    """A record entry as DanZero writes it: cards (our ids) as counts, a pass zeros, ``OUT`` or None -1."""
    if entry is None or entry == OUT:
        return -np.ones(54, dtype=np.float32)
    return cards_vector(np.bincount(np.asarray(entry, dtype=np.int64), minlength=moves.NUM_CARDS))


@njit(cache=True)
def write_wild_flags(row, at_hand, level, out) -> None:
    """DanZero's 12 wild-card flags (:func:`wild_flags`, its quirks included) of the own hand written
    at ``row[at_hand:]`` (column order) into ``row[out:out + 12]`` (zeroed); ``level`` 0..12."""
    wild = at_hand + 4 * level
    if row[wild] == 0:
        return
    row[out] = 1
    held = np.zeros((13, 4), dtype=np.bool_)
    for r in range(13):
        for suit in range(4):
            held[r, suit] = row[at_hand + 4 * r + suit] != 0
    held[level, 0] = False
    for suit in range(4):
        found = False
        for start in range(8):
            missing = 0
            for r in range(start, start + 5):
                if not held[r, suit]:
                    missing += 1
            if missing <= 1:
                found = True
                break
        if found:
            row[out + 1] = 1
            break
    suits_held = np.zeros(13, dtype=np.int64)
    for r in range(13):
        for suit in range(4):
            suits_held[r] += held[r, suit]
    most = suits_held.max()
    if most >= 1:
        for i in range(max(2, 8 - most), 8):
            row[out + i] = 1
    else:
        row[out + 7] = 1
    run = 0
    for r in range(13):
        n = suits_held[r]
        if n == 0:
            run = 0
            continue
        run += 1
        if r >= 1:
            m = suits_held[r - 1]
            if (n == 2 and m >= 3) or (n >= 3 and m == 2):
                row[out + 9] = 1
            elif n == 2 and m == 2:
                row[out + 11] = 1
        if r >= 2:
            a, b, c = suits_held[r - 2], suits_held[r - 1], n
            if (a == 1 and b >= 2 and c >= 2) or (a >= 2 and b == 1 and c >= 2) or (a >= 2 and b >= 2 and c == 1):
                row[out + 10] = 1
    if run >= 4:
        row[out + 8] = 1


def wild_flags(hand: np.ndarray, level: int) -> np.ndarray:
    """DanZero's 12 flags of what the level's heart could help make (``hand``: DanZero's 54, column order;
    ``level`` 0..12), computed as its client does, its quirks included: 0 holds the wild; 1 a straight flush
    short of one card in some suit, windows starting at 2..9 only (not A-low, not 10-A), the wild's own card
    not counted; 2..7 a ladder from the most suits any rank is held in (1 suit: only 7; 2: 6-7; 3: 5-7; 4: 4-7;
    the client's cases for 5 and 6 cannot occur); 8 the run of held ranks ending at the ace is four long or
    more; 9 adjacent ranks held in 2 and 3+ suits; 10 three adjacent ranks held in 1, 2+, 2+ suits in some
    order; 11 adjacent ranks both held in exactly 2 suits. Zero without the wild."""
    row = np.zeros(54 + 12, dtype=np.int8)
    row[:54] = np.asarray(hand)[:54] != 0
    write_wild_flags(row, 0, int(level), 54)
    return row[54:].astype(np.float32)


@dataclass
class ActionRecord:
    """DanZero's record of a hand's actions, in relative seats (0 the observer): what its client appends for each
    ``notify`` of a play or a pass, with its entries for players who are out. Rewritten from the client's
    rules: with one player out (``x``), the first action after it went out decides whether the next player
    after ``x`` is written as skipped (a play by the player before ``x``, or every player passing, when the
    pass of the player before ``x`` also writes a pass for the player after ``x``); later, every action of
    the player before ``x`` is followed by ``x``'s -1. With two out (a player of each team), an action of the
    player whose next is out is followed by the two -1 entries of the players out, and the first such pass
    right after the second one went out also writes a pass for the player after them when it is the partner
    of the second (the 接风 lead)."""

    last: tuple[int, ...] | None = None  # the newest entry (None: none yet)
    last_of: dict[int, tuple[int, ...]] = field(default_factory=dict)
    left: list[int] = field(default_factory=lambda: [27, 27, 27, 27])
    out: list[int] = field(default_factory=list)
    stage: int = 1  # the client's flag: 1 until the first action after the first player out, 2, then 3

    def _write(self, seat: int, entry: tuple[int, ...]) -> None:
        self.last = entry
        self.last_of[seat] = entry

    def add(self, seat: int, cards: tuple[int, ...]) -> None:
        """Seat ``seat`` played ``cards`` (our ids; () a pass)."""
        self._write(seat, cards)
        if len(self.out) == 1:
            x = self.out[0]
            before_x = seat == (x + 3) % 4
            if cards and self.stage == 1:
                self.stage = 2
                if before_x:
                    self._write(x, OUT)
            elif self.stage == 1 and before_x:
                self.stage = 2
                self._write(x, OUT)
                self._write((seat + 2) % 4, ())
            elif before_x and self.stage == 2:
                self._write(x, OUT)
        elif len(self.out) == 2:
            next_out = (seat + 1) % 4 in self.out
            if (cards and self.stage <= 2) or (self.stage <= 2 and next_out) or (next_out and self.stage == 3):
                first = self.stage <= 2
                self.stage = 3
                if next_out:
                    self._write((seat + 1) % 4, OUT)
                    self._write((seat + 2) % 4, OUT)
                    if first and not cards and seat == (self.out[-1] + 2) % 4:
                        self._write((seat + 3) % 4, ())
        self.left[seat] -= len(cards)
        if self.left[seat] == 0:
            self.out.append(seat)


def state_features(
    record: ActionRecord, hand: np.ndarray, played: np.ndarray, levels: tuple[int, int, int]
) -> np.ndarray:
    """DanZero's 513 state features (column order): ``hand`` our 54 counts, ``played`` [4, 54] by relative
    seat, ``levels`` (own team's, the other's, the hand's) as rank indices 0..12."""
    own = cards_vector(hand)
    unseen = cards_vector(2 - np.asarray(hand[:54], dtype=np.int64) - np.asarray(played, dtype=np.int64).sum(axis=0))
    partner = None if 2 in record.out else record.last_of.get(2)
    parts = [own, wild_flags(own, levels[2]), unseen, entry_vector(record.last), entry_vector(partner)]
    parts += [cards_vector(played[seat]) for seat in (1, 2, 3)]
    for seat in (1, 2, 3):
        one_hot = np.zeros(28, dtype=np.float32)
        one_hot[record.left[seat]] = 1
        parts.append(one_hot)
    for level in levels:
        one_hot = np.zeros(13, dtype=np.float32)
        one_hot[level] = 1
        parts.append(one_hot)
    out = np.concatenate(parts)
    assert out.shape == (STATE_SIZE,)
    return out


def feature_rows(state: np.ndarray, plays: list[tuple[int, ...]]) -> np.ndarray:
    """``[len(plays), 567]``: the state, then each play's cards (a pass: ())."""
    rows = np.empty((len(plays), FEATURE_SIZE), dtype=np.float32)
    rows[:, :STATE_SIZE] = state
    for i, cards in enumerate(plays):
        rows[i, STATE_SIZE:] = cards_vector(np.bincount(np.asarray(cards, dtype=np.int64), minlength=54))
    return rows


class SeatMemory:
    """A seat's memory of one hand, rebuilt at each of its play decisions from the observation (relative seats):
    the plays since its previous decision are the newest entries of ``history`` that hold the cards played since
    (every play holds a card, at most 3 come between two turns of a seat holding cards), and the passes between
    them follow from the order of turns (the next player still in; when all others still in have passed, the
    player of the play to beat leads, or its partner when it is out). A player whose play comes next in its
    turn is taken to play then (the one ambiguity, a player out's partner passing and then leading before the
    seat's next turn, leaves the same record)."""

    def __init__(self) -> None:
        self.hands_played = -1
        self._clear()

    def _clear(self) -> None:
        self.record = ActionRecord()
        self.events: list[tuple[int, tuple[int, ...]]] = []
        self.played = np.zeros((4, 54), dtype=np.int64)
        self.owner = -1  # who made the play to beat
        self.passes = 0  # passes since
        self.waiting = False  # whether the last update ended with the observer to act

    def _next(self, seat: int) -> int:
        left = self.record.left
        alive = [q for q in range(4) if left[q] > 0]
        owner = self.owner
        others = [q for q in alive if q != owner]
        if self.passes >= len(others):  # every other player still in passed: the trick is over
            return owner if left[owner] > 0 else (owner + 2) % 4
        q = (seat + 1) % 4
        while left[q] == 0:
            q = (q + 1) % 4
        return q

    def _add(self, seat: int, cards: tuple[int, ...]) -> None:
        self.events.append((seat, cards))
        self.record.add(seat, cards)
        if cards:
            self.owner, self.passes = seat, 0
            self.played[seat] += np.bincount(np.asarray(cards, dtype=np.int64), minlength=54)
        else:
            self.passes += 1

    def update(self, parts: dict[str, np.ndarray]) -> None:
        """Bring the memory to the observation ``parts`` (decoded), the observer to act."""
        played = np.asarray(parts["played"], dtype=np.int64).reshape(4, 54)
        hands = int(parts["hands_played"][0])
        if hands != self.hands_played or (played < self.played).any() or not played.any():
            self._clear()
            self.hands_played = hands
        new = int(played.sum() - self.played.sum())
        history = np.asarray(parts["history"]).reshape(HISTORY, -1)
        plays: list[tuple[int, tuple[int, ...]]] = []
        k = 0
        while new > 0:
            if k >= len(history) or not history[k, :4].any():
                raise RuntimeError("danzero: the observation's history does not hold the plays since the last turn")
            who = int(np.argmax(history[k, :4]))
            counts = history[k, 4 : 4 + 54].astype(np.int64)
            plays.append((who, tuple(int(c) for c in np.repeat(np.arange(54), counts))))
            new -= int(counts.sum())
            k += 1
        if new < 0:
            raise RuntimeError("danzero: the plays in the observation's history do not add up to the cards played")
        plays.reverse()
        mine = self.waiting  # the observer's previous decision comes first: its own action
        if not self.events and plays:
            if plays[0][0] == 0:
                mine = False
            self._add(*plays.pop(0))
        if self.events:
            seat = self._next(self.events[-1][0])
            while seat != 0 or mine:
                if seat == 0:
                    mine = False
                if plays and plays[0][0] == seat:
                    self._add(*plays.pop(0))
                else:
                    self._add(seat, ())
                seat = self._next(seat)
        self.waiting = True
        if plays or not np.array_equal(self.played, played):
            raise RuntimeError("danzero: the rebuilt plays do not match the observation's cards played")


def legal_plays(hand: np.ndarray, mask: np.ndarray, level: int, flags: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every legal play of a play decision as (action, cards): each pattern the mask allows with every suit
    choice (:func:`moves.plays_of_patterns`), then the pass (``moves.PASS``, ()) when allowed."""
    out = moves.plays_of_patterns(hand, np.flatnonzero(mask[: moves.NUM_PATTERNS]), level, flags)
    return out + ([(moves.PASS, ())] if mask[moves.PASS] else [])


class DanZeroAgent:
    """``danzero:PATH``: the DanZero network in the ONNX file ``PATH`` (the module docstring: features, choice,
    layouts, where the games differ). Needs onnxruntime (``pip install 'cardenvs[danzero]'``)."""

    name = "danzero"

    def __init__(self, env: Any, path: str, layout: str | None = None):
        self.env = getattr(env, "unwrapped", env)
        metadata = getattr(self.env, "metadata", {}) or {}
        if metadata.get("name") != "guandan_v0":
            raise ValueError(f"danzero:{path} plays guandan_v0, not {metadata.get('name')}")
        try:
            import onnxruntime
        except ModuleNotFoundError as exc:
            raise ValueError(
                f"agent 'danzero:{path}' needs onnxruntime ({exc.name} is missing): pip install 'cardenvs[danzero]'"
            ) from None
        file = Path(path)
        if not file.is_file():
            raise ValueError(f"danzero:{path}: no such file (an ONNX export of a DanZero network)")
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            self.session = onnxruntime.InferenceSession(str(file), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for a file it cannot read
            raise ValueError(f"danzero:{path}: not an ONNX model onnxruntime can load ({type(exc).__name__})") from None
        inputs = self.session.get_inputs()
        if len(inputs) != 1 or inputs[0].shape[-1] != FEATURE_SIZE:
            shapes = ", ".join(str(i.shape) for i in inputs)
            raise ValueError(f"danzero:{path}: the network takes {shapes}, not DanZero's [N, {FEATURE_SIZE}] features")
        self.input = inputs[0].name
        declared = self.session.get_modelmeta().custom_metadata_map.get("danzero_layout")
        self.layout = layout or declared or "card"
        if self.layout not in ("card", "column"):
            raise ValueError(f"danzero:{path}: danzero_layout {self.layout!r} is neither 'card' nor 'column'")
        self.name = f"danzero:{path}"
        self.flags = rules.move_flags(self.env.config)
        self.memories: dict[Any, SeatMemory] = {}  # by the seat to move (one agent may sit in several seats)
        self.plan: tuple[int, tuple[int, ...]] | None = None
        self.index = -1  # the row of the last play decision's choice

    def reset(self) -> None:
        self.memories = {}
        self.plan = None

    def values(self, rows: np.ndarray) -> np.ndarray:
        """The network's value of each 567 row (given in DanZero's column order)."""
        x = rows if self.layout == "column" else rows[:, CARD_FROM_COLUMN]
        out = self.session.run(None, {self.input: np.ascontiguousarray(x, dtype=np.float32)})[0]
        return np.asarray(out, dtype=np.float64).reshape(len(rows))

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        parts = LAYOUT.decode(np.asarray(observation["observation"]))
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("danzero: no legal action")
        if legal[0] >= moves.SUIT0:  # a suit decision of the play chosen
            return self._suit(parts, legal)
        if legal[0] >= moves.CARD0 and legal[-1] < moves.SUIT0:  # tribute or return
            if parts["phase"][1]:
                return self._return()
            return int(legal[0])
        choice, _ = self.choose(parts, mask)
        return choice

    def choose(self, parts: dict[str, np.ndarray], mask: np.ndarray) -> tuple[int, np.ndarray | None]:
        """The action of a play decision and the rows scored (None when one play is legal)."""
        memory = self.memories.setdefault(getattr(self.env, "agent_selection", None), SeatMemory())
        memory.update(parts)
        level = int(np.argmax(parts["hand_level"]))
        plays = legal_plays(parts["hand"], mask, level, self.flags)
        if len(plays) == 1:
            self.plan, self.index = plays[0], 0
            return plays[0][0], None
        team_levels = np.asarray(parts["levels"]).reshape(2, 13)
        levels = (int(np.argmax(team_levels[0])), int(np.argmax(team_levels[1])), level)
        state = state_features(memory.record, parts["hand"], parts["played"].reshape(4, 54), levels)
        rows = feature_rows(state, [cards for _, cards in plays])
        best = int(np.argmax(self.values(rows)))
        self.plan, self.index = plays[best], best
        return plays[best][0], rows

    def _suit(self, parts: dict[str, np.ndarray], legal: np.ndarray) -> int:
        if self.plan is None:
            raise RuntimeError("danzero: a suit decision without a play chosen")
        pid, cards = self.plan
        target = np.bincount(np.asarray(cards, dtype=np.int64), minlength=54)
        chosen = np.asarray(parts["pending_chosen"], dtype=np.int8)
        level = int(np.argmax(parts["hand_level"]))
        for a in legal:
            branch = chosen.copy()
            moves.apply_suit_choice(pid, level, self.flags, branch, int(a - moves.SUIT0))
            if (branch <= target).all():
                return int(a)
        raise RuntimeError("danzero: no suit choice leads to the play chosen")

    def _return(self) -> int:
        """The card ``guandan.heuristic`` gives back: the game's numba policy on the env's state (as
        :class:`cardenvs.agent.PolicyAgent` asks it), with a fixed stream (it draws nothing from ``rng``)."""
        _, states, params, _ = self.env.core_state()
        kind = 2 + list(self.env.policy_names()).index("heuristic")  # the kernels' code of a policy
        stream = np.full((1, 1), kernels.PROBE, dtype=np.uint64)
        out = np.zeros(1, dtype=np.int64)
        kernels.policy_range(states, params, np.zeros(1, dtype=np.int64), kind, stream, int(self.env.num_actions), out)
        return int(out[0])
