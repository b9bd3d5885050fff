"""Prompts for language-model seats (``llm:MODEL``) and fine-tuning data (``cardenvs dataset``): a seat's
decision as chat messages, and a model's answer read back as an action.

Everything in a prompt is read from the game itself, never from a second description of a game:

* the **system message** (:func:`system_message`): the game's title (its spec); **Rules**, the whole "Rules, in
  plain words" section of the docstring of its rules module (the env's numba core; a game without one: the first
  paragraph of its env module's docstring), every bullet with every paragraph and sub-list item
  (:func:`rules_summary`); **Moves**, how the game names its moves (its spec's ``move_names``), which a
  reference of the rules to the game's move module reads as (Dou Dizhu's "a player beats the move on the table
  (:mod:`.moves`)": "(the Moves section)"); the options in play with what each means (the env's ``OPTIONS``); the answer
  format. reStructuredText becomes plain text: a literal (an option's name) is kept as Markdown code
  (`` `rounds` rounds``), emphasis and strong emphasis lose their stars, a parenthesis of cross-references
  only (``(:func:`raw_score`, :func:`hand_scores`)``) is left out and any other reference reads as its name;
* the **user message** (:func:`view_lines`) is the decision, a JSON object whose values are words: ``game``,
  ``you`` (the seat), ``view`` (the lines of the seat's view: its hand, every seat's cards left, roles, teams,
  levels, the table and the game's notes, from the game view's ``table_view(base, seat)``; a hand is shown
  only where this seat may see it), ``history`` (every move so far as this seat may see it,
  :func:`cardenvs.seatview.public_move`), ``legal`` (the legal moves, ``{"id", "name"}``, left out with
  ``legal="none"``) and ``answer`` (the answer format again). JSON keeps the fields apart for the model and
  for programs that read the prompt (the tests' scripted chat server reads ``legal``).

The answer (:func:`read_answer`) is read as models write it (the forms that answer extractors of evaluation
harnesses meet: Markdown, LaTeX's ``\\boxed``, answer tags, reasoning blocks, the answer on the next line).
Its **move text** (:func:`answer_text`): a ``<think>...</think>`` block is taken out first; then the text
after the **last** "final answer" (any case, with ``:``, ``-``, ``=``, ``is`` or nothing after it, Markdown
stars around it) to the end of its line, or the next line with a letter or digit where that is empty (a code
fence skipped); without one, the last ``\\boxed{...}``, else the last ``<answer>...</answer>``, else the last
non-empty line that is not a code fence. From it Markdown (stars, underscores, backticks, ``$``, a quote
mark ``>``), quotes, ``\\text{}``, brackets around the whole and a final ``.``, ``!``, ``;`` or ``,`` are taken
off, and a lead-in such as "I play", "I choose", "my move is", "move:".

The move text is a legal move if it is, in this order:

1. a JSON object with ``id`` and/or ``name`` (``move`` and ``action`` are read as ``name`` and ``id``), the
   legal move copied as the prompt shows it (``{"id": 4, "name": "5"}``); an id together with a name,
   ``#0 1x1 to 3S``, ``id 0: 1x1 to 3S``, ``1x1 to 3S (id 0)``, ``1x1 to 3S (#0)``: both must name the same
   legal move (else an error saying so), words after an id that name no move being a comment (``#4 - my best``);
2. a single move: a legal move's id written ``#ID`` or ``id ID``; a bare number, read as a move's name where the
   game names a move so (Dou Dizhu's single ``9``), else as a legal move's id, else as what the game's own
   ``parse_action`` reads (Twenty's ``10``, Dou Dizhu's bid ``3`` while bidding); a legal move's name, ignoring
   case and runs of spaces; a legal move's name with every space taken out, where just one legal name matches
   so; what the game's own ``parse_action`` reads (the terminal's forms: Dou Dizhu's ``333+4``, Twos' or
   Guandan's cards to play in any order, Twenty's card codes, ...); the words of just one legal move's name,
   some of them left out (``1x1 3S`` for ``1x1 to 3S``);
3. the same with a trailing comment taken off: a final ``(...)``, or what follows `` - ``, ``, `` or a
   "because", "since", "as", "which".

Otherwise it is an :class:`AnswerError` whose ``detail`` says why: ``"illegal"`` where it names a move of the
game (or an id) that is not legal here, ``"garbage"`` where it names nothing, with what was read ("the answer's
last line is '*', which names no move"; "nothing follows the last 'Final Answer:'"; "'MOVE' is the answer
format's placeholder").

A game's move names are read once per env (:func:`_names`): they depend on its options only, never on the
position.

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
import weakref
from typing import Any

import numpy as np

from ..core.env import legal_actions
from ..registry import spec_of
from ..seatview import public_move, table_view

LEGAL_FORMS = ("list", "none")
ANSWER_PREFIX = "Final Answer:"
#: the heading of the rules summary in a rules module's docstring (its bullets follow)
RULES_HEADINGS = ("Rules, in plain words:", "Plain words:")
#: what a rules module's reference to its game's move module (the house's ``games/<game>/moves.py``) reads as
#: where the game names its moves (its spec's ``move_names``, the Moves section)
MOVES_REFERENCE = "the Moves section"
MOVE_MODULE = "moves"
#: the placeholder of the answer format, which a model may copy
PLACEHOLDER = "MOVE"


class AnswerError(ValueError):
    """A model's answer that gives no legal move: ``kind`` is ``"garbage"`` or ``"illegal"``."""

    def __init__(self, kind: str, detail: str):
        super().__init__(detail)
        self.kind, self.detail = kind, detail


