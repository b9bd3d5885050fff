#!/usr/bin/env python3
"""A bot written to the Guandan competition platform's WebSocket protocol (``gdws:``), standard library only:
it connects to ws://127.0.0.1:PORT/game/clientSEAT, keeps its hand from the notifications (and answers
"mismatch" where the question's handCards differ), and plays the entry of actionList with the most cards (the
first of those). ``python gdws_bot.py SEAT [MODE] [PORT]``; MODE: index (answers {"actIndex": i}), move (the
move itself, as OpenGuanDan's PLAY / TRIBUTE / PAYTRIBUTE messages), room (OpenGuanDan's: CREATE_ROOM first,
then as move), fragments (as index, each answer in three fragments with a ping and a pong between them: the
arena's pongs are skipped), or a fault: timeout, exit, disconnect, garbage, huge (a 70,000-byte message), once
(garbage at a question with 27 cards in hand only), range, unknown (a move not in the list), silent (never
connects), unmasked (its answer in an unmasked frame), binary (in a binary frame), badutf8 (a text frame
that is not UTF-8), close (a close frame, then it waits), stderrlink (replaces bot.stderr, where the relay
writes its standard error, with a link to /proc/self/environ and exits), stderrfifo (with a FIFO, and exits),
probe (answers 1 if it can reach 127.0.0.1:PROBE_PORT outside, given as a 4th argument, else 0, as actIndex)."""

import base64
import hashlib
import json
import os
import socket
import struct
import sys
import time
from collections import Counter


def connect(port, path):
    sock = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    sock.sendall(request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    expected = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    assert b"Sec-WebSocket-Accept: " + expected + b"\r\n" in head, head  # RFC 6455's check
    return sock


def read_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def receive(sock):
    """The next frame that is no pong: (opcode, payload)."""
    while True:
        first, second = read_exact(sock, 2)
        n = second & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", read_exact(sock, 2))
        elif n == 127:
            (n,) = struct.unpack("!Q", read_exact(sock, 8))
        opcode, payload = first & 0x0F, read_exact(sock, n)
        if opcode != 0xA:
            return opcode, payload


def frame(opcode, payload, final=True, masked=True):
    """One client frame (masked, as RFC 6455 requires of a client, unless ``masked`` is false)."""
    mask = os.urandom(4) if masked else b""
    n = len(payload)
    first = (0x80 if final else 0) | opcode
    flag = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", first, flag | n)
    elif n < 2**16:
        head = struct.pack("!BBH", first, flag | 126, n)
    else:
        head = struct.pack("!BBQ", first, flag | 127, n)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if masked else payload
    return head + mask + body


def send(sock, text):
    sock.sendall(frame(0x1, text.encode()))


def send_fragmented(sock, text):
    """The text in three fragments (text, continuation, final continuation) with a ping and an unsolicited
    pong between them, each in a write of its own."""
    data = text.encode()
    third = max(1, len(data) // 3)
    sock.sendall(frame(0x1, data[:third], final=False))
    sock.sendall(frame(0x9, b"are you there"))
    sock.sendall(frame(0x0, data[third : 2 * third], final=False))
    sock.sendall(frame(0xA, b"unasked"))
    sock.sendall(frame(0x0, data[2 * third :]))


def size(move):
    return 0 if move[2] == "PASS" else len(move[2])


def main():
    seat = int(sys.argv[1])
    mode = sys.argv[2] if len(sys.argv) > 2 else "index"
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 23456
    if mode == "silent":
        time.sleep(600)
    sock = connect(port, "/" if mode == "room" else f"/game/client{seat}")
    if mode == "room":  # OpenGuanDan's client takes a seat in a room first, then answers with moves
        send(sock, json.dumps({"type": "CREATE_ROOM", "data": {"userId": f"u{seat}", "round": 1, "seatNum": seat}}))
        reply = json.loads(receive(sock)[1])
        assert reply["type"] == "CREATE_ROOM" and reply["code"] == 200, reply
        mode = "move"
    hand = Counter()
    me = seat
    while True:
        try:
            opcode, data = receive(sock)
        except EOFError:
            return 0
        if opcode == 0x8:
            return 0
        message = json.loads(data)
        stage = message["stage"]
        if message["type"] == "notify":
            if stage == "beginning":
                hand, me = Counter(message["handCards"]), message["myPos"]
            elif stage == "play" and message["curPos"] == me and message["curAction"][0] != "PASS":
                hand -= Counter(message["curAction"][2])
            elif stage in ("tribute", "back"):
                for giver, receiver, card in message["result"]:
                    if giver == me:
                        hand[card] -= 1
                    if receiver == me:
                        hand[card] += 1
                hand = +hand
            continue
        if mode == "timeout":
            time.sleep(600)
        if mode == "exit":
            return 3
        if mode == "disconnect":
            sock.close()
            time.sleep(600)
        if mode == "stderrlink":
            os.remove("bot.stderr")  # in its working folder, where the relay writes its standard error
            os.symlink("/proc/self/environ", "bot.stderr")
            return 3
        if mode == "stderrfifo":
            os.remove("bot.stderr")
            os.mkfifo("bot.stderr")
            return 3
        if mode == "unmasked":
            sock.sendall(frame(0x1, b'{"actIndex": 0}', masked=False))
            continue
        if mode == "binary":
            sock.sendall(frame(0x2, b'{"actIndex": 0}'))
            continue
        if mode == "badutf8":
            sock.sendall(frame(0x1, b'{"actIndex": 0}\xff'))
            continue
        if mode == "close":
            sock.sendall(frame(0x8, struct.pack("!H", 1000)))
            time.sleep(600)
        if mode == "huge":
            send(sock, " " * 70_000)
            continue
        if mode == "garbage" or mode == "once" and len(message["handCards"]) == 27:
            send(sock, "hello")
            continue
        if mode == "probe":
            try:
                socket.create_connection(("127.0.0.1", int(sys.argv[4])), timeout=1).close()
                reached = 1
            except OSError:
                reached = 0
            send(sock, json.dumps({"actIndex": reached}))
            continue
        if Counter(message["handCards"]) != hand:
            send(sock, "mismatch")
            continue
        options = message["actionList"]
        assert message["indexRange"] == len(options) - 1
        best = max(range(len(options)), key=lambda i: (size(options[i]), -i))
        if mode == "range":
            send(sock, json.dumps({"actIndex": message["indexRange"] + 1}))
        elif mode == "unknown":
            send(sock, json.dumps({"type": "PLAY", "data": {"act": ["Single", "3", ["X3"]]}}))
        elif mode == "move":
            kind = {"play": "PLAY", "tribute": "TRIBUTE", "back": "PAYTRIBUTE"}[stage]
            act = options[best]
            if act[2] != "PASS":
                act = [act[0], act[1], list(reversed(act[2]))]  # any card order
            send(sock, json.dumps({"type": kind, "data": {"roomId": 1, "player": me, "act": act}}))
        elif mode == "fragments":
            send_fragmented(sock, json.dumps({"actIndex": best}))
        else:
            send(sock, json.dumps({"actIndex": best}))


if __name__ == "__main__":
    sys.exit(main())
