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
That gives 28,237 moves. RLCard's table has 27,472: it has no separate readings of one card set and
allows neither repeated-rank single kickers nor jokers in four-with-two (RULES.md allows both, except
the two jokers together). OpenSpiel's Dou Dizhu has no four-with-two-singles/pairs types at all.
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

## Reset options
`deck` (17 to each player from the first bidder, then the kitty), `first_bidder`, `landlord`, `bid`.
In the arena's duplicate mode every deal is played with seat 0 as landlord at bid 1 in every seating,
so each agent is landlord of every deal (as DouZero evaluates).

## Version history
* v0: first release.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cardenvs.core import encoding
from cardenvs.core.cards import card_code, make_deck
from cardenvs.core.env import CardEnv, Option, fill_docstring, make_env_functions
from cardenvs.core.observation import Layout, Segment
from . import moves, rules

HISTORY = 15


def planes(counts: np.ndarray) -> np.ndarray:
    """Rank counts (15) -> 54 entries: at-least-k planes of 3..2 (shared encoder), then the two jokers."""
    out = np.zeros(54, dtype=np.int8)
    out[:52] = encoding.at_least_planes(counts[:13].astype(np.int8), 4).reshape(-1)
    out[52:] = counts[13:15] > 0
    return out


MOVE_PLANES = np.zeros((moves.NUM_ACTIONS, 54), dtype=np.int8)  # pass and bids stay zero
for _m in range(moves.NUM_MOVES):
    MOVE_PLANES[_m] = planes(moves.MOVE_COUNTS[_m])
FULL_COUNTS = np.array([4] * 13 + [1, 1], dtype=np.int8)

LAYOUT = Layout([
    Segment("hand", 54, 1, "own cards"),
    Segment("unseen", 54, 1, "cards this player has not seen (not in own hand, not played, not a known kitty card)"),
    Segment("kitty", 54, 1, "the three kitty cards once shown (zeros during bidding)"),
    Segment("kitty_in_landlord_hand", 54, 1, "kitty cards the landlord still holds (public)"),
    Segment("to_beat", 54, 1, "the move to beat (zeros when leading)"),
    Segment("to_beat_type", 14, 1, "its type, one-hot (moves.TYPES)"),
    Segment("to_beat_main", 15, 1, "its main rank (3..R), one-hot: tells apart readings of one card set"),
    Segment("last_moves", 2 * 54, 1, "the last action of the next and of the previous player (pass: zeros)", shape=(2, 54)),
    Segment("history", HISTORY * 54, 1, "the moves of the last 15 turns, most recent first (passes: zeros)", shape=(HISTORY, 54)),
    Segment("played", 3 * 54, 1, "cards played by each player (relative seats)", shape=(3, 54)),
    Segment("cards_left", 3, 20, "cards in each hand (relative seats)"),
    Segment("landlord", 3, 1, "who is landlord (relative seats), one-hot; zeros while bidding"),
    Segment("bid", 4, 1, "the current (or final) bid 0..3, one-hot"),
    Segment("bombs", 1, 20, "bombs and rockets played so far"),
    Segment("bidding", 1, 1, "1 during the bidding"),
])


OFFSETS = np.array([LAYOUT.slices[seg.name].start for seg in LAYOUT.segments], dtype=np.int64)
(O_HAND, O_UNSEEN, O_KITTY, O_KITTY_HAND, O_BEAT, O_BEAT_TYPE, O_BEAT_MAIN, O_LAST, O_HISTORY, O_PLAYED, O_LEFT,
 O_LANDLORD, O_BID, O_BOMBS, O_BIDDING) = range(15)


@njit(cache=True)
def _planes_into(obs: np.ndarray, start: int, counts: np.ndarray) -> None:
    """Write the 54-entry encoding of rank counts at ``obs[start:]`` (shared encoder's planes)."""
    block = encoding.at_least_planes(counts[:13].astype(np.int8), 4)
    for k in range(4):
        for r in range(13):
            obs[start + 13 * k + r] = block[k, r]
    obs[start + 52] = 1 if counts[13] > 0 else 0
    obs[start + 53] = 1 if counts[14] > 0 else 0


