"""What a seat may know, built from what the env let it observe, never from a prompt (the prompt leak tests of
``test_prompts.py``; issue 62 item 9: a check that adds the prompt's own history to what the seat may know passes
a prompt that names every discard).

:class:`SeatKnowledge` follows one game: call :meth:`~SeatKnowledge.see` after the reset and after every step, and
it keeps, for each seat, the union over the game of what its observations show, decoded through the env's layout
(:meth:`cardenvs.core.observation.Layout.decode`) by the game's decoder below, plus its own hand
(:func:`cardenvs.seatview.hand_codes`, the seat's own cards). A seat with memory may know all of it; nothing else.

* ``cards``: the card codes the seat has seen. Where an observation names cards by rank or value only (Dou
  Dizhu's card sets, Twenty's values, War's flips), every code of that rank or value counts as seen: a prompt
  may name a public card's suit, which the observation leaves out.
* A card played face up is seen by every seat: :meth:`~SeatKnowledge.played` adds it, for a game whose
  observation may never show it (Two Way Street deals the next hand inside the step that ends one, so no seat's
  observation shows the last card of a hand's last trick, which every player saw played). Only plays count:
  a discard or a bid stays with its player. War's flips likewise: the flip that settles a battle is gone from
  both observations in the step that makes it, so the face-up cards are read from the state.
* ``phrases``: words of the game that only some seats may see (Two Way Street's duel bids, ``3 high``, and
  discards, ``discard 7C``), as the seat has seen them; :data:`SECRET_PHRASES` says which words each game has.

:func:`leaks` names what a prompt says that its seat has not seen: card codes (any code of the game's deck) and
secret phrases.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from cardenvs.core.cards import RANKS, SUITS
from cardenvs.seatview import hand_codes

TWOS_RANKS = "3456789TJQKA2"  # the Twos line (value 4 * rank + suit)
DOUDIZHU_RANKS = "3456789TJQKA2"  # then the two jokers
JOKERS = ("BJ", "RJ", "JK")
ALL_CODES = {r + s for r in RANKS for s in SUITS} | set(JOKERS)
#: per game, the patterns of words only some seats may see (group 0 is the phrase)
SECRET_PHRASES: dict[str, tuple[str, ...]] = {
    "two_way_street": (r"\b(?:no bid|(?:10|[1-9]) (?:high|low))\b", r"\bdiscard (?:[2-9TJQKA][SCDH]|BJ|RJ|JK)\b"),
}


def _rank_codes(rank: str) -> set[str]:
    return {rank + s for s in SUITS}


def _card_id_code(card: int) -> str:
    """Code of a :mod:`cardenvs.core.cards` id (``4 * rank + suit``, then BJ, RJ, JK)."""
    return RANKS[card // 4] + SUITS[card % 4] if card < 52 else JOKERS[card - 52]


def _ids(*arrays: np.ndarray) -> set[int]:
    """The card ids (last axis) with a count above 0 in any row of ``arrays``."""
    out: set[int] = set()
    for array in arrays:
        out |= {int(i) for i in np.flatnonzero(np.asarray(array).reshape(-1, array.shape[-1]).sum(axis=0) > 0)}
    return out


def _twos(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    values = _ids(parts["hand"], parts["played"])
    return {TWOS_RANKS[v // 4] + SUITS[v % 4] for v in values}, set()


def _two_way_street(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    ids = _ids(parts["hand"], parts["trick"], parts["played"], parts["discarded"], parts["captured"])
    cards = {_card_id_code(c) for c in ids}
    phrases = {f"discard {_card_id_code(c)}" for c in _ids(parts["discarded"], parts["hand"])}
    for bid in (parts["own_bid"], parts["opponent_bid"]):
        if bid.any():
            b = int(np.argmax(bid))
            phrases.add("no bid" if b == 0 else f"{(b - 1) % 10 + 1} {'high' if b <= 10 else 'low'}")
    return cards, phrases


def _guandan(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    history_cards = parts["history"][:, 4:58]  # who (4), cards (54), kind, key
    ids = _ids(
        parts["hand"],
        parts["to_beat"],
        history_cards,
        parts["played"],
        parts["tribute_paid"],
        parts["tribute_returned"],
        parts["pending_chosen"],
    )
    cards = {_card_id_code(c) for c in ids}
    if parts["red_jokers"].any():
        cards.add("RJ")
    if parts["hand_level"].any():  # the level's two hearts are the wilds, named in public
        cards.add(RANKS[int(np.argmax(parts["hand_level"]))] + "H")
    return cards, set()


def _doudizhu(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    """Card sets of 54 entries: "at least k of rank r" (k-major over 13 ranks), then the two jokers; the seat's
    own cards are its hand's codes (``hand`` says only their ranks)."""
    sets = [parts[n] for n in ("kitty", "kitty_in_landlord_hand", "to_beat", "last_moves", "history")]
    sets.append(parts["played"])
    seen = _ids(*[np.asarray(s).reshape(-1, 54) for s in sets])
    cards: set[str] = set()
    for i in seen:
        if i >= 52:
            cards.add(("BJ", "RJ")[i - 52])
        else:
            cards |= _rank_codes(DOUDIZHU_RANKS[i % 13])
    return cards, set()


