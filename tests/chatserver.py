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
  ``ratelimit-long``: 429 with ``Retry-After: 30`` every time.

The server keeps every request's ``Authorization`` header in ``server.authorizations`` (the tests check the key
is sent), counts requests in ``server.requests`` and the most answered at once in ``server.most_active``.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

SLOW_S = 1.0
CHATTER = "Let me think about the cards on the table.\n"


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
    if "refuse-quoting" in words:  # as some providers do: the key, quoted in the error message
        message = f"Incorrect API key provided: {authorization.removeprefix('Bearer ')}"
        return 401, {}, json.dumps({"error": {"message": message, "type": "invalid_request_error"}})
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
        with self.server.lock:
            self.server.requests += 1
            self.server.authorizations.add(self.headers.get("Authorization", ""))
            self.server.active += 1
            self.server.most_active = max(self.server.most_active, self.server.active)
        try:
            self._post(request)
        finally:
            with self.server.lock:
                self.server.active -= 1

    def _post(self, request: dict) -> None:
        if not self.path.endswith("/chat/completions"):
            self.send_error(404)
            return
        model = request.get("model", "")
        if "drop" in model.split("+"):
            self.close_connection = True
            self.connection.shutdown(2)
            return
        authorization = self.headers.get("Authorization", "")
        status, headers, text = _answer(model, request["messages"], self.server.seen, self.server.lock, authorization)
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class ChatServer(ThreadingHTTPServer):
    """The server, on 127.0.0.1 at ``port`` (0: a free one); ``url`` is its ``base_url`` (``.../v1``)."""

    daemon_threads = True
    request_queue_size = 256  # connections waiting to be accepted (the default 5 refuses a burst of 32 clients)

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.lock = threading.Lock()
        self.requests = 0
        self.active = self.most_active = 0  # requests being answered now, and the most at once
        self.authorizations: set[str] = set()
        self.seen: set[str] = set()
        self.url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()
        self.server_close()


if __name__ == "__main__":  # python tests/chatserver.py [PORT]: serve until interrupted (docs/llm.md)
    import sys

    with ChatServer(int(sys.argv[1]) if len(sys.argv) > 1 else 0) as running:
        print(running.url, flush=True)
        threading.Event().wait()
