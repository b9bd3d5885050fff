"""The settings of a DMC run (:mod:`cardenvs.training.dmc`): :class:`Args`, read from a YAML config, ``--set``
overrides and flags (:mod:`cardenvs.config`), and checked before anything runs (:func:`parse_args`).
The networks' sizes and input features are :class:`cardenvs.training.dmc_model.Network`'s fields."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cardenvs.config import add_training_flags, read_trainer_config

from .dmc_model import Network, role_names, state_extra

TARGETS = ("win", "points", "margin", "win_points")
#: agents that judge a model and never teach it: never an opponent of the actors, only of evaluations
JUDGE_PREFIXES = ("danzero:", "gdws:")
BACKENDS = ("local", "ray")
LR_SCHEDULES = ("constant", "linear")


@dataclass
class Args(Network):
    """A run's settings (the networks' ones inherited from :class:`Network`)."""

    game: str = ""  # env id or short name (required: a config's game, --set game=..., or cardenvs train GAME)
    exp: str = "dmc"  # experiment name, part of the run name
    seed: int = 1
    options: dict = field(default_factory=dict)  # env options (the game variant); reward is set by target
    target: str = "win"  # the acting seat's return: "win" (+1/-1 per side), "points", "margin", or "win_points":
    # the win (the sign of the points return) plus points_weight times the points (see EpisodeRing)
    points_weight: float = 1 / 3  # win_points: the points' weight (Guandan's hand: 3, 2, 1 levels -> +-1 at most)
    target_scale: float = 1.0  # targets are divided by this (points can be large)
    horizon: int = 0  # points / margin: count the rewards of this many steps from each decision (0: to the end)
    total_frames: int = 100_000_000  # stop after this many learner frames ...
    minutes: float | None = None  # ... or this many minutes of wall time (all sessions of a --resume'd run)
    session_minutes: float | None = None  # this session stops after this many minutes of its own (a long run in
    # sessions: the schedule and the budget stay those of minutes)
    num_envs: int = 256  # games the actor steps together
    rollout_steps: int = 16  # actor steps (of every game) between learner phases
    batch_size: int = 1024  # samples per update (per role)
    learning_rate: float = 3e-4
    lr_schedule: str = "constant"  # "linear": decay to 0 over the budget (the larger of frames and minutes done)
    max_grad_norm: float = 40.0
    epsilon: float = 0.01  # actors' exploration: a uniformly random legal move with this probability
    role_epsilon: dict = field(default_factory=dict)  # a role's own exploration, {bidder: 0.2}: bids are few and
    # the greedy bidder of a warm start would rarely try the others (roles without an entry: epsilon)
    opponent: str | dict | None = None  # an agent that plays some seats of the actors' games: a numba policy
    # ("doudizhu.rule", stepped in numba) or any other agent name ("rlcard.rule", in Python, one game at a time),
    # or a mix {name: weight, ...}: each episode draws one by weight for each opponent seat, and one for every
    # untrained role of the game (the farmers of a landlord run are both RLCard's or both ours)
    opponent_share: float = 0.0  # its weight in the opponent pool (the networks': 1 - share): each seat of each
    # episode is the opponent with this probability (not all seats: a network plays at least one)
    snapshot_minutes: float = 0.0  # every this many minutes a frozen copy of the networks joins the opponent pool
    # (0: never); the snapshots are saved with each checkpoint (snapshots.pt) and come back with --resume
    snapshot_share: float = 0.0  # the snapshots' weight in the pool (shared by the newest max_snapshots): each
    # seat of each episode is a past self with this probability once a snapshot exists
    max_snapshots: int = 5
    train_roles: list | None = None  # networks trained (role names, e.g. [landlord]); the opponent plays every
    # decision of the other roles, and only the listed networks learn (None: every network)
    init_from: str | None = None  # a model.pt whose networks start this run (fresh optimizer and frame count)
    torch_threads: int = 1
    backend: str = "local"  # "local": actors and learner alternate in this process; "ray": actors are Ray actors
    actors: int = 2  # backend ray: how many Ray actors, each playing num_envs games (any number of machines)
    device: str = "cpu"  # the learner's torch device: "cpu", "cuda", "cuda:N" or "auto" (cuda when available)
    eval_minutes: float = 10.0  # minutes between checkpoints + arena evaluations (0: only at the end)
    eval_games: int = 100  # duplicate deals per evaluation
    final_eval_games: int = 500  # duplicate deals of the final evaluation (0: none)
    eval_opponent: str = "random"  # fills every other seat in evaluations
    eval_opponents: list = field(default_factory=list)  # further opponents evaluated against at each checkpoint
    # (eval-only: never an opponent of the actors; --eval-against NAME adds one, e.g. danzero:FILE)
    eval_seats: list = field(default_factory=lambda: [0])  # the model's seats in evaluations ([0, 2]: a partnership)
    eval_options: dict = field(default_factory=dict)  # env options of the evaluations (e.g. bidding: false)
    out: str = "runs"
    resume: bool = False

    @property
    def run_name(self) -> str:
        from cardenvs.registry import short_name

        return f"{short_name(self.game)}__{self.exp}__{self.seed}"


def env_reward(target: str) -> str:
    """The env's ``reward`` option that gives a target's rewards."""
    return "win" if target == "win" else "points"


def check_training_opponents(args: Args) -> None:
    """A ValueError when a judge would teach: an opponent of the actors that is one of the evaluations'
    ``eval_opponents`` (eval-only by definition) or a judge's kind (:data:`JUDGE_PREFIXES`, DanZero and the
    competition's bots: evaluated against, never trained against)."""
    names = list(opponent_weights(args.opponent)) if args.opponent else []
    for name in names:
        if name in args.eval_opponents:
            raise ValueError(f"opponent {name!r} is an eval-only opponent (eval_opponents): never trained against")
        if name.startswith(JUDGE_PREFIXES):
            raise ValueError(f"opponent {name!r} is a judge ({', '.join(JUDGE_PREFIXES)}): evaluate against it only")


