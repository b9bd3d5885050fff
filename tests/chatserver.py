"""A chat-completions server for the tests and the benchmark of ``llm:`` seats: a real HTTP server on the loopback
address (the standard library's, one thread per connection) speaking enough of ``POST /v1/chat/completions`` for
the ``openai`` client, driven by a scripted player that reads the prompt.

The scripted player answers with the legal move of the prompt (the ``legal`` list of its user message, the JSON
decision message of :func:`cardenvs.agent.prompts.prompt_messages`) whose name has the smallest SHA-256
(:func:`pick`); :class:`TwinAgent` is the same player as a Python agent, choosing from the observation.

The request's ``model`` says how the server behaves (several words joined by ``+``):

* ``twin``: the scripted player's answer, as ``Final Answer: NAME`` after a line of chatter;
* ``garbage``: an answer without a move, while the conversation has no rethink (then the scripted answer);
* ``garbage-always``, ``illegal-always``: such an answer every time (an illegal one names move id 999999);
* ``slow``: sleeps ``SLOW_S`` before answering; ``delay=S``: sleeps S seconds;
* ``error500``: HTTP 500; ``drop``: closes the connection without an answer; ``refuse-quoting``: HTTP 401 whose
  message quotes the key it was sent;
* ``ratelimit``: HTTP 429 with ``Retry-After: 0.05`` the first time it sees a conversation, then the answer;
  ``ratelimit-long``: 429 with ``Retry-After: 30`` every time; ``ratelimit-storm=VALUE``: 429 with
  ``Retry-After: VALUE`` every time (``VALUE`` as sent: ``nan``, ``-5``, ``inf``, ``0``, any text).

Hostile endpoints:

* ``echo-key=FORM``: the answer first quotes the key it was sent, in one of :data:`KEY_FORMS` (``middle``: 12
  characters from its middle, neither end; ``all``: every form), then the scripted answer; ``echo-key-error``:
  HTTP 500 whose message quotes the middle of the key; ``echo-key-header``: a response with a header line
  (without a colon, which the client refuses, quoting it) and an ``X-Echo`` header that hold the middle of the
  key;
* ``malformed=KIND``: a response that is no chat completion, one of :data:`MALFORMED` (``cutoff``: the body
  stops halfway and the connection closes);
* ``tokens=VALUE``: the scripted answer with ``usage.prompt_tokens`` written as :data:`TOKENS` says;
* ``flood=N``: an answer of ``N`` characters of chatter, then the scripted answer;
* ``drip=S``: the response one byte every ``S`` seconds from its status line on, never ending (headers, then an
  endless body), until the client goes or :data:`DRIP_MAX_S` pass; ``dripbody=S``: the headers at once, then
  the body so; bytes dripped are counted in ``server.dripped``, drips running in ``server.dripping``;
* ``gate=N``: each request held until ``N`` requests are being answered at once (or :data:`GATE_S` passed);
* ``encoded``: the answer gzip-compressed, with ``Content-Encoding: gzip``.

The server keeps every request's ``Authorization`` header in ``server.authorizations`` (the tests check the key
is sent), counts requests in ``server.requests`` and the most answered at once in ``server.most_active``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote

import numpy as np

SLOW_S = 1.0
CHATTER = "Let me think about the cards on the table.\n"
DRIP_MAX_S = 20.0
GATE_S = 1.0
#: how ``echo-key=FORM`` writes the key
KEY_FORMS = {
    "whole": lambda key: key,
    "middle": lambda key: key[len(key) // 2 - 6 : len(key) // 2 + 6],
    "upper": lambda key: key.upper(),
    "base64": lambda key: base64.b64encode(key.encode()).decode(),
    "base64url": lambda key: base64.urlsafe_b64encode(b"user:" + key.encode()).decode(),
    "quoted": lambda key: quote(key, safe=""),
    "hex": lambda key: key.encode().hex(),
    "json": lambda key: json.dumps(key).replace("/", "\\/")[1:-1],
}
_EACH_FORM = tuple(KEY_FORMS.values())
KEY_FORMS["all"] = lambda key: " ".join(form(key) for form in _EACH_FORM)
#: the bodies of ``malformed=KIND`` (``cut`` and ``cutoff`` are a good body's first half)
MALFORMED = {
    "badjson": '{"choices": [{"message": {"content": "Final Answer: pass"',
    "empty": "",
    "html": "<html><body><h1>502 Bad Gateway</h1></body></html>",
    "notobject": "[1, 2, 3]",
    "deep": "[" * 200_000,
    "nochoices": '{"id": "chatcmpl-test", "object": "chat.completion"}',
    "emptychoices": '{"choices": []}',
    "choicesnotlist": '{"choices": "many"}',
    "nomessage": '{"choices": [{"index": 0, "finish_reason": "stop"}]}',
    "contentnumber": '{"choices": [{"message": {"role": "assistant", "content": 5}}]}',
    "contentlist": '{"choices": [{"message": {"role": "assistant", "content": [{"type": "text"}]}}]}',
    "usagenotobject": '{"choices": [{"message": {"content": "Final Answer: x"}}], "usage": "lots"}',
    "cut": None,
    "cutoff": None,
}
#: how ``tokens=VALUE`` writes ``usage.prompt_tokens`` (raw JSON text; ``Infinity`` and ``NaN`` as Python writes them)
TOKENS = {"lots": '"lots"', "inf": "Infinity", "nan": "NaN", "neg": "-5", "huge": str(10**30), "float": "1e30"}


def pick(names: list[str]) -> str:
    """The scripted player's choice among move names: the one whose SHA-256 is smallest."""
    return min(names, key=lambda name: hashlib.sha256(name.encode()).hexdigest())


