"""The README's Python snippets run as written and print something that tells a newcomer what happened."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_snippets():
    assert len(SNIPPETS) >= 2


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_a_readme_snippet_runs_and_prints(index, tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", SNIPPETS[index]], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip(), f"snippet {index} prints nothing"
