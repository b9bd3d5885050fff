#!/usr/bin/env python3
"""A bot that tries to get out of its sandbox, for tests/test_sandbox.py.

``escape.py probe TOKEN PORT OUTSIDE...``: tries every escape once and prints one JSON object of what it
found: the environment and command line of every process it can see (its parent's and pid 1's included), the
files it could write (each path of OUTSIDE, beside its own file, in /tmp; and, as it should, in its working
folder and HOME), whether it reached 127.0.0.1:PORT, whether it can read its own file; then it leaves behind
a detached (setsid, double-forked) child and a child holding its output, both sleeping with TOKEN in their
command lines, and exits.

``escape.py play TOKEN``: the line protocol's lowest legal move; at its first decision it leaves the same
children behind, and it answers garbage if any process it can see has CARDENVS_SECRET in its environment.
"""

import json
import os
import socket
import subprocess
import sys


def processes():
    """pid -> (command line, environment) of every process this one can see (its parent's included), as far as
    it can read them."""
    seen = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        found = []
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{entry}/{part}", "rb") as file:
                    found.append(file.read().replace(b"\0", b" ").decode(errors="replace"))
            except OSError as exc:
                found.append(f"unreadable: {exc.strerror}")
        seen[entry] = found
    return seen


def leave_children(token):
    """A double-forked, setsid sleeper, and a sleeper that keeps this process's output open."""
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)", token]
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, sleeper)
        os._exit(0)
    os.wait()
    subprocess.Popen(sleeper, stdin=subprocess.DEVNULL)  # inherits the output pipe


def write(path):
    try:
        with open(path, "w") as file:
            file.write("escaped\n")
        return True
    except OSError:
        return False


def probe(token, port, outside):
    report = {"processes": processes(), "pid": os.getpid(), "ppid": os.getppid()}
    here = os.path.dirname(os.path.abspath(__file__))
    targets = [*outside, os.path.join(here, f"written-{token}"), f"/tmp/written-{token}"]
    report["written_outside"] = [path for path in targets if write(path)]
    report["written_own"] = [write(os.path.join(os.getcwd(), "own.txt")), write(os.path.join(os.environ["HOME"], "h"))]
    report["written_tmpdir"] = write(os.path.join(os.environ.get("TMPDIR", "/nonexistent"), "t"))
    with open(os.path.abspath(__file__)) as own:
        report["read_own_file"] = "escape.py" in own.read()
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
        report["network"] = True
    except OSError as exc:
        report["network"] = False
        report["network_error"] = str(exc)
    leave_children(token)
    print(json.dumps(report), flush=True)


def play(token):
    first = True
    for line in sys.stdin:
        message = json.loads(line)
        if first:
            leave_children(token)
            first = False
        leaked = any("CARDENVS_SECRET" in environ for _, environ in processes().values())
        print("the secret" if leaked else min(move["id"] for move in message["legal"]), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        probe(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        play(sys.argv[2])