def answer(legal: list[dict]) -> str:
    """The scripted player's answer to a decision's legal moves (``{"id", "name"}``): the name :func:`pick`
    chooses (a name of digits, Dou Dizhu's single ``9``, is read as that name by
    :func:`~cardenvs.agent.prompts.read_answer`)."""
    name = pick([m["name"] for m in legal])
    return name


class TwinAgent:
    """The scripted player as a Python agent: :func:`pick` over the legal moves' names."""

    name = "twin"

    def __init__(self, env: Any):
        self.env = getattr(env, "unwrapped", env)

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        legal = [int(a) for a in np.flatnonzero(observation["action_mask"])]
        names = {self.env.action_name(a): a for a in legal}
        return names[pick(list(names))]


def _answer(
    model: str, messages: list[dict], seen: set[str], lock: threading.Lock, authorization: str
) -> tuple[int, dict, str]:
    """(status, headers, body text) of the answer to ``messages`` for the behaviours ``model``."""
    words = model.split("+")
    rethought = len(messages) > 2
    decision = json.loads(messages[1]["content"])
    for word in words:
        if word.startswith("delay="):
            time.sleep(float(word.partition("=")[2]))
    if "slow" in words:
        time.sleep(SLOW_S)
    key = authorization.removeprefix("Bearer ")
    options = dict(word.partition("=")[::2] for word in words if "=" in word)
    if "refuse-quoting" in words:  # as some providers do: the key, quoted in the error message
        message = f"Incorrect API key provided: {key}"
        return 401, {}, json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
    if "echo-key-error" in words:
        message = f"the model fell over holding {KEY_FORMS['middle'](key)}"
        return 500, {}, json.dumps({"error": {"message": message, "type": "server_error"}})
    if "ratelimit-storm" in options:
        message = json.dumps({"error": {"message": "slow down", "type": "rate_limit"}})
        return 429, {"Retry-After": options["ratelimit-storm"]}, message
    if "malformed" in options and MALFORMED[options["malformed"]] is not None:
        return 200, {}, MALFORMED[options["malformed"]]
    if "error500" in words:
        return 500, {}, json.dumps({"error": {"message": "the model fell over", "type": "server_error"}})
    if "ratelimit-long" in words:
        return 429, {"Retry-After": "30"}, json.dumps({"error": {"message": "slow down", "type": "rate_limit"}})
    if "ratelimit" in words:
        key = hashlib.sha256(json.dumps(messages).encode()).hexdigest()
        with lock:
            first = key not in seen
            seen.add(key)
        if first:
            return 429, {"Retry-After": "0.05"}, json.dumps({"error": {"message": "slow down", "type": "rate_limit"}})
    if "garbage-always" in words or ("garbage" in words and not rethought):
        content = "I would rather not say."
    elif "illegal-always" in words:
        content = "Final Answer: 999999"  # a move id no legal move has
    else:
        content = CHATTER + f"Final Answer: {answer(decision.get('legal', []))}"
    if "echo-key" in options:
        content = f"I was sent the key {KEY_FORMS[options['echo-key']](key)}.\n{content}"
    if "flood" in options:
        content = "x" * int(options["flood"]) + "\n" + content
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": sum(len(m["content"]) for m in messages) // 4,
            "completion_tokens": len(content) // 4,
            "total_tokens": 0,
        },
    }
    if "tokens" in options:
        body["usage"]["prompt_tokens"] = "__TOKENS__"
        return 200, {}, json.dumps(body).replace('"__TOKENS__"', TOKENS[options["tokens"]])
    return 200, {}, json.dumps(body)


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms wait for delayed ACKs

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        with self.server.changed:
            self.server.requests += 1
            self.server.authorizations.add(self.headers.get("Authorization", ""))
            self.server.active += 1
            self.server.most_active = max(self.server.most_active, self.server.active)
            self.server.changed.notify_all()
        try:
            self._post(request)
        finally:
            with self.server.changed:
                self.server.active -= 1
                self.server.changed.notify_all()

    def _post(self, request: dict) -> None:
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        model = request.get("model", "")
        words = model.split("+")
        options = dict(word.partition("=")[::2] for word in words if "=" in word)
        if "drop" in words:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if "gate" in options:
            with self.server.changed:
                self.server.changed.wait_for(lambda: self.server.active >= int(options["gate"]), timeout=GATE_S)
        authorization = self.headers.get("Authorization", "")
        status, headers, text = _answer(model, request["messages"], self.server.seen, self.server.lock, authorization)
        data = text.encode()
        if "encoded" in words:
            data = gzip.compress(data)
            headers = {**headers, "Content-Encoding": "gzip"}
        head = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}", "Content-Type: application/json"]
        head += [f"Content-Length: {len(data)}"] + [f"{name}: {value}" for name, value in headers.items()]
        if "echo-key-header" in words:
            middle = KEY_FORMS["middle"](authorization.removeprefix("Bearer "))
            head += [f"X-Echo: {middle}", f"the key {middle}"]  # the second line has no colon: the client refuses it
        if "drip" in options or "dripbody" in options:
            self._drip("\r\n".join(head[:2] + ["Content-Length: 100000000"]).encode() + b"\r\n\r\n", options)
            return
        if options.get("malformed") in ("cut", "cutoff"):
            if options["malformed"] == "cut":  # a body cut in half, and said to be that long
                data = data[: len(data) // 2]
                head[2] = f"Content-Length: {len(data)}"
            else:  # the whole length said, half of it sent, the connection closed
                data = data[: len(data) // 2]
                self.close_connection = True
        self.wfile.write("\r\n".join(head).encode() + b"\r\n\r\n" + data)
        self.wfile.flush()
        if self.close_connection:
            self.connection.shutdown(socket.SHUT_RDWR)

    def _drip(self, head: bytes, options: dict[str, str]) -> None:
        """Send ``head`` (at once with ``dripbody``), then an endless body, one byte every S seconds."""
        pause = float(options.get("drip") or options["dripbody"])
        self.close_connection = True
        with self.server.lock:
            self.server.dripping += 1
        try:
            if "dripbody" in options:
                self.wfile.write(head)
                self.wfile.flush()
                head = b""
            ends = time.monotonic() + DRIP_MAX_S
            sent = 0
            while time.monotonic() < ends and not self.server.closing:
                byte = head[sent : sent + 1] or b" "
                try:
                    self.wfile.write(byte)
                    self.wfile.flush()
                except OSError:  # the client went
                    return
                sent += 1
                with self.server.lock:
                    self.server.dripped += 1
                time.sleep(pause)
        finally:
            with self.server.lock:
                self.server.dripping -= 1


class ChatServer(ThreadingHTTPServer):
    """The server, on 127.0.0.1 at ``port`` (0: a free one); ``url`` is its ``base_url`` (``.../v1``)."""

    daemon_threads = True
    request_queue_size = 256  # connections waiting to be accepted (the default 5 refuses a burst of 32 clients)

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)  # told when ``active`` changes
        self.closing = False
        self.dripped = self.dripping = 0
        self.requests = 0
        self.active = self.most_active = 0  # requests being answered now, and the most at once
        self.authorizations: set[str] = set()
        self.seen: set[str] = set()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # a client that went (a cut flood or drip): expected
            return
        super().handle_error(request, client_address)

    def __exit__(self, *exc: Any) -> None:
        self.closing = True
        self.shutdown()
        self.server_close()


if __name__ == "__main__":  # python tests/chatserver.py [PORT]: serve until interrupted (docs/llm.md)
    with ChatServer(int(sys.argv[1]) if len(sys.argv) > 1 else 0) as running:
        print(running.url, flush=True)
        threading.Event().wait()
