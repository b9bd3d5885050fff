#!/usr/bin/env python3
"""A bot for cardenvs' line protocol (docs/bots.md): it plays the legal move with the lowest id."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    print(min(move["id"] for move in message["legal"]), flush=True)
