"""Pages generated from the code at build time: one per game and the command-line reference.

Every fact on a game page comes from the game's one declaration and its env: the env module's docstring
(options, observation layout and actions, its tables generated from the code), the rules module's docstring
(the rules in plain words and every reading this implementation chooses), the named variants, the agents
that play it (:func:`cardenvs.agent.known_agents`) and a position rendered by the env itself. The pages are
written to ``docs/games/`` and ``docs/reference/cli.md`` (not committed: they are rebuilt from the code on
every build, so they cannot drift).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
from pathlib import Path

import numpy as np

import cardenvs
from cardenvs.agent import known_agents, shipped_models
from cardenvs.registry import spec_of

#: moves played by seeded random play before the example position is rendered
EXAMPLE_MOVES = 6
EXAMPLE_SEED = 7


def myst_roles(markdown: str) -> str:
    """The env docstrings are Markdown with Sphinx roles written the RST way (:mod:`x`); MyST spells them
    {mod}`x`. A leading dot (:mod:`.moves`) is relative to the game package."""
    return re.sub(r":(mod|func|class|data|meth|attr):`", r"{\1}`", markdown)


def _relative_targets(text: str, package: str) -> str:
    return re.sub(r"(\{(?:mod|func|class|data|meth|attr)\}`)\.", rf"\1{package}.", text)


def _rst_relative(text: str, package: str) -> str:
    return re.sub(r"(:(?:mod|func|class|data|meth|attr):`)\.", rf"\1{package}.", text)


def _options_text(options: dict) -> str:
    return ", ".join(f"`{key}={value!r}`" for key, value in options.items()) or "the defaults"


def example_position(env_id: str) -> str:
    env = cardenvs.make(env_id, render_mode="ansi")
    env.reset(seed=EXAMPLE_SEED)
    rng = np.random.default_rng(EXAMPLE_SEED)
    played = []
    for agent in env.agent_iter():
        if len(played) >= EXAMPLE_MOVES:
            break
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(cardenvs.legal_actions(obs)))
        played.append(f"{agent}: {env.action_name(action)}")
        env.step(action)
    board = env.render() or ""
    return "\n".join(["moves so far: " + "; ".join(played), "", board.rstrip()])


def example_message(env_id: str) -> str:
    """The protocol's message for the first decision of a seeded game, its legal moves cut to five."""
    from cardenvs.agent.program import decision_message
    from cardenvs.seatview import hand_codes

    env = cardenvs.make(env_id)
    env.reset(seed=EXAMPLE_SEED)
    base = env.unwrapped
    seat = base.agent_name_mapping[base.agent_selection]
    message = decision_message(base, seat, base.observe(base.agent_selection), hand_codes(base, seat))
    message["legal"] = message["legal"][:5]
    message["time_left_ms"] = {"move": 5000, "game": 120000}
    return json.dumps(message)


