"""The arena's end of a ``gdws:`` bot's WebSocket (:class:`cardenvs.agent.websocket.Connection`, on wsproto),
driven over a socket pair by frames written here by hand: the opening handshake (RFC 6455's own example), masked
and fragmented messages with control frames between the fragments, and each way a client can get the protocol
wrong as the exception the agent turns into a fault; and the untrusted reading of the relay's output (the bot's
folder is read by :func:`cardenvs.agent.sandbox.read_untrusted`, tested with the sandbox). No sandbox and no
program: these run everywhere."""

import select
import socket
import struct
import subprocess
import sys
import time

import pytest

from cardenvs.agent.websocket import Closed, Connection, Malformed, relay_reason

LIMIT = 1000
KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # RFC 6455 1.3's example key, and its accept value below
ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
REQUEST = (
    "GET /game/client2 HTTP/1.1\r\nHost: 127.0.0.1:23456\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    f"Sec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
).encode()


def client_frame(opcode: int, payload: bytes, final: bool = True, mask: bytes | None = b"\x01\x02\x03\x04") -> bytes:
    """A client's frame as RFC 6455 5.2 lays it out (masked unless ``mask`` is None)."""
    n = len(payload)
    first = (0x80 if final else 0) | opcode
    flag = 0x80 if mask is not None else 0
    if n < 126:
        head = struct.pack("!BB", first, flag | n)
    elif n < 2**16:
        head = struct.pack("!BBH", first, flag | 126, n)
    else:
        head = struct.pack("!BBQ", first, flag | 127, n)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def server_frames(data: bytes) -> list[tuple[int, bytes]]:
    """The server's (unmasked) frames in ``data``: (opcode, payload) each."""
    out = []
    while data:
        first, second = data[0], data[1]
        assert not second & 0x80, "a server's frames are not masked"
        n, at = second & 0x7F, 2
        if n == 126:
            (n,), at = struct.unpack("!H", data[2:4]), 4
        elif n == 127:
            (n,), at = struct.unpack("!Q", data[2:10]), 10
        out.append((first & 0x0F, data[at : at + n]))
        data = data[at + n :]
    return out


def _drain(sock: socket.socket) -> bytes:
    sock.setblocking(False)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except BlockingIOError:
        pass
    sock.setblocking(True)
    return data


@pytest.fixture
def pair():
    """(the arena's Connection after the handshake, the client's socket, the handshake's response)."""
    server, client = socket.socketpair()
    connection = Connection(server, LIMIT)
    client.sendall(REQUEST)
    connection.handshake(time.monotonic() + 30)
    response = _drain(client)
    yield connection, client, response
    server.close()
    client.close()


def later() -> float:
    return time.monotonic() + 30  # the data is in the socket already: nothing waits


def test_the_handshake_answers_rfc_6455s_example(pair):
    connection, _, response = pair
    status, *lines = response.decode("latin-1").split("\r\n\r\n")[0].split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    assert status.startswith("HTTP/1.1 101 ")
    assert headers["sec-websocket-accept"] == ACCEPT and headers["upgrade"].lower() == "websocket"
    assert connection.path == "/game/client2"


def test_a_fragmented_masked_message_with_control_frames_between_is_one_message(pair):
    """Text, continuation, continuation (RFC 6455 5.4), each masked with its own key, a ping and an unasked pong
    between the fragments (5.5: control frames may be injected in a fragmented message): one message, the ping
    answered with a pong carrying its payload; a character split across two fragments is joined whole."""
    connection, client, _ = pair
    text = '{"actIndex": 3, "note": "héllo"}'.encode()
    cut = text.index("é".encode()) + 1  # inside the two bytes of é
    client.sendall(
        client_frame(0x1, text[:5], final=False, mask=b"\xaa\xbb\xcc\xdd")
        + client_frame(0x9, b"ping!")
        + client_frame(0x0, text[5:cut], final=False, mask=b"\x10\x20\x30\x40")
        + client_frame(0xA, b"unasked")
        + client_frame(0x0, text[cut:], mask=b"\xff\x00\xff\x00")
    )
    assert connection.receive(later()) == text.decode()
    assert server_frames(_drain(client)) == [(0xA, b"ping!")]


def test_messages_in_one_read_come_one_at_a_time(pair):
    connection, client, _ = pair
    client.sendall(client_frame(0x1, b"first") + client_frame(0x1, b"second"))
    assert connection.receive(later()) == "first"
    assert connection.receive(later()) == "second"


def test_the_server_sends_unmasked_text_frames(pair):
    connection, client, _ = pair
    connection.send("one", "two" * 100)
    assert server_frames(_drain(client)) == [(0x1, b"one"), (0x1, b"two" * 100)]


