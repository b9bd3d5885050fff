"""Luck and skill, measured: ``cardenvs analyze skill GAME`` plays a ladder of agents on duplicate deals and
splits the outcome variance into the agents and the deal, with 95% intervals.

The yardstick is a ladder of agents (default: the game's declaration, ``GameSpec.skill_ladder``; rising
strength: random, the heuristic, search at two budgets, the shipped trained model), not human play: a game
in which these agents differ little may still reward human skill the agents do not have.

Design. The ladder's agents play the arena's duplicate deals (:func:`cardenvs.arena.plan_tournament`; the
vector engine whenever a table's agents act on batches). With ``L`` agents and ``n`` seats: every table of
``n`` agents out of the ``L`` when ``L >= n``; else ``L`` tables, table ``t`` seating agent ``(s + t) mod L``
in seat ``s``. Each deal is replayed over the arena's seatings (every permutation up to 3 players, the
rotations beyond) and its duplicate reset options. Either way every agent holds every *hand* (a deal's seat
under one of its reset options) equally often, ``r`` times, so the games form a balanced two-way layout,
hands x agents with ``r`` games per cell, and the split below is exact.

Measures (the outcome ``y`` of a seat is the env's win-scale result, :meth:`CardEnv.outcome`):

* Variance split. Deals are the independent units (the seats of a game, and the games of a deal, are
  tied: a zero-sum game's results cancel). The agents' effect is tested against the agent x deal
  interaction, the right error term whatever ties the games of a deal: ``var_agent = (A - 1) / A x
  (MS_agent - MS_agent_x_deal) / (D h r)`` (``D`` deals of ``h`` hands, ``r`` games per hand and agent) is
  an unbiased estimate of the variance the agents' mean results add to a seat's result. The *skill share*
  is ``var_agent`` over the outcome variance (``SS_total / N``); it comes out near 0, below 0 as often as
  above, in a game without skill (the plain share of the sums of squares, ``eta2_agent``, cannot). The
  *deal share* is the hands' share of the sums of squares (the cards held: each hand's mean over its games,
  so it also holds the noise of that mean, as the coin-flip row shows; with two players and two agents a
  hand is played twice and nothing is left to estimate that noise from, so compare deal shares only between
  option sets played the same way); the rest is which hand suits which agent, the agents' own draws and
  the opponents' replies.
* Ratings: Bradley-Terry on every pair of seats of every game (a finished ahead of b; ties half), on the
  Elo scale (400 log10 odds), centred at 0, with half a win each way per pair that met as a prior so an
  agent that never wins keeps a finite rating. ``spread``: their standard deviation (Duersch, Lambrecht and
  Oechssler's measure); ``gap``: the last ladder agent's rating minus the first's (signed).
* Order: the ladder is declared in rising strength, which nothing guarantees (a search may lose to the
  heuristic it rolls out with). The report ranks the agents by rating and lists every pair rated against
  the declared order, with the difference's interval (``clear`` when it lies below 0).
* Games to 95%: for each neighbouring pair of the ladder and for the last against the first, the per-game
  difference ``x = y(stronger) - y(weaker)`` over the games both played; the number of games after which
  the stronger agent is ahead with 95% probability (normal approximation): ``n = (1.645 sd / mean)^2``, with
  ``sd`` over duplicate deals (``deals``: each a full duplicate set) and over single games (``games``);
  none when the mean is not above 0.
* Calibration: the same measures on the same games with every result replaced by a coin flip (the seats'
  results permuted at random: ``keep`` 0) and with a share ``1 - keep`` replaced (the "x%-game" of Duersch
  et al.'s "x%-chess", x = 100 keep), so the reader can place the game: the mean over 20 draws of the flips
  and the range of 95% of the draws (how far such a game strays at this size by chance alone).

* Relative skill (``--relative-skill``; Borm and van der Genugten's measure, :mod:`.relative` states it):
  a beginner, the best agent and a fictive player who knows the chance outcomes (a cheating agent such as
  ``GAME.pimc(oracle=true)``), each in one seat against the same field on the same duplicate deals;
  ``RS = LE / (LE + CE)`` with learning effect ``LE`` = best minus beginner and chance effect ``CE`` =
  fictive minus best, 0 where neither effect exists (War). The players are the game's declaration
  (``GameSpec.relative_skill``) or ``--relative-players``; ``--relative-only`` plays them without the ladder.

Intervals (except the calibration's): percentile bootstrap over deals (each deal with all its games, so
the duplicate structure stays), ``--bootstrap`` resamples, seeded. Output: a table per option set on
stdout; with ``--out DIR``, ``DIR/<env id>.json`` (every number, the command and the machine load) and
``DIR/<env id>.png`` (with matplotlib).

Modules: :mod:`.measures` (the layout and every measure), :mod:`.ladder` (the arena plans and the study of
one option set), :mod:`.report` (the table and the plot); this one is the command line. The bootstrap and the
coin flips draw from the seed table's ``skill_bootstrap`` and ``skill_coin_flips`` streams
(:mod:`cardenvs.core.seeds`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import time
from pathlib import Path
from typing import Any

from cardenvs.config import at_least, game_options, parse_assignment
from cardenvs.registry import resolve_id, spec_of

from .ladder import LadderRun, check_ladder, plan_ladder, play_ladders, role_phase_of, study, tables_for, variant_label
from .measures import (
    KEEPS,
    Games,
    Layout,
    bradley_terry,
    calibrate,
    games_of,
    games_to_lead,
    layout_of,
    layout_of_array,
    measure,
    variance_split,
)
from .relative import (
    KEY,
    RelativeRun,
    measure_relative,
    plan_relative,
    relative_players,
    relative_skill,
    study_relative,
)
from .report import plot, report

__all__ = [
    "KEEPS",
    "Games",
    "LadderRun",
    "Layout",
    "RelativeRun",
    "bradley_terry",
    "calibrate",
    "check_ladder",
    "games_of",
    "games_to_lead",
    "layout_of",
    "layout_of_array",
    "measure",
    "measure_relative",
    "plan_ladder",
    "plan_relative",
    "play_ladders",
    "plot",
    "relative_players",
    "relative_skill",
    "report",
    "study",
    "study_relative",
    "tables_for",
    "variance_split",
]

COMMAND = "skill"
HELP = (
    "luck and skill: a ladder of agents on duplicate deals; skill share of the outcome variance, ratings, "
    "games to a 95% lead, coin-flip calibration, with 95% intervals"
)
GAMES = 200  # duplicate deals per table
QUICK_GAMES = 30
BOOTSTRAP = 1000
RELATIVE_RESAMPLES = 1  # the key of the relative skill's resamples in the skill_bootstrap stream


# ------------------------------------------------------------------ command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="env id or short name")
    parser.add_argument(
        "--option", "-o", action="append", metavar="KEY=VALUE", help="env option for every option set (repeatable)"
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        metavar="SET",
        help="option sets to measure, one each: key=value pairs joined by commas (exposed_hands=true,"
        "swap_deals=true), a named variant (cardenvs list), or default; -o options apply to all of them",
    )
    parser.add_argument(
        "--ladder",
        help="agents of rising strength, comma-separated (default: the game's declared ladder, its quick one "
        "with --quick); the option that plays a game's role phase, set true among the options, plays duplicate "
        "deals with the roles chosen in it (cardenvs arena --role-phase)",
    )
    parser.add_argument(
        "--games", type=at_least(1), help=f"duplicate deals per table (default {GAMES}, quick {QUICK_GAMES})"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the quick ladder and fewer deals (under 2 minutes a game)"
    )
    parser.add_argument("--bootstrap", type=at_least(10), default=BOOTSTRAP, help=f"resamples (default {BOOTSTRAP})")
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed of the deals, agents and resamples")
    parser.add_argument(
        "--workers",
        type=at_least(1),
        default=1,
        help="processes to play the games on (same results; with more than 1 every option set is played "
        "before the first is reported)",
    )
    parser.add_argument(
        "--relative-skill",
        action="store_true",
        help="also relative skill (learning effect over learning plus chance effect): the game's declared beginner, "
        "best agent and all-seeing player, each in one seat against its field, on the same duplicate deals",
    )
    parser.add_argument(
        "--relative-players",
        metavar="BEGINNER,BEST,FICTIVE,FIELD",
        help="the relative skill's four agents instead of the game's declared ones (implies --relative-skill)",
    )
    parser.add_argument(
        "--relative-only",
        action="store_true",
        help="relative skill alone, without the ladder (implies --relative-skill)",
    )
    parser.add_argument("--out", metavar="DIR", help="write DIR/<env id>.json (and .png with matplotlib)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def parse_variant(text: str) -> dict[str, Any]:
    """``default`` -> {}; ``NAME`` -> {"variant": NAME}; ``k=v,k2=v2`` -> options (values read as YAML)."""
    from cardenvs.agent import split_agent_names

    text = text.strip()
    if text in ("", "default"):
        return {}
    if "=" not in text:
        return {"variant": text}
    options: dict[str, Any] = {}
    for piece in split_agent_names(text):
        key, value = parse_assignment(piece)
        if key in options:
            raise ValueError(f"--variants {text!r} gives {key} twice")
        options[key] = value
    return options


def default_ladder(env_id: str, quick: bool) -> list[str]:
    spec = spec_of(env_id)
    ladder = list((spec.skill_ladder_quick or spec.skill_ladder) if quick else spec.skill_ladder)
    if not ladder:
        raise ValueError(f"{env_id} declares no skill ladder; name one with --ladder A,B,...")
    return ladder


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces a run (recorded in the JSON)."""
    words = ["cardenvs", "analyze", "skill", args.game]
    for option in args.option or []:
        words += ["-o", option]
    if args.variants:
        words += ["--variants", *args.variants]
    if args.ladder is not None:
        words += ["--ladder", args.ladder]
    words += ["--quick"] if args.quick else []
    words += ["--games", str(args.games)] if args.games else []
    words += ["--bootstrap", str(args.bootstrap)] if args.bootstrap != BOOTSTRAP else []
    words += ["--seed", str(args.seed)] if args.seed else []
    words += ["--workers", str(args.workers)] if args.workers != 1 else []
    words += ["--relative-skill"] if args.relative_skill else []
    words += ["--relative-players", args.relative_players] if args.relative_players is not None else []
    words += ["--relative-only"] if args.relative_only else []
    words += ["--out", args.out] if args.out else []
    return shlex.join(words)


