"""kubectl's label selector syntax (``-l``), parsed into the model's ``LabelSelector``.

Grammar as in k8s.io/apimachinery/pkg/labels ``Parse``: requirements separated by commas, each
``key``, ``!key``, ``key=value``, ``key==value``, ``key!=value``, ``key in (a,b)`` or
``key notin (a,b)``. ``!=`` and ``notin`` also match objects without the key. An empty
selector matches everything (unlike a PodDisruptionBudget's, which matches nothing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from wapctl.errors import UsageError
from wapctl.fit import requirement_matches
from wapctl.model import LabelSelector, SelectorRequirement

__all__ = ["matches", "parse_selector"]

_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?"
_SET = re.compile(rf"\s*({_KEY})\s+(in|notin)\s*\(([^)]*)\)\s*")
_EQ = re.compile(rf"\s*({_KEY})\s*(==|=|!=)\s*({_VALUE})\s*")
_EXISTS = re.compile(rf"\s*(!?)\s*({_KEY})\s*")


def _split(text: str) -> list[str]:
    """Commas outside parentheses separate requirements."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_selector(text: str) -> LabelSelector:
    """The selector; a malformed one is a ``UsageError`` naming the bad requirement."""
    labels: dict[str, str] = {}
    exprs: list[SelectorRequirement] = []
    if not text.strip():
        return LabelSelector()
    for part in _split(text):
        if m := _SET.fullmatch(part):
            values = tuple(v.strip() for v in m.group(4).split(",") if v.strip())
            if not values:
                raise UsageError(f"label selector {text!r}: {part.strip()!r} lists no values")
            op = "In" if m.group(3) == "in" else "NotIn"
            exprs.append(SelectorRequirement(m.group(1), op, values))
        elif m := _EQ.fullmatch(part):
            key, op, value = m.group(1), m.group(3), m.group(4)
            if op == "!=":
                exprs.append(SelectorRequirement(key, "NotIn", (value,)))
            else:
                labels[key] = value
        elif m := _EXISTS.fullmatch(part):
            op = "DoesNotExist" if m.group(1) else "Exists"
            exprs.append(SelectorRequirement(m.group(2), op))
        else:
            raise UsageError(
                f"label selector {text!r}: cannot read {part.strip()!r} (expected key, !key, "
                "key=value, key!=value, key in (a,b) or key notin (a,b))"
            )
    return LabelSelector(match_labels=labels, match_expressions=tuple(exprs))


def matches(selector: LabelSelector, labels: Mapping[str, str]) -> bool:
    """Whether ``labels`` satisfy every requirement; the empty selector matches everything."""
    for key, value in selector.match_labels.items():
        if labels.get(key) != value:
            return False
    return all(requirement_matches(r, labels) is True for r in selector.match_expressions)
