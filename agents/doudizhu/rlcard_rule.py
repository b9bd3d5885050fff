"""``doudizhu.rlcard`` (``rlcard.rule``): RLCard's Dou Dizhu rule agent, given the state dict RLCard's own env
would give it (:class:`RLCardRuleAgent`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from cardenvs.games.doudizhu import moves

from .cards import DECK_COUNTS, cards_text, decode_parts, landlord_seat, plane_counts

#: RLCard's type names (``solo_chain_5`` is ``solo_chain`` of length 5) -> our move types
RLCARD_TYPES = {
    "solo": moves.SINGLE,
    "pair": moves.PAIR,
    "trio": moves.TRIO,
    "trio_solo": moves.TRIO_SINGLE,
    "trio_pair": moves.TRIO_PAIR,
    "solo_chain": moves.STRAIGHT,
    "pair_chain": moves.PAIR_STRAIGHT,
    "trio_chain": moves.AIRPLANE,
    "trio_solo_chain": moves.AIRPLANE_SINGLES,
    "trio_pair_chain": moves.AIRPLANE_PAIRS,
    "four_two_solo": moves.FOUR_SINGLES,
    "four_two_pair": moves.FOUR_PAIRS,
    "bomb": moves.BOMB,
    "rocket": moves.ROCKET,
}


def _rlcard_modules(name: str) -> tuple[Any, Any]:
    """RLCard's card tables module and rule agent class, or a one-line error naming the extra."""
    try:
        from rlcard.games.doudizhu import utils
        from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"agent {name!r} needs rlcard ({exc.name} is missing): pip install 'cardenvs[rlcard]'"
        ) from None
    return utils, DouDizhuRuleAgentV1


def rlcard_type(type_name: str) -> tuple[int, int]:
    """(our move type, chain length) of an RLCard type name (``trio_solo_chain_3`` -> airplane with singles, 3)."""
    base, _, length = type_name.rpartition("_")
    if length.isdigit():
        return RLCARD_TYPES[base], int(length)
    return RLCARD_TYPES[type_name], 1


@cache
def rlcard_tables() -> tuple[dict[str, int], dict[int, str], dict[str, int], dict[str, str]]:
    """RLCard's move table against ours, built once from RLCard's own tables:

    * ``move_of``: RLCard card string -> our move id of RLCard's reading of it. RLCard gives each card set
      one reading (type, chain length, main rank), and it is one of ours (tests check every one);
    * ``string_of``: the inverse, our move id -> RLCard string, for those moves only (another reading of the
      same cards is a move RLCard does not have);
    * ``order``: RLCard string -> its place in RLCard's type table (type, then rank, then RLCard's list),
      the order RLCard lists the moves that beat a move;
    * ``type_of``: RLCard string -> RLCard's type name."""
    utils, _ = _rlcard_modules("rlcard.rule")
    by_key = {
        (moves.MOVE_COUNTS[m].tobytes(), int(moves.MOVE_TYPE[m]), int(moves.MOVE_LENGTH[m])): m
        for m in range(moves.NUM_MOVES)
    }
    move_of: dict[str, int] = {}
    type_of: dict[str, str] = {}
    for text, readings in utils.CARD_TYPE[0].items():
        type_name = readings[0][0]
        kind, length = rlcard_type(type_name)
        move_of[text] = by_key[(moves.counts_of(text).tobytes(), kind, length)]
        type_of[text] = type_name
    order: dict[str, int] = {}
    for by_rank in utils.TYPE_CARD.values():
        for texts in by_rank.values():
            for text in texts:
                order.setdefault(text, len(order))
    string_of = {m: text for text, m in move_of.items()}
    return move_of, string_of, order, type_of


class _DrawsFrom:
    """Stands in for ``numpy`` inside RLCard's rule module during one decision: its one random draw
    (``np.random.choice`` among the legal actions, when no rule applies) comes from the caller's generator,
    so numpy's global random state is neither read nor changed; everything else is numpy's."""

    def __init__(self, rng: np.random.Generator):
        self.drew = False
        self.random = self
        self._rng = rng

    def choice(self, options: Any) -> Any:
        self.drew = True
        return options[int(self._rng.integers(len(options)))]

    def __getattr__(self, name: str) -> Any:
        return getattr(np, name)


def rlcard_step(rule: Any, state: dict[str, Any], rng: np.random.Generator) -> tuple[Any, bool]:
    """RLCard's rule agent's move on RLCard's ``state``, its random draw (if any) from ``rng``, and whether it
    drew."""
    module = sys.modules[type(rule).__module__]
    draws = _DrawsFrom(rng)
    namespace = vars(module)  # the module's globals: its ``np`` is numpy, from ``import numpy as np``
    saved = namespace["np"]
    namespace["np"] = draws
    try:
        move = rule.step(state)
    finally:
        namespace["np"] = saved
    return move, draws.drew