@njit(cache=True)
def fill_observation(obs, p, hands, played, kitty, kitty_in_hand, kitty_shown, landlord, last_move, bid, bombs,
                     bidding, hist_move, hist_player, hist_n, move_planes, move_type, move_main, rank_of, offsets):
    """Seat ``p``'s observation (the layout above), in one compiled pass."""
    own = encoding.rank_counts(hands[p], rank_of, 15)
    _planes_into(obs, offsets[O_HAND], own)
    seen = own.astype(np.int64)
    for q in range(3):
        seen += encoding.rank_counts(played[q], rank_of, 15)
    if kitty_shown:
        if landlord != p:
            seen += encoding.rank_counts(kitty_in_hand, rank_of, 15)
        kit = np.zeros(54, dtype=np.int8)
        for c in kitty:
            kit[c] = 1
        _planes_into(obs, offsets[O_KITTY], encoding.rank_counts(kit, rank_of, 15))
        _planes_into(obs, offsets[O_KITTY_HAND], encoding.rank_counts(kitty_in_hand, rank_of, 15))
        obs[offsets[O_LANDLORD] + (landlord - p) % 3] = 1
    unseen = np.empty(15, dtype=np.int64)
    for r in range(15):
        unseen[r] = (4 if r < 13 else 1) - seen[r]
    _planes_into(obs, offsets[O_UNSEEN], unseen)
    if last_move >= 0:
        obs[offsets[O_BEAT]:offsets[O_BEAT] + 54] = move_planes[last_move]
        obs[offsets[O_BEAT_TYPE] + move_type[last_move]] = 1
        obs[offsets[O_BEAT_MAIN] + move_main[last_move]] = 1
    found0 = False
    found1 = False
    for k in range(hist_n):
        i = hist_n - 1 - k
        move = hist_move[i]
        if k < 15:
            start = offsets[O_HISTORY] + 54 * k
            obs[start:start + 54] = move_planes[move]
        rel = (hist_player[i] - p) % 3
        if rel == 1 and not found0:
            found0 = True
            obs[offsets[O_LAST]:offsets[O_LAST] + 54] = move_planes[move]
        elif rel == 2 and not found1:
            found1 = True
            obs[offsets[O_LAST] + 54:offsets[O_LAST] + 108] = move_planes[move]
        if k >= 15 and found0 and found1:
            break
    for k in range(3):
        q = (p + k) % 3
        _planes_into(obs, offsets[O_PLAYED] + 54 * k, encoding.rank_counts(played[q], rank_of, 15))
        left = 0
        for c in range(54):
            left += hands[q, c]
        obs[offsets[O_LEFT] + k] = left
    obs[offsets[O_BID] + bid] = 1
    obs[offsets[O_BOMBS]] = min(bombs, 20)
    obs[offsets[O_BIDDING]] = 1 if bidding else 0


