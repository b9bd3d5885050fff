"""An env's constructor options: :class:`Option` (a default and what it accepts), the shared ``reward``
option, variants (``variant=NAME`` for a named option set) and the options table of an env's docstring."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .observation import Layout

#: the constructor option that names a variant (``CardEnv.VARIANTS``) instead of giving its options one by one
VARIANT_OPTION = "variant"


@dataclass(frozen=True)
class Option:
    """A constructor option of an env: its default and what it accepts.

    Either ``choices`` (a tuple of allowed values) or an inclusive integer range ``low..high`` (``high``
    None = unbounded). ``default=None`` with ``dynamic_default`` text means the env resolves it from other
    options (e.g. Two Way Street's ``decks``).
    """

    name: str
    default: Any
    doc: str = ""
    choices: tuple | None = None
    low: int | None = None
    high: int | None = None
    dynamic_default: str = ""

    def allowed(self) -> str:
        if self.choices is not None:
            return " or ".join(repr(c) for c in self.choices)
        if self.high is None:
            return f"an integer >= {self.low}"
        return f"an integer from {self.low} to {self.high}"

    def check(self, value: Any, env_name: str) -> Any:
        if value is None and self.default is None:
            return None
        if self.choices is not None:
            # numpy scalars count as the Python values they hold (np.int64(1) is 1, np.True_ is True) ...
            plain = value.item() if isinstance(value, (np.integer, np.bool_, np.str_)) else value
            # ... but bools must be real bools: 0/1 or "yes" would hide a typo in a config
            ok = any(plain == c and type(plain) is type(c) for c in self.choices)
            if not ok:
                raise ValueError(
                    f"{env_name}: option {self.name}={value!r} is not allowed; it accepts {self.allowed()}"
                )
            return plain
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{env_name}: option {self.name}={value!r} is not allowed; it accepts {self.allowed()}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{env_name}: option {self.name}={value!r} is out of range; it accepts {self.allowed()}")
        return int(value)

    def describe_default(self) -> str:
        return self.dynamic_default or repr(self.default)


REWARD_OPTION = Option(
    "reward",
    "win",
    "'win': zero-sum +1/-1 shared by winners/losers at the end; 'points': score changes as they happen",
    choices=("win", "points"),
)


def resolve_options(
    options: dict[str, Any], known: tuple[Option, ...], variants: dict[str, dict], env_name: str
) -> dict[str, Any]:
    """An env's config: defaults filled in, unknown names and bad values rejected with a ``ValueError``.

    ``variant=NAME`` stands for the options of the named variant (``variants``, the env's ``VARIANTS``);
    options given beside it override the variant's (``variant="short", max_turns=50``). An unknown name lists
    the known ones."""
    if VARIANT_OPTION in options:
        options = dict(options)
        name = options.pop(VARIANT_OPTION)
        if not isinstance(name, str) or name not in variants:
            raise ValueError(f"{env_name}: unknown variant {name!r}; known variants: {', '.join(variants)}")
        options = {**variants[name], **options}
    spec = {o.name: o for o in known}
    unknown = [k for k in options if k not in spec]
    if unknown:
        accepted = ", ".join(f"{o.name} ({o.allowed()}, default {o.describe_default()})" for o in spec.values())
        accepted += f", {VARIANT_OPTION} (one of {', '.join(variants)})"
        raise ValueError(f"{env_name}: unknown option {unknown[0]!r}; accepted options: {accepted}")
    return {o.name: o.check(options[o.name], env_name) if o.name in options else o.default for o in spec.values()}


def options_markdown(raw_class: Any) -> str:
    """The options of an env as a Markdown table (for its docstring), generated from ``OPTIONS``."""
    rows = ["| option | default | accepts | meaning |", "|---|---|---|---|"]
    for o in raw_class.all_options():
        rows.append(f"| `{o.name}` | {o.describe_default()} | {o.allowed()} | {o.doc} |")
    return "\n".join(rows)


def fill_docstring(doc: str, raw_class: Any, layout: Layout) -> str:
    """Replace ``{options}`` and ``{observation}`` in an env module docstring with generated tables."""
    return doc.replace("{options}", options_markdown(raw_class)).replace("{observation}", layout.markdown())
