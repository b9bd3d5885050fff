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

## Reset options
`deck`: a deck (or a list of decks, one per deal: every hand and every redeal takes the next; at most
32) dealt in blocks of 10 from the first declarer, the rest the stock, top first.

## Version history
* v0: first release; option `declaration` ("random" and "forced" take the high/low choice away).
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import SUITS, card_code, make_deck, parse_card
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, determinize, policies, rules
from .rules import (  # noqa: F401
    BID,
    BID0,
    CHOICE,
    DECLARE,
    DISCARD,
    DISCARD0,
    HIGH,
    LOW,
    MAX_REDEALS,
    NUM_ACTIONS,
    PHASES,
    PLAY,
    PLAY0,
    SUIT,
    SUIT0,
)


def make_layout(n: int) -> Layout:
    return Layout(
        [
            Segment("hand", 55, 4, "own cards (counts per card id)"),
            Segment("trick", n * 55, 1, "the current trick: the card each relative seat played", shape=(n, 55)),
            Segment("suit_led", 5, 1, "suit led S C D H, one-hot; last entry: a joker led and no suit named yet"),
            Segment(
                "declarations", n * 2, 1, "high / low of each relative seat (duels: the hand's direction)", shape=(n, 2)
            ),
            Segment("forced", n, 1, "forced flags of each relative seat"),
            Segment("tricks", n, 20, "tricks taken this hand (duels: including captured tricks)"),
            Segment("played", 55, 4, "cards already played this hand"),
            Segment("discarded", 55, 4, "the cards this player put under the stock this hand"),
            Segment(
                "captured", n * 55, 4, "cards captured from the stock in duels, face up (relative seats)", shape=(n, 55)
            ),
            Segment(
                "scores",
                n,
                rules.MAX_TOTAL,
                f"match totals (relative seats); below target + {rules.MAX_HAND_POINTS} (target <= {rules.MAX_TARGET})",
            ),
            Segment("phase", 6, 1, "declare, discard, suit, play, bid, choice: one-hot"),
            Segment("first", n, 1, "first declarer / dealer of this hand (relative seats), one-hot"),
            Segment("leader", n, 1, "leader of the current trick (relative seats), one-hot"),
            Segment("own_bid", 21, 1, "own duel bid, one-hot (no bid, 1..10 high, 1..10 low)"),
            Segment("opponent_bid", 21, 1, "the opponent's duel bid once revealed to this player"),
            Segment("trick_number", 1, 10, "tricks played this hand"),
        ]
    )


def _bid_name(b: int) -> str:
    return "no bid" if b == 0 else f"{b if b <= 10 else b - 10} {'high' if b <= 10 else 'low'}"


class TwoWayStreetEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option("players", 4, "number of players (2 = duels)", low=2, high=10),
        Option("decks", None, "decks shuffled together", choices=(1, 2), dynamic_default="1 up to 5 players, else 2"),
        Option("jokers", 2, "jokers per deck", choices=(0, 1, 2)),
        Option(
            "distinct_jokers",
            True,
            "red and black jokers (with 2 per deck); False: identical colourless jokers",
            choices=(True, False),
        ),
        Option(
            "target",
            20,
            "points that end the match (bounded so that match totals stay within the `scores` segment's range)",
            low=1,
            high=rules.MAX_TARGET,
        ),
        Option(
            "declaration",
            "choose",
            "3+ players: 'choose' high or low; 'random': a fair coin per player drawn at the deal (from the deal "
            "seed); 'forced': every declarer high, so the majority rule forces the last players low. The imposed "
            "declaration is the only legal one at the player's declaring turn; the majority rule still applies",
            choices=rules.DECLARATIONS,
        ),
    )
    VARIANTS = {
        "default": {},
        "duel": {"players": 2, "target": 6},
        "three": {"players": 3, "target": 8},
        "five_one_joker": {"players": 5, "jokers": 1, "target": 6},
        "six_identical_jokers": {"players": 6, "distinct_jokers": False, "target": 6, "reward": "points"},
        "ten_no_jokers": {"players": 10, "jokers": 0, "target": 4},
        "four_identical": {"players": 4, "distinct_jokers": False, "target": 8},
        "random_declaration": {"declaration": "random", "target": 8},
        "forced_declaration": {"players": 5, "declaration": "forced", "target": 6},
    }

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize
    HORIZON = (determinize.horizon, determinize.horizon_value)

    def _configure(self) -> None:
        c = self.config
        n = self.num_players = c["players"]
        if c["decks"] is None:
            c["decks"] = 1 if n <= 5 else 2
        self.distinct = c["jokers"] == 2 and c["distinct_jokers"]
        self.deck = make_deck(c["jokers"], self.distinct, c["decks"])
        stock = len(self.deck) - rules.HAND_CARDS * n
        if stock < 2:
            raise ValueError(
                f"two_way_street_v0: players={n} with decks={c['decks']} and jokers={c['jokers']} leaves "
                f"{stock} cards in the stock after dealing 10 each (at least 2 needed): use decks=2, more "
                f"jokers or fewer players"
            )
        if n == 2 and c["declaration"] != "choose":
            raise ValueError(
                f"two_way_street_v0: declaration={c['declaration']!r} needs 3+ players (players=2 plays duels, "
                "where the bids set the direction); use declaration='choose' or players=3..10"
            )
        self.layout = make_layout(n)
        self.num_actions = NUM_ACTIONS
        offsets = self.layout.starts(rules.OBS_SEGMENTS)
        self.params = rules.make_params(
            n,
            c["decks"],
            c["jokers"],
            self.distinct,
            c["target"],
            self.deck,
            offsets,
            rules.DECLARATIONS.index(c["declaration"]),
        )

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
        return _bid_name(action - BID0)

    def parse_action(self, text: str) -> int:
        """``high``/``low``; a card code (play or discard it, as the phase asks); ``S``..``H`` to name a suit;
        a bid like ``3 high``, ``2 low`` or ``no bid``."""
        t = " ".join(text.strip().lower().split())
        legal = set(np.flatnonzero(self._mask).tolist())
        phase = int(self.state.phase)
        candidates = []
        if t in ("high", "low"):
            candidates = [HIGH if t == "high" else LOW]
        elif t.upper() in SUITS and phase == SUIT:
            candidates = [SUIT0 + SUITS.index(t.upper())]
        elif phase == BID:
            if t in ("no bid", "0", "pass"):
                candidates = [BID0]
            else:
                parts = t.split()
                if len(parts) == 2 and parts[0].isdigit() and parts[1] in ("high", "low") and 1 <= int(parts[0]) <= 10:
                    candidates = [BID0 + int(parts[0]) + (0 if parts[1] == "high" else 10)]
                else:
                    raise ValueError("bid like '3 high', '2 low' or 'no bid' (strength 1..10)")
        else:
            card = parse_card(t.replace("discard", "").strip())
            candidates = [DISCARD0 + card if phase == DISCARD else PLAY0 + card]
        for a in candidates:
            if a in legal:
                return a
        raise ValueError(
            f"{text!r} is not legal now ({PHASES[phase] if phase >= 0 else 'over'}); legal: "
            + ", ".join(self.action_name(a) for a in sorted(legal)[:30])
        )

    def _last_event(self) -> str:
        s, n = self.state, self.num_players
        if s.last_event == rules.EVENT_TRICK and s.trick_no > 0:
            k = s.trick_no - 1
            cards = s.taken_cards[k * n : (k + 1) * n]
            return f"trick {k + 1}: " + " ".join(card_code(c) for c in cards) + f" -> player_{s.trick_winners[k]}"
        if s.last_event == rules.EVENT_HAND:
            return f"hand {s.hand_no}: {s.last_hand[:n].astype(int).tolist()}, totals {s.totals[:n].tolist()}"
        if s.last_event == rules.EVENT_REDEAL:
            return f"equal strength, opposite directions: redeal ({s.redeals} in a row)"
        return ""

    def _render(self) -> str:
        s, n = self.state, self.num_players
        phase = int(s.phase)
        lines = [
            f"Two Way Street: hand {s.hand_no + 1}, "
            + ("dealer" if n == 2 else "first declarer")
            + f" player_{s.first}, phase {PHASES[phase] if phase >= 0 else 'over'}, "
            f"target {self.config['target']}"
        ]
        for q in range(n):
            shown = self.viewer is None or self.viewer == q or self.reveal
            cards = " ".join(card_code(int(c)) for c in np.repeat(np.arange(55), s.hands[q]))
            d = {HIGH: "high", LOW: "low"}.get(int(s.direction[q]), "-")
            d += " (forced)" if s.forced[q] else ""
            extra = f" captured {s.captured_tricks[q]}" if n == 2 else ""
            if n == 2 and s.bids[q] >= 0 and (q != s.first or s.revealed or self.viewer in (None, q) or self.reveal):
                extra += f" bid {_bid_name(int(s.bids[q]))}"
            lines.append(
                f"  player_{q}: {s.totals[q]:5.0f} pts, {d:12s} tricks {s.taken[q]}{extra}  "
                + (cards if shown else f"{int(s.hands[q].sum())} cards")
            )
        trick = rules.trick_cards(s)
        if len(trick):
            led = SUITS[s.led_suit] if s.led_suit >= 0 else "?"
            lines.append(
                f"  trick {min(s.trick_no + 1, rules.TRICKS)} (led {led}): "
                + ", ".join(f"player_{(s.trick_leader + i) % n} {card_code(c)}" for i, c in enumerate(trick))
            )
        last = self._last_event()
        if last:
            lines.append("  last: " + last)
        if s.over:
            lines.append("  match over")
        elif s.truncated:
            lines.append(f"  truncated after {MAX_REDEALS} redeals in a row")
        else:
            lines.append(f"  to move: player_{s.current}")
        return "\n".join(lines)


env, raw_env = make_env_functions(TwoWayStreetEnv)
__doc__ = fill_docstring(__doc__, TwoWayStreetEnv, make_layout(4))
