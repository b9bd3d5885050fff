"""Twenty: one-ply expectations for the greedy heuristic and an exact solver for exposed hands.

:func:`expected_best_gain` -- the expected best immediate score of a player holding ``hand_size`` cards
drawn uniformly from the ``unseen`` cards, on a given tally: values are sorted by what they would score,
and ``P(best card is the i-th) = P(none of the first i-1 values) - P(none of the first i)`` with
hypergeometric "none" probabilities. With a known hand it is just the best card's score.

:func:`solve` -- exact negamax with memoisation over the current pair of five-card hands, both known:
the value of the position to the player to move is (own points - opponent's points) until both hands
are empty, plus the bonus if this is the round's last hand, plus the **leftover value**: when the hands
run out with tally cards on the table, the round's leader (who plays first next) is credited with
:func:`expected_best_gain` of a fresh five-card hand from the unseen cards on that tally. That is the
heuristic for the tally left behind; it is 0 in the last hand of a round (the tally then scores nothing).
"""

from __future__ import annotations

from functools import cache
from math import comb

from .rules import points_for

TEN = 10


def _p_none(unseen_total: int, excluded: int, hand_size: int) -> float:
    if hand_size <= 0:
        return 1.0
    return (
        comb(unseen_total - excluded, hand_size) / comb(unseen_total, hand_size) if unseen_total >= hand_size else 0.0
    )


def expected_best_gain(tally: int, n_cards: int, unseen: tuple[int, ...], hand_size: int) -> float:
    """Expected best immediate score for ``hand_size`` random cards from ``unseen`` (counts of values 1..10,
    index 0 = value 1) on this tally. A player who would score nothing with every card gains 0."""
    gains = sorted(((points_for(tally, n_cards, v + 1)[0], v) for v in range(10) if unseen[v]), reverse=True)
    total = sum(unseen)
    if total == 0 or hand_size <= 0:
        return 0.0
    hand_size = min(hand_size, total)
    expected, excluded, p_prev = 0.0, 0, 1.0
    for gain, v in gains:
        if gain <= 0:
            break
        excluded += unseen[v]
        p_now = _p_none(total, excluded, hand_size)
        expected += gain * (p_prev - p_now)
        p_prev = p_now
    return expected


def solve(
    own: tuple[int, ...],
    opponent: tuple[int, ...],
    tally: int,
    n_cards: int,
    last_hand: bool,
    bonus: int,
    last_scorer: int,
    leader_is_own: bool,
    unseen: tuple[int, ...],
) -> tuple[float, int]:
    """Best (value, card value to play) for the player to move, who holds ``own`` (counts of values 1..10,
    index 0 = value 1) against ``opponent``; ``last_scorer`` is 0 own, 1 opponent, -1 nobody."""
    if not any(own):
        raise ValueError("solve needs the player to move to hold a card")

    @cache
    def value(me: tuple, them: tuple, tally: int, n_cards: int, last: int, me_leads: bool) -> tuple[float, int]:
        # ``last``: 0 = the player to move scored last, 1 = the other, -1 = nobody
        if not any(me) and not any(them):
            if last_hand:
                return (bonus if last == 0 else -bonus if last == 1 else 0.0), -1
            leftover = expected_best_gain(tally, n_cards, unseen, 5) if n_cards else 0.0
            return (leftover if me_leads else -leftover), -1
        best, best_card = float("-inf"), -1
        for v in range(10):
            if not me[v]:
                continue
            points, clears = points_for(tally, n_cards, v + 1)
            after = list(me)
            after[v] -= 1
            new_tally, new_n = (0, 0) if clears else (tally + v + 1, n_cards + 1)
            new_last = 1 if points else (0 if last == 1 else 1 if last == 0 else -1)
            # after the move the other player is "to move": from their side, whoever scored is flipped
            sub, _ = value(them, tuple(after), new_tally, new_n, new_last, not me_leads)
            total = points - sub
            # prefer keeping Ten cards on equal values (the document's advice), then lower cards
            if total > best + 1e-9 or (abs(total - best) <= 1e-9 and v + 1 != TEN and best_card + 1 == TEN):
                best, best_card = total, v
        return best, best_card + 1

    start_last = 0 if last_scorer == 0 else 1 if last_scorer == 1 else -1
    return value(tuple(own), tuple(opponent), tally, n_cards, start_last, leader_is_own)