def parse_args(argv: Sequence[str] | None) -> Args:
    parser = argparse.ArgumentParser(description="Deep Monte Carlo self-play on a cardenvs game.")
    add_training_flags(
        parser,
        config_help="YAML config (configs/<game>_dmc.yaml)",
        steps_dest="total_frames",
        steps_help="stop after N learner frames, the moves trained on (config total_frames; --total-frames is the "
        "old spelling)",
        minutes_dest="minutes",
        aliases={"steps": ["--total-frames"]},
    )
    parser.add_argument("--num-envs", type=int)
    parser.add_argument(
        "--session-minutes",
        type=float,
        metavar="M",
        help="stop this session after M minutes (config session_minutes; the run's budget stays minutes: continue "
        "it later with --resume)",
    )
    parser.add_argument("--eval-games", type=int)
    parser.add_argument("--final-eval-games", type=int)
    parser.add_argument("--resume", action="store_true", default=None, help="continue OUT/RUN/model.pt")
    # not --backend: cardenvs train's --backend picks the trainer
    parser.add_argument("--ray", dest="backend", action="store_const", const="ray", help="backend: ray (Ray actors)")
    parser.add_argument("--actors", type=int, help="Ray actors with --ray (config actors)")
    parser.add_argument("--device", help="the learner's device: cpu, cuda, cuda:N or auto (config device)")
    parser.add_argument(
        "--eval-against",
        action="append",
        metavar="NAME",
        help="also evaluate against NAME at each checkpoint (repeatable; added to eval_opponents; eval-only, never "
        "an opponent of the actors: a judge such as danzero:FILE)",
    )
    ns = parser.parse_args(argv)
    also = ns.__dict__.pop("eval_against", None)
    flags: tuple[str, ...] = ("total_frames", "minutes", "out", "seed", "num_envs", "eval_games", "final_eval_games")
    flags += ("resume", "backend", "actors", "device", "session_minutes")
    values = read_trainer_config(parser, ns, Args, flags)
    if also:
        values["eval_opponents"] = [*values.get("eval_opponents", []), *also]
    if not isinstance(values.get("eval_opponents", []), list):
        parser.error(f"eval_opponents={values['eval_opponents']!r}: expected a list of agent names")
    for key in ("options", "eval_options"):
        if not isinstance(values.get(key, {}), dict):
            parser.error(f"config key {key} must be a mapping (or {{}} for none)")
    seats = values.get("eval_seats", [0])
    if not isinstance(seats, list) or not seats or not all(isinstance(s, int) and s >= 0 for s in seats):
        parser.error(f"eval_seats={seats!r}: expected a non-empty list of seat indices, such as [0] or [0, 2]")
    if values.get("target", "win") not in TARGETS:
        parser.error(f"target {values['target']!r}: expected one of {', '.join(TARGETS)}")
    if values.get("horizon", 0) and (not isinstance(values["horizon"], int) or values["horizon"] < 0):
        parser.error(f"horizon={values['horizon']!r}: expected an integer >= 0 (0: to the end of the episode)")
    if values.get("horizon", 0) and values.get("target", "win") in ("win", "win_points"):
        parser.error("horizon needs target points or margin (the win target is one reward at the end)")
    if values.get("lr_schedule", "constant") not in LR_SCHEDULES:
        parser.error(f"lr_schedule {values['lr_schedule']!r}: expected one of {', '.join(LR_SCHEDULES)}")
    if values.get("backend", "local") not in BACKENDS:
        parser.error(f"backend {values['backend']!r}: expected one of {', '.join(BACKENDS)}")
    device = values.get("device", "cpu")
    if not isinstance(device, str) or not (device in ("cpu", "auto", "cuda") or device.startswith("cuda:")):
        parser.error(f"device {device!r}: expected cpu, cuda, cuda:N or auto")
    session = values.get("session_minutes")
    if session is not None and (isinstance(session, bool) or not isinstance(session, (int, float)) or session <= 0):
        parser.error(f"session_minutes={session!r}: expected a number of minutes > 0")
    for key in ("num_envs", "rollout_steps", "batch_size", "torch_threads", "actors", "max_snapshots"):
        if key in values and (not isinstance(values[key], int) or values[key] < 1):
            parser.error(f"{key}={values[key]!r}: expected an integer >= 1")
    for key in ("epsilon", "opponent_share", "snapshot_share"):
        if key in values and not (isinstance(values[key], (int, float)) and 0 <= values[key] <= 1):
            parser.error(f"{key}={values[key]!r}: expected a probability in [0, 1]")
    role_epsilon = values.get("role_epsilon", {})
    if not isinstance(role_epsilon, dict) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in role_epsilon.values()
    ):
        parser.error(f"role_epsilon={role_epsilon!r}: expected a mapping {{role: probability in [0, 1]}}")
    if values.get("opponent") is not None:
        try:
            opponent_weights(values["opponent"])
        except ValueError as exc:
            parser.error(str(exc))
    if values.get("opponent_share", 0) + values.get("snapshot_share", 0) >= 1:
        parser.error("opponent_share + snapshot_share must stay below 1 (the networks play the rest of the seats)")
    if (values.get("snapshot_share", 0) > 0) != (values.get("snapshot_minutes", 0) > 0):
        parser.error("snapshot_share and snapshot_minutes go together: both > 0 for past selves, or neither")
    if values.get("snapshot_share", 0) > 0 and values.get("backend", "local") != "local":
        parser.error("snapshots (snapshot_share) need backend local: Ray actors do not take them yet")
    if values.get("opponent_share", 0) > 0 and not values.get("opponent"):
        parser.error("opponent_share > 0 needs an opponent (an agent of the game: cardenvs list shows them)")
    args = Args(**values)
    try:  # before any opponent is loaded: a judge is refused, never started
        check_training_opponents(args)
    except ValueError as exc:
        parser.error(str(exc))
    from cardenvs import make, resolve_id, vector

    if not args.game:
        parser.error("no game: name one with a config's game, --set game=NAME, or cardenvs train GAME")
    try:
        args.game = resolve_id(str(args.game))
        make(args.game, **{**args.options, "reward": env_reward(args.target)})
        evaluated = make(args.game, **{**args.options, **args.eval_options}).unwrapped
        if max(args.eval_seats) >= evaluated.num_players:
            raise ValueError(f"eval_seats={args.eval_seats} names a seat beyond its {evaluated.num_players} players")
        if args.opponent:
            probe = vector.make(args.game, 1, **{**args.options, "reward": env_reward(args.target)})
            probe.reset(seed=0)
            for name in opponent_weights(args.opponent):
                probe.agent_actions(name)
    except ValueError as exc:
        parser.error(f"game {args.game!r} with options {args.options}: {exc}")
    if args.train_roles is not None:
        names = role_names(args.game)
        if not isinstance(args.train_roles, list) or not args.train_roles:
            parser.error(f"train_roles={args.train_roles!r}: expected a list of roles among {', '.join(names)}")
        unknown = [r for r in args.train_roles if r not in names]
        if unknown:
            parser.error(f"train_roles: unknown role {unknown[0]!r} of {args.game} (its roles: {', '.join(names)})")
        if not args.opponent:
            parser.error("train_roles needs an opponent to play the other roles (an agent of the game)")
    unknown_roles = [r for r in args.role_epsilon if r not in role_names(args.game)]
    if unknown_roles:
        parser.error(f"role_epsilon: unknown role {unknown_roles[0]!r} of {args.game} (its roles: "
                     f"{', '.join(role_names(args.game))})")  # fmt: skip
    try:
        state_extra(args.game, args.features)
    except ValueError as exc:
        parser.error(str(exc))
    if args.init_from is not None and args.resume:
        parser.error("init_from starts a new run from a model; --resume continues this run's own: pass one")
    return args


def opponent_weights(opponent: str | dict) -> dict[str, float]:
    """``opponent`` (a name, or a mix ``{name: weight}``) as names and weights; a ValueError names what is wrong."""
    if isinstance(opponent, str):
        return {opponent: 1.0}
    if not isinstance(opponent, dict) or not opponent:
        raise ValueError(f"opponent {opponent!r}: expected an agent name or a mapping {{name: weight}}")
    for name, weight in opponent.items():
        if not isinstance(name, str):
            raise ValueError(f"opponent mix: {name!r} is not an agent name")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ValueError(f"opponent mix: weight {weight!r} of {name!r} must be a number >= 0")
    if sum(opponent.values()) <= 0:
        raise ValueError(f"opponent mix {opponent!r}: no positive weight")
    return {name: float(weight) for name, weight in opponent.items()}


def trained_roles(args: Args) -> np.ndarray:
    """A bool per network of :func:`role_names`: whether this run trains it (``train_roles``)."""
    names = role_names(args.game)
    wanted = names if args.train_roles is None else args.train_roles
    return np.array([name in wanted for name in names])
