"""# Twenty (`twenty_v0`)

Alexander Farrugia's two-player tally game: put cards on a shared tally and score for Exact Twenty,
Beyond Twenty and Five (Six, Seven, ...) Tally; the last scorer of a round takes its End of Round Bonus.
The rules and the readings this implementation chooses are in :mod:`cardenvs.games.twenty.rules`.

| | |
|---|---|
| agents | `player_0`, `player_1` (player_0 leads odd rounds) |
| actions | `Discrete(10)`: action `v - 1` plays a card of value `v` (A = 1, ..., T J Q K = 10) |
| observation | `Box` of the segments below (`float32`) and an `int8` mask of length 10 |
| import | `from cardenvs import twenty_v0` |

The document's variation, "a game of practically pure skill", is `exposed_hands=True, swap_deals=True`:
both hands are in both observations and round 2 deals round 1's cards with the hands exchanged. Every
card of round 1 is played, so in round 2 each player knows (by memory) every hand both players will hold;
with `swap_deals` the round-2 observation carries that knowledge (`replayed_hands`), hidden hands or not.

## Options
{options}

## Observation
Everything is from the observing player's point of view ("own" = the observer).

{observation}

## Rewards
`reward="win"` (default): +1 to the player with more match points after the last round, -1 to the other,
0 each for a draw. `reward="points"`: the points as they are scored (the bonus at round end included).
`infos[agent]["score"]` is the running match score.

## Stacked decks
`options["deck"]`: one 52-card list per round (or per pair of rounds with `swap_deals`): two bonus
cards, then blocks of five alternately, the round's leader first.

## Version history
* v0: first release.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import card_code, make_deck
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, determinize, policies, rules
from .rules import LAYOUT

VALUE_NAMES = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]


class TwentyEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option("rounds", 2, "rounds in a match; leaders alternate, player_0 first", low=1, high=rules.MAX_ROUNDS),
        Option(
            "swap_deals",
            False,
            "round 2k deals round 2k-1's deck with the hands exchanged (even rounds only)",
            choices=(False, True),
        ),
        Option("exposed_hands", False, "both hands in both observations", choices=(False, True)),
    )
    VARIANTS = {
        "default": {},
        "exposed_swap": {"exposed_hands": True, "swap_deals": True},
        "one_round_points": {"rounds": 1, "reward": "points"},
        "four_rounds_swap": {"rounds": 4, "swap_deals": True},
    }

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize

    def _configure(self) -> None:
        c = self.config
        if c["swap_deals"] and c["rounds"] % 2:
            raise ValueError(f"twenty_v0: swap_deals=True needs an even number of rounds; got rounds={c['rounds']}")
        self.num_players = 2
        self.deck = make_deck()
        self.layout = LAYOUT
        self.num_actions = rules.NUM_VALUES
        self.params = rules.make_params(c["rounds"], c["swap_deals"], c["exposed_hands"], LAYOUT.starts())

    # ------------------------------------------------------------------ people
    def action_name(self, action: int) -> str:
        return VALUE_NAMES[action] if 0 <= action < 10 else str(action)

    def parse_action(self, text: str) -> int:
        """A value (``7``, ``A``, ``T``, ``10``) or a card code (``QS``: plays a Ten card)."""
        t = text.strip().upper()
        if t == "10":
            t = "T"
        if len(t) in (2, 3) and t not in VALUE_NAMES:
            t = t[:-1] if t[:-1] != "10" else "T"  # a card code: drop the suit
            t = "T" if t in ("J", "Q", "K") else t
        if t in ("J", "Q", "K"):
            t = "T"
        if t not in VALUE_NAMES:
            raise ValueError(f"{text!r} is not a card value; type A, 2..9, T (or 10, J, Q, K) or a card code like 7S")
        action = VALUE_NAMES.index(t)
        if not self._mask[action]:
            raise ValueError(
                f"you hold no card of value {t}; legal: "
                + ", ".join(VALUE_NAMES[a] for a in np.flatnonzero(self._mask))
            )
        return action

    def _render(self) -> str:
        s = self.state
        rounds = self.config["rounds"]
        r = min(int(s.round_index), rounds - 1)
        lines = [
            f"Twenty: round {r + 1}/{rounds}, hand {max(0, s.hand_index) + 1}/5, "
            f"bonus {s.bonus} ({' '.join(card_code(int(c)) for c in s.deck[:2])}), "
            f"stock {rules.DECK_SIZE - s.stock_pos}"
        ]
        for p in range(2):
            shown = self.viewer is None or self.viewer == p or self.reveal or self.config["exposed_hands"]
            cards = rules.hand_cards(s, p)
            hand = " ".join(card_code(c) for c in cards) if shown else f"{len(cards)} hidden cards"
            marks = (" (leads)" if s.leader == p else "") + (" *last scorer*" if s.last_scorer == p else "")
            lines.append(f"  player_{p}: {s.scores[p]:4d} points{marks}  hand: {hand or '-'}")
        tally = " ".join(card_code(int(c)) for c in s.tally_cards[: s.tally_n]) or "-"
        lines.append(f"  tally {s.tally} from {s.tally_n} cards: {tally}")
        if s.last_player >= 0:
            lines.append(
                f"  last: player_{s.last_player} played {VALUE_NAMES[s.last_value - 1]} -> {s.last_after}"
                + (f", {s.last_points} points" if s.last_points else "")
            )
        lines.append("  match over" if s.over else f"  to play: player_{s.to_move}")
        return "\n".join(lines)


env, raw_env = make_env_functions(TwentyEnv)
__doc__ = fill_docstring(__doc__, TwentyEnv, LAYOUT)
