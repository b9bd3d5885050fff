"""A chat endpoint as untrusted input: what :mod:`.llm` needs to hold one call to its time and size, read its
response strictly, and keep the API key out of everything the endpoint sends back.

* :class:`CallGuard`: the event hooks of an agent's HTTP client. A call is a deadline for the whole call (the
  client's own timeout bounds each read, so a server that drips a byte every 0.3 s, or never ends, is not cut by
  it): at the deadline a watchdog shuts the connection's socket (found through the HTTP core's ``trace``
  extension when the connection is made), which ends the read at once. The response body, error bodies
  included, is cut at :func:`response_bytes` (:class:`ResponseTooLarge`), and a response with a
  ``Content-Encoding`` other than ``identity`` (the client asks for ``identity``) is refused
  (:class:`EncodedResponse`): a compressed body could unpack past any cap.
* :func:`read_completion`: the body of a chat completion as JSON (``NaN`` and ``Infinity`` refused), an object
  whose ``choices[0].message.content`` is a string (``null`` reads as an empty answer), and whose ``usage`` token
  counts, where given, are whole numbers from 0 to :data:`MAX_TOKEN_COUNT` (a missing or ``null`` count is 0);
  anything else is :class:`Malformed`.
* :func:`kept_answer`: an answer longer than :data:`ANSWER_CHARS` is kept as its start and its end, with a line
  between them saying how many characters were not kept.
* :class:`KeyScrub`: every run of at least :data:`KEY_RUN` characters of the key (all of it, for a shorter key)
  in any of its forms (:func:`key_forms`: as it is, percent-encoded, hex, JSON- and repr-escaped, base64 in
  either alphabet at each of the three byte alignments), matched without regard to case, is replaced by
  :data:`KEY_MARK`. Runs are contiguous: a key spelt out with other characters between its own is not found.
* :func:`retry_after`: the wait a 429 asks for, always a finite number of seconds not below 0: an unreadable,
  negative or infinite header reads as :data:`DEFAULT_RETRY_AFTER`.
* :func:`check_reachable`: whether an endpoint answers HTTP at all, asked once before a seat plays: ``GET
  {base_url}/models`` without a key, held as a whole to :data:`REACH_SECONDS` by a :class:`CallGuard`. Any status
  line with headers counts (a 404 from a server without ``/models``, a 401 from one that wants a key, a 501 from
  one without ``GET``); no answer is :class:`Unreachable`, saying why in a few words (:func:`unreachable_reason`:
  ``connection refused``, ``the host is not known``, ``no HTTP answer within 5 s``, ...). The name's lookup is the
  system resolver's and is not bounded by it.
"""

from __future__ import annotations

import base64
import json
import math
import socket
import ssl
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.utils import parsedate_to_datetime
from functools import cache
from typing import Any
from urllib.parse import quote, quote_plus

#: the fewest characters of the key, in a row, that are taken out of what the endpoint sends
KEY_RUN = 8
#: what stands where a run of the key was
KEY_MARK = "[key]"
#: the most characters of one answer kept (its first and last half of this); the rest is cut, and the answer says so
ANSWER_CHARS = 16_000
#: the most bytes of a response body: this, plus :data:`RESPONSE_BYTES_PER_TOKEN` for each token of ``max_tokens``
RESPONSE_BYTES = 1 << 20
RESPONSE_BYTES_PER_TOKEN = 64
#: the largest token count one response's ``usage`` may give (a larger one is a malformed response)
MAX_TOKEN_COUNT = 10**8
#: the wait after a 429 without a readable ``Retry-After`` (or ``retry-after-ms``) header, in seconds
DEFAULT_RETRY_AFTER = 1.0
#: the trace events whose return value is the network stream a connection reads from
_STREAM_EVENTS = ("connect_tcp.complete", "connect_unix_socket.complete", "start_tls.complete")
#: the most seconds :func:`check_reachable` waits for an endpoint's first HTTP answer, connecting included
REACH_SECONDS = 5.0


class Malformed(ValueError):
    """A response that is not a chat completion (what is wrong, in one line)."""


class ResponseTooLarge(Exception):
    """A response body longer than the call allows."""


class EncodedResponse(Exception):
    """A response with a ``Content-Encoding`` other than ``identity``."""


class Unreachable(ValueError):
    """An endpoint that gives no HTTP answer (:func:`check_reachable`); its text is one line saying which and why."""


def response_bytes(max_tokens: int) -> int:
    """The most bytes of a response body to a call of at most ``max_tokens`` tokens."""
    return RESPONSE_BYTES + RESPONSE_BYTES_PER_TOKEN * max_tokens