# ------------------------------------------------------------------ the rules summary
_REFERENCE = re.compile(r":(\w+):`~?\.?([^`]*)`")
#: a parenthesis that holds only cross-references (and "see"): "(:func:`raw_score`, :func:`hand_scores`)"
_REFERENCES_ONLY = re.compile(r"\s*\((?:\s*(?:see\s+)?:\w+:`[^`]*`\s*(?:,|and)?)+\s*\)")
#: a cross-reference inside a parenthesis with other words: ", :func:`duel_score`" in "(2 players, ...)"
_REFERENCE_IN_LIST = re.compile(r",\s*:(?:func|meth|class|data|attr|obj):`[^`]*`(?=\s*\))")


def _plain(text: str, moves_section: bool = False) -> str:
    """reStructuredText taken off ``text`` (module docstring); ``moves_section``: a reference to the move
    module reads as :data:`MOVES_REFERENCE`."""

    def to_moves(target: str) -> bool:
        return moves_section and target.rsplit(".", 1)[-1] == MOVE_MODULE

    def references_only(match: re.Match) -> str:  # "(see :mod:`.moves`)" points at the Moves section
        if any(role == "mod" and to_moves(target) for role, target in _REFERENCE.findall(match.group(0))):
            return f" ({'see ' if 'see ' in match.group(0) else ''}{MOVES_REFERENCE})"
        return ""

    text = _REFERENCES_ONLY.sub(references_only, text)
    text = _REFERENCE_IN_LIST.sub("", text)

    def reference(match: re.Match) -> str:
        if match.group(1) == "mod" and to_moves(match.group(2)):
            return MOVES_REFERENCE
        return f"`{match.group(2).rsplit('.', 1)[-1]}`"

    text = _REFERENCE.sub(reference, text)
    text = text.replace(f"{MOVES_REFERENCE}'", f"{MOVES_REFERENCE}'s")  # ":mod:`.moves`' business"
    text = re.sub(r"``(.+?)``", r"`\1`", text)  # a literal (an option's name) stays code
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*`])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])", r"\1", text)  # *emphasis*
    return " ".join(text.split())


def rules_items(doc: str) -> list[tuple[int, str]] | None:
    """The items of the plain-words section of ``doc`` (after one of :data:`RULES_HEADINGS`), raw: ``(0, text)``
    for a bullet, ``(1, text)`` for an item of a bullet's sub-list; a paragraph indented under an item continues
    it. The section ends at the first line that is neither a bullet nor indented. None without the heading."""
    at = max((doc.find(h) + len(h) if h in doc else -1) for h in RULES_HEADINGS)
    if at < 0:
        return None
    items: list[list[Any]] = []
    for line in doc[at:].splitlines()[1:]:
        stripped = line.strip()
        if not stripped:
            continue
        if line.startswith("* "):
            items.append([0, stripped[2:]])
        elif line[0].isspace() and stripped.startswith(("- ", "* ")) and items:
            items.append([1, stripped[2:]])
        elif line[0].isspace() and items:
            items[-1][1] += " " + stripped
        else:
            break
    return [(depth, text) for depth, text in items]


def rules_summary(base: Any) -> str:
    """The plain-words rules of ``base``'s game (module docstring): every item of the section, a bullet as
    ``* TEXT``, a sub-list item as ``  - TEXT``."""
    spec = spec_of(base.metadata["name"])
    core = spec.core()
    doc = (core.__doc__ if core is not None else None) or ""
    items = rules_items(doc)
    if items is None:  # no plain-words section: the first paragraph of the rules module or of the env module
        doc = doc or (sys.modules[type(base).__module__].__doc__ or "")
        return _plain(doc.strip().split("\n\n")[0])
    moves = bool(spec.move_names)
    return "\n".join(("* " if depth == 0 else "  - ") + _plain(text, moves) for depth, text in items)


def options_in_play(base: Any) -> list[str]:
    """``name = value: meaning`` for each option of the env in play."""
    known = {o.name: o for o in type(base).all_options()}
    return [
        f"{name} = {value!r}: {known[name].doc}" if name in known and known[name].doc else f"{name} = {value!r}"
        for name, value in dict(base.config).items()
    ]


def system_message(base: Any, seat: int, legal: str = "list") -> dict:
    """The system message: the game, its rules, how its moves are named, the options in play, the answer
    format (``legal``: whether the user message lists the legal moves)."""
    spec = spec_of(base.metadata["name"])
    options = "\n".join(f"- {line}" for line in options_in_play(base)) or "- (none)"
    moves = f"Moves:\n{spec.move_names}\n\n" if spec.move_names else ""
    content = (
        f"You play the card game {spec.title} ({spec.name}, {base.num_players} players) as "
        f"{base.possible_agents[seat]} (seat {seat}).\n\n"
        f"Rules:\n{rules_summary(base)}\n\n"
        f"{moves}"
        f"Options in play:\n{options}\n\n"
        f"Each turn you are sent your view of the game as JSON. {_answer_format(legal)}"
    )
    return {"role": "system", "content": content}


def _answer_format(legal: str = "list") -> str:
    if legal == "none":
        return (
            f"Think if you like, then end your answer with one line '{ANSWER_PREFIX} {PLACEHOLDER}', "
            f"{PLACEHOLDER} being the name of one legal move (the Moves section says how moves are named)."
        )
    return (
        f"Think if you like, then end your answer with one line '{ANSWER_PREFIX} {PLACEHOLDER}', {PLACEHOLDER} "
        "being the name of one legal move, or its id written #ID (a bare number is read as a move's name where a "
        "move is named so)."
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
    decision["answer"] = _answer_format(legal)
    return [system_message(base, seat, legal), {"role": "user", "content": _json_lines(decision)}]


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
_THINKING = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.IGNORECASE | re.DOTALL)
_MARKER = re.compile(r"final[ \t_]*answer[*_ \t]*(?:is\b)?[*_ \t]*(?::|-|=|\u2013|\u2014)?", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_TAGGED = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"\s*(```|~~~)\w*\s*")
_LEAD_IN = re.compile(
    r"^(?:(?:so|then|therefore|thus|ok|okay)\b[,\s]*)?"
    r"(?:i\s*(?:will|'ll|would|shall)?\s*(?:play|choose|pick|select|go with)\b"
    r"|my (?:final )?(?:move|answer|choice|play) (?:is|will be)\b|(?:move|answer|play|action|choice)\s*[:=\-]"
    r"|play\b)\s*:?\s*",
    re.IGNORECASE,
)
_COMMENT = re.compile(r"\s*(?:\([^()]*\)|\s-\s.*|\s[\u2013\u2014]\s.*|,.*|\s(?:because|since|as|which)\s.*)$", re.I)


