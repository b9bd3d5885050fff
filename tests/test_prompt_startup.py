"""``cardenvs prompt GAME`` imports what that game needs, not every game (issue 64 item 6): seating ``random``
lists no game's agents (another game's declaration is read, none of its modules), and the studies' parsers
(which import every game) are built for ``analyze`` only."""

from __future__ import annotations

import subprocess
import sys

from cardenvs.cli import build_parser

CHECK = """
import sys
from cardenvs.cli import main
main(["prompt", "twos", "--seed", "0"])
games = sorted({m.split(".")[2] for m in sys.modules if m.startswith("cardenvs.games.") and m.count(".") >= 3})
print("GAMES", ",".join(games))
"""


def test_a_twos_prompt_imports_no_other_game():
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    line = [w for w in done.stdout.splitlines() if w.startswith("GAMES ")][-1]
    assert line.split()[1].split(",") == ["twos"]


def test_the_studies_are_parsed_for_analyze_alone():
    def studies(parser) -> set[str]:
        analyze = next(a for a in parser._subparsers._group_actions).choices["analyze"]
        actions = [a for a in analyze._actions if getattr(a, "choices", None)]
        return set(actions[0].choices) if actions else set()

    assert studies(build_parser("analyze")) == studies(build_parser()) != set()
    assert studies(build_parser("prompt")) == set()
