"""``cardenvs play``: a person plays against agents in the terminal.

Each turn shows the ANSI render from the person's seat (every hand with ``reveal``), then the legal moves
with short codes. The person types a move as the game names it (card codes ``QS``, move strings
``33344``, ``pass``, ``high``; whatever the env's ``parse_action`` reads) or its short code ``#n``. Bad
input is answered with the reason and the prompt again; it never ends the game.
"""
from __future__ import annotations

from typing import IO

import numpy as np

from .agent import load_agent
from .registry import make


def play_terminal(env_id: str, agent_names: str, options: dict, seat: int, seed: int | None, reveal: bool,
                  stdin: IO[str], stdout: IO[str]) -> int:
    env = make(env_id, render_mode="ansi", illegal_action="raise", **options)
    base = env.unwrapped
    n = base.num_players
    if not 0 <= seat < n:
        raise ValueError(f"--seat {seat} is not a seat of {env_id} with these options (0..{n - 1})")
    names = [a.strip() for a in agent_names.split(",") if a.strip()] or ["random"]
    others = [s for s in range(n) if s != seat]
    agents = {s: load_agent(names[i % len(names)], base) for i, s in enumerate(others)}
    rng = np.random.default_rng(seed)
    me = base.possible_agents[seat]
    if hasattr(base, "reveal"):
        base.reveal = reveal
    env.reset(seed=seed)
    print(f"You are {me} in {env_id}. Type a move, its #code, 'help' or 'quit'.", file=stdout)
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if name != me:
            action = agents[base.agent_name_mapping[name]].act(obs, rng)
            print(f"{name} plays {base.action_name(action)}", file=stdout)
            env.step(action)
            continue
        print("\n" + _view(base, seat, reveal), file=stdout)
        legal = np.flatnonzero(obs["action_mask"])
        print("legal: " + "  ".join(f"#{i} {base.action_name(int(a))}" for i, a in enumerate(legal)), file=stdout)
        while True:
            print("> ", end="", file=stdout, flush=True)
            line = stdin.readline()
            if not line:
                print("\ninput closed; leaving the game", file=stdout)
                return 1
            text = line.strip()
            if text in ("quit", "exit"):
                return 1
            if text in ("help", "?", ""):
                print("type one of the legal moves above, or its #code", file=stdout)
                continue
            try:
                if text.startswith("#") and text[1:].isdigit():
                    index = int(text[1:])
                    if index >= len(legal):
                        raise ValueError(f"#{index} is not a listed code (#0..#{len(legal) - 1})")
                    action = int(legal[index])
                else:
                    action = base.parse_action(text)
                env.step(action)
                break
            except ValueError as exc:
                print(f"not accepted: {exc}", file=stdout)
    final = {a: base.infos.get(a, {}).get("score") for a in base.possible_agents}
    print("\n" + base._render(), file=stdout)
    outcome = base.outcome()
    print(f"game over: scores {final}; your result {outcome[seat]:+.2f}", file=stdout)
    return 0


def _view(base, seat: int, reveal: bool) -> str:
    """The render from one seat; envs that support it take ``viewer`` / ``reveal`` attributes."""
    if hasattr(base, "viewer"):
        base.viewer = seat
    return base._render()
