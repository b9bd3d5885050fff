"""Python agents, one module per game: only agents that cannot be a numba policy (Twenty's solvers, the
field's Dou Dizhu agents from RLCard and DouZero). Each module exports ``AGENTS = {name: class}``; the agent
``GAME.NAME`` is ``agents.GAME.AGENTS[NAME]``, and a module's ``ALIASES = {other name: NAME}`` gives some of
them the names the field knows them by (``rlcard.rule``) (see :mod:`cardenvs.agent`). A game's heuristics
are its numba policies (``games/GAME/policies.py``), played in the AEC world by
:class:`cardenvs.agent.PolicyAgent`. Agents here use the public env API (the observation dict, the env's
options and its observation layout), and, to fall back on a numba policy, the env's state."""
