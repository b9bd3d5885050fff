"""Heuristic agents, one module per game. Each module exports ``AGENTS = {name: class}``; the agent
``GAME.NAME`` is ``agents.GAME.AGENTS[NAME]`` (see :mod:`cardenvs.agent`). Agents use the public env API
only: the observation dict, the env's options and its observation layout."""
