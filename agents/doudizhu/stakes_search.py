"""``doudizhu.stakes_pimc``: the whole game with bidding, each phase by the agent measured best at it: the bids
of ``doudizhu.dmc_stakes`` (the model trained for the game's points, whose bidder learnt when a hand is worth
taking and at what stake) and the play of ``doudizhu.pimc`` (determinized search with the rule heuristic's
rollouts, :data:`PLAYOUTS` a move), which wins more hands than the stakes model in play alone.

Why not one of them for both: PIMC's own bids, scored by rollouts of the heuristic, lost points against two
``doudizhu.dmc_stakes`` (-0.32 [-0.92, +0.27] a game, 100 deals with bidding, ``--seed 56201``), and the model's
play wins fewer hands than the search against RLCard's rule agent (0.745 / 0.730 as landlord / farmers, the
search 0.815 / 0.820 on the same 200 deals: ``docs/results/trained-doudizhu.md``, "Training for the stakes").
The bidding decisions are told from the observation as the learners tell them (the spec's ``roles.of_observation``,
:func:`cardenvs.games.doudizhu.roles.of_observation`, the role named ``bidder``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardenvs.games.doudizhu import SPEC
from cardenvs.games.doudizhu.roles import of_observation

#: PIMC's rollouts a move in play (about 40 ms of CPU a move here); the bidding is the model's
PLAYOUTS = 5000
BIDDER, PLAYER = "doudizhu.dmc_stakes", f"doudizhu.pimc(playouts={PLAYOUTS})"
#: of_observation's number for a bidding decision: the role the spec names ``bidder``
BIDDING_ROLE = (SPEC.roles.learner_names if SPEC.roles else ()).index("bidder")


class StakesSearchAgent:
    """Bids as :data:`BIDDER`, plays as :data:`PLAYER` (the module's docstring).
    Needs torch for the model (``pip install 'cardenvs[train]'``)."""

    name = "doudizhu.stakes_pimc"
    #: the shipped models it loads (where torch is missing, ``cardenvs play`` and the web app seat random instead)
    models = (BIDDER,)

    def __init__(self, env: Any):
        from cardenvs.agent import load_agent

        self.layout = env.unwrapped.layout
        self.bidder = load_agent(BIDDER, env)
        self.player = load_agent(PLAYER, env)

    def bidding(self, observation: Mapping[str, np.ndarray]) -> bool:
        """Whether ``observation`` is a bidding decision."""
        return int(of_observation(self.layout, np.asarray(observation["observation"])[None])[0]) == BIDDING_ROLE

    def act(self, observation: Mapping[str, np.ndarray], rng: np.random.Generator) -> int:
        agent = self.bidder if self.bidding(observation) else self.player
        return int(agent.act(dict(observation), rng))
