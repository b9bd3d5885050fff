"""# Twos (`twos_v0`)

A climbing game with bombs for 2 to 4 players: beat the combination on the table with the same shape
and a higher top card, or with a bomb; the first player out of cards wins. Rules and readings:
:mod:`cardenvs.games.twos.rules`; combinations and the action table: :mod:`cardenvs.games.twos.moves`.

| | |
|---|---|
| agents | `player_0` ... `player_{players-1}` |
| actions | `Discrete(733)`: one per (shape, top card), then pass (id 732); see below |
| observation | `Box` of the segments below (`int8`) and an `int8` mask of length 733 |
| import | `from cardenvs import twos_v0` |

The three-player 13-card game is the default; the document's two-player variant is
`players=2, hand_size=20` (with `bomb_order="rarity"` for the study's ordering).

## Options
{options}

## Observation
Seats are relative: index 0 is the observer, 1 the next player to the left, and so on. Cards are
indexed by value `4 * rank + suit` on the Twos line (0 = 3S ... 51 = 2H).

{observation}

## Actions
Action `a < 732` is the combination `moves.ACTIONS[a] = (shape index, top card value)` with shapes
`moves.SHAPES` (1x1, 2x1, 3x1, 4x1, runs 1x3..1x13, multiple runs 2x3..2x13, 3x3..3x8, 4x3..4x6); the
cards below the top card are the lowest suits held at each rank. `env.action_name(a)` prints it, e.g.
`2x3 to 7D`. Pass is legal only against a combination to beat.

## Rewards
`reward="win"` (default): +1 to the first player out, -1/(players-1) to each other. `reward="points"`:
+1 to the winner when the game ends. `infos[agent]["score"]` is 1 for the winner, 0 otherwise.

## Version history
* v0: first release.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core.cards import make_deck
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, determinize, moves, policies, rules

MAX_PLAYERS = 4


def make_layout(players: int) -> Layout:
    n_bombs = len(moves.BOMB_SHAPES)
    return Layout(
        [
            Segment("hand", 52, 1, "own cards by value"),
            Segment(
                "played", players * 52, 1, "cards already played by each player (relative seats)", shape=(players, 52)
            ),
            Segment(
                "to_beat_shape", len(moves.SHAPES), 1, "shape of the combination to beat, one-hot (zeros: leading)"
            ),
            Segment("to_beat_top", 52, 1, "top card of the combination to beat, one-hot"),
            Segment("to_beat_by", players, 1, "who played the combination to beat (relative seat), one-hot"),
            Segment("passed", players, 1, "who has passed in this trick (relative seats)"),
            Segment("cards_left", players, 26, "cards left in each hand (relative seats)"),
            Segment(
                "bomb_order",
                n_bombs,
                n_bombs - 1,
                "place of each bomb shape (moves.BOMB_SHAPES) in the order in force, 0 = weakest",
            ),
        ]
    )


LAYOUT = make_layout(3)  # the default game's layout (the docstring's table)


class TwosEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option("players", 3, "number of players", low=2, high=MAX_PLAYERS),
        Option(
            "hand_size", 13, "cards dealt to each player (1..52 // players); the rest is out of play", low=1, high=26
        ),
        Option(
            "bomb_order",
            "classic",
            "'classic': the document's list; 'rarity': rarest bomb strongest at this hand size",
            choices=("classic", "rarity"),
        ),
        Option("pass_locks_out", True, "a player who passed is out until the next trick", choices=(True, False)),
    )
    VARIANTS = {
        "default": {},
        "two_player_20": {"players": 2, "hand_size": 20, "bomb_order": "rarity"},
        "four_players": {"players": 4, "hand_size": 13, "reward": "points"},
        "pass_again": {"pass_locks_out": False},
        "small_hands": {"players": 3, "hand_size": 5, "bomb_order": "rarity"},
    }

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize

    def _configure(self) -> None:
        c = self.config
        self.num_players = c["players"]
        if c["hand_size"] > 52 // self.num_players:
            raise ValueError(
                f"twos_v0: option hand_size={c['hand_size']} is out of range for {self.num_players} "
                f"players; it accepts an integer from 1 to {52 // self.num_players}"
            )
        self.deck = make_deck()
        self.layout = make_layout(self.num_players)
        self.num_actions = moves.NUM_ACTIONS
        offsets = self.layout.starts()
        self.params = rules.make_params(self.num_players, c["hand_size"], c["pass_locks_out"], c["bomb_order"], offsets)
        self.bomb_strength = self.params["bomb_strength"][0].copy()

    # ------------------------------------------------------------------ people
    def action_name(self, action: int) -> str:
        return moves.describe(int(action))

    def parse_action(self, text: str) -> int:
        """``pass``, an action name (``2x3 to 7D``), a number, or the cards to play (``5S 6C 7H``): exactly the
        cards the action plays (below its top card, the lowest suits held), else a ``ValueError`` naming them."""
        t = text.strip()
        if t.lower() == "pass":
            if not self._mask[moves.PASS]:
                raise ValueError("you lead this trick: you must play a combination")
            return moves.PASS
        try:
            return super().parse_action(t)
        except ValueError:
            pass
        values = moves.parse_values(t)
        hand = self.state.hands[self.state.to_move]
        missing = [moves.value_code(v) for v in values if not hand[v]]
        if missing:
            raise ValueError(f"you do not hold {' '.join(missing)}")
        combo = moves.classify(values)
        if combo is None:
            raise ValueError(
                f"{t!r} is not a combination (singles, pairs, triples, four of a kind, runs of 3+, multiple runs)"
            )
        action = moves.ACTION_ID[combo]
        if not self._mask[action]:
            raise ValueError(f"{t!r} ({moves.describe(action)}) does not beat the combination on the table")
        played = moves.cards_of(hand, action)
        if sorted(played.tolist()) != sorted(values):
            # an action is (shape, top card): below its top card it takes the lowest suits held
            shown = " ".join(moves.value_code(v) for v in played)
            raise ValueError(
                f"{t!r} is played as {shown} ({moves.describe(action)}: below the top card an action "
                f"takes the lowest suits held); type {shown!r} to play that"
            )
        return action

    def _render(self) -> str:
        s = self.state
        config = self.config
        lines = [f"Twos: {self.num_players} players, {config['hand_size']} cards, bomb order {config['bomb_order']}"]
        for p in range(self.num_players):
            shown = self.viewer is None or self.viewer == p or self.reveal
            cards = " ".join(moves.value_code(int(v)) for v in np.flatnonzero(s.hands[p]))
            hand = cards if shown else f"{int(s.hands[p].sum())} cards"
            mark = " passed" if s.passed[p] else ""
            lines.append(f"  player_{p}: {hand or '-'}{mark}")
        trick = rules.trick(s)
        if trick:
            plays = []
            for who, action in trick:
                plays.append(f"player_{who}: " + ("pass" if action == moves.PASS else moves.describe(action)))
            lines.append("  trick: " + "; ".join(plays))
        leading = s.to_beat_shape < 0
        if not leading:
            shape = moves.shape_name(moves.SHAPES[s.to_beat_shape])
            lines.append(f"  to beat: {shape} to {moves.value_code(s.to_beat_top)} by player_{s.last_player}")
        lines.append(
            f"  player_{s.winner} wins"
            if s.winner >= 0
            else f"  to play: player_{s.to_move}" + (" (leads)" if leading else "")
        )
        return "\n".join(lines)


env, raw_env = make_env_functions(TwosEnv)
__doc__ = fill_docstring(__doc__, TwosEnv, LAYOUT)
