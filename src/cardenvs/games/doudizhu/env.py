"""# Dou Dizhu (`doudizhu_v0`)

"Two Against One": after a bidding round the landlord takes the three kitty cards and plays alone
against the two farmers; the first player out of cards wins for their side. Rules and readings:
:mod:`cardenvs.games.doudizhu.rules`; combinations, readings and the action table:
:mod:`cardenvs.games.doudizhu.moves`.

| | |
|---|---|
| agents | `player_0`, `player_1`, `player_2` |
| actions | `Discrete(28242)`: 28,237 moves, pass, then no bid / bid 1 / bid 2 / bid 3 |
| observation | `Box` of the segments below (`int8`) and an `int8` mask |
| import | `from cardenvs import doudizhu_v0` |

## Actions
Every distinct move is a rank-count vector over `3..A 2 B R` with its reading; a card set that reads as
several types is one action per reading (`333444555666` four trios, `333444555+666`, `444555666+333`).
That gives 28,237 moves over 27,845 card sets. Measured against RLCard 1.2.0, whose table has 27,472
actions (27,471 card sets and pass): every RLCard card set is in this table; RLCard gives each card set
one reading, and it lacks 374 card sets of airplanes with single kickers whose kickers come from a rank
adjacent to the chain (`333444555666+7778`, which also reads `444555666777+3338`). OpenSpiel's Dou
Dizhu has no four-with-two-singles/pairs types at all.
`env.action_name(a)` prints the move string (`333+4`, `BR`, `pass`, `bid 2`).

## Options
{options}

## Observation
Seats are relative (index 0 the observer, 1 the next player, 2 the previous). A set of cards is 54
entries: "at least k of rank r" for k = 1..4 and r = 3..2 (4 x 13, `k`-major), then the black and red
joker.

{observation}

## Rewards
`reward="points"` (default): the hand's score when it ends (landlord +-2 N 2^M, farmers -+N 2^M; 0 for a
dead hand), zero-sum. `reward="win"`: +1 to each player of the winning side, -1 to each of the losing
side (not zero-sum). `infos[agent]["score"]` is the hand's score once it ends, 0 before.

## Naming the cards of a move
A move is a rank-count vector, so the rules choose which cards of each rank it takes (the kitty cards first,
then the lowest ids). `env.name_cards(action, cards)` makes the next step, if it is the seat to move playing
`action`, take exactly `cards` (this game's card ids, of the move's ranks, in its hand) instead: every seat's
view then shows those ids played. Botzone's bots (`botzone:COMMAND`) name their cards this way. A step of
another action or seat forgets them; observations and legal moves (which count ranks) are the same either way.

## Reset options
`deck` (17 to each player from the first bidder, then the kitty), `first_bidder`, `landlord`, `bid`.
In the arena's duplicate mode every deal is played with seat 0 as landlord at bid 1 in every seating,
so each agent is landlord of every deal (as DouZero evaluates).

## Version history
* v0: first release.
"""

from __future__ import annotations

import numpy as np

from cardenvs.core import encoding
from cardenvs.core.cards import card_code, make_deck
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.options import Option, fill_docstring

from . import SPEC, determinize, moves, policies, rules
from .rules import HISTORY

LAYOUT = Layout(
    [
        Segment("hand", 54, 1, "own cards"),
        Segment(
            "unseen", 54, 1, "cards this player has not seen (not in own hand, not played, not a known kitty card)"
        ),
        Segment("kitty", 54, 1, "the three kitty cards once shown (zeros during bidding)"),
        Segment("kitty_in_landlord_hand", 54, 1, "kitty cards the landlord still holds (public)"),
        Segment("to_beat", 54, 1, "the move to beat (zeros when leading)"),
        Segment("to_beat_type", 14, 1, "its type, one-hot (moves.TYPES)"),
        Segment("to_beat_main", 15, 1, "its main rank (3..R), one-hot: tells apart readings of one card set"),
        Segment(
            "last_moves",
            2 * 54,
            1,
            "the last action of the next and of the previous player (pass: zeros)",
            shape=(2, 54),
        ),
        Segment(
            "history",
            HISTORY * 54,
            1,
            "the moves of the last 15 turns, most recent first (passes: zeros)",
            shape=(HISTORY, 54),
        ),
        Segment("played", 3 * 54, 1, "cards played by each player (relative seats)", shape=(3, 54)),
        Segment("cards_left", 3, 20, "cards in each hand (relative seats)"),
        Segment("landlord", 3, 1, "who is landlord (relative seats), one-hot; zeros while bidding"),
        Segment("bid", 4, 1, "the current (or final) bid 0..3, one-hot"),
        Segment("bombs", 1, 20, "bombs and rockets played so far"),
        Segment("bidding", 1, 1, "1 during the bidding"),
        Segment(
            "bids",
            3 * 5,
            1,
            "each seat's bid so far (relative seats), one-hot over: not yet (or never: a bid of 3 "
            "ended the bidding, or it was skipped), no bid, 1, 2, 3",
            shape=(3, 5),
        ),
        Segment("bid_position", 3, 1, "the observer's place in the bidding order (0 = first bidder), one-hot"),
    ]
)

