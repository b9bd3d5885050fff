"""Dealing: each deal's deck (:class:`Dealing`, part of :class:`cardenvs.core.env.CardEnv`), stacked by the
``deck`` reset option of every env, parsed and checked here, or shuffled by the dealing generator.

A deck is a list of card codes (``"AS"``, ``"10H"``, ``"BJ"``), top card first, or one string of codes
separated by spaces or commas; ``options["deck"]`` is one deck or a list of decks, one per deal. It may
stack fewer decks than the episode deals (the dealing generator deals the rest) but not more: an episode of
Twos, War or Dou Dizhu deals one deck, a Twenty match one per round (one per pair of rounds with
``swap_deals``), and a Two Way Street match deals until someone reaches the target, so it takes any number
of decks up to the core's stacked limit (:meth:`cardenvs.core.env.CardEnv.decks_per_episode`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import check_permutation, parse_cards
from .rng import deal_deck

FORMS = (
    "a list of card codes ('AS', '10H', 'BJ'), top card first, or one string of codes separated "
    "by spaces or commas; or a list of such decks, one per deal"
)


def is_deck_string(text: str) -> bool:
    """A string of several codes (a whole deck) rather than one card code."""
    return any(sep in text.strip() for sep in (" ", ",", "\t", "\n"))


def parse_decks(deck_option: Any, full_deck: Any, name: str) -> list[np.ndarray]:
    """``options["deck"]`` as one card-id array per stacked deal, each a permutation of ``full_deck``; a
    ``ValueError`` that names ``name`` (the env) and the forms accepted for anything else."""
    forms = FORMS
    if isinstance(deck_option, np.ndarray):
        deck_option = deck_option.tolist()
    if isinstance(deck_option, str):
        raw: list[Any] = [deck_option]
    elif isinstance(deck_option, (list, tuple)):
        if len(deck_option) == 0:
            raise ValueError(f"{name}: options['deck'] is empty; it takes {forms}")
        items = [d.tolist() if isinstance(d, np.ndarray) else d for d in deck_option]
        if all(isinstance(d, str) for d in items):
            whole = [is_deck_string(d) for d in items]
            if all(whole):
                raw = items  # one string per deck
            elif not any(whole):
                raw = [items]  # one deck as a list of codes
            else:
                k = whole.index(True)
                raise ValueError(
                    f"{name}: options['deck'] mixes card codes and whole decks (item {k} is "
                    f"{items[k][:40]!r}...); it takes {forms}"
                )
        else:
            for k, d in enumerate(items):
                if not isinstance(d, (str, list, tuple)):
                    raise ValueError(f"{name}: options['deck'][{k}] is {d!r} ({type(d).__name__}); it takes {forms}")
            if any(isinstance(d, str) and not is_deck_string(d) for d in items):
                raise ValueError(f"{name}: options['deck'] mixes card codes and lists of them; it takes {forms}")
            raw = items
    else:
        raise ValueError(f"{name}: options['deck'] is {deck_option!r} ({type(deck_option).__name__}); it takes {forms}")
    out = []
    for k, deck in enumerate(raw):
        what = "options['deck']" if len(raw) == 1 else f"options['deck'][{k}]"
        if not isinstance(deck, str):
            for i, code in enumerate(deck):
                if not isinstance(code, str):
                    raise ValueError(
                        f"{name}: {what}[{i}] is {code!r} ({type(code).__name__}); card codes "
                        "are strings such as 'AS' or '10H'"
                    )
        try:
            cards = parse_cards(deck)
        except ValueError as exc:
            raise ValueError(f"{name}: {what}: {exc}") from None
        check_permutation(cards, full_deck, what)
        out.append(np.asarray(cards, dtype=np.int64))
    return out


def check_deck_count(stacked: int, dealt: int | None, limit: int | None, config: dict[str, Any], name: str) -> None:
    """``stacked`` decks fit an episode that deals ``dealt`` (None: as many as it needs) and the core's
    ``limit`` (None: no limit); a ``ValueError`` naming ``name`` (the env) and its ``config`` else."""
    if dealt is not None and stacked > dealt:
        which = ", ".join(f"{k}={config[k]!r}" for k in ("rounds", "swap_deals") if k in config)
        raise ValueError(
            f"{name}: options['deck'] holds {stacked} decks but an episode"
            f"{f' with {which}' if which else ''} deals {dealt} deck{'s' if dealt != 1 else ''}; "
            f"stack at most {dealt}"
        )
    if limit is not None and stacked > limit:
        raise ValueError(
            f"{name}: options['deck'] holds {stacked} decks; an episode deals as many as it "
            f"needs, but at most {limit} can be stacked"
        )


class Dealing:
    """The part of :class:`cardenvs.core.env.CardEnv` that deals: deal ``k`` of an episode is the ``k``-th
    stacked deck if given, else the dealing generator's shuffle of ``(deal seed, k)``."""

    # what the env sets up (CardEnv's construction and reset, the game's _configure)
    config: dict[str, Any]
    deck: np.ndarray
    metadata: dict[str, Any]
    _stacked: list[np.ndarray]
    _deal_count: int
    _deal_seed: int

    def decks_per_episode(self) -> int | None:
        """How many decks an episode deals, so how many ``options["deck"]`` may stack; None: as many as the
        episode needs (a match to a target score), up to the core's stacked limit.

        The default reads the options: a ``rounds`` option deals one deck per round (per pair of rounds with
        ``swap_deals``, which deals each deck twice), a ``target`` option deals until someone reaches it
        (None), anything else deals one deck. A game that deals otherwise overrides this."""
        c = self.config
        if "rounds" in c:
            return c["rounds"] // 2 if c.get("swap_deals") else c["rounds"]
        if "target" in c:
            return None
        return 1

    def _stacked_limit(self) -> int | None:
        """How many decks the numba core's params can hold (None: no core, no limit)."""
        params = getattr(self, "params", None)
        if params is None or "stacked" not in (params.dtype.names or ()):
            return None
        return int(params["stacked"].shape[1])

    def _stacked_decks(self, deck_option: Any) -> list[np.ndarray]:
        """``options["deck"]`` parsed and checked against what an episode deals (:mod:`cardenvs.core.decks`)."""
        name = self.metadata["name"]
        stacked = parse_decks(deck_option, self.deck, name)
        check_deck_count(len(stacked), self.decks_per_episode(), self._stacked_limit(), self.config, name)
        return stacked

    def _deal(self) -> np.ndarray:
        """The next deal's deck, top card first: stacked if given, else shuffled by the dealing generator."""
        k = self._deal_count
        self._deal_count += 1
        if k < len(self._stacked):
            return self._stacked[k].copy()
        out = np.empty_like(self.deck)
        deal_deck(self.deck, np.uint64(self._deal_seed), k, out)
        return out
