"""# Guandan (`guandan_v0`)

掼蛋: four players in two fixed teams (`player_0` and `player_2` against `player_1` and `player_3`) with two
decks and wild cards; a hand is won by the team whose player goes out first, and levels climb from 2 to A.
Rules and readings: :mod:`cardenvs.games.guandan.rules`; plays, their readings and the action table:
:mod:`cardenvs.games.guandan.moves`.

| | |
|---|---|
| agents | `player_0`, `player_1`, `player_2`, `player_3` |
| actions | `Discrete({num_actions})`: {num_patterns} play patterns, pass, 54 card actions, 81 suit choices |
| observation | `Box` of the segments below (`int8`) and an `int8` mask |
| import | `from cardenvs import guandan_v0` |

## Actions
A play is chosen in one or more decisions of the same seat: first a *pattern* (the reading, the natural
ranks it takes and how many wild cards), then, while which suits its natural cards take is still open, one
suit choice per rank (`suits S1 C0 D1 H0`: how many of each suit of the next open rank). Ranks with one
possible choice are fixed without a decision. Card actions (`card AS`) pay the tribute and give the return;
`pass` passes. `env.action_name(a)` names an action; `env.move_name()` the last play with its cards
(`5S 6S 7S 8S 7H=sf9`). `cardenvs play` takes a whole play as cards (`5S 5C`, `5S 6S 7S 8S 7H=sf9`); while its
suits are asked, the same cards typed again (or a listed suit choice) answer.

## Options
{options}

## Observation
Seats are relative: 0 the observer, 1 the next player, 2 the partner, 3 the previous player. A set of cards
is 54 counts (one per card kind, 0..2 copies). Teams are the observer's (0) and the other (1).

{observation}

## Rewards
`reward="points"` (the default of hand episodes): at the end of each hand +g to each winner and -g to each
loser (g = 3, 2, 1 by the partner's place). `reward="win"` (the default of match episodes): a hand episode
gives +1 to each player of the first finisher's team and -1 to the others; a match +1/-1 by who won it, 0
to everyone when truncated at `max_hands`. `infos[agent]["score"]` is the sum of the agent's hand points.

## Reset options
`deck` (27 cards to each player in seat order; a match takes one deck per hand, at most 16), `first_leader`
(a seat, for a hand with no previous one), and for hand episodes `levels` (two rank codes, team 0's then
team 1's, default `["2", "2"]`), `declarer` (0 or 1, default 0) and `previous_order` (the previous hand's
finishing order, four seats: the declarer is its first seat's team, and the tribute is paid unless
`tribute=False`).

## Version history
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.cards import RANKS, card_code, make_deck, parse_cards
from cardenvs.core.env import CardEnv, make_env_functions
from cardenvs.core.observation import Layout, Segment
from cardenvs.core.options import REWARD_OPTION, Option, fill_docstring

from . import SPEC, determinize, moves, policies, rules, view
from .rules import HISTORY, HISTORY_ENTRY, NUM_CARDS, NUM_KEYS, NUM_KINDS, PLAYERS

LAYOUT = Layout(
    [
        Segment("hand", 54, 2, "own cards"),
        Segment("cards_left", 4, 28, "cards in each hand (relative seats)"),
        Segment("phase", 3, 1, "tribute payment, return, play; one-hot (zeros once over)"),
        Segment("to_beat", 54, 2, "the play to beat (zeros when leading)"),
        Segment("to_beat_kind", NUM_KINDS, 1, "its kind, one-hot (moves.KIND_NAMES)"),
        Segment("to_beat_key", NUM_KEYS, 1, "its key rank (2..A, BJ, RJ, then the level key), one-hot"),
        Segment("to_beat_by", 4, 1, "who made it (relative seats), one-hot"),
        Segment("passes", 1, 3, "passes since it was played"),
        Segment(
            "history",
            HISTORY * HISTORY_ENTRY,
            2,
            f"the last {HISTORY} plays of the hand, newest first: who (relative seat, one-hot), cards, kind and "
            "key (one-hot); zeros before the first",
            shape=(HISTORY, HISTORY_ENTRY),
        ),
        Segment("played", 4 * 54, 2, "cards each seat played this hand (relative seats)", shape=(4, 54)),
        Segment("out_place", 16, 1, "each seat's finishing place once out (relative seats x 4 places)", shape=(4, 4)),
        Segment("levels", 26, 1, "the observer's team's level and the other's, one-hot over 2..A", shape=(2, 13)),
        Segment("hand_level", 13, 1, "the level this hand is played at (so which cards are wild), one-hot"),
        Segment("declarer", 2, 1, "whose level is played: own team, other team"),
        Segment("a_failures", 2, rules.MAX_SHOWN_COUNT, "failed attempts at A: own team, other team"),
        Segment(
            "previous_place",
            16,
            1,
            "the previous hand's finishing places (relative seats x 4 places; after a double both losers "
            "last); zeros without a previous hand",
            shape=(4, 4),
        ),
        Segment(
            "tribute_paid",
            4 * 54,
            1,
            "the tribute card each seat paid, once every payer has paid (one's own at once)",
            shape=(4, 54),
        ),
        Segment(
            "tribute_returned",
            4 * 54,
            1,
            "the card each seat gave back, once every receiver has (one's own at once)",
            shape=(4, 54),
        ),
        Segment("resisted", 1, 1, "1 when the tribute was resisted (the payers hold both red jokers)"),
        Segment("red_jokers", 4, 2, "red jokers shown by each seat at a resistance (relative seats)"),
        Segment("pending_kind", NUM_KINDS, 1, "the observer's own play being chosen: its kind, one-hot"),
        Segment("pending_key", NUM_KEYS, 1, "its key, one-hot"),
        Segment("pending_natural", 15, 8, "its natural cards by rank (2..A, BJ, RJ)"),
        Segment("pending_wilds", 1, 2, "its wild cards"),
        Segment("pending_chosen", 54, 2, "its cards fixed so far"),
        Segment("hands_played", 1, rules.MAX_SHOWN_COUNT, "hands finished in this match"),
    ]
)
assert tuple(s.name for s in LAYOUT.segments) == rules.SEGMENTS


def _rank_index(code: Any, what: str) -> int:
    text = str(code).strip().upper() if isinstance(code, str) else None
    if text == "10":
        text = "T"
    if text is None or len(text) != 1 or text not in RANKS:
        raise ValueError(
            f"guandan_v0: reset option {what}={code!r}; a level is a rank code 2..9, T (or 10), J, Q, K, A"
        )
    return RANKS.index(text)


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < PLAYERS:
        raise ValueError(f"guandan_v0: reset option {what}={value!r}; a seat is an integer from 0 to 3")
    return int(value)


class GuandanEnv(CardEnv):
    SPEC = SPEC  # the env id, metadata["name"], comes from the declaration
    OPTIONS = (
        Option(
            "episode",
            "hand",
            "'hand': one hand is an episode; 'match': hands until a team wins at A (or max_hands)",
            choices=("hand", "match"),
        ),
        Option("max_hands", 100, "a match is truncated after this many hands", low=1, high=10_000),
        Option(
            "hand_levels",
            "two",
            "hand episodes: 'two' plays at 2, 2 (or the reset option levels); 'random' draws each team's level "
            "(2..A) and the declarer from the deal",
            choices=("two", "random"),
        ),
        Option("tribute", True, "tribute and return before every hand after the first", choices=(True, False)),
        Option("joker_fullhouse", True, "a like joker pair may be a full house's pair", choices=(True, False)),
        Option("sf_as_straight", False, "a straight flush may also be played as a straight", choices=(False, True)),
        Option(
            "wilds",
            True,
            "the level rank's two hearts are wild (False: they play as themselves)",
            choices=(True, False),
        ),
        Option("return_rule", "max10", "which card a receiver may give back", choices=rules.RETURN_RULES),
        Option("equal_tribute", "seat", "who gets which of two equal tributes", choices=rules.EQUAL_TRIBUTES),
        Option("a_attempts", 3, "failed attempts at A before a team goes back to 2 (0: never)", low=0, high=99),
        Option("a_win", "not_last", "what wins the match at A: 1-2 or 1-3, or only 1-2", choices=rules.A_WINS),
    )
    RESET_OPTIONS = ("deck", "levels", "declarer", "previous_order", "first_leader")
    #: the match variants stop after two hands (the second with its levels, tribute and return): the generic
    #: tests play every variant to its end many times, and a whole match of random play takes thousands of
    #: moves; ``episode="match"`` alone plays a match to its end (or 100 hands)
    VARIANTS = {
        "default": {},
        "match": {"episode": "match", "max_hands": 2},
        "no_tribute": {"episode": "match", "max_hands": 2, "tribute": False},
        "return_any": {"episode": "match", "max_hands": 2, "return_rule": "any", "equal_tribute": "random"},
        "sf_as_straight": {"sf_as_straight": True, "joker_fullhouse": False},
        "no_wilds": {"wilds": False},
        "random_levels": {"hand_levels": "random"},
    }

    CORE = rules
    POLICY = policies.policy
    DETERMINIZE = determinize.determinize
    # in a match, a search rollout stops at the end of its hand (determinize.horizon)
    HORIZON = (determinize.horizon, determinize.horizon_value)

    @classmethod
    def all_options(cls) -> tuple[Option, ...]:
        reward = Option(
            REWARD_OPTION.name,
            None,
            REWARD_OPTION.doc,
            choices=REWARD_OPTION.choices,
            dynamic_default="'points' for episode='hand', 'win' for episode='match'",
        )
        return cls.OPTIONS + (reward,)

    def _configure(self) -> None:
        c = self.config
        if c["reward"] is None:
            c["reward"] = "points" if c["episode"] == "hand" else "win"
        self.num_players = PLAYERS
        self.deck = make_deck(jokers=2, decks=2)
        self.layout = LAYOUT
        self.num_actions = moves.NUM_ACTIONS
        if c["hand_levels"] == "random" and c["episode"] == "match":
            raise ValueError("guandan_v0: hand_levels='random' is for hand episodes; a match starts at 2, 2")
        self.params = rules.make_params(c, LAYOUT.starts())

    def decks_per_episode(self) -> int | None:
        """A hand deals one deck; a match one per hand, up to ``max_hands``."""
        return 1 if self.config["episode"] == "hand" else int(self.config["max_hands"])

    def _set_reset_params(self, params: np.ndarray) -> None:
        o = self.reset_options
        match = self.config["episode"] == "match"
        for name in ("levels", "declarer", "previous_order"):
            if o.get(name) is None:
                continue
            if match:
                raise ValueError(
                    f"guandan_v0: reset option {name} is for hand episodes; a match starts at 2, 2 with no "
                    "previous hand"
                )
            if self.config["hand_levels"] == "random":
                raise ValueError(
                    f"guandan_v0: reset option {name} beside hand_levels='random', which draws the levels and "
                    "the declarer from the deal"
                )
        levels = o.get("levels")
        if levels is None:
            levels = ["2", "2"]
        if isinstance(levels, str) or not isinstance(levels, (list, tuple)) or len(levels) != 2:
            raise ValueError(
                f"guandan_v0: reset option levels={levels!r}; it takes two rank codes, team 0's then team 1's "
                "(['2', '2'])"
            )
        params["levels"][0] = [_rank_index(code, "levels") for code in levels]
        declarer = o.get("declarer")
        if declarer is not None and (
            isinstance(declarer, bool) or not isinstance(declarer, (int, np.integer)) or declarer not in (0, 1)
        ):
            raise ValueError(f"guandan_v0: reset option declarer={declarer!r}; it takes 0 or 1 (a team)")
        previous = o.get("previous_order")
        params["previous"] = -1
        if previous is not None:
            if isinstance(previous, str) or not isinstance(previous, (list, tuple, np.ndarray)) or len(previous) != 4:
                raise ValueError(
                    f"guandan_v0: reset option previous_order={previous!r}; it takes the four seats in "
                    "finishing order, e.g. [0, 2, 1, 3]"
                )
            seats = [_seat(q, "previous_order") for q in previous]
            if sorted(seats) != [0, 1, 2, 3]:
                raise ValueError(f"guandan_v0: reset option previous_order={previous!r} must name each seat once")
            if declarer is not None and int(declarer) != seats[0] % 2:
                raise ValueError(
                    f"guandan_v0: reset option declarer={declarer!r} contradicts previous_order={previous!r} "
                    f"(the declarer is the first finisher's team, {seats[0] % 2})"
                )
            params["previous"][0] = seats
            declarer = seats[0] % 2
        params["declarer"] = 0 if declarer is None else int(declarer)
        leader = o.get("first_leader")
        params["first_leader"] = -1
        if leader is not None:
            if previous is not None:
                raise ValueError(
                    "guandan_v0: reset option first_leader is for a hand with no previous one; after "
                    "previous_order the leader follows from the tribute (or the previous first finisher leads)"
                )
            params["first_leader"] = _seat(leader, "first_leader")

    # ------------------------------------------------------------------ people
    def action_name(self, action: int) -> str:
        a = int(action)
        if 0 <= a < moves.NUM_PATTERNS:
            return moves.pattern_name(a)
        if a == moves.PASS:
            return "pass"
        if moves.CARD0 <= a < moves.SUIT0:
            return "card " + card_code(a - moves.CARD0)
        if moves.SUIT0 <= a < moves.NUM_ACTIONS:
            code = a - moves.SUIT0
            return "suits " + " ".join(f"{'SCDH'[k]}{(code // 3**k) % 3}" for k in range(4))
        return str(a)

    def move_name(self, index: int = -1) -> str:
        """The play number ``index`` of the hand (default: the last) as its cards and reading (rule 34)."""
        s = self.state
        if not -int(s.n_hist) <= index < int(s.n_hist):
            raise IndexError(f"play {index} of the hand: {int(s.n_hist)} plays so far (a new hand starts with none)")
        i = range(int(s.n_hist))[index]
        cards = [int(c) for c in s.hist_cards[i] if c >= 0]
        return moves.move_name(cards, int(s.hist_pid[i]), int(s.hand_level), int(self.params["flags"][0]))

    #: the cards of the play a person typed, while the env asks for its suit choices (``parse_action``)
    _intended: np.ndarray | None = None

    def parse_action(self, text: str) -> int:
        """``pass``; a card code while paying or returning (``AS``); a play's cards with an optional reading
        (``5S 6S 7S 8S 7H=sf9``), whose suit choices then follow from the same cards (the cards again, or an
        empty string, answers each); or any action's name (``suits S1 C0 D1 H0``)."""
        s = self.state
        t = text.strip()
        legal = [int(a) for a in np.flatnonzero(self._mask)]
        if t.lower() == "pass":
            if moves.PASS not in legal:
                raise ValueError("you lead this trick (or a tribute is due): you may not pass")
            return moves.PASS
        for a in legal:
            if self.action_name(a).lower() == t.lower():
                return a
        if s.phase in (rules.PAY, rules.RETURN):
            try:
                card = parse_cards(t.replace("card", ""))
            except ValueError as exc:
                raise ValueError(f"{text!r}: give one card, e.g. 'AS' ({exc})") from None
            if len(card) != 1 or moves.CARD0 + card[0] not in legal:
                allowed = ", ".join(card_code(a - moves.CARD0) for a in legal)
                raise ValueError(f"{text!r} cannot be given now; the cards allowed: {allowed}")
            return moves.CARD0 + card[0]
        if s.pending >= 0:
            if t and self._intended is None:
                raise ValueError(f"{text!r}: choose the suits: " + ", ".join(self.action_name(a) for a in legal))
            if t:
                self._intended = self._cards_of(t)
            return self._suit_toward(legal)
        p = int(s.to_move)
        pid, cards = moves.parse_move(t, s.hands[p].copy(), int(s.hand_level), int(self.params["flags"][0]))
        if pid not in legal:
            raise ValueError(f"{text!r} is not legal now (it does not beat the play on the table)")
        self._intended = np.bincount(np.asarray(cards, dtype=np.int64), minlength=54).astype(np.int8)
        return int(pid)

    def _cards_of(self, text: str) -> np.ndarray:
        cards = parse_cards(text.split("=")[0])
        return np.bincount(np.asarray(cards, dtype=np.int64), minlength=54).astype(np.int8)

    def _suit_toward(self, legal: list[int]) -> int:
        """The legal suit choice that keeps the pending play's cards within the cards the person typed."""
        s = self.state
        assert self._intended is not None
        for a in legal:
            chosen = s.chosen.copy()
            moves.apply_suit_choice(
                int(s.pending), int(s.hand_level), int(self.params["flags"][0]), chosen, a - moves.SUIT0
            )
            if np.all(chosen <= self._intended):
                return a
        raise ValueError("no suit choice leads to the cards typed; choose: " + ", ".join(map(self.action_name, legal)))

    def _render(self) -> str:
        s = self.states[0]  # fields read as s["name"]: six times faster than the record's attributes
        phase = {rules.PAY: "tribute", rules.RETURN: "return", rules.PLAY: "play", rules.DONE: "over"}[int(s["phase"])]
        levels, failures = s["levels"], s["a_failures"]
        lines = [
            f"Guandan: hand {int(s['hands_played']) + (s['phase'] != rules.DONE)} at level {RANKS[s['hand_level']]} "
            f"(declarer team {int(s['declarer'])}), levels {RANKS[levels[0]]} / {RANKS[levels[1]]}, "
            f"A failures {int(failures[0])} / {int(failures[1])}, {phase}"
        ]
        hands, out_order = s["hands"], s["out_order"][: int(s["n_out"])].tolist()
        for p in range(PLAYERS):
            if self.viewer is None or self.viewer == p or self.reveal:
                hand = " ".join(view.CODES[c] for c in np.repeat(np.arange(NUM_CARDS), hands[p])) or "-"
            else:
                hand = f"{int(hands[p].sum())} cards"
            out = f" (out {out_order.index(p) + 1})" if p in out_order else ""
            lines.append(f"  player_{p} team {p % 2}{out}: {hand}")
        if s["resisted"]:
            lines.append("  tribute resisted (red jokers shown)")
        payers = range(int(s["n_payers"]))
        if s["tribute_shown"]:
            paid = ", ".join(f"player_{s['payers'][i]} {view.CODES[s['paid'][i]]}" for i in payers)
            lines.append(f"  tribute: {paid}")
        if s["returns_shown"]:
            back = ", ".join(f"player_{s['return_seats'][j]} {view.CODES[s['returned'][j]]}" for j in payers)
            lines.append(f"  returned: {back}")
        if s["phase"] == rules.PLAY and s["last_pid"] >= 0:  # a tribute or return has no play to beat
            lines.append(f"  to beat: {self.move_name(int(s['last_play']))} by player_{s['last_player']}")
        if s["status"] == 0:
            lines.append(f"  to move: player_{s['to_move']}")
        else:
            lines.append(f"  {'over' if s['status'] == 1 else 'truncated'}: scores {self._scores().tolist()}")
        return "\n".join(lines)


env, raw_env = make_env_functions(GuandanEnv)
__doc__ = (
    fill_docstring(__doc__, GuandanEnv, LAYOUT)
    .replace("{num_actions}", str(moves.NUM_ACTIONS))
    .replace("{num_patterns}", f"{moves.NUM_PATTERNS:,}")
)
