#!/usr/bin/env python3
"""A bot that needs a package only its virtual environment has (tests/test_sandbox.py makes that environment):
the line protocol's lowest legal move."""

import json
import sys

import cardenvs_venv_only_probe  # noqa: F401 - only the test's virtual environment has it

for line in sys.stdin:
    message = json.loads(line)
    print(min(move["id"] for move in message["legal"]), flush=True)