def _line_with_words(lines: list[str]) -> str:
    """The first of ``lines`` with a letter, a digit or a ``{``, code fences skipped."""
    return next((line for line in lines if re.search(r"[\w{]", line) and not _FENCE.fullmatch(line)), "")


def answer_text(text: str) -> str:
    """The move text of an answer (module docstring), cleaned; an :class:`AnswerError` (garbage) where there is
    none, saying why."""
    if not text.strip():
        raise AnswerError("garbage", "the answer is empty")
    thought = _THINKING.sub("", text)
    if not thought.strip():
        raise AnswerError("garbage", "the answer is all thinking (<think>...</think>), with no move after it")
    markers = list(_MARKER.finditer(thought))
    if markers:
        rest = thought[markers[-1].end() :]
        answer = _line_with_words(rest.splitlines())
        if answer.strip().lstrip("`*_ ").startswith("{"):  # a JSON object may span lines
            answer = _json_span(rest) or answer
        if not answer.strip():
            raise AnswerError("garbage", f"nothing follows the last '{ANSWER_PREFIX}'")
    elif boxed := _BOXED.findall(thought):
        answer = boxed[-1]
    elif tagged := _TAGGED.findall(thought):
        answer = tagged[-1].strip().splitlines()[-1] if tagged[-1].strip() else ""
    else:
        lines = [line for line in thought.strip().splitlines() if line.strip() and not _FENCE.fullmatch(line)]
        answer = lines[-1] if lines else ""
        if not re.search(r"\w", answer):
            raise AnswerError("garbage", f"the answer's last line is {answer.strip()[:40]!r}, which names no move")
    cleaned = _clean(answer)
    if not cleaned:
        raise AnswerError("garbage", f"the answer's move text {answer.strip()[:40]!r} names no move")
    return cleaned


