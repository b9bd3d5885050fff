"""``cardenvs play``: a person plays against agents in the terminal.

Each turn shows the ANSI render from the person's seat (every hand with ``reveal``), then the legal moves
with short codes. The person types a move as the game names it (card codes ``QS``, move strings
``33344``, ``pass``, ``high``; whatever the env's ``parse_action`` reads) or its short code ``#n``. Bad
input is answered with the reason and the prompt again; it never ends the game. ``quit`` (or ``exit``, or
the end of the input) leaves the game with a goodbye and exit status 0: leaving is not an error.

:func:`setup_play` checks everything the person chose (game, options, seat, seed, opponents) before the
game starts, raising ``ValueError``; :func:`run_play` plays; :func:`play_terminal` does both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from .agent import load_agent, split_agent_names
from .core.play import play_episode
from .core.seeds import check_seed
from .registry import make, resolve_id


@dataclass
class PlaySession:
    env_id: str
    env: Any
    agents: dict[int, Any]  # seat -> agent, every seat but the person's
    seat: int
    seed: int | None
    reveal: bool


def setup_play(env_id: str, agent_names: str, options: dict, seat: int, seed: int | None, reveal: bool) -> PlaySession:
    """The env and the opponents, every choice checked (``ValueError`` naming the problem)."""
    env_id = resolve_id(env_id)
    env = make(env_id, render_mode="ansi", illegal_action="raise", **options)
    base = env.unwrapped
    n = base.num_players
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"--seat {seat!r} is not a seat of {env_id} with these options (0..{n - 1})")
    seed = check_seed(seed, "--seed")
    names = [a for a in split_agent_names(agent_names) if a] or ["random"]
    others = [s for s in range(n) if s != seat]
    agents = {s: load_agent(names[i % len(names)], base) for i, s in enumerate(others)}
    return PlaySession(env_id, env, agents, int(seat), seed, reveal)


def play_terminal(
    env_id: str,
    agent_names: str,
    options: dict,
    seat: int,
    seed: int | None,
    reveal: bool,
    stdin: IO[str],
    stdout: IO[str],
) -> int:
    return run_play(setup_play(env_id, agent_names, options, seat, seed, reveal), stdin, stdout)


class _Leave(Exception):
    """The person quit or the input closed: the game is left unfinished."""


def run_play(session: PlaySession, stdin: IO[str], stdout: IO[str]) -> int:
    """Play a set-up game to its end, or until the person quits or the input closes: 0 either way."""
    env, agents, seat, seed, reveal = session.env, session.agents, session.seat, session.seed, session.reveal
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    me = base.possible_agents[seat]
    if hasattr(base, "reveal"):
        base.reveal = reveal

    def choose(mover: int, obs: dict) -> int:
        if mover != seat:
            action = agents[mover].act(obs, rng)
            print(f"{base.possible_agents[mover]} plays {base.action_name(action)}", file=stdout)
            return action
        return _ask(base, seat, reveal, obs, stdin, stdout)

    print(f"You are {me} in {session.env_id}. Type a move, its #code, 'help' or 'quit'.", file=stdout)
    try:
        play_episode(env, choose, seed=seed)
    except _Leave:
        print("goodbye: game left unfinished", file=stdout)
        return 0
    scores = base.scores()  # the infos are gone once every agent has been stepped out
    final = ", ".join(
        f"{a} {_number(scores[i])}" + (" (you)" if i == seat else "") for i, a in enumerate(base.possible_agents)
    )
    print("\n" + base.render_text(), file=stdout)
    outcome = base.outcome()
    print(f"game over: scores {final}; your result {outcome[seat]:+.2f}", file=stdout)
    return 0


def _ask(base, seat: int, reveal: bool, obs: dict, stdin: IO[str], stdout: IO[str]) -> int:
    """The person's move: the table from their seat, the legal moves, and prompts until one is accepted."""
    print("\n" + _view(base, seat, reveal), file=stdout)
    legal = np.flatnonzero(obs["action_mask"])
    print("legal: " + "  ".join(f"#{i} {base.action_name(int(a))}" for i, a in enumerate(legal)), file=stdout)
    while True:
        print("> ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:
            print("\ninput closed; leaving the game", file=stdout)
            raise _Leave
        text = line.strip()
        if text.lower() in ("quit", "exit"):
            raise _Leave
        if text in ("help", "?", ""):
            print("type one of the legal moves above, or its #code; quit leaves the game", file=stdout)
            continue
        try:
            if text.startswith("#") and text[1:].isdigit():
                index = int(text[1:])
                if index >= len(legal):
                    raise ValueError(f"#{index} is not a listed code (#0..#{len(legal) - 1})")
                return int(legal[index])
            return base.parse_action(text)
        except ValueError as exc:  # what the person typed; a failing step would be a bug
            print(f"not accepted: {exc}", file=stdout)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _view(base, seat: int, reveal: bool) -> str:
    """The render from one seat; envs that support it take ``viewer`` / ``reveal`` attributes."""
    if hasattr(base, "viewer"):
        base.viewer = seat
    return base.render_text()
