"""Checks of single fields of a Kubernetes object, shared by every builder.

Each takes the raw value (as decoded from JSON or YAML), the object's ``Source`` and the field's
path, and returns the value in the type the model holds, or raises ``InputError`` naming the
object, its file:line and the field: ``must be a mapping, not a list``, ``missing (required)``,
``unknown value 'X' (expected one of: ...)``. Absent (None) is empty or None, as the API server
treats an omitted field.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from wapctl.errors import InputError, Source
from wapctl.model import LabelSelector, SelectorRequirement

__all__ = [
    "INT32_MAX",
    "INT32_MIN",
    "LABEL_OPERATORS",
    "check_int32",
    "enum",
    "label_selector",
    "list_field",
    "mapping",
    "opt_bool",
    "opt_int",
    "opt_str",
    "req_str",
    "requirement",
    "str_map",
    "type_error",
    "typename",
]


def typename(value: Any) -> str:
    """What a decoded value is, in the input's words (a float is not "an integer")."""
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a decimal number",
        bool: "a boolean",
        type(None): "null",
        datetime.date: "a date",  # YAML's unquoted 2026-01-01
        datetime.datetime: "a timestamp",  # YAML's unquoted 2026-01-01T00:00:00Z
    }.get(type(value), type(value).__name__)


INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def check_int32(value: int, source: Source, field: str) -> None:
    """Priorities are int32 in the API (PriorityClass.value, Pod.spec.priority, Kueue's
    WorkloadPriorityClass.value)."""
    if not INT32_MIN <= value <= INT32_MAX:
        raise InputError(
            f"{value} is out of range: a priority is a 32-bit integer ({INT32_MIN} to "
            f"{INT32_MAX})", source, field)


def type_error(value: Any, expected: str, source: Source, field: str) -> InputError:
    return InputError(f"must be {expected}, not {typename(value)}", source, field)


def mapping(value: Any, source: Source, field: str) -> dict[str, Any]:
    """A mapping field; absent (None) is an empty mapping."""
    if value is None:
        return {}
    if type(value) is not dict:
        raise type_error(value, "a mapping", source, field)
    return value


def list_field(value: Any, source: Source, field: str) -> list[Any]:
    if value is None:
        return []
    if type(value) is not list:
        raise type_error(value, "a list", source, field)
    return value


def opt_str(value: Any, source: Source, field: str) -> str | None:
    if value is None or value == "":
        return None
    if type(value) is not str:
        raise type_error(value, "a string", source, field)
    return value


def req_str(value: Any, source: Source, field: str) -> str:
    if value is None or value == "":
        raise InputError("missing (required)", source, field)
    if type(value) is not str:
        raise type_error(value, "a string", source, field)
    return value


def opt_int(value: Any, source: Source, field: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise type_error(value, "an integer", source, field)
    return value


def opt_bool(value: Any, source: Source, field: str) -> bool:
    if value is None:
        return False
    if type(value) is not bool:
        raise type_error(value, "true or false", source, field)
    return value


def enum(value: Any, allowed: tuple[str, ...], source: Source, field: str) -> str | None:
    if value is None or value == "":
        return None
    if value not in allowed or type(value) is not str:
        raise InputError(
            f"unknown value {value!r} (expected one of: {', '.join(allowed)})", source, field
        )
    return value


def str_map(value: Any, source: Source, field: str) -> dict[str, str]:
    """Labels and selectors: a mapping of strings to strings (copied)."""
    if not value:
        if value is None or type(value) is dict:
            return {}
        raise type_error(value, "a mapping", source, field)
    if type(value) is not dict:
        raise type_error(value, "a mapping", source, field)
    for k, v in value.items():
        if type(v) is not str or type(k) is not str:
            bad = v if type(v) is not str else k
            raise InputError(
                f"must map strings to strings, but has {typename(bad)} {bad!r} (quote it)",
                source,
                f"{field}.{k}",
            )
    return dict(value)


LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def label_selector(value: Any, source: Source, field: str) -> LabelSelector | None:
    if value is None:
        return None
    sel = mapping(value, source, field)
    exprs = []
    raw = list_field(sel.get("matchExpressions"), source, field + ".matchExpressions")
    for i, e in enumerate(raw):
        f = f"{field}.matchExpressions[{i}]"
        exprs.append(requirement(e, LABEL_OPERATORS, source, f, numeric=False))
    return LabelSelector(
        match_labels=str_map(sel.get("matchLabels"), source, field + ".matchLabels"),
        match_expressions=tuple(exprs),
    )


def requirement(
    e: Any, operators: tuple[str, ...], source: Source, field: str, *, numeric: bool
) -> SelectorRequirement:
    if type(e) is not dict:
        raise type_error(e, "a mapping", source, field)
    key = req_str(e.get("key"), source, field + ".key")
    op = enum(e.get("operator"), operators, source, field + ".operator")
    if op is None:
        raise InputError("missing (required)", source, field + ".operator")
    raw = list_field(e.get("values"), source, field + ".values")
    for j, v in enumerate(raw):
        if type(v) is not str:
            raise type_error(v, "a string (quote it)", source, f"{field}.values[{j}]")
    values = tuple(raw)
    if op in ("In", "NotIn") and not values:
        raise InputError(f"operator {op} needs at least one value", source, field + ".values")
    if op in ("Exists", "DoesNotExist") and values:
        raise InputError(f"operator {op} takes no values", source, field + ".values")
    if (
        numeric
        and op in ("Gt", "Lt")
        and (len(values) != 1 or not re.fullmatch(r"[+-]?[0-9]+", values[0]))
    ):
        raise InputError(
            f"operator {op} needs exactly one integer value", source, field + ".values"
        )
    return SelectorRequirement(key=key, operator=op, values=values)
