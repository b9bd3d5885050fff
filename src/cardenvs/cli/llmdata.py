"""``cardenvs prompt`` and ``cardenvs dataset``: the prompt a language-model seat gets, and fine-tuning data."""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path
from typing import Any

from ..config import at_least
from .common import CLIError, add_game_args, game_and_agents, game_options, user_input


def cmd_prompt(args: argparse.Namespace) -> int:
    from ..agent.dataset import seated_position
    from ..agent.prompts import prompt_messages

    env_id, options, agents = game_and_agents(args)
    with user_input():
        base, seat, observation = seated_position(env_id, args.seed, args.step, agents, options)
    messages = prompt_messages(base, seat, observation, args.legal)
    if args.json:
        print(json.dumps(messages, ensure_ascii=False, indent=1))
    else:
        for message in messages:
            print(f"=== {message['role']} ===\n{message['content']}\n")
    return 0


def cmd_dataset(args: argparse.Namespace) -> int:
    from ..agent.dataset import dataset_records, write_dataset
    from ..arena import check_output_path
    from ..registry import resolve_id

    with user_input():
        env_id = resolve_id(args.game)
    options = game_options(args, env_id)
    with user_input("--out: "):
        check_output_path(args.out, "dataset")
    if Path(args.out).exists() and not args.force:
        raise CLIError(f"--out {args.out} exists; pass --force to overwrite it")
    records: Any
    with user_input():
        records = dataset_records(env_id, args.teacher, args.games, args.seed, args.legal, args.opponents, options)
        first = next(records, None)  # the agents and options are checked here, before the file is written
    count = write_dataset(args.out, itertools.chain([first] if first else [], records))
    print(f"wrote {count} records of {args.games} games to {args.out}")
    return 0


def add_parsers(sub: Any) -> None:
    """Declare ``prompt`` and ``dataset``."""
    p = sub.add_parser(
        "prompt",
        help="print the prompt a language-model seat (llm:MODEL) gets at a seeded position",
        description="Play game 0 of --seed for --step moves (the agents of --agents, random by default, drawing "
        "from the arena's seeded streams: cardenvs.core.seeds) and print the chat messages the seat to move "
        "would be sent: the system message (the game's rules, how its moves are named, the options in play, the "
        "answer format) and the user message (its view, the history it may see, the legal moves).",
    )
    add_game_args(p)
    p.add_argument("--seed", type=at_least(0), default=0, help="the game's seed (default 0)")
    p.add_argument("--step", type=at_least(0), default=0, help="moves played before the decision (default 0)")
    p.add_argument("--legal", choices=("list", "none"), default="list", help="list the legal moves, or not")
    p.add_argument(
        "--agents", default="random", help="who plays the first --step moves: one agent, or one per seat (a,b,c)"
    )
    p.add_argument("--json", action="store_true", help="print the messages as JSON")
    p.set_defaults(func=cmd_prompt)

    p = sub.add_parser(
        "dataset",
        help="fine-tuning data: a teacher agent's decisions as chat records (JSON lines)",
        description="Play --games seeded games and write, for each decision of the teacher with more than one "
        "legal move, one JSON line: the prompt an llm: seat would get and the teacher's move as the answer "
        "('Final Answer: MOVE'), the legal moves, the game, its reset seed and the step. The chat form that "
        "Hugging Face datasets loads and TRL's SFTTrainer takes. The same command writes the same bytes.",
    )
    add_game_args(p)
    p.add_argument("--teacher", required=True, help="the agent whose moves are the answers (cardenvs list)")
    p.add_argument("--games", type=at_least(1), default=10, help="games to play (default 10)")
    p.add_argument("--out", required=True, help="the JSON-lines file to write")
    p.add_argument("--seed", type=at_least(0), default=0, help="seed of the games (default 0)")
    p.add_argument("--legal", choices=("list", "none"), default="list", help="list the legal moves in the prompts")
    p.add_argument(
        "--opponents",
        help="the agent in the other seats (default: the teacher plays every seat); the teacher sits in seat "
        "g mod players of game g",
    )
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.set_defaults(func=cmd_dataset)
