"""Prompts for language-model seats (``llm:MODEL``) and fine-tuning data (``cardenvs dataset``): a seat's
decision as chat messages, and a model's answer read back as an action.

Everything in a prompt is read from the game itself, never from a second description of a game:

* the **system message** (:func:`system_message`) is the rules summary: the game's title (its spec), the
  "Rules, in plain words" bullets of the docstring of its rules module (the env's numba core; a game without
  one: the first paragraph of its env module's docstring), with reStructuredText markup removed; then the
  options in play with what each means (the env's ``OPTIONS``); then the answer format;
* the **user message** (:func:`view_lines`) is the decision, a JSON object whose values are words: ``game``,
  ``you`` (the seat), ``view`` (the lines of the seat's view: its hand, every seat's cards left, roles, teams,
  levels, the table and the game's notes, from the game view's ``table_view(base, seat)``; a hand is shown
  only where this seat may see it), ``history`` (every move so far as this seat may see it,
  :func:`cardenvs.seatview.public_move`), ``legal`` (the legal moves, ``{"id", "name"}``, left out with
  ``legal="none"``) and ``answer`` (the answer format again). JSON keeps the fields apart for the model and
  for programs that read the prompt (the tests' scripted chat server reads ``legal``).

The answer (:func:`read_answer`): the text after the **last** ``Final Answer:`` (any case), up to the end of
its line (else the last non-empty line of the answer), with Markdown emphasis, quotes and a final full stop
taken off. It is a legal move if it is, in this order: a legal move's id written ``#ID`` or ``id ID``; a bare
number, read as a move's name where the game names a move so (Dou Dizhu's single ``9``), else as an id; a legal
move's name,
ignoring case and runs of spaces; a legal move's name with every space taken out, where just one legal
name matches so; what the game's own ``parse_action`` reads (the terminal's forms: Dou Dizhu's ``333+4``,
Twos' or Guandan's cards to play in any order, Twenty's card codes, ...). Otherwise it is an
:class:`AnswerError`: ``"illegal"`` where it names a move of the game (or is a number) that is not legal
here, ``"garbage"`` where it names nothing.

The API (stable: :mod:`.llm` and the dataset writer use it):

* :func:`prompt_messages` ``(env, seat, observation, legal="list") -> list[dict]``: the chat messages
  (``{"role", "content"}``, a system message then a user message) for the decision of ``seat`` of the AEC env
  ``env`` (unwrapped), ``observation`` its ``{"observation", "action_mask"}``; ``legal="none"`` leaves the
  legal moves out of the prompt.
* :func:`read_answer` ``(env, text, observation) -> int``: the action of a model's answer, or an
  :class:`AnswerError` (``kind`` ``"garbage"``: no move could be read; ``"illegal"``: a move, not legal here).
* :func:`rethink_message` ``(error) -> dict``: the user message that says what was wrong and asks again.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import numpy as np

from ..core.env import legal_actions
from ..registry import spec_of
from ..seatview import public_move, table_view

LEGAL_FORMS = ("list", "none")
ANSWER_PREFIX = "Final Answer:"
#: the heading of the rules summary in a rules module's docstring (its bullets follow)
RULES_HEADINGS = ("Rules, in plain words:", "Plain words:")
#: the longest rules summary taken from a docstring, in characters (whole bullets are kept)
RULES_CHARS = 4000


class AnswerError(ValueError):
    """A model's answer that gives no legal move: ``kind`` is ``"garbage"`` or ``"illegal"``."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


