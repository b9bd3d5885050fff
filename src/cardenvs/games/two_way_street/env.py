"""# Two Way Street (`two_way_street_v0`)

Galen Kaup's trick-taking game for 2 to 10 players: each player declares high (take tricks) or low
(avoid them), then ten tricks are played; scores reward doing better than the field. Two players play
*duels* with hidden bids. Rules and readings: :mod:`cardenvs.games.two_way_street.rules`.

| | |
|---|---|
| agents | `player_0` ... `player_{players-1}` |
| actions | `Discrete(137)`, one space for every phase (below) |
| observation | `Box` of the segments below (`float32`) and an `int8` mask of length 137 |
| import | `from cardenvs import two_way_street_v0` |

## Actions
| ids | meaning | phase |
|---|---|---|
| 0, 1 | declare high, low (duels: the dealer's choice after two "no bid"s) | declare |
| 2 + c | put card id c at the bottom of the stock | discard (two actions) |
| 57 + s | name suit s (S C D H) as led after a joker lead | suit |
| 61 + c | play card id c | play |
| 116 + b | duel bid: 0 no bid, 1..10 high strength b, 11..20 low strength b - 10 | bid |

## Options
{options}

## Observation
Seats are relative (index 0 the observer, then to the left). Cards are counted per card id (0..54).

{observation}

## Rewards
`reward="win"` (default): when a player reaches `target`, the most points wins (tied leaders share
+1, the others share -1). `reward="points"`: hand scores as they are added. `infos[agent]["score"]` is
the match total. A duel redealt 20 times in a row is truncated.

## Version history
* v0: first release.
"""
from __future__ import annotations

import numpy as np

from cardenvs.core.cards import RANKS, SUITS, card_code, make_deck
from cardenvs.core.encoding import ids_to_counts
from cardenvs.core.env import CardEnv, Option, fill_docstring, make_env_functions
from cardenvs.core.observation import Layout, Segment
from . import rules
from .rules import Trick

HIGH, LOW = 0, 1
DISCARD0, SUIT0, PLAY0, BID0 = 2, 57, 61, 116
NUM_ACTIONS = BID0 + 21
DECLARE, DISCARD, SUIT, PLAY, BID, CHOICE = range(6)
PHASES = ["declare", "discard", "suit", "play", "bid", "choice"]
MAX_REDEALS = 20


def make_layout(n: int) -> Layout:
    return Layout([
        Segment("hand", 55, 4, "own cards (counts per card id)"),
        Segment("trick", n * 55, 1, "the current trick: the card each relative seat played", shape=(n, 55)),
        Segment("suit_led", 5, 1, "suit led S C D H, one-hot; last entry: a joker led and no suit named yet"),
        Segment("declarations", n * 2, 1, "high / low of each relative seat (duels: the hand's direction)", shape=(n, 2)),
        Segment("forced", n, 1, "forced flags of each relative seat"),
        Segment("tricks", n, 20, "tricks taken this hand (duels: including captured tricks)"),
        Segment("played", 55, 4, "cards already played this hand"),
        Segment("discarded", 55, 4, "the cards this player put under the stock this hand"),
        Segment("captured", n * 55, 4, "cards captured from the stock in duels, face up (relative seats)", shape=(n, 55)),
        Segment("scores", n, 1e4, "match totals (relative seats)"),
        Segment("phase", 6, 1, "declare, discard, suit, play, bid, choice: one-hot"),
        Segment("first", n, 1, "first declarer / dealer of this hand (relative seats), one-hot"),
        Segment("leader", n, 1, "leader of the current trick (relative seats), one-hot"),
        Segment("own_bid", 21, 1, "own duel bid, one-hot (no bid, 1..10 high, 1..10 low)"),
        Segment("opponent_bid", 21, 1, "the opponent's duel bid once revealed to this player"),
        Segment("trick_number", 1, 10, "tricks played this hand"),
    ])


