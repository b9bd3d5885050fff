"""Bots that are WebSocket clients of their platform's server (a protocol a game declares with
``transport = "websocket"``, e.g. Guandan's ``gdws:COMMAND``): the arena is the server.

Each seat the agent plays gets its own run of the program (``COMMAND`` with ``{seat}``, ``{port}`` and ``{url}``
replaced: ``gdws:python client{seat}.py``), started when the seat first moves and kept across the table's games
while it keeps that seat. The program runs in the sandbox of :mod:`.sandbox`, with no network: inside it,
:mod:`.wsrelay` (a standard-library script) listens on ``127.0.0.1:PORT`` of the sandbox's own network namespace
(``port``, default the platform's; the relay is copied into the bot's folder and run by the system's Python, so
the sandbox shows nothing of the arena's installation) and forwards each connection to a Unix socket in the
bot's folder, where this module serves the WebSocket protocol (RFC 6455) through :mod:`wsproto`, a sans-IO
implementation: it parses the handshake and the frames (masked, fragmented, control frames between
fragments), this module moves the bytes with deadlines. The relay only copies bytes, so only the arena needs
wsproto. So the bot connects to ``ws://127.0.0.1:PORT/...`` as it would to its platform, and can reach
nothing else: the host's loopback services are not in its namespace. With
``network=1``, or without a sandbox (``unsandboxed``), the relay listens on the host's own loopback: one run per
port, so a second seat of a bot whose port is written in its code cannot listen and its program exits (an
``exit`` fault).

The game's protocol object (``module:Class`` of its spec's ``program_protocols``) writes the messages and reads
the answers: ``request(seat, observation)`` gives the messages due to that seat's program (every public event
since its last decision, then the question), or the action itself where the program chose it already (a
Guandan play's suit decisions); ``answer(seat, text, observation)`` the action of the program's reply (a
ValueError with ``kind`` ``"garbage"`` or ``"illegal"`` otherwise); ``side_reply(text)`` a reply to a message
that is no answer (a room request), or None (with ``greeting`` true, the program's first message must be one:
it is read and answered before anything is sent); ``finish(seat)`` the messages that end the game for that seat
(sent when the next game starts, or the table ends); ``reset()`` forgets the game.

Limits and faults are those of ``cmd:`` (:class:`.program.ProgramAgent`): ``move_ms`` a decision (from the
question sent to the answer read), ``game_ms`` a game, ``memory_mb`` each process, ``processes`` and
``disk_mb`` the seat's sandbox (the relay's threads count among its processes), ``fallback``; plus
``start_ms``, the time a program has from its start to its connection (its imports and model loading). A
fault (``start``: it never connects, or the relay cannot listen or start the program, the relay's reason
quoted; ``timeout``; ``exit``: the program exited, the end of its standard error quoted; ``disconnect``: it
closed the connection while running; ``garbage``: an answer that is no JSON, a malformed handshake or frame
(unmasked, a bad length or opcode, text that is not UTF-8: wsproto's checks), or a binary message;
``output``: a message over ``line_bytes``; ``illegal``: an index outside the list, a move not in it) loses
the game, or the fallback moves, and the seat's program is stopped and started again at the seat's next
decision, and sent the game so far.

Whatever the bot's folder holds is the bot's, ``bot.stderr`` included (it can replace it with a link or a
FIFO): the arena reads it without following links, regular files only, a bounded tail
(:func:`.sandbox.read_untrusted`); the relay's reason comes on its standard output, read without waiting and
bounded.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from wsproto import ConnectionType, WSConnection, events
from wsproto.connection import ConnectionState
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import LocalProtocolError, RemoteProtocolError

from . import sandbox
from .program import BotFault, ProgramAgent

RELAY = str(Path(__file__).with_name("wsrelay.py"))
SYSTEM_PYTHON = "/usr/bin/python3"  # runs the relay (standard library only) where it exists
SOCKET_NAME = "arena.sock"
STDERR = "bot.stderr"  # where the relay writes the bot's standard error (wsrelay.STDERR)
#: seconds between accepting the handshake and the first message: ws4py's client (the competition's bots') fails
#: on frames that arrive in the same read as the handshake's response (its ``connect`` processes them too early)
HANDSHAKE_PAUSE = 0.2
EXIT_WAIT = 0.5  # seconds a closed connection waits for the program's exit: an exit, not a disconnect
TAIL_BYTES = 2000  # the most of the bot's standard error read (its end), and of the relay's output
#: the parameters of a WebSocket bot beyond cmd:'s
PARAMETERS: dict[str, tuple[type, Any, str]] = {
    "start_ms": (int, 30_000, "milliseconds from the program's start to its connection"),
    "port": (int, 0, "the port the bot connects to in its sandbox (0: the platform's)"),
}


def relay_reason(process: Any) -> str:
    """The relay's own reason for exiting (``cannot run ...``, ``cannot listen ...``: its output's last line
    but ``ready``), or ""; read without waiting and at most :data:`TAIL_BYTES` (the bot shares the relay's
    sandbox, so this too is the program's to write)."""
    stream = getattr(process, "stdout", None)
    if stream is None or stream.closed:
        return ""
    data = b""
    try:
        os.set_blocking(stream.fileno(), False)
        while len(data) < TAIL_BYTES:
            chunk = os.read(stream.fileno(), TAIL_BYTES - len(data))
            if not chunk:
                break
            data += chunk
    except (BlockingIOError, OSError):
        pass
    lines = [line for line in _printable(data).splitlines() if line.strip() and line.strip() != "ready"]
    return lines[-1].strip()[:400] if lines else ""


def _printable(data: bytes) -> str:
    """Untrusted bytes as one text for a fault's detail: UTF-8 (errors replaced) without control characters
    but line ends."""
    text = data.decode(errors="replace")
    return "".join(c if c.isprintable() or c == "\n" else " " for c in text)


class Closed(Exception):
    """The peer closed the connection (a close frame, or the end of the stream)."""


class Malformed(ValueError):
    """The peer broke the protocol: a malformed handshake or frame, text that is not UTF-8, a binary message."""


class Connection:
    """The server's end of one WebSocket connection (:mod:`wsproto` speaks the protocol, this class moves the
    bytes): reads with deadlines, at most ``limit`` bytes a message, pings answered, text messages only."""

    def __init__(self, sock: socket.socket, limit: int):
        self.sock = sock
        self.limit = limit
        self.path = ""
        self.ws = WSConnection(ConnectionType.SERVER)
        self.pending: deque[events.Event] = deque()

    def _next(self, deadline: float) -> events.Event:
        """The next protocol event, reading the socket until there is one by ``deadline`` (TimeoutError)."""
        while not self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                raise TimeoutError from None
            except OSError:
                chunk = b""
            if not chunk:
                raise Closed
            try:
                self.ws.receive_data(chunk)
                self.pending.extend(self.ws.events())
            except RemoteProtocolError as exc:
                self._refuse(exc.event_hint)
                raise Malformed(str(exc)) from None
        return self.pending.popleft()

    def _refuse(self, event: events.Event | None) -> None:
        """Best effort: tell the peer why (a rejection of its handshake, or a close frame with the error's code)."""
        try:
            if event is not None:
                self.sock.sendall(self.ws.send(event))
        except (LocalProtocolError, OSError):
            pass

    def handshake(self, deadline: float) -> None:
        """Read the client's opening handshake and accept it; :class:`Malformed` if it is not one (wsproto's
        checks; h11 bounds the request's size)."""
        event = self._next(deadline)
        if not isinstance(event, events.Request):
            raise Malformed(f"not a WebSocket opening handshake ({type(event).__name__})")
        self.path = event.target
        self.sock.sendall(self.ws.send(events.AcceptConnection()))

    def send(self, *texts: str) -> None:
        """Send each text as a message, all in one write; :class:`Closed` once the connection is closing."""
        try:
            data = b"".join(self.ws.send(events.TextMessage(data=text)) for text in texts)
        except LocalProtocolError:
            raise Closed from None
        self.sock.sendall(data)

    def receive(self, deadline: float) -> str:
        """The next whole text message (fragments joined), answering pings; :class:`Closed` at a close frame
        (answered), OverflowError past ``limit`` bytes, :class:`Malformed` for a binary message or a protocol
        error (wsproto's: an unmasked frame, a bad opcode or length, text that is not UTF-8)."""
        parts: list[str] = []
        size = 0
        while True:
            event = self._next(deadline)
            if isinstance(event, events.CloseConnection):
                if self.ws.state is not ConnectionState.REMOTE_CLOSING:  # wsproto's report of a protocol error
                    self._refuse(event)
                    raise Malformed(f"a malformed frame: {event.reason or event.code}")
                self._refuse(event.response())
                raise Closed
            if isinstance(event, events.Ping):
                self.sock.sendall(self.ws.send(event.response()))
            elif isinstance(event, events.BytesMessage):
                why = "a binary message (the platform's messages are JSON text)"
                self._refuse(events.CloseConnection(code=CloseReason.UNSUPPORTED_DATA, reason=why))
                raise Malformed(why)
            elif isinstance(event, events.TextMessage):
                size += len(event.data.encode())
                if size > self.limit:
                    raise OverflowError
                parts.append(event.data)
                if event.message_finished:
                    return "".join(parts)


@dataclass
class Session:
    """One seat's run of the program: its process, folder, the listening socket and the connection."""

    process: Any
    folder: str
    listener: socket.socket
    started: float
    connection: Connection | None = None
    notes: list[str] = field(default_factory=list)


class WebSocketAgent(ProgramAgent):
    """``KIND:COMMAND`` for a protocol whose bots are WebSocket clients (module docstring)."""

    def __init__(
        self, env: Any, command: str, protocol: Any, name: str | None = None, fallback: Any = None, **params: Any
    ):
        own = {k: params.pop(k) for k in list(params) if k in PARAMETERS}
        values = {k: default for k, (_, default, _) in PARAMETERS.items()}
        values.update(own)
        params = {**getattr(protocol, "defaults", {}), **params}
        self.template = command
        self.name = name or command
        self.protocol = protocol
        self.port = int(values["port"]) or int(getattr(protocol, "port", 0))
        if not 0 < self.port < 65536:
            raise ValueError(f"agent {name or command!r}: port={values['port']}: a port is 1..65535")
        self.start_ms = int(values["start_ms"])
        if self.start_ms <= 0:
            raise ValueError(f"agent {name or command!r}: start_ms must be positive")
        super().__init__(env, self._command(0), name=name, fallback=fallback, **params)
        self.name = name or command
        self.plays_role_phase = True
        self.sessions: dict[int, Session] = {}

    def _command(self, seat: int) -> str:
        url = self.protocol.url(seat, self.port)
        try:
            return self.template.format(seat=seat, port=self.port, url=url)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"agent {self.name!r}: the command's braces name {{seat}}, {{port}} or {{url}} only ({exc})"
            ) from None

    def _argv(self, seat: int) -> list[str]:
        argv = shlex.split(self._command(seat))
        program = argv[0]
        found = shutil.which(program) if os.sep not in program else (program if Path(program).is_file() else None)
        if found is None:
            raise BotFault(self.name, "start", f"no program {program!r} (not a file, not on PATH)")
        return [os.path.abspath(found)] + [os.path.abspath(a) if os.path.exists(a) else a for a in argv[1:]]

    # ------------------------------------------------------------------ the agent
    def reset(self) -> None:
        """A new game: the ends of the last one are sent to each running program, and the time starts again."""
        self._finish()
        super().reset()
        self.protocol.reset()

    def _decide(self, seat: int, observation: dict[str, np.ndarray], move_left: float, rng: np.random.Generator) -> int:
        request = self.protocol.request(seat, observation)
        if request is None:  # a suit decision of a play the fallback chose
            if self.fallback is not None:
                return int(self.fallback.act(observation, rng))
            return int(np.flatnonzero(observation["action_mask"])[0])
        if isinstance(request, (int, np.integer)):
            return int(request)
        text = self._exchange(seat, list(request), move_left)
        return int(self._answer(seat, text, observation))

    def _after_fault(self, seat: int) -> None:
        self._stop_seat(seat)
        self.protocol.forget(seat)  # a new run is sent the whole game

    def _answer(self, seat: int, text: str, observation: dict) -> int:
        try:
            return int(self.protocol.answer(seat, text, observation))
        except ValueError as exc:
            raise BotFault(self.name, getattr(exc, "kind", "garbage"), str(exc)) from None

    def _exchange(self, seat: int, messages: list[str], seconds: float) -> str:
        """Send the messages to the seat's program (started and connected first where needed) and read its
        answer within ``seconds`` of the question (the connection's own wait aside)."""
        connection = self._connect(seat)
        deadline = time.monotonic() + seconds
        try:
            connection.send(*messages)
            while True:
                try:
                    text = connection.receive(deadline)
                except TimeoutError:
                    self._check_exit(seat)
                    raise BotFault(self.name, "timeout", f"no answer within {seconds * 1000:.0f} ms") from None
                reply = self.protocol.side_reply(text)
                if reply is None:
                    return text
                connection.send(reply)
        except OverflowError:
            raise BotFault(self.name, "output", f"sent a message over {self.line_bytes} bytes") from None
        except Malformed as exc:
            raise BotFault(self.name, "garbage", str(exc)) from None
        except (Closed, OSError):
            self._check_exit(seat, wait=EXIT_WAIT)
            raise BotFault(self.name, "disconnect", "closed its connection while running") from None

    def _check_exit(self, seat: int, wait: float = 0.0) -> None:
        """An ``exit`` fault if the seat's program has exited (waiting up to ``wait`` seconds for it), quoting
        the end of its standard error; a ``start`` fault quoting the relay's reason where the relay could not
        listen or start the program. Both are read as untrusted (:func:`.sandbox.read_untrusted`,
        :func:`relay_reason`)."""
        session = self.sessions.get(seat)
        if session is not None and wait > 0:
            try:
                session.process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
        if session is None or session.process.poll() is None:
            return
        reason = relay_reason(session.process)
        if reason:
            raise BotFault(self.name, "start", f"the relay exited: {reason}")
        self._process = session.process
        try:
            detail = self._exit_detail()
        finally:
            self._process = None
        try:
            tail = _printable(sandbox.read_untrusted(os.path.join(session.folder, STDERR), TAIL_BYTES))
        except OSError:  # gone, or replaced by a link, a FIFO, a folder: the bot's doing, nothing to quote
            tail = ""
        lines = [line.strip() for line in tail.strip().splitlines() if line.strip()]
        if lines:
            detail += "; the end of its standard error: " + " | ".join(lines[-3:])[:400]
        raise BotFault(self.name, "exit", detail)

    def _connect(self, seat: int) -> Connection:
        """The seat's connection: its program started (a new folder, the relay, the bot) and its opening
        handshake accepted, within ``start_ms``."""
        session = self.sessions.get(seat)
        if session is not None and session.connection is not None:
            if session.process.poll() is not None:
                self._check_exit(seat)
            return session.connection
        if session is None:
            session = self.sessions[seat] = self._start_seat(seat)
        deadline = session.started + self.start_ms / 1000
        while True:
            session.listener.settimeout(0.05)
            try:
                sock, _ = session.listener.accept()
                break
            except TimeoutError:
                pass
            if session.process.poll() is not None:
                self._check_exit(seat)
            if time.monotonic() > deadline:
                raise BotFault(self.name, "start", f"did not connect within {self.start_ms} ms of its start")
        sock.setblocking(True)
        connection = Connection(sock, self.line_bytes)
        try:
            connection.handshake(deadline)
        except TimeoutError:
            raise BotFault(self.name, "start", f"no WebSocket handshake within {self.start_ms} ms") from None
        except (Closed, OSError):
            self._check_exit(seat, wait=EXIT_WAIT)
            raise BotFault(self.name, "disconnect", "closed its connection during the handshake") from None
        except Malformed as exc:
            raise BotFault(self.name, "garbage", str(exc)) from None
        time.sleep(HANDSHAKE_PAUSE)  # ws4py's client fails on a message read with the handshake's response
        if getattr(self.protocol, "greeting", False):  # the bot speaks first (a room to join): answer it
            self._greet(connection, deadline)
        session.connection = connection
        return connection

    def _greet(self, connection: Connection, deadline: float) -> None:
        try:
            text = connection.receive(deadline)
        except TimeoutError:
            raise BotFault(self.name, "start", f"sent no first message within {self.start_ms} ms") from None
        except OverflowError:
            raise BotFault(self.name, "output", f"sent a message over {self.line_bytes} bytes") from None
        except Malformed as exc:
            raise BotFault(self.name, "garbage", str(exc)) from None
        except (Closed, OSError):
            raise BotFault(self.name, "disconnect", "closed its connection before its first message") from None
        reply = self.protocol.side_reply(text)
        if reply is None:
            raise BotFault(self.name, "garbage", f"its first message is not one the platform answers: {text[:80]!r}")
        connection.send(reply)

    def _start_seat(self, seat: int) -> Session:
        """The seat's program started: a folder of its own (:func:`.sandbox.seat_folder`) holding the arena's
        socket, the relay's copy and the file for the bot's standard error, which are all the sandbox shows of
        the host's folder where its folder is a capped ``tmpfs`` (``disk_mb``); the relay runs the bot."""
        folder = sandbox.seat_folder()
        path = os.path.join(folder, SOCKET_NAME)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(4)
        relay = os.path.join(folder, os.path.basename(RELAY))  # the relay's copy in the bot's own folder and the
        shutil.copyfile(RELAY, relay)  # system's Python: the sandbox shows the bot nothing of the arena's install
        Path(folder, STDERR).touch()  # made here, so that a capped folder can share it with the arena
        python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
        try:
            argv = [python, relay, str(self.port), path, "--", *self._argv(seat)]
            process = self._sandboxed(argv, folder, shared=(SOCKET_NAME, os.path.basename(RELAY), STDERR))
        except (OSError, BotFault) as exc:
            listener.close()
            shutil.rmtree(folder, ignore_errors=True)
            if isinstance(exc, BotFault):
                raise
            raise BotFault(self.name, "start", f"cannot run {self.template}: {exc.strerror or exc}") from None
        return Session(process, folder, listener, time.monotonic())

    # ------------------------------------------------------------------ stopping
    def _finish(self) -> None:
        """Send each connected program the messages that end its game (best effort: a program that closed
        is stopped, and started again at its next decision)."""
        for seat, session in list(self.sessions.items()):
            messages = self.protocol.finish(seat)
            if session.connection is None:
                continue
            try:
                session.connection.send(*messages)
            except (Closed, OSError):
                self._stop_seat(seat)

    def _stop_seat(self, seat: int) -> None:
        session = self.sessions.pop(seat, None)
        if session is None:
            return
        if session.connection is not None:
            try:
                session.connection.sock.close()
            except OSError:
                pass
        session.listener.close()
        sandbox.stop(session.process)
        shutil.rmtree(session.folder, ignore_errors=True)

    def _stop(self) -> None:
        for seat in list(getattr(self, "sessions", {})):
            self._stop_seat(seat)
        super()._stop()

    def close(self) -> None:
        """Send the end of the last game, then stop every program (the arena calls this after the table)."""
        try:
            self._finish()
        finally:
            self._stop()

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state["sessions"] = {}
        return state