# ------------------------------------------------------------------ the rules summary
def _plain(text: str) -> str:
    """reStructuredText markup taken off: roles (:mod:`.moves` -> moves), literals, emphasis."""
    text = re.sub(r":\w+:`~?\.?([^`]*)`", lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return text.replace("``", "").replace("**", "")


def rules_summary(base: Any) -> str:
    """The plain-words rules of ``base``'s game (module docstring), whole bullets up to :data:`RULES_CHARS`."""
    spec = spec_of(base.metadata["name"])
    core = spec.core()
    doc = (core.__doc__ if core is not None else None) or ""
    at = max((doc.find(h) + len(h) if h in doc else -1) for h in RULES_HEADINGS)
    if at < 0:  # no plain-words section: the first paragraph of the rules module or of the env module
        doc = doc or (sys.modules[type(base).__module__].__doc__ or "")
        return _plain(" ".join(doc.strip().split("\n\n")[0].split()))
    bullets: list[str] = []
    for block in re.split(r"\n(?=\* )", doc[at:].strip()):
        first, _, rest = block.partition("\n\n")
        if not first.startswith("* "):
            break
        bullet = _plain(" ".join(first.split()))
        if sum(len(b) for b in bullets) + len(bullet) > RULES_CHARS and bullets:
            break
        bullets.append(bullet)
        if rest.strip() and not rest.lstrip().startswith(("* ", "- ")):
            break  # the section ends with this bullet
    return "\n".join(bullets)


def options_in_play(base: Any) -> list[str]:
    """``name = value: meaning`` for each option of the env in play."""
    known = {o.name: o for o in type(base).all_options()}
    return [
        f"{name} = {value!r}: {known[name].doc}" if name in known and known[name].doc else f"{name} = {value!r}"
        for name, value in dict(base.config).items()
    ]


def system_message(base: Any, seat: int) -> dict:
    """The system message: the game, the rules summary, the options in play, the answer format."""
    spec = spec_of(base.metadata["name"])
    options = "\n".join(f"- {line}" for line in options_in_play(base)) or "- (none)"
    content = (
        f"You play the card game {spec.title} ({spec.name}, {base.num_players} players) as "
        f"{base.possible_agents[seat]} (seat {seat}).\n\n"
        f"Rules:\n{rules_summary(base)}\n\n"
        f"Options in play:\n{options}\n\n"
        f"Each turn you are sent your view of the game as JSON. {_answer_format()}"
    )
    return {"role": "system", "content": content}


def _answer_format() -> str:
    return (
        f"Think if you like, then end your answer with one line '{ANSWER_PREFIX} MOVE', MOVE being the name of "
        "one legal move, or its id written #ID (a bare number is read as a move's name where a move is named so)."
    )


# ------------------------------------------------------------------ the seat's view
def _cards(entry: dict) -> str:
    """A table entry (or a seat's last cards) in words."""
    if entry.get("plays"):
        return ", ".join(f"{p.get('who', '?')} {p.get('card', p.get('text', ''))}" for p in entry["plays"])
    words = [str(entry["text"])] if entry.get("text") else []
    if entry.get("cards") and not entry.get("text"):
        words.append(" ".join(entry["cards"]))
    return "; ".join(words)


def view_lines(base: Any, seat: int) -> list[str]:
    """The seat's view in words (:func:`cardenvs.seatview.table_view` as ``seat`` sees it)."""
    view = table_view(base, seat)
    lines = []
    for s in view["seats"]:
        who = f"you ({s['name']})" if s["seat"] == seat else s["name"]
        words = [f"{s['count']} cards"] + [str(n) for n in s["notes"]]
        if s["cards"] is not None and s["seat"] != seat:
            words.append("hand shown: " + " ".join(s["cards"]))
        lines.append(f"{who}: " + ", ".join(words))
    hand = view["seats"][seat]["cards"]
    if hand is not None:
        lines.insert(0, f"your hand ({len(hand)} cards): " + (" ".join(hand) or "empty"))
    for entry in view["table"]:
        text = _cards(entry)
        lines.append(f"{entry.get('label', 'table')}: {text}" if text else str(entry.get("label", "")))
    lines += [str(line) for line in view["info"]]
    scores = zip(view["seats"], view["scores"], strict=False)
    lines.append("scores: " + ", ".join(f"{s['name']} {x}" for s, x in scores))
    return lines


def prompt_messages(env: Any, seat: int, observation: dict[str, np.ndarray], legal: str = "list") -> list[dict]:
    """The chat messages of ``seat``'s decision (module docstring)."""
    if legal not in LEGAL_FORMS:
        raise ValueError(f"legal must be one of {', '.join(LEGAL_FORMS)}, got {legal!r}")
    base = getattr(env, "unwrapped", env)
    decision: dict[str, Any] = {
        "game": spec_of(base.metadata["name"]).title,
        "you": f"{base.possible_agents[seat]} (seat {seat})",
        "view": view_lines(base, seat),
        "history": [f"{base.possible_agents[s]}: {public_move(base, s, a, seat)}" for s, a in base.actions_taken],
    }
    if legal == "list":
        decision["legal"] = [{"id": int(a), "name": base.action_name(int(a))} for a in legal_actions(observation)]
    decision["answer"] = _answer_format()
    return [system_message(base, seat), {"role": "user", "content": _json_lines(decision)}]


def _json_lines(decision: dict[str, Any]) -> str:
    """``decision`` as JSON with each key, and each item of a list, on a line of its own."""

    def compact(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    lines = []
    for key, value in decision.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"  {compact(item)}" for item in value)
            lines.append(f" {compact(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {compact(key)}: {compact(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


# ------------------------------------------------------------------ the answer
def answer_text(text: str) -> str:
    """The move part of an answer: after the last ``Final Answer:`` to the end of its line, else the last
    non-empty line; Markdown emphasis, quotes and a final full stop taken off, spaces collapsed."""
    at = text.lower().rfind(ANSWER_PREFIX.lower())
    if at >= 0:
        answer = (text[at + len(ANSWER_PREFIX) :].strip().splitlines() or [""])[0]
    else:
        answer = (text.strip().splitlines() or [""])[-1]
    answer = re.sub(r"\s+", " ", answer).strip().strip("*_`'\" .")
    return answer


def read_answer(env: Any, text: str, observation: dict[str, np.ndarray]) -> int:
    """The action of a model's answer ``text`` (module docstring: the forms read, the errors)."""
    base = getattr(env, "unwrapped", env)
    answer = answer_text(text)
    if not answer:
        raise AnswerError("garbage", "no move in the answer")
    legal = [int(a) for a in legal_actions(observation)]
    key = answer.lower()
    written_id = re.fullmatch(r"(?:#|id\s*)\s*(-?\d+)", key)
    if written_id or (key.lstrip("-").isdigit() and not _names_a_move(base, key)):
        number = int(written_id.group(1) if written_id else key)
        if number in legal:
            return number
        raise AnswerError("illegal", f"move id {number} is not a legal move here")
    by_name = {base.action_name(a).lower(): a for a in legal}
    if key in by_name:
        return by_name[key]
    squeezed = [a for name, a in by_name.items() if name.replace(" ", "") == key.replace(" ", "")]
    if len(squeezed) == 1:
        return squeezed[0]
    try:
        action = int(base.parse_action(answer))
    except (ValueError, KeyError, IndexError):
        action = -1
    if action in legal:
        return action
    names = {base.action_name(a).lower() for a in range(base.num_actions)}
    if key in names or action >= 0:
        raise AnswerError("illegal", f"{answer[:80]!r} is not a legal move here")
    raise AnswerError("garbage", f"{answer[:80]!r} is neither a legal move's name nor its id")


def _names_a_move(base: Any, key: str) -> bool:
    """Whether some move of the game is named ``key`` (case aside): a bare number is then that move's name."""
    return any(base.action_name(a).lower() == key for a in range(base.num_actions))


def rethink_message(error: AnswerError) -> dict:
    """The message asking again after ``error``."""
    return {
        "role": "user",
        "content": f"That answer was not accepted: {error.detail}. Answer again, ending with '{ANSWER_PREFIX} MOVE'.",
    }
