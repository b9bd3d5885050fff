"""Dou Dizhu agents from the field, played in ``doudizhu_v0`` through its public API (the observation dict and
the env's layout), so the arena can seat them beside ours:

* ``doudizhu.rlcard``, also named ``rlcard.rule`` (:data:`ALIASES`): RLCard's rule agent
  (``rlcard.models.doudizhu_rule_models.DouDizhuRuleAgentV1``, the baseline Dou Dizhu papers report), given
  the state dict RLCard's own env would give it (:class:`RLCardRuleAgent`). Needs ``rlcard``
  (``pip install 'cardenvs[rlcard]'``).
* ``douzero:DIR``, an agent kind (``pyproject.toml``): DouZero checkpoints in its published format
  (``landlord.ckpt``, ``landlord_up.ckpt``, ``landlord_down.ckpt``), played through an observation adapter
  written from DouZero's documented features (:class:`DouZeroAgent`, :func:`douzero_features`). Needs torch
  (``pip install 'cardenvs[train]'``).

Beside them, one of ours made of two: ``doudizhu.stakes_pimc`` (:class:`StakesSearchAgent`, :mod:`.stakes_search`)
bids as ``doudizhu.dmc_stakes`` and plays as ``doudizhu.pimc(playouts=5000)``.

Neither RLCard nor DouZero has a bidding: both agents refuse to bid (they declare ``plays_role_phase =
False``, which the arena checks before playing, and a bidding decision is a ``ValueError``). They play the
arena's default duplicate mode (player_0 landlord at bid 1, nobody bids) or an env made with
``bidding=False``; not ``cardenvs arena --bidding`` (``--role-phase``).

Seats: our observation's seats are relative (0 the observer, 1 the next player, 2 the previous). RLCard
numbers the landlord 0 and the players after it 1 and 2; DouZero names them ``landlord``, ``landlord_down``
(plays after the landlord) and ``landlord_up`` (plays before it). Both orders go round the table as ours does.

The agents live in :mod:`.rlcard_rule` and :mod:`.douzero`, over the card conversions of :mod:`.cards`.
"""

from .cards import DECK_COUNTS, RANKS, cards_text, counts_plane, plane_counts
from .douzero import DouZeroAgent, douzero_cards, douzero_features, douzero_network, douzero_position, douzero_reading
from .rlcard_rule import RLCardRuleAgent, rlcard_step, rlcard_tables, rlcard_type
from .stakes_search import StakesSearchAgent

AGENTS = {"rlcard": RLCardRuleAgent, "stakes_pimc": StakesSearchAgent}
#: other names of agents of this module (:mod:`cardenvs.agent`): RLCard's rule agent as the issue names it
ALIASES = {"rlcard.rule": "rlcard"}

__all__ = [
    "AGENTS", "ALIASES", "DECK_COUNTS", "RANKS", "DouZeroAgent", "RLCardRuleAgent", "StakesSearchAgent", "cards_text",
    "counts_plane",
    "douzero_cards", "douzero_features", "douzero_network", "douzero_position", "douzero_reading", "plane_counts",
    "rlcard_step", "rlcard_tables", "rlcard_type",
]  # fmt: skip
