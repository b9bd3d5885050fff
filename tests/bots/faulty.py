#!/usr/bin/env python3
"""A bot that plays the lowest legal id, then misbehaves as its argument says, for the arena's fault tests:
start (exits at once), exit (exits at its third decision), sleep (never answers its third decision), garbage,
illegal, huge (a line of 10 MB), deaf (never reads its input), env (garbage if it sees the caller's
CARDENVS_SECRET), slow (takes 60 ms over every decision), paced (takes 1 s over every decision after its
first), hog (asks for 400 MB at its third decision), kill
(kills itself with SIGKILL at its third decision), and ok."""

import json
import os
import signal
import sys
import time

mode = sys.argv[1]
if mode == "env" and "CARDENVS_SECRET" in os.environ:  # it must not see the caller's environment
    mode = "garbage"
if mode == "start":
    sys.exit(3)
if mode == "deaf":
    time.sleep(600)
decisions = 0
for line in sys.stdin:
    message = json.loads(line)
    decisions += 1
    if mode == "slow":
        time.sleep(0.06)
    if mode == "paced" and decisions > 1:
        time.sleep(1.0)
    if decisions == 3 and mode == "hog":
        ballast = bytearray(400 * 2**20)  # a MemoryError under a smaller address-space limit: the bot exits
    if decisions == 3 and mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if decisions == 3 and mode == "exit":
        sys.exit(1)
    if decisions == 3 and mode == "sleep":
        time.sleep(600)
    if decisions == 3 and mode == "garbage":
        print("{not a move", flush=True)
        continue
    if decisions == 3 and mode == "illegal":
        print(10**6, flush=True)
        continue
    if decisions == 3 and mode == "huge":
        sys.stdout.write("x" * 10_000_000)
        sys.stdout.flush()
        continue
    print(min(move["id"] for move in message["legal"]), flush=True)
