"""``cardenvs play``: people play against agents (or with them) in the terminal.

Each turn shows the ANSI render from the person's seat (every hand with ``reveal``), then the legal moves
with short codes. The person types a move as the game names it (card codes ``QS``, move strings
``33344``, ``pass``, ``high``; whatever the env's ``parse_action`` reads) or its short code ``#n``. Bad
input is answered with the reason and the prompt again; it never ends the game. ``quit`` (or ``exit``, or
the end of the input) leaves the game with a goodbye and exit status 0: leaving is not an error.

Several people may share one terminal (``--humans 0,2``): agents take the other seats. Before a person's turn
that follows another person's, the screen is cleared (on a terminal) and asks to pass the keyboard; nothing
of that person's hand is shown until they press Enter, and the moves printed meanwhile are what every seat
may see (the game view's ``public_move``), repeated to each person when their turn comes.

:func:`setup_play` checks everything the people chose (game, options, seats, seed, agents) before the
game starts, raising ``ValueError``; :func:`run_play` plays; :func:`play_terminal` does both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from .agent import load_agent, play_agent, split_agent_names
from .core.play import play_episode
from .core.seeds import check_seed
from .registry import make, resolve_id
from .seatview import public_move

#: the viewer of what is printed for everyone at a terminal several people share: no seat, so a game view's
#: ``public_move`` hides what only the mover may see
NOBODY = -1
CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"  # home, clear the screen and the scrollback


@dataclass
class PlaySession:
    env_id: str
    env: Any
    agents: dict[int, Any]  # seat -> agent, every seat but the people's
    humans: tuple[int, ...]  # the seats people play, in seat order
    seed: int | None
    reveal: bool
    #: per person, the moves printed since their last turn (several people: shown again when their turn comes)
    unseen: dict[int, list[str]] = field(default_factory=dict)
    #: why the game's play agent is not seated where no agent was named (None: it is, or agents were named)
    note: str | None = None

    @property
    def seat(self) -> int:
        """The first person's seat (the only one when one person plays)."""
        return self.humans[0]


def _seats(seat: int | Sequence[int], n: int, env_id: str) -> tuple[int, ...]:
    seats = [seat] if isinstance(seat, (int, np.integer)) else list(seat)
    flag = "--seat" if isinstance(seat, (int, np.integer)) else "--humans"
    if not seats:
        raise ValueError(f"{flag}: no seat given")
    for s in seats:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s < n:
            raise ValueError(f"{flag} {s!r} is not a seat of {env_id} with these options (0..{n - 1})")
    if len(set(seats)) < len(seats):
        raise ValueError(f"{flag}: seat {next(s for s in seats if seats.count(s) > 1)} is given twice")
    return tuple(sorted(int(s) for s in seats))


def setup_play(
    env_id: str, agent_names: str | None, options: dict, seat: int | Sequence[int], seed: int | None, reveal: bool
) -> PlaySession:
    """The env and the agents, every choice checked (``ValueError`` naming the problem). ``seat``: the person's
    seat, or the seats of the people sharing the terminal; the agents named are cycled over the other seats."""
    env_id = resolve_id(env_id)
    env = make(env_id, render_mode="ansi", illegal_action="raise", **options)
    base = env.unwrapped
    n = base.num_players
    humans = _seats(seat, n, env_id)
    seed = check_seed(seed, "--seed")
    names = [a for a in split_agent_names(agent_names or "") if a]
    note = None
    if not names:  # none named: the agent the game declares for people to play against (its spec's play_agent)
        default, note = play_agent(env_id)
        names = [default]
    others = [s for s in range(n) if s not in humans]
    agents = {s: load_agent(names[i % len(names)], base) for i, s in enumerate(others)}
    return PlaySession(env_id, env, agents, humans, seed, reveal, note=note)


def play_terminal(
    env_id: str,
    agent_names: str,
    options: dict,
    seat: int | Sequence[int],
    seed: int | None,
    reveal: bool,
    stdin: IO[str],
    stdout: IO[str],
) -> int:
    return run_play(setup_play(env_id, agent_names, options, seat, seed, reveal), stdin, stdout)


