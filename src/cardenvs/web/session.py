"""Games the web app holds: play against agents, watch agents, step through a replay.

A :class:`GameSession` is one game behind one session id. It keeps the deal (env id, options, reset seed
and reset options) and the actions taken, so any position is the env reset and stepped through the first
``k`` actions: *back* rebuilds, *next* steps (a recorded action, or at the end of what was played the
agent to move chooses one). In play mode the person holds one seat; after each of their moves the agents
play until it is the person's turn again or the game is over, and the view is always the person's seat.

For a game whose view draws what was played as cards (a ``fill_plays`` hook, :mod:`.views`), the session
also keeps the cards each action took from its mover's hand (:class:`~cardenvs.core.view.Play`): a second env, dealt
alike, steps through the actions once, and the hand before and after each gives its cards. Played games,
watched games and replays get them the same way, and stepping back only reads them.

Everything a person chooses is checked with ``ValueError`` naming the problem (the app answers 400); a
request that no longer fits the game (a stale or repeated move, a game busy with an earlier request) is a
:class:`Conflict` (409) and changes nothing.

What the web app allows is narrower than the arena's command line, because any page the browser opens can
send it requests: agents only by registered name (:func:`web_agent`), models only from the ``--models``
folder, search agents with at most :data:`WEB_MAX_PLAYOUTS` playouts and :data:`WEB_MAX_MS` a move (every
search move stops at :data:`WEB_MAX_MS`, also when only ``playouts`` is given, and also the search inside an
agent made of several, such as ``doudizhu.stakes_pimc``: :func:`search_parts`). Under load a search move
stops sooner: before each agent move the session asks its ``move_ms`` (the app's
:meth:`~.thinking.Thinking.move_ms`) for the time the move may take now.

The models agents load are shared by every session of the process (:func:`cardenvs.agent.load_agent` keeps one
object per shipped model and env options); what a session holds of its own is its envs, actions and views.
"""

from __future__ import annotations

import secrets
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..agent import load_agent, play_agent, split_agent_names
from ..config import parse_assignment
from ..core import seeds
from ..core.play import play_on
from ..core.seeds import check_seed
from ..core.view import Play
from ..registry import make, resolve_id
from ..replay import Replay, replay_moves
from ..seatview import hand_codes, public_move, table_view
from .views import (
    cards_taken,
    move_cards,
    move_label,
    result_view,
    selection_token,
    shows_plays,
    typed_codes,
)

MODES = ("play", "watch", "replay")
#: the largest search budgets the web app plays: playouts, and milliseconds a move (also the time limit of
#: every search move); the arena takes larger ones
WEB_MAX_PLAYOUTS = 100_000
WEB_MAX_MS = 2_000.0
#: the longest ``options`` and ``agents`` texts a new game takes
MAX_FIELD_CHARS = 1_000


class Conflict(ValueError):
    """A request that is well formed but does not fit the game now (answered 409; nothing changes)."""


def search_parts(agent: Any) -> list[Any]:
    """The search agents (:class:`~cardenvs.search.SearchAgent`) an agent moves with: itself, or those it holds
    as attributes (an agent made of several, such as ``doudizhu.stakes_pimc``'s player)."""
    from ..search import SearchAgent

    if isinstance(agent, SearchAgent):
        return [agent]
    return (
        [part for part in vars(agent).values() if isinstance(part, SearchAgent)] if hasattr(agent, "__dict__") else []
    )


def web_agent(name: str, env: Any, models: str | Path | None = None) -> Any:
    """The agent ``name`` for ``env`` as the web app allows it: a registered name (no ``module:Class``), a
    model kind only with a path inside ``models``, every search it moves with (:func:`search_parts`) within
    the web budgets and stopped at :data:`WEB_MAX_MS` a move. ``ValueError`` saying why otherwise."""
    agent = load_agent(name, env, models_dir=models, registered_only=True)
    for part in search_parts(agent):
        parameters = part.parameters
        playouts, ms = parameters.get("playouts"), parameters.get("ms")
        if (playouts is not None and playouts > WEB_MAX_PLAYOUTS) or (ms is not None and ms > WEB_MAX_MS):
            raise ValueError(
                f"agent {name!r}: the web app plays search agents with at most playouts={WEB_MAX_PLAYOUTS:,} "
                f"and ms={WEB_MAX_MS:,.0f} a move (cardenvs arena takes larger budgets)"
            )
        if ms is None:  # a playout budget alone can take seconds a move: bound each move in time as well
            parameters["ms"] = WEB_MAX_MS
    return agent


def parse_options(text: str) -> dict[str, Any]:
    """``key=value`` pairs separated by commas or new lines, the values read as YAML (``rounds=4,
    exposed_hands=true``)."""
    if len(text) > MAX_FIELD_CHARS:
        raise ValueError(f"the options are longer than {MAX_FIELD_CHARS} characters")
    options: dict[str, Any] = {}
    for part in text.replace("\n", ",").split(","):
        if part.strip():
            key, value = parse_assignment(part.strip(), "option", "rounds=4")
            options[key] = value
    return options