def run(args: argparse.Namespace) -> int:
    from cardenvs import arena
    from cardenvs.agent import split_agent_names
    from cardenvs.core import seeds
    from cardenvs.registry import make

    env_id = resolve_id(args.game)
    base = game_options(env_id, None, args.option or [])
    relative_only = bool(args.relative_only)
    relative = bool(args.relative_skill or relative_only or args.relative_players is not None)
    if relative_only and args.ladder is not None:
        raise ValueError("--relative-only plays no ladder; leave out --ladder")
    named = split_agent_names(args.relative_players) if args.relative_players is not None else None
    players = relative_players(env_id, named) if relative else None
    ladder = (
        []
        if relative_only
        else (split_agent_names(args.ladder) if args.ladder is not None else default_ladder(env_id, args.quick))
    )
    games = args.games or (QUICK_GAMES if args.quick else GAMES)
    option_sets = [{**base, **parse_variant(v)} for v in args.variants] if args.variants else [base]
    out = Path(args.out) if args.out else None
    if out is not None and out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; name a folder")
    # every check (options, agents, their game, the ladder) before anything is played
    runs = (
        []
        if relative_only
        else [plan_ladder(env_id, ladder, options, games, args.seed, args.workers) for options in option_sets]
    )
    relative_runs = (
        [
            plan_relative(env_id, players, options, games, args.seed, role_phase_of(env_id, options), args.workers)
            for options in option_sets
        ]
        if players is not None
        else []
    )
    command = command_line(args)
    results = []
    started = time.perf_counter()
    # one worker: each option set reported as soon as it is played; more: one pool plays a ladder's option
    # sets all first
    indices = list(range(len(option_sets)))
    batches = [[i] for i in indices] if args.workers == 1 or relative_only else [indices]
    for batch in batches:
        start = time.perf_counter()
        played = play_ladders([runs[i] for i in batch], args.workers, not args.no_progress) if runs else []
        for k, i in enumerate(batch):
            if runs:
                result = study(ladder, runs[i], played[k], games, args.seed, args.bootstrap)
            else:
                options = option_sets[i]
                result = {
                    "options": options,
                    "label": variant_label(options),
                    "players": make(env_id, **options).unwrapped.num_players,
                    "deals": games,
                }
            if len(batch) == 1:
                result["seconds"] = round(time.perf_counter() - start, 1)
            if relative_runs:
                relative_start = time.perf_counter()
                relative_played = [
                    r.records for r in arena.run_plans(relative_runs[i].plans, args.workers, not args.no_progress)
                ]
                rng = seeds.generator(args.seed, RELATIVE_RESAMPLES, stream="skill_bootstrap")
                result[KEY] = study_relative(relative_runs[i], relative_played, games, args.bootstrap, rng)
                result[KEY]["seconds"] = round(time.perf_counter() - relative_start, 1)
            results.append(result)
            print(report(env_id, result), flush=True)
    seconds = round(time.perf_counter() - started, 1)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        data = {
            "command": command,
            "env_id": env_id,
            "ladder": ladder,
            "seed": args.seed,
            "bootstrap": args.bootstrap,
            "workers": args.workers,
            "seconds": seconds,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
            "variants": results,
        }
        (out / f"{env_id}.json").write_text(json.dumps(data, indent=1))
        print(f"wrote {out / f'{env_id}.json'}")
        if relative_only:
            return 0
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return 0
        plot(env_id, results, out / f"{env_id}.png")
        print(f"wrote {out / f'{env_id}.png'}")
    return 0
