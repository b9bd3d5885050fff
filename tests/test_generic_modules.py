"""No generic module names a game: the arena, vector envs, search, agents, replays, the web app outside the
per-game views, the play loop, seeds and the learners (DMC, heads, features, the RLlib env) read every game
fact from the game's one declaration. Checked on the code (identifiers and strings), not on docstrings, whose
examples may name games; the registered games' names and their folder names are what is looked for."""

import ast
import re
from pathlib import Path

import pytest

import cardenvs
from cardenvs.registry import spec_of

ROOT = Path(__file__).resolve().parents[1]
GENERIC = [
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src/cardenvs/arena").glob("*.py")),
    "src/cardenvs/vector.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src/cardenvs/search").glob("*.py")),
    "src/cardenvs/agent.py",
    "src/cardenvs/replay.py",
    "src/cardenvs/opponents.py",
    "src/cardenvs/sb3.py",
    "src/cardenvs/play.py",
    "src/cardenvs/registry.py",
    "src/cardenvs/core/kernels.py",
    "src/cardenvs/core/env.py",
    "src/cardenvs/core/spec.py",
    "src/cardenvs/core/observation.py",
    "src/cardenvs/core/seeds.py",
    "src/cardenvs/analysis/skill.py",
    "training/dmc.py",
    "training/heads.py",
    "training/features.py",
    "training/rllib_env.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src/cardenvs/web").glob("*.py")),
]


def game_words() -> set[str]:
    words = set()
    for env_id in cardenvs.ENV_IDS:
        words |= {env_id, env_id.rsplit("_v", 1)[0]}
        roles = spec_of(env_id).roles
        if roles is not None:
            words |= {name.lower() for name in roles.names}
    return words


def pattern(words: set[str]) -> re.Pattern:
    """A game word not inside a longer word ("war" in "war.flip" or "war_v0", not in "warnings")."""
    return re.compile("|".join(rf"(?<![a-z]){re.escape(w)}(?![a-z])" for w in sorted(words)))


def naming(path: Path, words: set[str]) -> list[tuple[int, str]]:
    found = pattern(words)
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value.lower()
        elif isinstance(node, ast.Name):
            text = node.id.lower()
        elif isinstance(node, ast.Attribute):
            text = node.attr.lower()
        else:
            continue
        hits += [(node.lineno, match) for match in found.findall(text)]
    return sorted(hits)


@pytest.mark.parametrize("module", GENERIC)
def test_generic_module_names_no_game(module):
    assert naming(ROOT / module, game_words()) == []


def test_the_check_sees_a_game_name(tmp_path):
    """The check is not empty: a string or an identifier naming a game is found, a docstring is not."""
    source = tmp_path / "m.py"
    source.write_text(
        '"""Dou Dizhu, doudizhu_v0 in a docstring."""\nimport warnings\nx = "doudizhu.rule"\nif twos or war_v0:\n'
        "    warnings.warn(landlord)\n"
    )
    assert naming(source, game_words()) == [(3, "doudizhu"), (4, "twos"), (4, "war"), (5, "landlord")]
