"""The relay started inside a bot's sandbox before a WebSocket bot (:mod:`.websocket`): it listens on
``127.0.0.1:PORT`` of the sandbox's own network namespace (where the bot expects its platform's server),
forwards every connection, byte for byte, to the arena's Unix socket in the bot's folder, then starts the bot
and exits with its exit status. So the bot reaches the arena, and nothing else, with no network.

Run as a script with the standard library alone (the sandbox binds this file and the interpreter, not the
package)::

    python wsrelay.py PORT SOCKET -- COMMAND...

It writes ``ready`` on its standard output once it listens; where it cannot listen (the port is taken: only
outside a sandbox) or start the bot (a missing or dangling interpreter, a file that is not executable), it
writes its reason as one line there instead (``cannot listen on ...``, ``cannot run ...``) and exits with
status 3: the arena reads that output (bounded, without waiting) and quotes the reason in a ``start`` fault.
The bot's output is discarded; its standard error goes to ``bot.stderr`` in its working folder (the arena
quotes its end in an ``exit`` fault, reading the file as the bot's: no link followed, a bounded tail).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

STDERR = "bot.stderr"  # the bot's standard error, in its working folder


def _pump(source: socket.socket, target: socket.socket) -> None:
    """Copy ``source`` to ``target`` until either ends, then end both directions."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    for end in (source, target):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # each message at once, not after an ack
        arena = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            arena.connect(path)
        except OSError:
            client.close()
            arena.close()
            continue
        for source, target in ((client, arena), (arena, client)):
            threading.Thread(target=_pump, args=(source, target), daemon=True).start()


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stdout.write("usage: wsrelay.py PORT SOCKET -- COMMAND...\n")
        return 3
    port, path, command = int(argv[0]), argv[1], argv[3:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
    except OSError as exc:
        sys.stdout.write(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}\n")
        return 3
    threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        with open(STDERR, "wb") as errors:  # in the working folder, the bot's own: the arena reads its end
            bot = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    except OSError as exc:
        sys.stdout.write(f"cannot run {command[0]}: {exc.strerror or exc}\n")
        return 3
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    return bot.wait()


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code if 0 <= code < 256 else 1)
