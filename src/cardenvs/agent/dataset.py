"""Fine-tuning data for language-model seats (``cardenvs dataset``): a teacher agent's decisions as chat records.

:func:`seated_position` plays a seeded game to a given step (``cardenvs prompt``); :func:`dataset_records` plays
``games`` seeded games and yields, for each decision of the teacher with more than one legal move (an ``llm:``
seat is never asked about the others), one record::

    {"messages": [system, user, {"role": "assistant", "content": "Final Answer: MOVE"}],
     "legal": [names], "game": ENV_ID, "seed": RESET_SEED, "step": K, "seat": SEAT}

``messages`` is the prompt an ``llm:`` seat gets at that decision (:func:`.prompts.prompt_messages`) and the
teacher's move as the answer, always by its name (:func:`answer_of`): :func:`.prompts.read_answer` reads a name
back as that move, a name of digits too (Dou Dizhu's single ``9`` is the move the game names so, not the id 9).
``legal`` holds the names of the legal moves. ``seed`` is the env reset seed of the game and ``step`` the number
of moves before the decision, so ``env.reset(seed=seed)`` and the same agents, drawing from the stream below,
replay the position. This is the
chat form that Hugging Face ``datasets`` loads (``load_dataset("json", data_files=FILE)``) and TRL's
``SFTTrainer`` trains on.

Seeding follows the arena's (:mod:`cardenvs.core.seeds`): game ``g`` of seed ``S`` is reset with the arena's
deal seed ``seed_from(S, g, stream="arena_deal")`` and every agent of it, teacher and opponents alike, draws in
turn from the one ``generator(S, g, 0, stream="arena_agents")``, so one command writes the same bytes every
time and the same agents replay it. The teacher plays every seat, or, with ``opponents``, seat ``g mod players``
of game ``g`` (every seat in turn) beside the opponents.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.env import legal_actions
from ..core.play import play_on
from ..core.seeds import generator, seed_from
from ..registry import make, resolve_id
from .loader import load_agent
from .prompts import ANSWER_PREFIX, prompt_messages


def _agents(env: Any, names: Sequence[str]) -> list[Any]:
    return [load_agent(name, env) for name in names]


def _reset(env: Any, agents: Sequence[Any], seed: int, game: int) -> np.random.Generator:
    env.reset(seed=seed_from(seed, game, stream="arena_deal"))
    for agent in agents:
        if hasattr(agent, "reset"):
            agent.reset()
    return generator(seed, game, 0, stream="arena_agents")


def seated_position(
    game: str, seed: int, step: int, agents: Sequence[str] = ("random",), options: dict[str, Any] | None = None
) -> tuple[Any, int, dict[str, np.ndarray]]:
    """The env of ``game`` (with ``options``) after ``step`` moves of game 0 of ``seed``, played by ``agents`` (one
    name for every seat, or one per seat), and the seat to move with its observation. ``ValueError`` for an
    unknown game, option or agent, or a step at or past the game's end."""
    env_id = resolve_id(game)
    env = make(env_id, **(options or {}))
    base = env.unwrapped
    names = list(agents) * base.num_players if len(agents) == 1 else list(agents)
    if len(names) != base.num_players:
        raise ValueError(f"{env_id} has {base.num_players} seats: name one agent, or one per seat (got {len(agents)})")
    if step < 0:
        raise ValueError(f"--step must be 0 or more, got {step}")
    players = _agents(env, names)
    rng = _reset(env, players, seed, 0)
    for done in range(step + 1):
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
        if not env.agents:
            raise ValueError(f"game 0 of seed {seed} ends after {done} moves: --step must be below {done}")
        seat = base.agent_name_mapping[env.agent_selection]
        observation = env.observe(env.agent_selection)
        if done == step:
            return base, seat, observation
        env.step(int(players[seat].act(observation, rng)))
    raise AssertionError("unreachable")


def answer_of(base: Any, action: int) -> str:
    """The assistant's answer for ``action``: ``Final Answer:`` and its name (a name of digits, Dou Dizhu's single
    ``9``, is read back as that move, not as an id: :func:`.prompts.read_answer`)."""
    return f"{ANSWER_PREFIX} {base.action_name(int(action))}"


def dataset_records(
    game: str,
    teacher: str,
    games: int,
    seed: int = 0,
    legal: str = "list",
    opponents: str | None = None,
    options: dict[str, Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """The records of ``games`` seeded games of ``teacher`` (module docstring)."""
    env_id = resolve_id(game)
    env = make(env_id, **(options or {}))
    base = env.unwrapped
    n = base.num_players
    teachers = _agents(env, [teacher] * n)
    others = _agents(env, [opponents] * n) if opponents else teachers
    for g in range(games):
        teacher_seats = set(range(n)) if opponents is None else {g % n}
        players = [teachers[s] if s in teacher_seats else others[s] for s in range(n)]
        rng = _reset(env, players, seed, g)
        reset_seed = seed_from(seed, g, stream="arena_deal")
        yield from _game_records(env, players, teacher_seats, rng, legal, reset_seed)


def _game_records(
    env: Any, players: list[Any], teacher_seats: set[int], rng: np.random.Generator, legal: str, reset_seed: int
) -> list[dict[str, Any]]:
    """Play the game ``env`` was reset for to its end (:func:`cardenvs.core.play.play_on`, the one AEC loop); the
    records of the teacher seats' decisions with more than one legal move (the only ones an ``llm:`` seat is
    asked)."""
    base = env.unwrapped
    records: list[dict[str, Any]] = []
    steps = 0

    def choose(seat: int, observation: dict[str, np.ndarray]) -> int:
        nonlocal steps
        legal_ids = [int(a) for a in legal_actions(observation)]
        asked = seat in teacher_seats and len(legal_ids) > 1
        messages = prompt_messages(base, seat, observation, legal) if asked else None
        action = int(players[seat].act(observation, rng))
        if messages is not None:
            messages.append({"role": "assistant", "content": answer_of(base, action)})
            legal_names = [base.action_name(a) for a in legal_ids]
            game = base.metadata["name"]
            records.append(
                {
                    "messages": messages,
                    "legal": legal_names,
                    "game": game,
                    "seed": reset_seed,
                    "step": steps,
                    "seat": seat,
                }
            )
        steps += 1
        return action

    play_on(env, choose)
    return records


def write_dataset(path: str | Path, records: Iterator[dict[str, Any]]) -> int:
    """Write ``records`` as JSON lines to ``path`` (UTF-8, keys in a fixed order); the number written."""
    count = 0
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