def _json_span(text: str) -> str:
    """The first balanced ``{...}`` of ``text`` (empty where there is none)."""
    start, depth = text.find("{"), 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start : i + 1]
    return ""


def _clean(answer: str) -> str:
    """Markup, quotes, brackets, a final full stop and a lead-in taken off the move text."""
    answer = _BOXED.sub(r"\1", answer)
    answer = re.sub(r"\\text\{([^{}]*)\}", r"\1", answer)
    for _ in range(3):  # markup inside markup: **"`5`"**.
        before = answer
        answer = re.sub(r"\s+", " ", answer).strip()
        answer = re.sub(r"^(?:[-+*]|\d+[.)])\s+", "", answer.lstrip("> ")).replace("**", "").replace("__", "")
        answer = answer.strip("*_`$'\"\u201c\u201d\u2018\u2019 ").rstrip(".!;,").strip()
        if len(answer) > 1 and (answer[0], answer[-1]) in (("[", "]"), ("(", ")"), ("<", ">")):
            answer = answer[1:-1]
        if not answer.startswith("{"):
            answer = _LEAD_IN.sub("", answer)
        if answer == before:
            break
    return answer


def read_answer(env: Any, text: str, observation: dict[str, np.ndarray]) -> int:
    """The action of a model's answer ``text`` (module docstring: the forms read, the errors)."""
    base = getattr(env, "unwrapped", env)
    answer = answer_text(text)
    if answer.upper() == PLACEHOLDER:
        raise AnswerError("garbage", f"{answer!r} is the answer format's placeholder: write a legal move's name")
    legal = [int(a) for a in legal_actions(observation)]
    paired = _id_and_name(answer)
    if paired is not None:
        return _agreeing(base, answer, *paired, legal)
    errors = []
    for candidate in dict.fromkeys([answer, _COMMENT.sub("", answer).strip()]):  # the whole, then uncommented
        if not candidate:
            continue
        try:
            return _one_move(base, candidate, legal)
        except AnswerError as error:
            errors.append(error)
    raise next((e for e in errors if e.kind == "illegal"), errors[0])