class _Leave(Exception):
    """A person quit or the input closed: the game is left unfinished."""


def run_play(session: PlaySession, stdin: IO[str], stdout: IO[str]) -> int:
    """Play a set-up game to its end, or until a person quits or the input closes: 0 either way."""
    env, agents, humans, seed, reveal = session.env, session.agents, session.humans, session.seed, session.reveal
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    names = base.possible_agents
    shared = len(humans) > 1
    if hasattr(base, "reveal"):
        base.reveal = reveal
    at_keyboard = humans[0]
    session.unseen = {h: [] for h in humans}

    def tell(mover: int, action: int) -> None:
        """A move as the people may see it: printed now, and kept for the people who are not at the keyboard."""
        line = f"{names[mover]} plays {public_move(base, mover, action, NOBODY if shared else humans[0])}"
        if mover not in humans or shared:
            print(line, file=stdout)
        for h in humans:
            if h != at_keyboard:
                session.unseen[h].append(line)

    def choose(mover: int, obs: dict) -> int:
        nonlocal at_keyboard
        if mover not in humans:
            action = agents[mover].act(obs, rng)
            tell(mover, action)
            return action
        if mover != at_keyboard:
            _pass_keyboard(names[mover], stdin, stdout)
            at_keyboard = mover
            if session.unseen[mover]:
                print("since your last turn: " + "; ".join(session.unseen[mover]), file=stdout)
        session.unseen[mover] = []
        action = _ask(base, mover, reveal, obs, stdin, stdout, names[mover] if shared else None)
        if shared:
            tell(mover, action)
        return action

    if shared:
        people = ", ".join(names[h] for h in humans)
        print(
            f"{people} share this terminal in {session.env_id}; {names[humans[0]]} starts at the keyboard.", file=stdout
        )
        print("Type a move, its #code, 'help' or 'quit'.", file=stdout)
    else:
        print(f"You are {names[humans[0]]} in {session.env_id}. Type a move, its #code, 'help' or 'quit'.", file=stdout)
    try:
        play_episode(env, choose, seed=seed)
    except _Leave:
        print("goodbye: game left unfinished", file=stdout)
        return 0
    scores = base.scores()  # the infos are gone once every agent has been stepped out
    final = ", ".join(
        f"{a} {_number(scores[i])}" + (" (you)" if i in humans and not shared else "") for i, a in enumerate(names)
    )
    if shared and hasattr(base, "viewer"):
        base.viewer = None  # the game is over: every hand may be shown
    print("\n" + base.render_text(), file=stdout)
    outcome = base.outcome()
    if shared:
        results = ", ".join(f"{names[h]} {outcome[h]:+.2f}" for h in humans)
        print(f"game over: scores {final}; results {results}", file=stdout)
    else:
        print(f"game over: scores {final}; your result {outcome[humans[0]]:+.2f}", file=stdout)
    return 0


def _pass_keyboard(name: str, stdin: IO[str], stdout: IO[str]) -> None:
    """Clear the screen (on a terminal) and wait until ``name`` has the keyboard: nothing of their hand before."""
    if stdout.isatty():
        print(CLEAR_SCREEN, end="", file=stdout)
    print(f"\npass the keyboard to {name}; {name}, press Enter when only you can see the screen", file=stdout)
    line = stdin.readline()
    if not line:
        print("\ninput closed; leaving the game", file=stdout)
        raise _Leave
    if line.strip().lower() in ("quit", "exit"):
        raise _Leave


def _ask(base, seat: int, reveal: bool, obs: dict, stdin: IO[str], stdout: IO[str], name: str | None) -> int:
    """The person's move: the table from their seat, the legal moves, and prompts until one is accepted.
    ``name``: the prompt names the seat (several people share the terminal)."""
    print("\n" + _view(base, seat, reveal), file=stdout)
    legal = np.flatnonzero(obs["action_mask"])
    print("legal: " + "  ".join(f"#{i} {base.action_name(int(a))}" for i, a in enumerate(legal)), file=stdout)
    prompt = f"{name}> " if name else "> "
    while True:
        print(prompt, end="", file=stdout, flush=True)
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
