"""Twenty as pure functions over a small state (the document in ``seeds/003`` and RULES.md "Twenty").

Rules, in plain words:

* Two players, ``rounds`` rounds (default 2); player_0 leads odd rounds, player_1 even ones. Card values:
  A = 1, 2..9 pip, T J Q K = 10 (a *Ten card*).
* A round starts with a fresh 52-card deck. The top two cards are revealed: the **End of Round Bonus**
  is the difference of their values, 10 if they are equal. They take no further part.
* Each player gets five cards; the players then put one card at a time on the tally, the round's leader
  first. The sum of the tally cards is the *tally*. After each card, the player who played it scores:
  - **Exact Twenty**: tally = 20 -> 10 points, the tally is cleared;
  - **Beyond Twenty**: tally > 20 -> tally - 20 points, the tally is cleared;
  - **Five Tally**: five tally cards with the tally below 20 -> 15 points; each further card with the
    tally still below 20 (Six, Seven, ... Tally) scores twice the last award: 30, 60, 120, ... These do
    not clear the tally.
* Tally cards carry over from one five-card hand to the next within a round; when both hands are empty
  both players get five new cards at once (2 + 10 x 5 = 52: the stock never runs out). At the end of the
  round the tally scores nothing, and the **last player who scored in the round** takes the bonus
  (nobody, if nobody scored).
* The match winner has more points after the last round; equal points is a draw.

Readings this implementation chooses (RULES.md): the n-Tally award for the n-th tally card below 20 is
``15 * 2 ** (n - 5)``, so an Exact Twenty on a sixth card scores 10 and clears; a card is played by its
value (which of several Ten cards goes is immaterial to the rules, the env plays the first one held).

Dealing (``options["deck"]``): per round, two bonus cards, then blocks of five alternately, the round's
leader first. With ``swap_deals`` round 2k reuses round 2k-1's deck, so the hands are exchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cardenvs.core.cards import card_value_order

VALUE_OF = card_value_order()  # card id -> 1..10
NUM_VALUES = 10
HAND_SIZE = 5
EXACT_POINTS = 10
FIVE_TALLY_POINTS = 15


def bonus_value(first: int, second: int) -> int:
    """End of Round Bonus from the two revealed cards' values."""
    return abs(first - second) or 10


def n_tally_award(n_cards: int) -> int:
    """Points for the ``n_cards``-th tally card with the tally still below 20 (0 below five cards)."""
    return FIVE_TALLY_POINTS * 2 ** (n_cards - 5) if n_cards >= 5 else 0


def points_for(tally: int, n_cards: int, value: int) -> tuple[int, bool]:
    """(points, clears) for adding a card of ``value`` to a tally of ``n_cards`` cards summing ``tally``."""
    new = tally + value
    if new == 20:
        return EXACT_POINTS, True
    if new > 20:
        return new - 20, True
    return n_tally_award(n_cards + 1), False


@dataclass
class TwentyState:
    """Everything about a match in progress. Hands, stock and piles are lists of card ids."""

    rounds: int
    round: int = 0  # 0-based
    hand_index: int = 0  # 0..4: which five-card hand of the round
    leader: int = 0
    to_move: int = 0
    bonus_cards: list[int] = field(default_factory=list)
    bonus: int = 0
    hands: list[list[int]] = field(default_factory=lambda: [[], []])
    stock: list[int] = field(default_factory=list)
    tally_cards: list[int] = field(default_factory=list)
    tally: int = 0
    set_aside: list[int] = field(default_factory=list)  # cleared tally cards of this round
    last_scorer: int = -1  # in this round
    scores: list[int] = field(default_factory=lambda: [0, 0])
    seen_values: np.ndarray = field(default_factory=lambda: np.zeros(NUM_VALUES + 1, dtype=np.int64))
    over: bool = False
    log: list[tuple[int, int, int, int]] = field(default_factory=list)  # (player, value, tally after, points)


def start_round(state: TwentyState, deck: np.ndarray) -> None:
    """Begin round ``state.round`` from a 52-card deck (top first)."""
    deck = [int(c) for c in deck]
    state.leader = state.round % 2
    state.to_move = state.leader
    state.bonus_cards = deck[:2]
    state.bonus = bonus_value(VALUE_OF[deck[0]], VALUE_OF[deck[1]])
    state.stock = deck[2:]
    state.tally_cards, state.tally, state.set_aside = [], 0, []
    state.last_scorer = -1
    state.hand_index = -1
    state.seen_values = np.zeros(NUM_VALUES + 1, dtype=np.int64)
    for c in state.bonus_cards:
        state.seen_values[VALUE_OF[c]] += 1
    state.hands = [[], []]
    deal_hands(state)


def deal_hands(state: TwentyState) -> None:
    """Both players get five cards: the leader the first block, the follower the next."""
    for p in (state.leader, 1 - state.leader):
        state.hands[p] = state.stock[:HAND_SIZE]
        state.stock = state.stock[HAND_SIZE:]
    state.hand_index += 1


def hand_values(hand: list[int]) -> np.ndarray:
    """Counts of each value 1..10 in a hand (index 0 unused)."""
    out = np.zeros(NUM_VALUES + 1, dtype=np.int64)
    for c in hand:
        out[VALUE_OF[c]] += 1
    return out


def legal_values(state: TwentyState) -> list[int]:
    return sorted({int(VALUE_OF[c]) for c in state.hands[state.to_move]})


def play(state: TwentyState, value: int) -> bool:
    """The player to move puts a card of ``value`` on the tally. Returns whether a round ended."""
    p = state.to_move
    hand = state.hands[p]
    card = next((c for c in hand if VALUE_OF[c] == value), None)
    if card is None:
        raise ValueError(f"player_{p} holds no card of value {value}; holds {sorted(VALUE_OF[c] for c in hand)}")
    hand.remove(card)
    state.seen_values[value] += 1
    points, clears = points_for(state.tally, len(state.tally_cards), value)
    state.tally_cards.append(card)
    state.tally += value
    state.log.append((p, value, state.tally, points))
    if points:
        state.scores[p] += points
        state.last_scorer = p
    if clears:
        state.set_aside += state.tally_cards
        state.tally_cards, state.tally = [], 0
    state.to_move = 1 - p
    if state.hands[0] or state.hands[1]:
        return False
    if state.stock:
        deal_hands(state)
        state.to_move = state.leader
        return False
    # round over: the bonus to the last scorer
    if state.last_scorer >= 0:
        state.scores[state.last_scorer] += state.bonus
    state.round += 1
    if state.round >= state.rounds:
        state.over = True
    return True


def all_cards(state: TwentyState) -> list[int]:
    """Every card of the current round's deck (bonus, hands, stock, tally, set aside)."""
    return state.bonus_cards + state.hands[0] + state.hands[1] + state.stock + state.tally_cards + state.set_aside