class RLCardRuleAgent:
    """``doudizhu.rlcard`` (``rlcard.rule``): RLCard's Dou Dizhu rule agent ``DouDizhuRuleAgentV1``, called
    through its public ``step(state)`` on the state RLCard's env would give it, built from our observation:

    * ``current_hand``, ``others_hand`` (the union of the other two hands: the deck less the own hand and
      every played card), ``played_cards`` and ``num_cards_left`` by RLCard seat, ``landlord`` (0) and
      ``self``, as RLCard's env writes them; ``seen_cards``: the kitty cards the landlord still holds;
    * ``trace``: the end of RLCard's trace of (seat, move string or ``"pass"``): the turns our observation's
      history shows (the last 15), from the oldest non-pass move on; ``[]`` before the first move. The rule
      agent reads only whether the trace is empty and its last two entries, which this gives exactly;
    * ``actions``: our legal moves that are RLCard moves (RLCard's reading of their cards), in the order
      RLCard lists them (``pass`` first, then the moves of the type to beat, the rocket, the bombs, each by
      rank and in RLCard's table order), which the rule agent's tie breaks and random choice depend on.

    The returned move string is our move with RLCard's reading of those cards.

    Randomness: the rule agent draws a random legal move (pass included) with ``np.random.choice`` when it
    can neither lead nor follow with the type to beat. During each decision that draw is taken from the
    caller's ``rng`` instead (:func:`rlcard_step`), and numpy's global random state is never used, so a seeded
    arena replays exactly, and decisions that draw nothing leave ``rng`` as they found it.

    Where the games differ:

    * no bidding (the package docstring): asked to bid, it raises ``ValueError``;
    * readings: our table has one action per reading of a card set, RLCard one reading per card set and not
      the 374 airplanes with single kickers from a rank next to the chain (``333444555666+7778``,
      :mod:`cardenvs.games.doudizhu.env`). The agent never plays a move RLCard does not have. When the move
      to beat is one RLCard cannot read (those airplanes) it passes; when it is a reading other than RLCard's
      of its cards (``555666777+888``, which RLCard reads only as four trios), the rule agent looks for
      RLCard's type among our legal answers, finds none and passes or plays a random legal move by its rule.
    """

    name = "doudizhu.rlcard"
    plays_role_phase = False  # RLCard's Dou Dizhu has no bidding (the package docstring)

    def __init__(self, env: Any):
        self.env = getattr(env, "unwrapped", env)
        metadata = getattr(self.env, "metadata", {}) or {}
        if metadata.get("name") != "doudizhu_v0":
            raise ValueError(f"{self.name} plays doudizhu_v0, not {metadata.get('name')}")
        _, agent_class = _rlcard_modules(self.name)
        self.rule = agent_class()
        self.tables = rlcard_tables()

    def state(self, observation: Mapping[str, np.ndarray]) -> dict[str, Any]:
        """RLCard's state dict (``{"raw_obs": ..., "raw_legal_actions": ...}``) for this observation."""
        move_of, string_of, order, type_of = self.tables
        parts = decode_parts(self.env, observation, self.name)
        landlord = landlord_seat(parts)

        def seat(relative: int) -> int:  # RLCard's seat: the landlord 0, then round the table
            return (relative - landlord) % 3

        hand = plane_counts(parts["hand"])
        played = [plane_counts(row) for row in parts["played"]]
        others = DECK_COUNTS - hand - sum(played)
        to_beat = cards_text(plane_counts(parts["to_beat"]))
        history = parts["history"]  # most recent first: row i is relative seat (2 - i) mod 3
        trace: list[tuple[int, str]] = []
        if any(p.any() for p in played):
            oldest = int(np.flatnonzero(history.any(axis=1)).max())
            for i in range(oldest, -1, -1):
                text = cards_text(plane_counts(history[i])) or "pass"
                trace.append((seat((2 - i) % 3), text))
        legal = np.flatnonzero(np.asarray(observation["action_mask"])[: moves.NUM_MOVES])
        strings = [string_of[m] for m in legal.tolist() if m in string_of]
        if to_beat:
            target = type_of.get(to_beat)
            first = ("bomb", "rocket") if target == "bomb" else (target, "rocket", "bomb")
            group = {name: k for k, name in enumerate(first)}
            strings.sort(key=lambda s: (group.get(type_of[s], 3), order[s]))
            actions = ["pass", *strings]
        else:
            actions = sorted(strings, key=order.__getitem__)
        cards_left = [0, 0, 0]
        played_text = ["", "", ""]
        for relative in range(3):
            cards_left[seat(relative)] = int(parts["cards_left"][relative])
            played_text[seat(relative)] = cards_text(played[relative])
        raw = {
            "seen_cards": cards_text(plane_counts(parts["kitty_in_landlord_hand"])),
            "landlord": 0,
            "trace": trace,
            "played_cards": played_text,
            "self": seat(0),
            "current_hand": cards_text(hand),
            "others_hand": cards_text(others),
            "num_cards_left": cards_left,
            "actions": actions,
        }
        return {"raw_obs": raw, "raw_legal_actions": list(actions)}

    def _step(self, state: dict[str, Any], rng: np.random.Generator) -> str:
        move, _ = rlcard_step(self.rule, state, rng)
        return str(move)

    def act(self, observation: Mapping[str, np.ndarray], rng: np.random.Generator) -> int:
        state = self.state(observation)
        to_beat = cards_text(plane_counts(self.env.layout.get(observation["observation"], "to_beat")))
        if to_beat and to_beat not in self.tables[3]:  # a move RLCard cannot read: it cannot answer it
            return moves.PASS
        move = self._step(state, rng)
        mask = np.asarray(observation["action_mask"])
        action = moves.PASS if move == "pass" else self.tables[0].get(move, -1)
        if not 0 <= action < len(mask) or not mask[action]:
            raise RuntimeError(f"{self.name} chose {move!r}, which is not a legal move here")
        return int(action)
