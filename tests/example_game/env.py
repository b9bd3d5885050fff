"""# High Card (`highcard_v0`)

One suit, high card takes the trick; the rules are in :mod:`example_game.rules`. An example of a game
that lives outside cardenvs (`docs/adding-a-game.md`): call `example_game.register()` first.

| | |
|---|---|
| agents | `player_0` ... `player_{players-1}` |
| actions | `Discrete(13)`: play the spade of rank `a` (0 = `2S` .. 12 = `AS`) |
| observation | `Box` of the segments below (`int8`) and an `int8` mask of length 13 |
| make | `cardenvs.make("highcard")` after `example_game.register()` |

## Options
{options}

## Observation
{observation}

## Rewards
`reward="win"` (default): once over, the most tricks share +1, the others share -1 (all equal: 0 each).
`reward="points"`: +1 for each trick taken. `infos[agent]["score"]` is tricks taken.

## Version history
* v0: first release.
"""

from __future__ import annotations

from cardenvs.core.cards import card_code
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, determinize, policies, rules
from .rules import DECK, LAYOUT, MAX_HAND, MAX_PLAYERS, NO_CARD, RANKS


class HighCardEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option("players", 2, "players at the table", low=2, high=MAX_PLAYERS),
        Option("hand_size", 5, "cards dealt to each player, so tricks in a game", low=1, high=MAX_HAND),
    )
    VARIANTS = {"default": {}, "three": {"players": 3, "hand_size": 4}}

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize

    def _configure(self) -> None:
        c = self.config
        if c["players"] * c["hand_size"] > RANKS:
            raise ValueError(
                f"highcard_v0: {c['players']} hands of {c['hand_size']} need {c['players'] * c['hand_size']} "
                f"cards; the suit has {RANKS}"
            )
        self.num_players = c["players"]
        self.deck = DECK.astype(int)
        self.layout = LAYOUT
        self.num_actions = RANKS
        self.params = rules.make_params(c["players"], c["hand_size"], LAYOUT.starts())

    def action_name(self, action: int) -> str:
        return card_code(int(DECK[action])) if 0 <= action < RANKS else str(action)

    def _render(self) -> str:
        s, tricks = self.state, self.config["hand_size"]
        lines = [f"High Card: trick {min(int(s.tricks_done) + 1, tricks)} of {tricks}"]
        for p in range(self.num_players):
            shown = self.viewer is None or self.viewer == p or self.reveal
            held = [card_code(int(DECK[r])) for r in range(RANKS) if s.hands[p, r]]
            hand = (" ".join(held) or "-") if shown else f"{len(held)} hidden cards"
            played = card_code(int(DECK[s.trick[p]])) if s.trick[p] != NO_CARD else "--"
            lines.append(f"  player_{p}: {s.taken[p]} tricks, in the trick {played}, hand: {hand}")
        over = self._is_over()
        lines.append("  game over" if over else f"  to play: player_{s.to_move}")
        return "\n".join(lines)


env, raw_env = make_env_functions(HighCardEnv)
__doc__ = fill_docstring(__doc__, HighCardEnv, LAYOUT)