class TwoWayStreetEnv(CardEnv):
    metadata = {"name": "two_way_street_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    OPTIONS = (
        Option("players", 4, "number of players (2 = duels)", low=2, high=10),
        Option("decks", None, "decks shuffled together", choices=(1, 2), dynamic_default="1 up to 5 players, else 2"),
        Option("jokers", 2, "jokers per deck", choices=(0, 1, 2)),
        Option("distinct_jokers", True, "red and black jokers (with 2 per deck); False: identical colourless jokers",
               choices=(True, False)),
        Option("target", 20, "points that end the match", low=1),
    )
    VARIANTS = {
        "default": {},
        "duel": {"players": 2, "target": 6},
        "three": {"players": 3, "target": 8},
        "five_one_joker": {"players": 5, "jokers": 1, "target": 6},
        "six_identical_jokers": {"players": 6, "distinct_jokers": False, "target": 6, "reward": "points"},
        "ten_no_jokers": {"players": 10, "jokers": 0, "target": 4},
        "four_identical": {"players": 4, "distinct_jokers": False, "target": 8},
    }

    def _configure(self) -> None:
        c = self.config
        n = self.num_players = c["players"]
        if c["decks"] is None:
            c["decks"] = 1 if n <= 5 else 2
        self.distinct = c["jokers"] == 2 and c["distinct_jokers"]
        self.deck = make_deck(c["jokers"], self.distinct, c["decks"])
        stock = len(self.deck) - rules.HAND_CARDS * n
        if stock < 2:
            raise ValueError(f"two_way_street_v0: players={n} with decks={c['decks']} and jokers={c['jokers']} leaves "
                             f"{stock} cards in the stock after dealing 10 each (at least 2 needed): use decks=2, more "
                             f"jokers or fewer players")
        self.layout = make_layout(n)
        self.num_actions = NUM_ACTIONS

    # ------------------------------------------------------------------ hands
    def _new_game(self) -> None:
        n = self.num_players
        self.totals = np.zeros(n)
        self.hand_no = 0
        self.redeals = 0
        self.over = False
        self.truncated = False
        self.log: list[str] = []
        self._start_hand()

    def _start_hand(self) -> None:
        n = self.num_players
        self.first = self.hand_no % n
        deck = [int(c) for c in self._deal()]
        self.hands = np.zeros((n, 55), dtype=np.int8)
        for k in range(n):
            p = (self.first + k) % n
            for c in deck[k * 10:(k + 1) * 10]:
                self.hands[p, c] += 1
        self.stock = deck[n * 10:]
        self.direction = [-1] * n  # HIGH / LOW
        self.forced = [False] * n
        self.discards = [[] for _ in range(n)]
        self.taken = np.zeros(n, dtype=np.int64)
        self.taken_cards: list[int] = []
        self.captured = [[] for _ in range(n)]
        self.captured_tricks = np.zeros(n, dtype=np.int64)
        self.played = np.zeros(55, dtype=np.int8)
        self.trick: Trick | None = None
        self.trick_no = 0
        self.bids = [-1, -1]
        self.revealed = False
        self.hand_high = None
        if n == 2:
            self.phase, self.current = BID, self.first
        else:
            self.declare_k = 0
            self._next_declarer()

    def _majority(self) -> int:
        return self.num_players // 2 + 1

    def _next_declarer(self) -> None:
        n = self.num_players
        if self.declare_k == n:
            self._start_play()
            return
        p = (self.first + self.declare_k) % n
        self.current = p
        highs = sum(d == HIGH for d in self.direction)
        lows = sum(d == LOW for d in self.direction)
        if highs >= self._majority() or lows >= self._majority():
            self.direction[p] = LOW if highs >= self._majority() else HIGH
            self.forced[p] = True
            self.phase, self.discard_left = DISCARD, 2
        else:
            self.phase = DECLARE

    def _after_discards(self) -> None:
        p = self.current
        self.hands[p, self.stock[0]] += 1
        self.hands[p, self.stock[1]] += 1
        self.stock = self.stock[2:]
        if self.num_players == 2:
            self.discard_queue.pop(0)
            if self.discard_queue:
                self.current, self.discard_left = self.discard_queue[0], 2
            else:
                self._start_play()
        else:
            self.declare_k += 1
            self._next_declarer()

    def _start_play(self) -> None:
        self.trick_no = 0
        self._start_trick(self.first)

    def _start_trick(self, leader: int) -> None:
        self.trick = Trick(leader)
        self.current = leader
        self.phase = PLAY

    def _resolve_bids(self) -> None:
        dealer, responder = self.first, 1 - self.first
        strength = [b if b <= 10 else b - 10 for b in self.bids]
        high = [b <= 10 for b in self.bids]
        sd, sr = strength[dealer], strength[responder]
        self.revealed = True
        if sd == sr and sd > 0 and high[dealer] != high[responder]:
            self.redeals += 1
            self.log.append(f"bids {self.bids}: equal strength, opposite directions: redeal")
            if self.redeals >= MAX_REDEALS:
                self.truncated = True
                return
            self._start_hand()
            return
        self.redeals = 0
        if sd != sr:
            stronger = dealer if sd > sr else responder
            s, self.hand_high = max(sd, sr), high[stronger]
            capturer = (1 - stronger) if self.hand_high else stronger
            for _ in range(s):
                self.captured[capturer] += self.stock[:2]
                for c in self.stock[:2]:
                    self.played[c] += 0
                self.stock = self.stock[2:]
            self.captured_tricks[capturer] += s
            self.discard_queue = [stronger]
        else:
            self.discard_queue = [dealer, responder]
            self.hand_high = high[dealer] if sd > 0 else None
        for p in range(2):
            self.direction[p] = -1 if self.hand_high is None else (HIGH if self.hand_high else LOW)
        if self.hand_high is None:
            self.phase, self.current = CHOICE, dealer
        else:
            self.phase, self.current, self.discard_left = DISCARD, self.discard_queue[0], 2

    def _end_trick(self) -> None:
        t = self.trick
        winner = t.players[rules.trick_winner(t.cards, t.led_suit)]
        self.taken[winner] += 1
        self.taken_cards += t.cards
        self.log.append(f"trick {self.trick_no + 1}: " + " ".join(card_code(c) for c in t.cards) + f" -> player_{winner}")
        self.trick_no += 1
        if self.trick_no == rules.TRICKS:
            self._end_hand()
            return
        self._start_trick((t.leader + 1) % self.num_players)

    def _end_hand(self) -> None:
        n = self.num_players
        if n == 2:
            dealer = self.first
            tricks = self.taken + self.captured_tricks
            d, r = rules.duel_score(bool(self.hand_high), int(tricks[dealer]), int(tricks[1 - dealer]))
            self.totals[dealer] += d
            self.totals[1 - dealer] += r
            self.last_hand = [d, r] if dealer == 0 else [r, d]
        else:
            raw = [rules.raw_score(self.direction[p] == HIGH, int(self.taken[p]), n) for p in range(n)]
            self.last_hand = rules.hand_scores(raw, self.forced)
            self.totals += self.last_hand
        self.log.append(f"hand {self.hand_no + 1}: {self.last_hand}, totals {self.totals.tolist()}")
        self.hand_no += 1
        if self.totals.max() >= self.config["target"]:
            self.over = True
            self.phase = -1
            return
        self._start_hand()

    # ------------------------------------------------------------------ hooks
    def _to_move(self) -> int:
        return self.current

    def _legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.over or self.truncated:
            return mask
        hand = self.hands[self.current]
        if self.phase in (DECLARE, CHOICE):
            mask[HIGH] = mask[LOW] = 1
        elif self.phase == DISCARD:
            mask[DISCARD0 + np.flatnonzero(hand)] = 1
        elif self.phase == BID:
            mask[BID0:BID0 + 21] = 1
        elif self.phase == SUIT:
            lead = self.trick.cards[0]
            for s in rules.joker_suits(lead):
                if any(hand[c] for c in range(s, 52, 4)):
                    mask[SUIT0 + s] = 1
            if not self.distinct:  # colourless jokers: another joker may be played instead
                mask[PLAY0 + 52:PLAY0 + 55] = hand[52:55] > 0
        else:
            for c in rules.legal_plays(hand, self.trick.led_suit, self.distinct):
                mask[PLAY0 + c] = 1
        return mask

    def _apply(self, action: int) -> None:
        p = self.current
        if self.phase == DECLARE:
            self.direction[p] = HIGH if action == HIGH else LOW
            self.phase, self.discard_left = DISCARD, 2
        elif self.phase == CHOICE:
            self.hand_high = action == HIGH
            self.direction = [HIGH if self.hand_high else LOW] * 2
            self.phase, self.current, self.discard_left = DISCARD, self.discard_queue[0], 2
        elif self.phase == DISCARD:
            card = action - DISCARD0
            self.hands[p, card] -= 1
            self.stock.append(card)
            self.discards[p].append(card)
            self.discard_left -= 1
            if self.discard_left == 0:
                self._after_discards()
        elif self.phase == BID:
            self.bids[p] = action - BID0
            if p == self.first:
                self.current = 1 - p
            else:
                self._resolve_bids()
        elif self.phase == SUIT:
            if action >= PLAY0:  # a colourless joker instead of naming a suit
                self.phase = PLAY
                self._play(p, action - PLAY0)
            else:
                self.trick.led_suit = action - SUIT0
                self.phase = PLAY
        else:
            self._play(p, action - PLAY0)

    def _play(self, p: int, card: int) -> None:
        t = self.trick
        self.hands[p, card] -= 1
        self.played[card] += 1
        t.players.append(p)
        t.cards.append(card)
        if len(t.cards) == 1 and not rules.is_joker(card):
            t.led_suit = rules.suit(card)
        if len(t.cards) == self.num_players:
            self._end_trick()
            return
        q = (p + 1) % self.num_players
        self.current = q
        if t.led_suit < 0 and rules.is_joker(t.cards[0]):
            hand = self.hands[q]
            if any(hand[c] for s in rules.joker_suits(t.cards[0]) for c in range(s, 52, 4)):
                self.phase = SUIT

    def _is_over(self) -> bool:
        return self.over

    def _is_truncated(self) -> bool:
        return self.truncated

    def _scores(self) -> np.ndarray:
        return self.totals.copy()

    def _observe(self, p: int) -> np.ndarray:
        n = self.num_players
        order = [(p + k) % n for k in range(n)]
        rel = {q: k for k, q in enumerate(order)}
        obs = self.layout.zeros()
        view = self.layout.view
        view(obs, "hand")[:] = self.hands[p]
        if self.trick is not None:
            trick = view(obs, "trick")
            for q, c in zip(self.trick.players, self.trick.cards):
                trick[55 * rel[q] + c] = 1
            if self.trick.led_suit >= 0:
                view(obs, "suit_led")[self.trick.led_suit] = 1
            elif self.trick.cards:
                view(obs, "suit_led")[4] = 1
            view(obs, "leader")[rel[self.trick.leader]] = 1
        decl = view(obs, "declarations")
        for q in range(n):
            if self.direction[q] >= 0 and (n > 2 or self.revealed):
                decl[2 * rel[q] + self.direction[q]] = 1
        view(obs, "forced")[:] = [self.forced[q] for q in order]
        view(obs, "tricks")[:] = [self.taken[q] + self.captured_tricks[q] for q in order]
        view(obs, "played")[:] = self.played
        for c in self.discards[p]:
            view(obs, "discarded")[c] += 1
        captured = view(obs, "captured")
        for q in range(n):
            for c in self.captured[q]:
                captured[55 * rel[q] + c] += 1
        view(obs, "scores")[:] = self.totals[order]
        if 0 <= self.phase < 6:
            view(obs, "phase")[self.phase] = 1
        view(obs, "first")[rel[self.first]] = 1
        if n == 2:
            if self.bids[p] >= 0:
                view(obs, "own_bid")[self.bids[p]] = 1
            other = 1 - p
            # the dealer's bid is hidden until the responder has bid; the responder's is open
            if self.bids[other] >= 0 and (other != self.first or self.revealed):
                view(obs, "opponent_bid")[self.bids[other]] = 1
        view(obs, "trick_number")[0] = self.trick_no
        return obs

    # ------------------------------------------------------------------ people
    def action_name(self, action: int) -> str:
        action = int(action)
        if action in (HIGH, LOW):
            return "high" if action == HIGH else "low"
        if DISCARD0 <= action < SUIT0:
            return f"discard {card_code(action - DISCARD0)}"
        if SUIT0 <= action < PLAY0:
            return f"suit {SUITS[action - SUIT0]}"
        if PLAY0 <= action < BID0:
            return card_code(action - PLAY0)
        b = action - BID0
        return "no bid" if b == 0 else f"{b if b <= 10 else b - 10} {'high' if b <= 10 else 'low'}"

    def parse_action(self, text: str) -> int:
        """``high``/``low``; a card code (play or discard it, as the phase asks); ``S``..``H`` to name a suit;
        a bid like ``3 high``, ``2 low`` or ``no bid``."""
        t = " ".join(text.strip().lower().split())
        legal = set(np.flatnonzero(self._mask).tolist())
        candidates = []
        if t in ("high", "low"):
            candidates = [HIGH if t == "high" else LOW]
        elif t.upper() in SUITS and self.phase == SUIT:
            candidates = [SUIT0 + SUITS.index(t.upper())]
        elif self.phase == BID:
            if t in ("no bid", "0", "pass"):
                candidates = [BID0]
            else:
                parts = t.split()
                if len(parts) == 2 and parts[0].isdigit() and parts[1] in ("high", "low") and 1 <= int(parts[0]) <= 10:
                    candidates = [BID0 + int(parts[0]) + (0 if parts[1] == "high" else 10)]
                else:
                    raise ValueError("bid like '3 high', '2 low' or 'no bid' (strength 1..10)")
        else:
            from cardenvs.core.cards import parse_card
            card = parse_card(t.replace("discard", "").strip())
            candidates = [DISCARD0 + card if self.phase == DISCARD else PLAY0 + card]
        for a in candidates:
            if a in legal:
                return a
        raise ValueError(f"{text!r} is not legal now ({PHASES[self.phase] if self.phase >= 0 else 'over'}); legal: "
                         + ", ".join(self.action_name(a) for a in sorted(legal)[:30]))

    def _render(self) -> str:
        n = self.num_players
        lines = [f"Two Way Street: hand {self.hand_no + 1}, " + ("dealer" if n == 2 else "first declarer")
                 + f" player_{self.first}, phase {PHASES[self.phase] if self.phase >= 0 else 'over'}, target {self.config['target']}"]
        for q in range(n):
            shown = self.viewer is None or self.viewer == q or self.reveal
            cards = " ".join(card_code(c) for c in np.repeat(np.arange(55), self.hands[q]))
            d = {HIGH: "high", LOW: "low"}.get(self.direction[q], "-")
            d += " (forced)" if self.forced[q] else ""
            extra = f" captured {self.captured_tricks[q]}" if n == 2 else ""
            lines.append(f"  player_{q}: {self.totals[q]:5.0f} pts, {d:12s} tricks {self.taken[q]}{extra}  "
                         + (cards if shown else f"{int(self.hands[q].sum())} cards"))
        if self.trick is not None and self.trick.cards:
            led = SUITS[self.trick.led_suit] if self.trick.led_suit >= 0 else "?"
            lines.append(f"  trick {self.trick_no + 1} (led {led}): " + ", ".join(
                f"player_{q} {card_code(c)}" for q, c in zip(self.trick.players, self.trick.cards)))
        if self.log:
            lines.append("  last: " + self.log[-1])
        lines.append("  match over" if self.over else f"  to move: player_{self.current}")
        return "\n".join(lines)

    def _card_locations(self) -> np.ndarray:
        parts = [np.repeat(np.arange(55), self.hands[q]) for q in range(self.num_players)]
        parts.append(np.array(self.stock, dtype=np.int64))
        parts.append(np.array(self.taken_cards, dtype=np.int64))
        if self.trick is not None:
            parts.append(np.array(self.trick.cards, dtype=np.int64))
        parts += [np.array(c, dtype=np.int64) for c in self.captured]
        return np.concatenate(parts)


env, raw_env = make_env_functions(TwoWayStreetEnv)
__doc__ = fill_docstring(__doc__, TwoWayStreetEnv, make_layout(4))
