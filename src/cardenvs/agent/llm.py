"""Language-model seats: the agent kind ``llm:MODEL``, a chat model behind any OpenAI-compatible endpoint
(vLLM, llama.cpp's server, Ollama, a hosted provider), asked through the official ``openai`` client (the
``llm`` extra: ``pip install 'cardenvs[llm]'``).

At each decision with more than one legal move the seat's prompt (:func:`.prompts.prompt_messages`: the rules,
the seat's view, the legal moves by name unless ``legal=none``, the answer format) is sent as one chat call and
the answer read back (:func:`.prompts.read_answer`). A decision with one legal move is played without a call.
An unreadable or illegal answer is answered with :func:`.prompts.rethink_message` (the model's answer and what
was wrong are added to the conversation) and the model asked again, at most ``rethink`` times.

Faults are :class:`~.program.BotFault` results, as a ``cmd:`` program's are, so the arena records them the same
way: the game is lost, or with ``fallback=AGENT`` that agent makes the move and the fault is recorded beside the
game. Kinds (:data:`FAULTS`): ``garbage`` and ``illegal`` (the last answer after the rethinks), ``timeout`` (no
answer within the call's ``move_ms``, or the game's ``game_ms`` spent), ``rate_limit`` (HTTP 429 whose wait does
not fit in the call's time left), ``server`` (HTTP 5xx, or a response that is no chat completion: see below),
``connection`` (the endpoint unreachable after its check, or the connection dropped before a response began)
and ``refused`` (another HTTP error: a bad key, an unknown model). Whatever else the client raises is a
``server`` fault: no response ends the tournament. 5xx, malformed responses and dropped connections are not
retried: they are faults at once (a fallback agent covers them).

The endpoint is untrusted (:mod:`.endpoint`):

* ``move_ms`` is a deadline for the whole call, waits for one of the ``in_flight`` slots and after 429s
  included: at the deadline a watchdog shuts the connection, so a server that drips a byte every 0.3 s, or never
  ends, is a ``timeout`` at ``move_ms``.
* A response is read strictly (:func:`.endpoint.read_completion`): JSON without ``NaN`` or ``Infinity``,
  ``choices[0].message.content`` a string (``null``: an empty answer), ``usage`` token counts whole numbers from
  0 to :data:`.endpoint.MAX_TOKEN_COUNT` (missing: 0), so a cost is never negative or infinite. A body over
  :func:`.endpoint.response_bytes` (1 MiB plus 64 bytes a token of ``max_tokens``), one that breaks off after
  its headers, or one compressed though ``identity`` was asked for, is a ``server`` fault; nothing of a faulty
  response is counted.
* An answer longer than :data:`.endpoint.ANSWER_CHARS` characters is kept as its start and its end, with a line
  between saying how many characters were cut; that kept text is what is read, stored and sent back in a rethink.
* A 429 is retried after its ``Retry-After`` (``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP
  date; unreadable, negative or infinite: 1 s), but never sooner than :data:`RETRY_FLOOR`, doubled at each 429
  of the call, and only where the wait fits in the call's time; else a ``rate_limit`` fault at once.

Before its first game a seat checks that its endpoint answers HTTP at all (:meth:`LLMAgent.check_endpoint`:
``GET {base_url}/models`` without a key, at most :data:`.endpoint.REACH_SECONDS`; a 404, 401 or 501 counts, so a
server without ``/models`` is reachable): one that does not is an :class:`.endpoint.Unreachable`, a ValueError
``llm:MODEL: cannot reach URL: connection refused`` (``cardenvs arena`` prints it as its one-line error, exit
status 2), not a table of ``connection`` faults that measured the fallback. Each endpoint is asked once in a
process; one that goes away later gives ``connection`` faults.

The openai client's environment: a seat sends what its name says, and nothing the client would take from the
environment unasked. ``OPENAI_BASE_URL`` is refused where the name gives no ``base_url`` (a ValueError naming
both and the name to write; a ``base_url`` in the name wins over it, as an argument wins in the client), and
``OPENAI_CUSTOM_HEADERS`` is refused (:data:`REFUSED_ENVIRONMENT`). ``OPENAI_API_KEY`` and ``OPENAI_ADMIN_KEY``
are never sent (the client is given the key as a callable, so it does not look for one; the tests check both):
a 401 or 403 fault without ``key_env`` says that no key was sent, and that ``key_env=OPENAI_API_KEY`` sends one
where that variable is set. ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` are sent as the client sends them (its
``OpenAI-Organization`` and ``OpenAI-Project`` headers); HTTP proxies are the HTTP client's (``HTTPS_PROXY``,
``NO_PROXY``).

The key: ``key_env=NAME`` names the environment variable that holds it, read at each call; the key is never
kept by the agent. Everything the endpoint sends that is kept or shown (answers, and so transcripts, replays
and rethinks; fault details, and so results files, reports and error messages) has every run of 8 characters of
the key, in any of its usual forms (as it is, any case, percent-encoded, hex, JSON-escaped, base64), replaced by
``[key]`` (:class:`.endpoint.KeyScrub`); a fault's detail is cut to :data:`DETAIL_CHARS` characters. Without
``key_env`` no key is sent (a local server): the client, which must send one, sends the placeholder ``none``.

Costs: every call's input and output tokens (the response's ``usage``), latency, the rethinks, the moves made by
the fallback, and the cost at ``price_in`` and ``price_out`` (per million tokens) are counted per game
(:meth:`LLMAgent.game_usage`, which the arena keeps in each game's record and sums per agent). Each decision's
messages and answers are kept per game (:meth:`LLMAgent.game_transcript`, ``cardenvs arena --transcripts DIR``).

Concurrency: ``in_flight=N`` lets the arena play N games of a table at once (threads, each game with its own env
and agents), and at most N calls of the model (per endpoint, model and N, in this process, whatever the number
of threads) are in flight at once: every copy of the agent shares one semaphore. One agent is one seat of one
game at a time.

Parameters, in the name: ``llm:MODEL(base_url=http://localhost:8000/v1,key_env=OPENAI_API_KEY,rethink=2)``
(:data:`PARAMETERS`), read by :func:`load_seat`, the agent loader's row for ``llm:`` names.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np

from ..core.env import legal_actions
from . import endpoint
from .endpoint import (
    CallGuard,
    EncodedResponse,
    KeyScrub,
    Malformed,
    ResponseTooLarge,
    check_reachable,
    kept_answer,
    read_completion,
    response_bytes,
    retry_after,
)
from .kinds import AgentRequest, parameters
from .program import BotFault
from .prompts import LEGAL_FORMS, AnswerError, prompt_messages, read_answer, rethink_message

#: the parameters of an ``llm:`` name: type, default, what
PARAMETERS: dict[str, tuple[type, Any, str]] = {
    "base_url": (str, "http://127.0.0.1:8000/v1", "the endpoint (OpenAI-compatible, up to /v1)"),
    "key_env": (str, "", "the environment variable holding the API key (empty: no key)"),
    "temperature": (float, 0.0, "sampling temperature"),
    "max_tokens": (int, 512, "most tokens of one answer"),
    "legal": (str, "list", "list: the prompt lists the legal moves; none: it does not"),
    "rethink": (int, 1, "times to ask again after an unreadable or illegal answer"),
    "fallback": (str, "", "agent that makes the move after a fault (empty: the fault loses the game)"),
    "move_ms": (int, 60_000, "milliseconds for one call (429 waits included)"),
    "game_ms": (int, 3_600_000, "milliseconds for all of one game's calls"),
    "price_in": (float, 0.0, "price per million input tokens"),
    "price_out": (float, 0.0, "price per million output tokens"),
    "in_flight": (int, 1, "calls in flight at once (the arena plays this many games of a table at once)"),
}
FAULTS = ("garbage", "illegal", "timeout", "rate_limit", "server", "connection", "refused")
#: the shortest wait after a 429, in seconds, doubled at each further 429 of one call (no storm of retries)
RETRY_FLOOR = 0.05
#: the most characters of a fault's detail (an endpoint's error message is cut to this)
DETAIL_CHARS = 300

#: the openai client's environment variables that would send a seat elsewhere, or send what its name does not say,
#: and that a seat refuses (module docstring): name -> why
REFUSED_ENVIRONMENT = {
    "OPENAI_BASE_URL": "a seat's endpoint is its base_url parameter",
    "OPENAI_CUSTOM_HEADERS": "a seat sends no headers from the environment (an Authorization there would be a key "
    "that key_env does not name, and no answer would be scrubbed of it)",
}

_LIMITS: dict[tuple[str, str, int], threading.BoundedSemaphore] = {}
_LIMITS_LOCK = threading.Lock()
#: the endpoints that answered HTTP in this process (:meth:`LLMAgent.check_endpoint`): not asked again
_REACHED: set[str] = set()


def _calls_limit(base_url: str, model: str, in_flight: int) -> threading.BoundedSemaphore:
    """The semaphore bounding the calls in flight to ``model`` at ``base_url`` in this process: every copy of the
    agent (one per game played at once) shares it."""
    with _LIMITS_LOCK:
        key = (base_url, model, in_flight)
        if key not in _LIMITS:
            _LIMITS[key] = threading.BoundedSemaphore(in_flight)
        return _LIMITS[key]


def load_seat(request: AgentRequest, game: str) -> LLMAgent:
    """``llm:MODEL(key=value,...)``, the agent loader's row for chat models (:mod:`.loader`): its parameters
    (:data:`PARAMETERS`) read, its fallback built, and its endpoint checked (:meth:`LLMAgent.check_endpoint`)."""
    if request.registered_only:
        raise ValueError(f"agent {request.name!r}: language-model seats (llm:MODEL) are not run here")
    try:
        import openai  # noqa: F401
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"agent {request.name!r} needs the llm extra ({exc.name} is missing): pip install 'cardenvs[llm]'"
        ) from None
    values, fallback = parameters(request, PARAMETERS, "llm")
    return LLMAgent(request.env, request.base.partition(":")[2], name=request.name, fallback=fallback, **values)


class LLMAgent:
    """``llm:MODEL``: a chat model choosing the moves of one seat (module docstring)."""

    def __init__(
        self, env: Any, model: str, name: str | None = None, fallback: Any = None, check: bool = True, **params: Any
    ):
        self.env = getattr(env, "unwrapped", env)
        self.model = model
        self.name = name or f"llm:{model}"
        if not model:
            raise ValueError(f"agent {self.name!r}: no model; write llm:MODEL, e.g. llm:qwen2.5-7b-instruct")
        unknown = [k for k in params if k not in PARAMETERS]
        if unknown:
            raise ValueError(f"agent {self.name!r}: unknown parameter {unknown[0]!r}")
        values = {k: default for k, (_, default, _) in PARAMETERS.items()}
        values.update(params)
        self.base_url = str(values["base_url"])
        self.key_env = str(values["key_env"])
        self.temperature, self.max_tokens = float(values["temperature"]), int(values["max_tokens"])
        self.legal, self.rethink = str(values["legal"]), int(values["rethink"])
        self.move_ms, self.game_ms = int(values["move_ms"]), int(values["game_ms"])
        self.price_in, self.price_out = float(values["price_in"]), float(values["price_out"])
        self.in_flight = int(values["in_flight"])
        if self.legal not in LEGAL_FORMS:
            raise ValueError(f"agent {self.name!r}: legal must be one of {', '.join(LEGAL_FORMS)}, got {self.legal!r}")
        if min(self.move_ms, self.game_ms, self.max_tokens, self.in_flight) <= 0:
            raise ValueError(f"agent {self.name!r}: move_ms, game_ms, max_tokens and in_flight must be positive")
        if self.rethink < 0 or min(self.price_in, self.price_out, self.temperature) < 0:
            raise ValueError(f"agent {self.name!r}: rethink, temperature and the prices must not be negative")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"agent {self.name!r}: base_url must start with http:// or https://: {self.base_url!r}")
        if self.key_env and self.key_env not in os.environ:
            raise ValueError(f"agent {self.name!r}: the environment variable {self.key_env} (key_env) is not set")
        self._refuse_environment(explicit_url="base_url" in params)
        self.fallback = fallback  # the agent that moves after a fault (the loader builds it from its name)
        self._client: Any = None
        self._guard = CallGuard()  # the deadline and byte cap of each call (:mod:`.endpoint`)
        self._limit = _calls_limit(self.base_url, model, self.in_flight)
        self.reset()
        if check:
            self.check_endpoint()

    def _refuse_environment(self, explicit_url: bool) -> None:
        """A ValueError for a variable of :data:`REFUSED_ENVIRONMENT` that is set (``OPENAI_BASE_URL`` only where
        the name gives no ``base_url``: the name's wins, as an argument wins over the client's environment)."""
        url = os.environ.get("OPENAI_BASE_URL", "").strip()
        if url and not explicit_url:
            raise ValueError(
                f"agent {self.name!r}: OPENAI_BASE_URL is set ({url}), but {REFUSED_ENVIRONMENT['OPENAI_BASE_URL']} "
                f"(default {self.base_url}): write llm:{self.model}(base_url={url}) to play there, or unset "
                "OPENAI_BASE_URL"
            )
        if os.environ.get("OPENAI_CUSTOM_HEADERS", "").strip():
            why = REFUSED_ENVIRONMENT["OPENAI_CUSTOM_HEADERS"]
            raise ValueError(
                f"agent {self.name!r}: OPENAI_CUSTOM_HEADERS is set, but {why}: unset it (the key goes in key_env)"
            )

    def check_endpoint(self) -> None:
        """Whether :attr:`base_url` answers HTTP (:func:`.endpoint.check_reachable`: ``GET {base_url}/models``
        without a key, at most :data:`.endpoint.REACH_SECONDS`; any status counts): an
        :class:`~.endpoint.Unreachable` (a ValueError) ``llm:MODEL: cannot reach URL: why`` when it does not.
        Asked once per endpoint in a process; an endpoint gone later gives ``connection`` faults."""
        if self.base_url in _REACHED:
            return
        from openai import DefaultHttpxClient

        guard = CallGuard()
        with DefaultHttpxClient(event_hooks=guard.hooks()) as http:
            try:
                check_reachable(http, self.base_url, guard, endpoint.REACH_SECONDS)
            except endpoint.Unreachable as exc:
                raise endpoint.Unreachable(f"llm:{self.model}: {exc}") from None
        _REACHED.add(self.base_url)

    def __repr__(self) -> str:
        return f"LLMAgent({self.name!r})"

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.update(_client=None, _guard=None, _limit=None)  # a copy makes its own client; the limit is shared
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._guard = CallGuard()
        self._limit = _calls_limit(self.base_url, self.model, self.in_flight)

    # ------------------------------------------------------------------ the agent
    def reset(self) -> None:
        """A new game: its time, its counts, its faults and its transcript start again."""
        self._game_left = self.game_ms / 1000
        self.faults: list[BotFault] = []  # faults covered by the fallback in the current game
        self._usage = {"calls": 0, "input_tokens": 0, "output_tokens": 0, "rethinks": 0, "fallbacks": 0}
        self._latencies: list[float] = []
        self._transcript: list[dict] = []

    def act(self, observation: dict[str, np.ndarray], rng: np.random.Generator) -> int:
        legal = legal_actions(observation)
        if len(legal) == 1:  # nothing to choose: no call
            return int(legal[0])
        seat = self.env.agent_name_mapping[self.env.agent_selection]
        messages = prompt_messages(self.env, seat, observation, self.legal)
        entry: dict[str, Any] = {"step": len(self.env.actions_taken), "seat": seat, "messages": messages, "answers": []}
        self._transcript.append(entry)
        try:
            action = self._decide(entry, observation)
        except BotFault as fault:
            entry["fault"] = {"kind": fault.kind, "detail": fault.detail}
            if self.fallback is None:
                raise
            self.faults.append(fault)
            self._usage["fallbacks"] += 1
            action = int(self.fallback.act(observation, rng))
            entry["fallback"] = getattr(self.fallback, "name", "fallback")
        entry.update(action=int(action), move=self.env.action_name(int(action)))
        return int(action)

    def _decide(self, entry: dict, observation: dict[str, np.ndarray]) -> int:
        """Ask, and ask again after each unreadable or illegal answer (at most ``rethink`` times)."""
        messages = list(entry["messages"])
        for attempt in range(self.rethink + 1):
            text = self._call(messages)
            entry["answers"].append(text)
            try:
                return read_answer(self.env, text, observation)
            except AnswerError as error:
                if attempt == self.rethink:
                    raise BotFault(self.name, error.kind, error.detail) from None
                self._usage["rethinks"] += 1
                messages += [{"role": "assistant", "content": text}, rethink_message(error)]
                entry["messages"] = list(messages)
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ the endpoint
    def _key(self) -> str:
        return os.environ.get(self.key_env, "") if self.key_env else ""

    def _fault(self, kind: str, detail: str, scrub: KeyScrub) -> BotFault:
        """A fault whose detail (cut to :data:`DETAIL_CHARS`) has no run of the key."""
        return BotFault(self.name, kind, scrub(detail[:DETAIL_CHARS]))

    def client(self) -> Any:
        """The ``openai`` client of this agent (made at its first call; no retries of its own; its HTTP client
        hooked to :attr:`_guard`, asking for uncompressed answers)."""
        if self._client is None:
            from openai import DefaultHttpxClient, OpenAI

            # the key is read from the environment at each request (a callable), never kept here
            key = lambda: self._key() or "none"  # noqa: E731
            self._client = OpenAI(
                base_url=self.base_url,
                api_key=key,
                max_retries=0,
                timeout=self.move_ms / 1000,
                default_headers={"Accept-Encoding": "identity"},
                http_client=DefaultHttpxClient(event_hooks=self._guard.hooks()),
            )
        return self._client

    def _call(self, messages: list[dict]) -> str:
        """One chat call (429s retried within its time), counted; its answer cut to
        :data:`~.endpoint.ANSWER_CHARS` and without the key; a :class:`BotFault` for what is no answer."""
        started = time.monotonic()
        budget = min(self.move_ms / 1000, self._game_left)
        scrub = KeyScrub(self._key())
        try:
            if budget <= 0:
                raise self._fault("timeout", f"the game's {self.game_ms} ms are spent", scrub)
            body, latency = self._ask(messages, started + budget, scrub)
            try:
                content, input_tokens, output_tokens = read_completion(body)
            except Malformed as exc:
                raise self._fault("server", str(exc), scrub) from None
        finally:
            self._game_left -= time.monotonic() - started
        self._usage["calls"] += 1
        self._usage["input_tokens"] += input_tokens
        self._usage["output_tokens"] += output_tokens
        self._latencies.append(latency)
        return scrub(kept_answer(content))

    def _ask(self, messages: list[dict], deadline: float, scrub: KeyScrub) -> tuple[bytes, float]:
        """The body of the first answer that is not a 429 before ``deadline``, and its latency (ms)."""
        import openai

        budget_ms = (deadline - time.monotonic()) * 1000
        waits = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self._limit.acquire(timeout=left):
                raise self._fault("timeout", f"no answer within {budget_ms:.0f} ms", scrub)
            try:
                with self._guard.call(left, response_bytes(self.max_tokens)) as guard:
                    asked = time.monotonic()
                    try:
                        raw = self.client().chat.completions.with_raw_response.create(
                            model=self.model,
                            messages=messages,  # type: ignore[arg-type]
                            temperature=self.temperature,
                            max_tokens=self.max_tokens,
                            timeout=max(0.001, left),
                        )
                        return raw.http_response.content, (time.monotonic() - asked) * 1000
                    except openai.RateLimitError as exc:
                        if guard.expired:
                            raise self._fault("timeout", f"no answer within {budget_ms:.0f} ms", scrub) from None
                        headers = exc.response.headers
                    except Exception as exc:  # whatever the client raised: a fault, never the tournament's end
                        raise self._call_fault(exc, guard, budget_ms, scrub) from None
            finally:
                self._limit.release()
                if self._guard.expired:  # its socket was shut: a new client makes a new connection
                    self.close()
            # a 429: wait as asked (at least RETRY_FLOOR, doubled at each 429 of the call) if that fits
            wait = max(retry_after(headers), RETRY_FLOOR * 2**waits)
            waits += 1
            left = deadline - time.monotonic()
            if wait >= left:
                raise self._fault(
                    "rate_limit", f"HTTP 429; a wait of {wait:g} s does not fit in {max(0.0, left):.3f} s", scrub
                )
            time.sleep(wait)

    def _call_fault(self, exc: Exception, guard: CallGuard, budget_ms: float, scrub: KeyScrub) -> BotFault:
        """The fault of a call that raised ``exc``."""
        import openai

        cause = exc.__cause__ if isinstance(exc, openai.APIConnectionError) else exc
        if guard.expired or isinstance(exc, openai.APITimeoutError):
            return self._fault("timeout", f"no answer within {budget_ms:.0f} ms", scrub)
        if isinstance(cause, (ResponseTooLarge, EncodedResponse)):
            return self._fault("server", str(cause), scrub)
        if isinstance(exc, openai.APIConnectionError):
            if guard.answered:  # the status and headers came, then the body broke off
                return self._fault("server", f"the response broke off: {exc.__cause__ or exc}", scrub)
            return self._fault("connection", f"{exc}: {exc.__cause__ or ''}", scrub)
        if isinstance(exc, openai.APIStatusError):
            kind = "server" if exc.status_code >= 500 else "refused"
            return self._fault(kind, f"HTTP {exc.status_code}{self._no_key(exc.status_code)}: {exc.message}", scrub)
        return self._fault("server", f"{type(exc).__name__}: {exc}", scrub)

    def _no_key(self, status: int) -> str:
        """What a refusal's fault adds where no key was sent: a 401 or 403 without ``key_env``."""
        if status not in (401, 403) or self.key_env:
            return ""
        hint = "; OPENAI_API_KEY is set: key_env=OPENAI_API_KEY sends it" if os.environ.get("OPENAI_API_KEY") else ""
        return f" (no key was sent: key_env names none{hint})"

    # ------------------------------------------------------------------ what the arena reads
    def game_usage(self) -> dict[str, Any]:
        """This game's calls, tokens, latencies (ms), cost, rethinks and moves made by the fallback."""
        usage: dict[str, Any] = dict(self._usage)
        usage["cost"] = (usage["input_tokens"] * self.price_in + usage["output_tokens"] * self.price_out) / 1e6
        usage["latency_ms"] = [round(x, 1) for x in self._latencies]
        return usage

    def game_transcript(self) -> list[dict]:
        """This game's decisions: ``step`` (moves before it), ``seat``, the ``messages`` sent (with the rethinks),
        the ``answers``, the ``action`` and its ``move``, and a ``fault`` and ``fallback`` where there was one."""
        return list(self._transcript)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