@pytest.mark.parametrize(
    ("frames", "what"),
    [
        (client_frame(0x1, b'{"actIndex": 0}', mask=None), "unmasked"),  # RFC 6455 5.1
        (client_frame(0x2, b'{"actIndex": 0}'), "binary"),
        (client_frame(0x1, b'{"actIndex": 0}\xff'), "utf-8"),
        (client_frame(0x1, b"\xc3", final=False) + client_frame(0x0, b"x"), "utf-8"),  # a character cut, not joined
        (client_frame(0x9, b"ping", final=False), "fragment"),  # a control frame may not be fragmented
        (client_frame(0x0, b"continued"), "continuation"),  # a continuation of nothing
        (client_frame(0x3, b"x"), "opcode"),  # a reserved opcode
        (bytes([0xC1]) + client_frame(0x1, b"x")[1:], "reserved"),  # RSV1 without an extension
        (client_frame(0x1, b"x", final=False) + client_frame(0x1, b"y"), "continuation"),  # a new text mid-message
    ],
)
def test_a_protocol_error_is_malformed(pair, frames, what):
    """Each is a ``garbage`` fault in the agent, its reason named; the server closes first (1002: a protocol
    error, 1003: data it does not take, 1007: text that is not UTF-8)."""
    connection, client, _ = pair
    client.sendall(frames)
    with pytest.raises(Malformed, match=f"(?i){what}"):
        connection.receive(later())
    (close,) = server_frames(_drain(client))
    assert close[0] == 0x8 and struct.unpack("!H", close[1][:2])[0] in (1002, 1003, 1007)


def test_a_message_over_the_limit_is_refused_before_it_is_whole(pair):
    """A frame that announces a million bytes: OverflowError once more than ``limit`` have come, without
    waiting for the rest (which never comes); and fragments that add up past it."""
    connection, client, _ = pair
    head = client_frame(0x1, b"x" * 1_000_000)[: 2 + 8 + 4]  # the header and mask of the huge frame
    assert len(head) == 14
    client.sendall(head + b"y" * (LIMIT + 1))
    with pytest.raises(OverflowError):
        connection.receive(later())


def test_fragments_over_the_limit_are_refused(pair):
    connection, client, _ = pair
    part = b"z" * (LIMIT // 2)
    client.sendall(client_frame(0x1, part, final=False) + client_frame(0x0, part, final=False))
    client.sendall(client_frame(0x0, b"!"))
    with pytest.raises(OverflowError):
        connection.receive(later())


def test_a_close_frame_is_answered_and_ends_the_connection(pair):
    connection, client, _ = pair
    client.sendall(client_frame(0x8, struct.pack("!H", 1000) + b"bye"))
    with pytest.raises(Closed):
        connection.receive(later())
    (reply,) = server_frames(_drain(client))
    assert reply[0] == 0x8 and struct.unpack("!H", reply[1][:2])[0] == 1000
    with pytest.raises(Closed):  # nothing more is sent on a closed connection
        connection.send("too late")


def test_the_end_of_the_stream_is_closed(pair):
    connection, client, _ = pair
    client.shutdown(socket.SHUT_WR)
    with pytest.raises(Closed):
        connection.receive(later())


def test_no_message_in_time_is_a_timeout(pair):
    connection, _, _ = pair
    with pytest.raises(TimeoutError):
        connection.receive(time.monotonic())  # a deadline already past: nothing is read


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"HELLO THERE\r\n\r\n",
        REQUEST.replace(b"Sec-WebSocket-Version: 13\r\n", b""),
        REQUEST.replace(b"GET ", b"POST "),
        b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 20_000 + b"\r\n\r\n",  # h11 bounds a request's head
    ],
)
def test_a_bad_handshake_is_malformed(request_bytes):
    server, client = socket.socketpair()
    client.sendall(request_bytes)
    with pytest.raises(Malformed):
        Connection(server, LIMIT).handshake(later())
    server.close()
    client.close()


# ---------------------------------------------------------------------- the relay's output, read as the bot's
def test_the_relays_reason_is_its_last_line_but_ready():
    """Read from the relay's output without waiting, though a process (the bot could) holds it open still."""
    script = (
        "import sys, time; print('ready'); print('cannot run /x/bot: Permission denied', flush=True); time.sleep(60)"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert process.stdout is not None
        reason = ""
        while not reason:
            select.select([process.stdout], [], [])  # until there is output to read: an event, not a time
            reason = relay_reason(process)
        assert reason == "cannot run /x/bot: Permission denied"
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def test_the_relays_reason_is_bounded_and_printable():
    script = "import sys; sys.stdout.buffer.write(b'ready\\n' + b'\\x1b[2J' + b'x' * 10000)"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    process.wait()
    try:
        reason = relay_reason(process)
        assert len(reason) <= 400 and "\x1b" not in reason and reason.strip("x ").startswith("[2J")
    finally:
        process.stdout.close()