class DouDizhuEnv(CardEnv):
    metadata = {"name": "doudizhu_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    OPTIONS = (
        Option("bidding", True, "bid for the landlord; False: the first bidder is landlord at bid 1", choices=(True, False)),
    )
    DEFAULT_REWARD = "points"
    RESET_OPTIONS = ("deck", "first_bidder", "landlord", "bid")
    VARIANTS = {"default": {}, "no_bidding_win": {"bidding": False, "reward": "win"}}

    def _configure(self) -> None:
        self.num_players = 3
        self.deck = make_deck(jokers=2)
        self.layout = LAYOUT
        self.num_actions = moves.NUM_ACTIONS

    def _reset_option(self, name: str, low: int, high: int) -> int | None:
        value = self.reset_options.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise ValueError(f"doudizhu_v0: reset option {name}={value!r}; it accepts an integer from {low} to {high}")
        return int(value)

    def _new_game(self) -> None:
        deck = self._deal()
        first = self._reset_option("first_bidder", 0, 2)
        if first is None:
            first = int(self.dealing_rng(1_000_001).integers(3))
        self.state = rules.deal(deck, first)
        landlord = self._reset_option("landlord", 0, 2)
        bid = self._reset_option("bid", 1, 3)
        if landlord is not None or bid is not None or not self.config["bidding"]:
            rules.make_landlord(self.state, first if landlord is None else landlord, bid or 1)
        self._mask_buffer = np.zeros(self.num_actions, dtype=np.int8)

    def duplicate_reset_options(self) -> list[dict]:
        return [{"landlord": 0, "bid": 1}]

    def _to_move(self) -> int:
        return self.state.to_move

    def _legal_mask(self) -> np.ndarray:
        s = self.state
        if s.dead or s.winner >= 0:
            return np.zeros(self.num_actions, dtype=np.int8)
        return rules.bid_mask(s) if s.bidding else rules.play_mask(s)

    def _apply(self, action: int) -> None:
        if self.state.bidding:
            rules.apply_bid(self.state, action - moves.BID_PASS)
        else:
            rules.apply_play(self.state, action)

    def _is_over(self) -> bool:
        return self.state.dead or self.state.winner >= 0

    def _scores(self) -> np.ndarray:
        return rules.scores(self.state)

    def _win_rewards(self, scores: np.ndarray) -> np.ndarray:
        s = self.state
        if s.dead or s.winner < 0:
            return np.zeros(3)
        landlord_won = s.winner == s.landlord
        return np.array([(1.0 if landlord_won else -1.0) * (1 if p == s.landlord else -1) for p in range(3)])

    def _observe(self, p: int) -> np.ndarray:
        s = self.state
        obs = LAYOUT.zeros()
        fill_observation(obs, p, s.hands, s.played, s.kitty, s.kitty_in_hand, not s.bidding and not s.dead,
                         s.landlord, s.last_move, s.bid, s.bombs, s.bidding, s.hist_move, s.hist_player,
                         len(s.history), MOVE_PLANES, moves.MOVE_TYPE, moves.MOVE_MAIN, moves.RANK_OF_CARD, OFFSETS)
        return obs

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
        if upper in moves.MOVE_ID:
            action = moves.MOVE_ID[upper]
            if action not in legal:
                raise ValueError(f"{upper} is not legal now (not held, or it does not beat the move on the table)")
            return action
        counts = moves.counts_of(upper)
        options = [m for m in moves.readings(counts) if m in legal]
        if not options:
            raise ValueError(f"{text!r} is not a legal move here (not a combination, not held, or too low)")
        if len(options) > 1:
            raise ValueError(f"{text!r} reads several ways: " + ", ".join(moves.move_string(m) for m in options)
                             + " (type one of them)")
        return options[0]

    def _render(self) -> str:
        s = self.state
        ranks = moves.RANK_CHARS
        lines = [f"Dou Dizhu: " + ("bidding, " if s.bidding else "")
                 + (f"landlord player_{s.landlord}, bid {s.bid}, " if s.landlord >= 0 and not s.bidding else "")
                 + f"bombs {s.bombs} (multiplier x{2 ** s.bombs})"]
        if not s.bidding and s.landlord >= 0:
            lines.append("  kitty: " + " ".join(card_code(c) for c in s.kitty))
        for p in range(3):
            shown = self.viewer is None or self.viewer == p or self.reveal
            counts = encoding.rank_counts(s.hands[p], moves.RANK_OF_CARD, 15)
            hand = "".join(ranks[r] * c for r, c in enumerate(counts)) if shown else f"{int(counts.sum())} cards"
            role = "landlord" if p == s.landlord and not s.bidding else ("farmer" if s.landlord >= 0 and not s.bidding else "")
            last = next((moves.move_string(m) for who, m in reversed(s.history) if who == p), "-")
            lines.append(f"  player_{p} {role:8s}: {hand or '-':22s} last: {last}")
        if s.bidding:
            lines.append(f"  bids so far: {s.bids}")
        if s.last_move >= 0:
            lines.append(f"  to beat: {moves.move_string(s.last_move)} by player_{s.last_player}")
        if s.dead:
            lines.append("  dead hand: nobody bid")
        elif s.winner >= 0:
            lines.append(f"  player_{s.winner} is out: scores {rules.scores(s).tolist()}")
        else:
            lines.append(f"  to move: player_{s.to_move}")
        return "\n".join(lines)

    def _card_locations(self) -> np.ndarray:
        return rules.all_cards(self.state)


env, raw_env = make_env_functions(DouDizhuEnv)
__doc__ = fill_docstring(__doc__, DouDizhuEnv, LAYOUT)