# every action's cards in the observation's 54-entry encoding (at-least-k planes, k-major; pass and bids zero)
MOVE_PLANES = np.zeros((moves.NUM_ACTIONS, 54), dtype=np.int8)
MOVE_PLANES[: moves.NUM_MOVES, :52] = (moves.MOVE_COUNTS[:, None, :13] > np.arange(4)[None, :, None]).reshape(-1, 52)
MOVE_PLANES[: moves.NUM_MOVES, 52:] = moves.MOVE_COUNTS[:, 13:15] > 0


class DouDizhuEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option(
            "bidding", True, "bid for the landlord; False: the first bidder is landlord at bid 1", choices=(True, False)
        ),
        Option(
            "rules",
            "standard",
            "the combinations: 'standard' (RULES.md), or 'botzone': Botzone's Fight the Landlord judge exactly "
            "(space shuttles; kickers of distinct ranks; 21,669 more action ids after the bids)",
            choices=moves.RULE_SETS,
        ),
    )
    DEFAULT_REWARD = "points"
    RESET_OPTIONS = ("deck", "first_bidder", "landlord", "bid")
    VARIANTS = {"default": {}, "no_bidding_win": {"bidding": False, "reward": "win"}, "botzone": {"rules": "botzone"}}

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize

    def _configure(self) -> None:
        self.num_players = 3
        self.deck = make_deck(jokers=2)
        self.layout = LAYOUT
        self.num_actions = moves.NUM_ACTIONS_OF[self.config["rules"]]
        self.params = rules.make_params(self.config["bidding"], LAYOUT.starts(), self.config["rules"])

    def _reset_option(self, name: str, low: int, high: int) -> int | None:
        value = self.reset_options.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise ValueError(f"doudizhu_v0: reset option {name}={value!r}; it accepts an integer from {low} to {high}")
        return int(value)

    def _set_reset_params(self, params: np.ndarray) -> None:
        for name, low, high in (("first_bidder", 0, 2), ("landlord", 0, 2), ("bid", 1, 3)):
            value = self._reset_option(name, low, high)
            params[name] = -1 if value is None else value

    def duplicate_reset_options(self, phase: bool = False) -> list[dict]:
        """The arena's duplicate replays: player_0 landlord at bid 1 in every seating (so every agent is
        landlord of every deal, and nobody bids); with ``phase=True`` (the role phase: the bidding) no reset
        options: the agents bid, from the deal's first bidder (drawn from the deal seed, so the same seat in
        every seating)."""
        if phase:
            if not self.config["bidding"]:
                raise ValueError(
                    "doudizhu_v0: duplicate deals with bidding need the option bidding=True "
                    "(bidding=False makes the first bidder landlord at bid 1)"
                )
            return [{}]
        return [{"landlord": 0, "bid": 1}]

    # ------------------------------------------------------------------ named cards
    _named: tuple[int, int, np.ndarray] | None = None  # (seat, action, cards) of name_cards, for the next step

    def name_cards(self, action: int, cards) -> None:
        """Make the next step, if it is the seat to move playing ``action``, take exactly ``cards`` (this
        game's card ids) where the rules would take others of the same ranks (module docstring)."""
        seat = self.agent_name_mapping[self.agent_selection]
        self._named = (seat, int(action), np.asarray(cards, dtype=np.int64))

    def step(self, action: int | None) -> None:
        named, self._named = self._named, None
        if named is None or action is None or int(action) != named[1] or named[0] != self.state.to_move:
            super().step(action)
            return
        seat = int(self.state.to_move)
        before = np.array(self.state.played[seat])
        super().step(action)
        taken = np.flatnonzero(np.asarray(self.state.played[seat]) > before)
        rules.swap_equal_cards(self.state, seat, taken, named[2])

    # ------------------------------------------------------------------ people
    def action_name(self, action: int) -> str:
        return moves.move_string(int(action))

    def parse_action(self, text: str) -> int:
        """``pass``; while bidding ``no bid``, ``1``..``3`` or ``bid N``; else a move string (``33344``, ``333+4``)."""
        t = text.strip().lower()
        legal = set(np.flatnonzero(self._mask).tolist())
        if self.state.bidding:
            if t in ("pass", "no bid", "0", "bid 0"):
                return moves.BID_PASS
            digits = t.replace("bid", "").strip()
            if digits in ("1", "2", "3"):
                action = moves.BID_PASS + int(digits)
                if action not in legal:
                    raise ValueError(f"a bid must be higher than the current bid {self.state.bid}")
                return action
            raise ValueError("bidding: type 'no bid' or a bid 1, 2 or 3")
        if t == "pass":
            if moves.PASS not in legal:
                raise ValueError("you lead this trick: you must play")
            return moves.PASS
        upper = text.strip().upper().replace(" ", "")
        move_id = moves.move_ids(self.config["rules"])
        if upper in move_id:
            action = move_id[upper]
            if action not in legal:
                raise ValueError(f"{upper} is not legal now (not held, or it does not beat the move on the table)")
            return action
        counts = moves.counts_of(upper)
        options = [m for m in moves.readings(counts, self.config["rules"]) if m in legal]
        if not options:
            raise ValueError(f"{text!r} is not a legal move here (not a combination, not held, or too low)")
        if len(options) > 1:
            raise ValueError(
                f"{text!r} reads several ways: "
                + ", ".join(moves.move_string(m) for m in options)
                + " (type one of them)"
            )
        return options[0]

    def _render(self) -> str:
        s = self.state
        ranks = moves.RANK_CHARS
        history = list(zip(s.hist_player[: s.n_hist].tolist(), s.hist_move[: s.n_hist].tolist(), strict=True))
        lines = [
            "Dou Dizhu: "
            + ("bidding, " if s.bidding else "")
            + (f"landlord player_{s.landlord}, bid {s.bid}, " if s.landlord >= 0 and not s.bidding else "")
            + f"bombs {s.bombs} (multiplier x{2**s.bombs})"
        ]
        if not s.bidding and s.landlord >= 0:
            lines.append("  kitty: " + " ".join(card_code(c) for c in s.kitty))
        for p in range(3):
            shown = self.viewer is None or self.viewer == p or self.reveal
            counts = encoding.rank_counts(s.hands[p], moves.RANK_OF_CARD, 15)
            hand = "".join(ranks[r] * c for r, c in enumerate(counts)) if shown else f"{int(counts.sum())} cards"
            role = (
                "landlord"
                if p == s.landlord and not s.bidding
                else ("farmer" if s.landlord >= 0 and not s.bidding else "")
            )
            last = next((moves.move_string(m) for who, m in reversed(history) if who == p), "-")
            lines.append(f"  player_{p} {role:8s}: {hand or '-':22s} last: {last}")
        if s.bidding:
            lines.append(f"  bids so far: {s.bids[: s.n_bids].tolist()}")
        if s.last_move >= 0:
            lines.append(f"  to beat: {moves.move_string(s.last_move)} by player_{s.last_player}")
        if s.dead:
            lines.append("  dead hand: nobody bid")
        elif s.winner >= 0:
            lines.append(f"  player_{s.winner} is out: scores {self._scores().tolist()}")
        else:
            lines.append(f"  to move: player_{s.to_move}")
        return "\n".join(lines)


env, raw_env = make_env_functions(DouDizhuEnv)
__doc__ = fill_docstring(__doc__, DouDizhuEnv, LAYOUT)