# ------------------------------------------------------------------ the call's time and size
class CallGuard:
    """Hooks for one agent's HTTP client (``httpx.Client(event_hooks=guard.hooks())``, or its ``httpx2`` twin)
    holding each call made inside :meth:`call` to its deadline and its byte cap. One call at a time: an agent is
    one seat of one game at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stream: Any = None  # the network stream of the client's newest connection
        self._armed = False
        self.expired = False  # the deadline came during the call (the socket was shut)
        self.answered = False  # a response's status and headers came during the call
        self.max_bytes = RESPONSE_BYTES

    def hooks(self) -> dict[str, list]:
        return {"request": [self._on_request], "response": [self._on_response]}

    def _on_request(self, request: Any) -> None:
        request.extensions["trace"] = self._trace

    def _trace(self, name: str, info: dict) -> None:
        # one call at a time reuses one connection, so the newest connection made is the one the call reads from
        if name.endswith(_STREAM_EVENTS):
            with self._lock:
                self._stream = info.get("return_value")

    def _on_response(self, response: Any) -> None:
        self.answered = True
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            raise EncodedResponse(f"the response is encoded ({encoding[:40]}) though identity was asked for")
        response.stream = _capped_stream_class(_stream_base(response))(response.stream, self.max_bytes)

    @contextmanager
    def call(self, seconds: float, max_bytes: int) -> Iterator[CallGuard]:
        """A call that ends within ``seconds`` and reads at most ``max_bytes`` of a body."""
        with self._lock:
            self.expired = self.answered = False
            self.max_bytes = max_bytes
            self._armed = True
        timer = threading.Timer(max(0.0, seconds), self._expire)
        timer.daemon = True
        timer.start()
        try:
            yield self
        finally:
            with self._lock:
                self._armed = False
            timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            if not self._armed:  # the call ended as the timer fired
                return
            self.expired = True
            stream = self._stream
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is None:  # still connecting: the client's connect timeout (the call's time) ends it
            return
        try:
            # shutdown, not close: it wakes the read blocked on this socket in the caller's thread, and the
            # descriptor stays the connection's until the client closes it
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass  # the connection closed already: no read waits on it


def _stream_base(response: Any) -> type:
    """The ``SyncByteStream`` class of the HTTP library of ``response`` (``httpx`` or ``httpx2``)."""
    return sys.modules[type(response).__module__.partition(".")[0]].SyncByteStream


@cache
def _capped_stream_class(base: type) -> type:
    class CappedStream(base):  # type: ignore[misc, valid-type]
        """A response body that raises :class:`ResponseTooLarge` past ``max_bytes``."""

        def __init__(self, inner: Any, max_bytes: int) -> None:
            self._inner, self._max_bytes = inner, max_bytes

        def __iter__(self) -> Iterator[bytes]:
            seen = 0
            for chunk in self._inner:
                seen += len(chunk)
                if seen > self._max_bytes:
                    raise ResponseTooLarge(f"the response is over {self._max_bytes} bytes")
                yield chunk

        def close(self) -> None:
            self._inner.close()

    return CappedStream


# ------------------------------------------------------------------ is anyone there
def check_reachable(http: Any, base_url: str, guard: CallGuard, seconds: float) -> None:
    """``GET {base_url}/models`` through ``http`` (an HTTP client made with ``guard``'s hooks), no key sent, the
    whole request held to ``seconds``: returns once a status line and headers come, whatever the status;
    :class:`Unreachable` (``cannot reach URL: why``) when none does."""
    url = f"{base_url.rstrip('/')}/models"
    try:
        with guard.call(seconds, 1 << 16):
            with http.stream("GET", url, headers={"Accept-Encoding": "identity"}, timeout=max(0.001, seconds)):
                return  # the status line and the headers are the answer; the body is not read
    except Exception as exc:  # whatever the HTTP library raises: the endpoint did not answer, or did and broke off
        if guard.answered and not guard.expired:  # it answered HTTP (a refused encoding, a cut body): reachable
            return
        raise Unreachable(f"cannot reach {base_url}: {unreachable_reason(exc, seconds, guard.expired)}") from None


def unreachable_reason(exc: BaseException, seconds: float, expired: bool = False) -> str:
    """Why a request that raised ``exc`` got no HTTP answer, in a few words (the causes the HTTP library chained
    to it are read first: a refused connection, an unknown host, TLS, a timeout)."""
    late = f"no HTTP answer within {seconds:g} s"
    if expired:
        return late
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in chain and len(chain) < 16:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    for error in chain:
        if isinstance(error, ConnectionRefusedError):
            return "connection refused"
        if isinstance(error, socket.gaierror):
            return f"the host is not known ({error.strerror})"
        if isinstance(error, ssl.SSLError):
            return f"TLS failed ({error.reason or error})"
        if isinstance(error, TimeoutError) or "Timeout" in type(error).__name__:
            return late
        if isinstance(error, ConnectionResetError):
            return "the connection was reset"
    text = " ".join(str(exc).split())[:200]
    if "connection refused" in text.lower():
        return "connection refused"
    return f"no HTTP answer ({type(exc).__name__}: {text})" if text else f"no HTTP answer ({type(exc).__name__})"


# ------------------------------------------------------------------ the response
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_completion(body: bytes) -> tuple[str, int, int]:
    """(answer, input tokens, output tokens) of a chat completion's body; :class:`Malformed` for anything else."""
    try:
        data = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        start = body[:80].decode("utf-8", "replace")
        raise Malformed(f"the response is not JSON ({str(exc)[:80]}): {start!r}") from None
    if not isinstance(data, dict):
        raise Malformed(f"the response is a JSON {type(data).__name__}, not an object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise Malformed("the response has no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise Malformed("the response's first choice has no message")
    content = message.get("content")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise Malformed(f"the answer's content is a JSON {type(content).__name__}, not a string")
    usage = data.get("usage")
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        raise Malformed(f"the response's usage is a JSON {type(usage).__name__}, not an object")
    return content, _token_count(usage, "prompt_tokens"), _token_count(usage, "completion_tokens")


def _token_count(usage: dict, name: str) -> int:
    value = usage.get(name)
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKEN_COUNT:
        raise Malformed(f"usage.{name} is {str(value)[:40]!r}, not a count of tokens from 0 to {MAX_TOKEN_COUNT}")
    return value


def kept_answer(text: str) -> str:
    """``text``, or its first and last ``ANSWER_CHARS / 2`` characters and a line saying how many were cut."""
    if len(text) <= ANSWER_CHARS:
        return text
    half = ANSWER_CHARS // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half:,} characters of the answer not kept ...]\n{text[-half:]}"


def retry_after(headers: Any) -> float:
    """The wait a 429 asks for, in seconds: ``retry-after-ms``, else ``Retry-After`` (seconds or an HTTP date),
    the first that reads as a finite wait not below 0; else :data:`DEFAULT_RETRY_AFTER`."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            seconds = _until(value) if name == "retry-after" else math.nan
        if math.isfinite(seconds) and seconds >= 0:
            return seconds
    return DEFAULT_RETRY_AFTER


def _until(date: str) -> float:
    """Seconds from now to an HTTP date (0 for a date gone by; NaN for what is not a date)."""
    try:
        when = parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return math.nan
    return max(0.0, when.timestamp() - time.time())


# ------------------------------------------------------------------ the key
def key_forms(key: str) -> set[str]:
    """The forms in which an endpoint could send ``key`` back (module docstring)."""
    raw = key.encode()
    escaped = json.dumps(key)[1:-1]
    forms = {key, quote(key, safe=""), quote_plus(key), raw.hex(), escaped, escaped.replace("/", "\\/")}
    forms.add(repr(key)[1:-1])
    for offset in range(3):
        chunk = raw[offset:]
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(chunk).decode().rstrip("=")
            # the last character of a partial group depends on what follows the key: left out
            forms.add(text[:-1] if len(chunk) % 3 else text)
    return {form for form in forms if form}


class KeyScrub:
    """``scrub(text)``: ``text`` with every run of the key replaced by :data:`KEY_MARK` (module docstring).
    Made for one call from the key of that call, and not kept: it holds pieces of the key."""

    def __init__(self, key: str) -> None:
        self._run = min(KEY_RUN, len(key))
        self._pieces = {
            form.lower()[i : i + self._run] for form in key_forms(key) for i in range(len(form) - self._run + 1)
        }

    def __call__(self, text: str) -> str:
        if not self._pieces or len(text) < self._run:
            return text
        lowered = text.lower()
        if len(lowered) != len(text):  # a character whose lower case is longer: keep it as it is
            lowered = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
        run, pieces = self._run, self._pieces
        spans: list[list[int]] = []
        for at in range(len(text) - run + 1):
            if lowered[at : at + run] in pieces:
                if spans and at <= spans[-1][1]:
                    spans[-1][1] = at + run
                else:
                    spans.append([at, at + run])
        if not spans:
            return text
        out, last = [], 0
        for start, end in spans:
            out += [text[last:start], KEY_MARK]
            last = end
        out.append(text[last:])
        return "".join(out)
