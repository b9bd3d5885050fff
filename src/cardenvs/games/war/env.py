"""# War (`war_v0`)

The children's game, two players, 26 cards each; the rules are in :mod:`cardenvs.games.war.rules`.
Nobody has a choice: each player's only action is to flip. The env exists for the arena, as a
smoke test of the AEC machinery, and for the study in :mod:`cardenvs.games.war.study`.

| | |
|---|---|
| agents | `player_0`, `player_1` |
| actions | `Discrete(1)`: 0 = flip (always legal) |
| observation | `Box` of the segments below (`int8`) and an `int8` mask of length 1 |
| import | `from cardenvs import war_v0` |

## Options
{options}

## Observation
{observation}

## End of the game
The game ends when one player holds every card, or when a player runs out of cards during a war (a tie
it cannot answer with a flip): then the war's cards stay on the table, taken by nobody, and the winner
holds only its own pile, fewer than 52 cards (both out at once is a draw). It is truncated after
`max_turns` battles.

## Rewards
`reward="win"` (default): +1 to the winner (the player left with cards, or more battles with
`single_pass`), -1 to the other, 0 each for a draw or a truncation at `max_turns`. `reward="points"`:
the change in cards held (battles won with `single_pass`); a game that ends in a war leaves the war's
cards out of both piles, so the winner's points total 26 minus the cards left on the table, the loser's
-26, and the two sum to minus the cards on the table (not zero). `infos[agent]["score"]` is cards held
(battles won).

## Version history
* v0: first release.
"""

from __future__ import annotations

from cardenvs.core.cards import card_code, make_deck
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, policies, rules
from .rules import LAYOUT


class WarEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option("war_face_down", 1, "cards each player puts face down in a war", low=0, high=3),
        Option(
            "shuffle_won",
            False,
            "shuffle the won cards (dealing generator) before they go under the pile",
            choices=(False, True),
        ),
        Option("max_turns", 5000, "battles before the game is truncated", low=1),
        Option(
            "single_pass",
            False,
            "the Riddler form: 26 battles, no wars, no recycling (war_face_down and "
            "shuffle_won must stay at their defaults)",
            choices=(False, True),
        ),
    )
    VARIANTS = {
        "default": {},
        "three_down": {"war_face_down": 3},
        "no_face_down": {"war_face_down": 0, "shuffle_won": True},
        "short": {"max_turns": 20, "reward": "points"},
        "single_pass": {"single_pass": True},
    }

    CORE = rules
    POLICY = policies.policy

    def _configure(self) -> None:
        self.num_players = 2
        self.deck = make_deck()
        self.layout = LAYOUT
        self.num_actions = 1
        c = self.config
        rules.check_options(c["war_face_down"], c["shuffle_won"], c["single_pass"], "war_v0")
        self.params = rules.make_params(
            c["war_face_down"], c["shuffle_won"], c["single_pass"], c["max_turns"], LAYOUT.starts()
        )

    def action_name(self, action: int) -> str:
        return "flip" if action == 0 else str(action)

    def _render(self) -> str:
        s = self.state
        lines = [f"War: battle {s.battles + 1}" + (" (war!)" if s.in_war else "")]
        for p in range(2):
            flipped = card_code(int(s.last_flip[p])) if s.last_flip[p] >= 0 else "--"
            extra = f", battles won {s.battles_won[p]}" if self.config["single_pass"] else ""
            lines.append(
                f"  player_{p}: {s.held[p]:2d} cards in pile, last flip {flipped}, {s.table_n[p]} on the table{extra}"
            )
        if self._is_over():
            result = int(s.result)
            lines.append("  game over: " + ("draw" if result == rules.DRAW else f"player_{result} wins"))
        else:
            lines.append(f"  to flip: player_{s.to_move}")
        return "\n".join(lines)


env, raw_env = make_env_functions(WarEnv)
__doc__ = fill_docstring(__doc__, WarEnv, LAYOUT)