def _id_and_name(answer: str) -> tuple[int | None, str | None] | None:
    """``(id, name)`` of an answer that gives both (or a JSON object with either); None for any other."""
    if answer.startswith("{"):
        obj = None
        for form in (answer, answer.replace("'", '"')):  # {'id': 4, 'name': '5'} too
            try:
                obj = json.loads(form)
                break
            except ValueError:
                continue
        if isinstance(obj, dict):
            ident = obj.get("id", obj.get("action"))
            name = obj.get("name", obj.get("move"))
            ident = int(str(ident).lstrip("#")) if str(ident).lstrip("#").isdigit() else None
            name = str(name) if name is not None else None
            if ident is not None or name is not None:
                return ident, name
    for pattern, id_group in (
        (r"#(\d+)(?:\s*[:=\-\u2013\u2014,]\s*|\s+)(?:name\s*[:=]?\s*)?(\S.*)", 1),
        (r"id\s*[:=]?\s*(\d+)\s*[:=\-\u2013\u2014,;]\s*(?:name\s*[:=]?\s*)?(\S.*)", 1),
        (r"(\S.*?)\s*\(\s*(?:id\s*[:=]?\s*|#)(\d+)\s*\)", 2),
    ):
        match = re.fullmatch(pattern, answer, re.IGNORECASE)
        if match:
            name = _clean(match.group(3 - id_group))
            return int(match.group(id_group)), name
    return None


def _agreeing(base: Any, answer: str, ident: int | None, name: str | None, legal: list[int]) -> int:
    """The move of an answer that gives an id and a name: they must name the same legal move."""
    by_id = _one_move(base, f"#{ident}", legal) if ident is not None else None
    try:
        by_name = _one_move(base, name, legal) if name else None
    except AnswerError as error:  # "#4 - the safest card": a comment after the id
        if error.kind != "garbage" or by_id is None:
            raise
        by_name = None
    if by_id is not None and by_name is not None and by_id != by_name:
        raise AnswerError(
            "garbage",
            f"{answer[:80]!r} names two moves: id {ident} is {base.action_name(by_id)!r}, the name says {name!r}",
        )
    move = by_id if by_id is not None else by_name
    if move is None:
        raise AnswerError("garbage", f"{answer[:80]!r} gives neither a move's id nor its name")
    return move


_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _names(base: Any) -> dict[str, int]:
    """Every move's name of ``base``'s game, lowercased, to its (first) id: read once per env."""
    if base not in _NAMES:
        names: dict[str, int] = {}
        for a in range(base.num_actions):
            names.setdefault(base.action_name(a).lower(), a)
        _NAMES[base] = names
    return _NAMES[base]


def _one_move(base: Any, answer: str, legal: list[int]) -> int:
    """The legal move ``answer`` names as a single move (module docstring, form 2)."""
    key = re.sub(r"\s+", " ", answer.lower()).strip()
    written_id = re.fullmatch(r"(?:#|id\s*[:=]?)\s*(-?\d+)", key)
    named = key in _names(base)
    if written_id or (key.lstrip("-").isdigit() and not named):
        number = int(written_id.group(1) if written_id else key)
        if number in legal:
            return number
        if written_id is None and (action := _parsed(base, answer)) in legal:
            return action
        raise AnswerError("illegal", f"move id {number} is not a legal move here")
    by_name = {base.action_name(a).lower(): a for a in legal}
    if key in by_name:
        return by_name[key]
    squeezed = [a for name, a in by_name.items() if name.replace(" ", "") == key.replace(" ", "")]
    if len(squeezed) == 1:
        return squeezed[0]
    action = _parsed(base, answer)
    if action in legal:
        return action
    words = key.split()
    partial = [a for name, a in by_name.items() if _in_order(words, name.split())]
    if len(partial) == 1:
        return partial[0]
    if named or action >= 0:
        raise AnswerError("illegal", f"{answer[:80]!r} is not a legal move here")
    raise AnswerError("garbage", f"{answer[:80]!r} is neither a legal move's name nor its id")


def _parsed(base: Any, answer: str) -> int:
    """What the game's own ``parse_action`` reads ``answer`` as (-1 for nothing)."""
    try:
        return int(base.parse_action(answer))
    except (ValueError, KeyError, IndexError):
        return -1


def _in_order(words: list[str], name: list[str]) -> bool:
    """Whether ``words`` are some of ``name``'s words, in order (one left out at least)."""
    if not words or len(words) >= len(name):
        return False
    it = iter(name)
    return all(word in it for word in words)


def rethink_message(error: AnswerError) -> dict:
    """The message asking again after ``error``."""
    return {
        "role": "user",
        "content": f"That answer was not accepted: {error.detail}. Answer again, ending with '{ANSWER_PREFIX} MOVE'.",
    }
