"""Sphinx configuration of the cardenvs documentation site.

Build it from the repository root with ``python -m sphinx -W --keep-going -b html docs docs/_build/html``
(the ``docs`` extra installs Sphinx, the Furo theme and MyST). The game pages and the command-line reference
are generated from the code at every build (``docs/_ext/cardenvs_pages.py``); the API reference comes from the
docstrings; ``tests/test_docs.py`` builds the site with warnings as errors and runs every tutorial.
"""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import cardenvs  # noqa: E402

project = "cardenvs"
author = "the cardenvs authors"
copyright = "2026, the cardenvs authors"
release = version = cardenvs.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "cardenvs_pages",
]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "study/**/*.md", "**/README.md"]
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # the signatures show the types; docstrings say what they mean
autodoc_mock_imports: list[str] = []
default_role = "code"  # the docstrings' `name` (one backtick) is code, not a dangling reference

html_theme = "furo"
html_title = f"cardenvs {release}"
html_static_path: list[str] = []
autodoc_inherit_docstrings = False  # inherited Gymnasium docstrings are not ours (and not all valid RST)