@dataclass
class GameSession:
    mode: str
    env_id: str
    options: dict[str, Any]
    seed: int | None
    reset_options: dict[str, Any]
    agent_names: list[str]  # per seat; "you" for the person's seat
    human: int | None = None
    viewer: int | None = None  # whose view (None: every hand); the person's seat in play mode
    replay: Replay | None = None
    replay_path: str = ""
    actions: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)  # the seat of each action
    cursor: int = 0
    agents: dict[int, Any] = field(default_factory=dict)
    env: Any = None
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    #: the cards each action took from its mover's hand (:meth:`_plays_so_far`), as far as read
    plays: list[Play] = field(default_factory=list, repr=False)
    #: the env the plays are read in: dealt as :attr:`env`, stepped only forward through :attr:`actions`
    plays_env: Any = field(default=None, repr=False)
    #: each search agent's own ``ms`` (by id: :meth:`_act` lowers ``parameters["ms"]`` under load)
    _own_ms: dict[int, float] = field(default_factory=dict, repr=False, compare=False)
    #: the view after the last change, served to readers while a change (an agent thinking) is under way
    shown: dict[str, Any] = field(default_factory=dict, repr=False)
    #: held while the game changes: two requests never step one game at once
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    #: the time a search move may take now, given its agent's own ``ms`` (None: the agent's own)
    move_ms: Callable[[float], float] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def new_game(
        cls,
        mode: str,
        game: str,
        options: dict[str, Any],
        agents: str,
        seat: int | None = None,
        seed: int | None = None,
        models: str | Path | None = None,
        move_ms: Callable[[float], float] | None = None,
    ) -> GameSession:
        """``play``: the person in ``seat``, ``agents`` (comma-separated, cycled) in the other seats;
        ``watch``: ``agents`` in every seat (:func:`web_agent`, models from ``models``); ``move_ms``: the time
        a search move may take now (:attr:`move_ms`). Unknown game, option, agent or seat: ``ValueError``. In
        play mode the agents before the person move here: call it off the event loop."""
        if mode not in ("play", "watch"):
            raise ValueError(f"unknown mode {mode!r}; new games are played (play) or watched (watch)")
        if len(agents) > MAX_FIELD_CHARS:
            raise ValueError(f"the agents are longer than {MAX_FIELD_CHARS} characters")
        env_id = resolve_id(game)
        env = make(env_id, illegal_action="raise", **options)
        base = env.unwrapped
        n = base.num_players
        seed = check_seed(seed, "seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        names = [a for a in split_agent_names(agents) if a] or [play_agent(env_id)[0]]  # the game's, else random
        human = None
        if mode == "play":
            if seat is None or not 0 <= seat < n:
                raise ValueError(f"seat {seat!r} is not a seat of {env_id} with these options (0..{n - 1})")
            human = seat
        others = [s for s in range(n) if s != human]
        built = {s: web_agent(names[i % len(names)], base, models) for i, s in enumerate(others)}
        labels = [names[others.index(s) % len(names)] if s != human else "you" for s in range(n)]
        session = cls(
            mode,
            env_id,
            dict(options),
            seed,
            {},
            labels,
            human=human,
            viewer=human,
            agents=built,
            rng=seeds.generator(seed, stream="web_agents"),
            move_ms=move_ms,
        )
        session.env = env
        env.reset(seed=seed)
        if mode == "play":
            session.play_agents()
        session.shown = session.view()
        return session

    @classmethod
    def from_replay(cls, game: Replay, path: str = "") -> GameSession:
        session = cls(
            "replay",
            game.env_id,
            dict(game.options),
            game.seed,
            dict(game.reset_options),
            list(game.labels or game.agents),
            replay=game,
            replay_path=path,
            actions=game.actions,
            seats=[s.seat for s in game.steps],
        )
        session.env = game.new_env()
        session.shown = session.view()
        return session

    # ------------------------------------------------------------------ state
    @property
    def base(self) -> Any:
        return self.env.unwrapped

    def over(self) -> bool:
        env = self.env
        return not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents)

    def to_move(self) -> int | None:
        return None if self.over() else self.base.agent_name_mapping[self.env.agent_selection]

    def legal(self) -> list[int]:
        return [] if self.over() else [int(a) for a in self.base.legal_actions()]

    def _fresh_env(self) -> Any:
        """The env at the start of this game (the replay's env for a replay)."""
        if self.replay is not None:
            return self.replay.new_env()
        env = make(self.env_id, illegal_action="raise", **self.options)
        env.reset(seed=self.seed, options=self.reset_options or None)
        return env

    def _rebuild(self, k: int) -> None:
        self.env = self._fresh_env()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a replay's recorded illegal action warns
            replay_moves(self.env, self.actions, k)
        self.cursor = k

    def _played(self, seat: int, action: int) -> int:
        """The action to step now: the one played here before when stepping on through them, else ``action``
        (recorded)."""
        if self.cursor < len(self.actions):
            action = self.actions[self.cursor]
        else:
            self.actions.append(action)
            self.seats.append(seat)
        self.cursor += 1
        return action

    def _plays_so_far(self) -> list[Play] | None:
        """The :class:`~.views.Play` of each action before the cursor, read in :attr:`plays_env` the first time
        they are needed (None for a game whose view does not draw plays). The actions only ever grow (back
        keeps them; next replays them), so what was read stays true."""
        if not shows_plays(self.env_id):
            return None
        if self.plays_env is None:
            self.plays_env = self._fresh_env()
        env, base = self.plays_env, self.plays_env.unwrapped
        moved: list[tuple[int, list[str]]] = []

        def choose(seat: int, observation: Any) -> int:
            moved.append((seat, hand_codes(base, seat)))
            return self.actions[len(self.plays)]

        while len(self.plays) < self.cursor:
            moved.clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a replay's recorded illegal action warns
                play_on(env, choose, moves=1)
            if not moved:  # the game ended before this action (cannot happen with a cursor inside the game)
                break
            seat, before = moved[0]
            action = self.actions[len(self.plays)]
            self.plays.append(Play(seat, action, tuple(cards_taken(before, hand_codes(base, seat)))))
        return self.plays[: self.cursor]

    def _step(self, action: int) -> None:
        seat = self.to_move()
        assert seat is not None
        self.env.step(self._played(seat, action))

    # ------------------------------------------------------------------ changing the game
    def change(self, how: Callable[[], None]) -> dict[str, Any]:
        """Run ``how`` (a change of this game) holding the game's lock and return the view after it (also kept
        as :attr:`shown`). A game already changing for another request is a :class:`Conflict` at once, not a
        wait: a double click is refused, and no worker thread waits behind a thinking agent."""
        if not self.lock.acquire(blocking=False):
            raise Conflict("the game is busy with an earlier request (an agent is thinking); wait, then reload")
        try:
            how()
        finally:
            try:
                self.shown = self.view()
            finally:
                self.lock.release()
        return self.shown

    def _check_step(self, step: Any) -> None:
        """A move, next or back names the step it answers (the view's ``step``); a stale or repeated one is
        a :class:`Conflict`."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise ValueError(
                f'name the step this request answers, the view\'s "step" (e.g. {{"step": {self.cursor}, ...}}); '
                f"got {step!r}"
            )
        if step != self.cursor:
            raise Conflict(
                f"this request answers step {step}, but the game is at step {self.cursor} (it was sent twice, "
                "or from an older page); nothing was changed: reload"
            )

    def _act(self, seat: int, observation: Any) -> int:
        """The move of the agent in ``seat``, each of its searches given the time :attr:`move_ms` allows now
        (at most its own ``ms``, which :func:`web_agent` set)."""
        agent = self.agents[seat]
        for part in search_parts(agent):
            own = self._own_ms.setdefault(id(part), part.parameters["ms"])
            part.parameters["ms"] = own if self.move_ms is None else self.move_ms(own)
        return agent.act(observation, self.rng)

    def play_agents(self) -> None:
        """Play mode: the agents move until it is the person's turn or the game is over."""
        play_on(
            self.env,
            lambda seat, observation: self._played(seat, self._act(seat, observation)),
            until=lambda seat: seat == self.human,
        )

    def move(self, action: Any = None, text: Any = None, step: Any = None) -> None:
        """The person's move at ``step``, as an action id or as text the env parses; ``ValueError`` naming the
        legal moves (and nothing changes) when it is not one, :class:`Conflict` when ``step`` is not now."""
        if self.mode != "play":
            raise ValueError(f"this is a {self.mode} session: nobody moves here but the agents; use next and back")
        self._check_step(step)
        if self.over():
            raise ValueError("the game is over; start a new one")
        legal = self.legal()
        names = ", ".join(self.base.action_name(a) for a in legal[:60]) + (" ..." if len(legal) > 60 else "")
        if action is not None:
            if isinstance(action, bool) or not isinstance(action, int):
                raise ValueError(f"action must be an integer action id, got {action!r}; legal moves: {names}")
            if action not in legal:
                raise ValueError(f"action {action} is not a legal move here; legal moves: {names}")
        elif isinstance(text, str) and text.strip():
            try:
                action = self.base.parse_action(typed_codes(text))  # a card typed as the page names it too
            except ValueError as exc:
                raise ValueError(f"{exc}; legal moves: {names}") from None
        else:
            raise ValueError(f'send {{"action": id}} or {{"move": "text"}}; legal moves: {names}')
        self._step(int(action))
        self.play_agents()

    def next(self, step: Any = None) -> None:
        if self.mode == "play":
            raise ValueError("next and back step through watched games and replays; in play mode, move")
        self._check_step(step)
        if self.over():
            raise ValueError("the game is over: no next step")
        if self.cursor < len(self.actions):
            self._step(self.actions[self.cursor])
            return
        seat = self.to_move()
        assert seat is not None
        if seat not in self.agents:  # a replay that stops before its game ends
            raise ValueError(f"the replay ends at step {self.cursor}: no next step")
        self._step(self._act(seat, self.env.observe(self.env.agent_selection)))

    def back(self, step: Any = None) -> None:
        if self.mode == "play":
            raise ValueError("next and back step through watched games and replays; in play mode, move")
        self._check_step(step)
        if self.cursor == 0:
            raise ValueError("this is the start of the game: no step back")
        self._rebuild(self.cursor - 1)

    def goto(self, k: Any) -> None:
        if self.mode == "play":
            raise ValueError("goto steps through watched games and replays")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(self.actions):
            raise ValueError(f"step {k!r} is not in this game (0..{len(self.actions)})")
        self._rebuild(k)

    def set_viewer(self, viewer: Any) -> None:
        if self.mode == "play":
            raise ValueError("in play mode the view is your seat's")
        n = self.base.num_players
        if viewer is not None and (isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < n):
            raise ValueError(f"viewer {viewer!r} is not a seat (0..{n - 1}) or null (every hand)")
        self.viewer = viewer

    # ------------------------------------------------------------------ what the page gets
    def _since_your_move(self, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Play mode: the log's moves after the person's last one (from the start before their first)."""
        if self.mode != "play":
            return []
        yours = [i for i, entry in enumerate(log) if entry["seat"] == self.human]
        return log[yours[-1] + 1 :] if yours else log

    def _legal_moves(self) -> list[dict[str, Any]]:
        """The person's legal moves: id, name (the env parses it), the button's label (:func:`move_label`) and the
        cards each takes from their hand (:func:`move_cards`)."""
        legal = self.legal()
        assert self.human is not None
        cards = move_cards(self.base, self.human, legal)
        return [
            {
                "action": a,
                "move": self.base.action_name(a),
                "label": move_label(self.base, a, cards[a]),
                "cards": cards[a],
            }
            for a in legal
        ]

    def view(self) -> dict[str, Any]:
        base = self.base
        viewer = self.human if self.mode == "play" else self.viewer
        over = self.over()
        out = table_view(base, None if over else viewer, self._plays_so_far())  # at the end, every hand is shown
        to_move = self.to_move()
        your_turn = self.mode == "play" and to_move == self.human
        log = [
            {"seat": s, "agent": self.agent_names[s], "move": public_move(base, s, a, viewer)}
            for s, a in zip(self.seats[: self.cursor], self.actions[: self.cursor], strict=True)
        ]
        last_moves = {entry["seat"]: entry["move"] for entry in log}  # each seat's latest
        for seat in out["seats"]:
            seat["agent"] = self.agent_names[seat["seat"]]
            seat["last"] = last_moves.get(seat["seat"])
            seat["you"] = seat["seat"] == self.human
            seat["to_move"] = seat["seat"] == to_move
            if seat["cards"] is not None:
                seat["tokens"] = [selection_token(out["game"], c) for c in seat["cards"]]
        base.viewer, base.reveal = viewer, over
        try:
            text = base.render_text()
        finally:
            base.viewer, base.reveal = None, False
        outcome = [float(x) for x in base.outcome()] if over else None
        if outcome is not None:  # the zero-sum rewards of the RL envs: the text view only, the page shows scores
            text += "\nresult (zero-sum rewards): " + ", ".join(f"{x:g}" for x in outcome)
        out.update(
            {
                "session": self.id,
                "mode": self.mode,
                "env_id": self.env_id,
                "options": self.options,
                "seed": self.seed if self.mode != "play" or over else None,
                "viewer": viewer,
                "step": self.cursor,
                "steps": len(self.actions),
                "to_move": to_move,
                "over": over,
                "your_turn": your_turn,
                "legal": self._legal_moves() if your_turn else [],
                "log": log,
                "since_your_move": self._since_your_move(log),
                "text": text,
                "outcome": outcome,
                "result": result_view(base) if over else None,
            }
        )
        if self.replay is not None:
            out["replay"] = {
                "path": self.replay_path,
                "final_scores": self.replay.scores,
                "deal": self.replay.deal,
                "seating": self.replay.replay,
                # the language-model seats' decision behind the last move shown (arena --transcripts)
                "transcript": [t for t in self.replay.transcript if t.get("step") == self.cursor - 1],
            }
        return out
