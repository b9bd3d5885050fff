"""Search agents over the numba game core: determinized Monte Carlo (PIMC) and information-set MCTS.

API
===
``pimc(state, b, params, *, num_actions, num_players, playouts=None, ms=None, seed=0, threads=1, rollout=0, ...)``
    Perfect-information Monte Carlo for the seat to act in game ``b`` of the batched ``state``: deals
    ``d = 0, 1, ...`` are sampled by :func:`cardenvs.core.kernels.determinize` for that seat (stream
    ``2d`` of ``seed``); on each deal every legal move is applied and the game rolled out to the end with
    the game's numba heuristic ``rollout`` (:func:`kernels.policy`, stream ``2d + 1``, the same for every
    move: common random numbers). The move with the best mean :func:`kernels.outcome` for the seat wins
    (ties: the lower action id). ``playouts`` is the total number of rollouts (each deal costs one per legal
    move, at least one deal); ``ms`` a time limit checked between batches of deals; with neither,
    :data:`DEFAULT_PLAYOUTS`. ``threads > 1`` spreads the deals over cores (``prange``): with a playout
    budget the result does not depend on the thread count. ``counting=False`` (default True) asks the
    determinizer to forget the cards seen (bit :data:`cardenvs.core.kernels.FORGET_SEEN` of a second word
    of its stream array, ``rng[1]``): it deals every card the seat does not hold, as if none had been
    played, to measure what card counting is worth; only games whose determinizer module lists ``"counting"`` in
    ``SEARCH_OPTIONS`` offer it. A game may declare a *horizon* (:func:`cardenvs.core.kernels.horizon`, the
    env's ``HORIZON``): a rollout then stops where the horizon count changes and the position is scored by
    :func:`kernels.horizon_value` (Two Way Street: at the end of the hand, by the match standings, instead of
    playing the rest of the match; a Guandan match: at the end of the hand, by who won it); ``to_end=True`` plays
    to the end anyway.
``ismcts(state, b, params, *, ..., rollout=0, c=DEFAULT_C, trees=1)`` (the other arguments as for ``pimc``)
    Single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012): each iteration
    determinizes (stream ``i`` of the tree's seed), descends the tree choosing among the children whose
    action is legal in this deal by UCB1 with availability counts (``c`` the exploration constant, on the
    outcome scale -1..1), expands one untried legal action, rolls out with the heuristic, and credits each
    node with the outcome of the seat that moved into it. ``trees`` independent trees (root
    parallelization, seeds ``seed + t``) share the ``playouts`` budget; ``threads`` runs them on several
    cores, so with a playout budget the result depends on ``trees`` but not on ``threads``. The move is
    the root child with the most visits (ties: the lower action id).

``pimc_learned(state, b, params, *, num_actions, num_players, model, observation, leaf=True, ...)``
    PIMC guided by a learned model (``model.action_values(obs, ids, counts)``: Q of each legal move, the
    acting seat's expected return after it, as the DMC models of ``training/dmc.py`` give it). On each deal
    every legal move is applied, then with ``leaf`` the other seats reply (heuristic ``rollout``, or the
    model's greedy move with ``rollout=-1``) until the seat is to act again, and the move is worth the
    model's best Q there (the outcome if the game ended first): a one-ply search whose leaves the model
    evaluates over determinizations. Without ``leaf`` the model plays every seat to the end. The model is
    asked once per step for all the games of a batch of deals. ``mix < 1`` (``leaf`` with a heuristic
    ``rollout``) weighs the model's value against the outcome of that heuristic played on from the leaf.
    A model that computes features from the game's state (``reads_state`` true: a DMC model trained with
    ``features: danzero``, Guandan's DanZero 513) is also given the batch of determinized deals (``state=``,
    the rules' own state dtype) and each row's deal (``games=``), and reads the features of the seat to move
    there, which a determinization leaves as they were (that seat's hand and public facts): so
    ``guandan.pimc(leaf=dmc:PATH)``, ``rollout=`` and ``prior=`` work with such a model; observation-only models
    are asked with the observations alone, as before. A deal that ends is worth its outcome, or what the model's
    ``end_values`` makes of it (a DMC model trained on ``win_points``: the win plus a third of the levels, the
    scale of its Q).

Both return a :class:`SearchResult` (``action``, candidate ``actions``, their mean ``values`` and
``visits``, ``playouts`` run, ``seconds``). With ``ms`` only, results depend on the machine's speed.

:class:`SearchAgent` ``(env, method="pimc", **parameters)`` is the agent (``act(observation, rng)``): it reads
the env's current state (``env.unwrapped.core_state()``) only through ``determinize`` for the seat to
act; the search seed of each move mixes ``seed`` with one draw from the caller's ``rng`` (the arena seeds
it), so a game replays exactly under a playout budget. Its parameters (:data:`PARAMETERS`) come from agent
names such as ``doudizhu.pimc(playouts=2000)`` or ``twos.ismcts(ms=50,seed=3)`` (:mod:`cardenvs.agent`).
``GAME.pimc(leaf=dmc)`` and ``GAME.pimc(rollout=dmc)`` use the game's shipped DMC model (and
``GAME.pimc(prior=dmc,top=K)`` runs plain PIMC over the K moves the model values highest in the seat's own
observation; with ``weight=W`` it plays the move whose search value plus W times the model's Q is highest)
(:func:`cardenvs.agent.shipped_models`; ``dmc:PATH`` names another), loaded through
:func:`cardenvs.agent.load_agent` (torch, the ``train`` extra; a clear ``ValueError`` without it), and run
:func:`pimc_learned`; the model's torch threads are torch's setting (``OMP_NUM_THREADS``), not ``threads``.

How a game plugs in: its package registers its rules (:func:`kernels.register_rules`: the generic
``init/to_move/legal_ids/apply/status/outcome/policy`` the search calls) and a determinizer
(``kernels.register_determinize(rules.STATE, determinize)``, contract in :func:`kernels.determinize`). The
agent names ``GAME.pimc`` and ``GAME.ismcts`` then exist for that game (:func:`has_search`); nothing here
names a game, and the numba functions compile once per state dtype (cached).
"""

from .agent import METHODS, PARAMETERS, SearchAgent, describe_parameters, game_policies, has_search, names_model
from .drivers import (
    DEFAULT_C,
    DEFAULT_PLAYOUTS,
    MAX_MS,
    MAX_PLAYOUTS,
    MODEL_ROWS,
    SearchResult,
    check_budget,
    ismcts,
    pimc,
    pimc_learned,
)
from .kernels import determinize_into, determinized, rollout_value, root_moves, seat_to_move

__all__ = [
    "DEFAULT_C",
    "DEFAULT_PLAYOUTS",
    "MAX_MS",
    "MAX_PLAYOUTS",
    "METHODS",
    "MODEL_ROWS",
    "PARAMETERS",
    "SearchAgent",
    "SearchResult",
    "check_budget",
    "describe_parameters",
    "determinize_into",
    "determinized",
    "game_policies",
    "has_search",
    "ismcts",
    "names_model",
    "pimc",
    "pimc_learned",
    "rollout_value",
    "root_moves",
    "seat_to_move",
]
