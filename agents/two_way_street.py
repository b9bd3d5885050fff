"""Two Way Street agent ``two_way_street.heuristic``.

* Strength: expected tricks of the hand, counting jokers (red 1.2, black 1.0), aces 0.9, kings 0.6,
  queens 0.3. Declare high when it is at least the table's fair share (10 / players, x 1.2), else low;
  duels bid high with strength (expected - 4) or low with (5 - expected) when that is 1 or more, else no
  bid; the dealer's choice follows the same test.
* Discard: high hands shed their lowest cards; low hands shed jokers and their highest cards.
* Play, high: win as cheaply as possible (the lowest card that takes the trick so far), else throw the
  lowest card; lead the highest card. Low: play the highest card that does not take the trick, else the
  highest card (shedding a danger card); lead the lowest card.
* Suit naming after a joker lead: a high hand names the suit of its highest card, a low hand that of its
  lowest.
"""

from __future__ import annotations

import numpy as np

from cardenvs.games.two_way_street import rules
from cardenvs.games.two_way_street.env import BID0, DISCARD0, HIGH, LOW, PLAY0, SUIT0


def _value(card: int) -> float:
    if card == 53:
        return 1.2
    if card >= 52:
        return 1.0
    return {12: 0.9, 11: 0.6, 10: 0.3}.get(card // 4, 0.0)


def _rank(card: int) -> int:
    return 100 + card if card >= 52 else card // 4


class HeuristicAgent:
    name = "two_way_street.heuristic"

    def __init__(self, env):
        self.env = env
        self.n = env.num_players

    def act(self, observation, rng: np.random.Generator) -> int:
        parts = self.env.layout.decode(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"])
        hand = [int(c) for c in np.repeat(np.arange(55), parts["hand"].astype(int))]
        expected = sum(_value(c) for c in hand)
        fair = 10 / self.n
        phase = int(np.argmax(parts["phase"]))
        decl = parts["declarations"][0]
        high = bool(decl[0]) if decl.any() else expected >= 1.2 * fair
        if phase in (0, 5):  # declare, dealer's choice
            return HIGH if expected >= 1.2 * fair else LOW
        if phase == 4:  # duel bid
            if expected - 4 >= 1:
                return BID0 + int(min(10, round(expected - 4)))
            if 5 - expected >= 1:
                return BID0 + 10 + int(min(10, round(5 - expected)))
            return BID0
        if phase == 1:  # discard
            cards = [a - DISCARD0 for a in legal if DISCARD0 <= a < SUIT0]
            pick = min(cards, key=_rank) if high else max(cards, key=_rank)
            return DISCARD0 + pick
        suits = [a for a in legal if SUIT0 <= a < PLAY0]
        if suits and phase == 2:
            own = [c for c in hand if c < 52]
            choose = (max if high else min)((c for c in own if SUIT0 + c % 4 in suits), key=_rank)
            return SUIT0 + choose % 4
        plays = [int(a - PLAY0) for a in legal if PLAY0 <= a < BID0]
        if not plays:
            return int(legal[0])
        trick = parts["trick"]
        on_table = [int(np.flatnonzero(row)[0]) for row in trick if row.any()]
        if not on_table:  # leading
            return PLAY0 + (max(plays, key=_rank) if high else min(plays, key=_rank))
        led = int(np.argmax(parts["suit_led"][:4])) if parts["suit_led"][:4].any() else -1
        best = max(rules.card_power(c, led) for c in on_table)
        # a card played now is later than everything on the table: it must be strictly stronger to win
        winners = [c for c in plays if rules.card_power(c, led if led >= 0 else rules.suit(c)) > best]
        losers = [c for c in plays if c not in winners]
        if high:
            if winners:
                return PLAY0 + min(winners, key=lambda c: rules.card_power(c, led if led >= 0 else rules.suit(c)))
            return PLAY0 + min(plays, key=_rank)
        if losers:
            return PLAY0 + max(losers, key=_rank)
        return PLAY0 + max(plays, key=_rank)


AGENTS = {"heuristic": HeuristicAgent}