def _twenty(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    """Values A, 2..9, T (T: any ten-valued card); the seat's own cards are its hand's codes."""
    values = _ids(parts["opponent_hand"], parts["seen"])
    cards: set[str] = set()
    for v in values:
        for rank in "A23456789"[v] if v < 9 else "TJQK":
            cards |= _rank_codes(rank)
    return cards, set()


def _war(parts: dict, base: Any) -> tuple[set[str], set[str]]:
    ranks = _ids(parts["own_last_flip"], parts["opponent_last_flip"])
    return set().union(*[_rank_codes(RANKS[r]) for r in ranks]), set()


DECODERS: dict[str, Callable[[dict, Any], tuple[set[str], set[str]]]] = {
    "twos": _twos,
    "two_way_street": _two_way_street,
    "guandan": _guandan,
    "doudizhu": _doudizhu,
    "twenty": _twenty,
    "war": _war,
}


class SeatKnowledge:
    """What each seat of one game has observed so far (module docstring)."""

    def __init__(self, env: Any):
        self.env = env
        self.base = env.unwrapped
        self.game = self.base.metadata["name"].rsplit("_v", 1)[0]
        self.decode = DECODERS[self.game]
        n = self.base.num_players
        self.cards: list[set[str]] = [set() for _ in range(n)]
        self.phrases: list[set[str]] = [set() for _ in range(n)]

    def played(self, action: int) -> None:
        """Add the card of a face-up play (Two Way Street's plays, War's flips: module docstring) to every seat's
        cards."""
        if self.game == "war":
            for card in self.base.state["last_flip"]:
                if card >= 0:
                    for cards in self.cards:
                        cards.add(_card_id_code(int(card)))
        if self.game == "two_way_street":
            from cardenvs.games.two_way_street import rules

            if rules.PLAY0 <= action < rules.BID0:
                for cards in self.cards:
                    cards.add(_card_id_code(action - rules.PLAY0))

    def see(self) -> None:
        """Add what every seat observes now (call after the reset and after each step)."""
        for seat, agent in enumerate(self.base.possible_agents):
            parts = self.base.layout.decode(self.env.observe(agent)["observation"])
            cards, phrases = self.decode(parts, self.base)
            self.cards[seat] |= cards | set(hand_codes(self.base, seat))
            self.phrases[seat] |= phrases


def leaks(knowledge: SeatKnowledge, seat: int, text: str) -> list[str]:
    """What ``text`` (what a prompt tells of the game: its view and history) names that ``seat`` has not seen:
    card codes, then secret phrases."""
    tokens = set(re.findall(r"[A-Za-z0-9]+", text))
    out = sorted((tokens & ALL_CODES) - knowledge.cards[seat])
    seen = knowledge.phrases[seat]
    for pattern in SECRET_PHRASES.get(knowledge.game, ()):
        out += sorted({m.group(0) for m in re.finditer(pattern, text)} - seen)
    return out