def game_page(env_id: str) -> str:
    spec = spec_of(env_id)
    env_module = importlib.import_module(f"{spec.package}.env")
    rules_module = importlib.import_module(f"{spec.package}.rules")
    env = cardenvs.make(env_id)
    env_doc = _relative_targets(myst_roles(env_module.__doc__ or ""), spec.package)
    title, _, body = env_doc.partition("\n")
    variants = type(env).VARIANTS
    names = known_agents(spec.name)
    models = {name: path for name, path in shipped_models().items() if name.startswith(spec.name + ".")}
    n_actions = env.action_space(env.possible_agents[0]).n
    shown = sorted({int(a) for a in np.linspace(0, n_actions - 1, min(n_actions, 8))})  # spread over the table
    screenshots = []
    for moment, when in (("start", "at the start"), ("end", "at the end")):
        # a game whose screenshots were not taken yet (docs/screenshot.py) shows none
        if (Path(__file__).resolve().parents[1] / "screenshots" / f"{spec.name}-{moment}.png").exists():
            screenshots += [
                f"```{{image}} ../screenshots/{spec.name}-{moment}.png",
                f":alt: {spec.title} in the browser app, {when}",
                ":width: 49%",
                "```",
            ]
    lines = [
        title,
        "",
        *screenshots,
        "",
        body.strip(),
        "",
        "## Rules in plain words",
        "",
        f"From the docstring of {{mod}}`{rules_module.__name__}`, where the rules live in code.",
        "",
        "```{eval-rst}",
        _rst_relative(rules_module.__doc__ or "", spec.package).strip(),
        "```",
        "",
        "## Variants",
        "",
        "Named variants are option sets: `cardenvs.make(" + repr(env_id) + ', variant="NAME")` or '
        "`-o variant=NAME` on the command line; options given beside a variant override it.",
        "",
        "| variant | options |",
        "|---|---|",
        *(f"| `{name}` | {_options_text(opts)} |" for name, opts in variants.items()),
        "",
        "## Action ids and move names",
        "",
        f"`Discrete({n_actions})`; `env.action_name(a)` names a move and `env.parse_action(text)` reads one back. "
        "Some ids:",
        "",
        "| id | move |",
        "|---|---|",
        *(f"| {a} | `{env.action_name(a)}` |" for a in shown),
        "",
        "## Agents that play it",
        "",
        "Names for `cardenvs.agent.load_agent`, `cardenvs arena --agents` and the web app "
        "(the full list: `cardenvs list`):",
        "",
        *(
            f"* `{name}`" + (f" (shipped model `{models[name].parent.name}`)" if name in models else "")
            for name in names
        ),
        "",
        "## As a program sees it",
        "",
        "What a bot playing through the line protocol (`cmd:COMMAND`, [bots as programs](../bots.md)) reads at "
        f"the first decision after `reset(seed={EXAMPLE_SEED})` (the legal moves cut to five): the envelope of "
        "every game, with this game's observation segments (the table above) by name.",
        "",
        "```json",
        example_message(env_id),
        "```",
        "",
        "## An example position",
        "",
        f"After `reset(seed={EXAMPLE_SEED})` and {EXAMPLE_MOVES} random legal moves "
        f'(`np.random.default_rng({EXAMPLE_SEED})`), `env.render()` in `render_mode="ansi"` prints:',
        "",
        "```text",
        example_position(env_id),
        "```",
        "",
    ]
    return "\n".join(lines)


def cli_page() -> str:
    from cardenvs.cli import build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps help to the terminal: the same page on every machine
    parser = build_parser()
    lines = [
        "# Command line",
        "",
        "Generated from the parser of `cardenvs` (`cardenvs COMMAND --help` prints the same).",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                lines += [f"## `cardenvs {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
                for sub_action in sub._actions:
                    if isinstance(sub_action, argparse._SubParsersAction):
                        for study, study_parser in sub_action.choices.items():
                            lines += [f"### `cardenvs {name} {study}`", "", "```text"]
                            lines += [study_parser.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def leaderboard_page(board: Path) -> str:
    """Each game's graded ladder: its anchors' reference ratings and the agents placed in ``board``."""
    from cardenvs.analysis import grading

    rows = grading.read(board) if board.exists() else []
    lines = [
        "# Leaderboard",
        "",
        "Each game's graded ladder (`cardenvs ladder`, {mod}`cardenvs.analysis.grading`): anchor agents rated once "
        "by a reference run (every pair on duplicate deals, one Bradley-Terry fit, Elo scale, `random` at 0), and "
        "agents placed against them with 95% intervals (bootstrap over the deals), without moving the anchors. "
        "Place your own agent, a program included (`cmd:COMMAND`), with "
        "`cardenvs ladder GAME AGENT --games 100 --leaderboard FILE`. Generated from "
        "`docs/results/leaderboard.json`; each row names its deals and seed there. The web app's start page "
        "shows the same tables for any leaderboard file: `cardenvs serve --leaderboard FILE`.",
        "",
    ]
    for env_id in cardenvs.ENV_IDS:
        try:
            ref = grading.load_reference(env_id)
        except ValueError:
            continue
        lines += [f"## {spec_of(env_id).title}", "", f"Reference run: `{ref['command']}`.", ""]
        lines += [*grading.table(rows, ref), ""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # unchanged pages keep their time: no needless rebuild
        path.write_text(text)


def generate(app) -> None:
    src = Path(app.srcdir)
    index = ["# Games", "", "One page per game, generated from its code.", "", "```{toctree}", ":maxdepth: 1", ""]
    for env_id in cardenvs.ENV_IDS:
        spec = spec_of(env_id)
        _write(src / "games" / f"{spec.name}.md", game_page(env_id))
        index.append(spec.name)
    _write(src / "games" / "index.md", "\n".join([*index, "```", ""]))
    _write(src / "reference" / "cli.md", cli_page())
    _write(src / "results" / "leaderboard.md", leaderboard_page(src / "results" / "leaderboard.json"))


def setup(app):
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
