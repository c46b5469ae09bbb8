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
import sys
from typing import Any

from wapctl.errors import InputError, Source
from wapctl.model import LabelSelector, SelectorRequirement
from wapctl.quantity import QuantityError
from wapctl.quantity import amount as _quantity_amount

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


# (resource name, quantity text) -> amount, for pairs ``amount`` has accepted: the same few
# strings repeat across a cluster's pods, and a hit needs none of the checks again.
AMOUNTS: dict[tuple[str, str], int] = {}
_AMOUNTS_LIMIT = 100_000


def amount(resource: Any, q: Any, source: Source, path: str) -> int:
    """A non-negative resource amount; ``path`` is the field path of the mapping holding it."""
    if type(q) is str:
        value = AMOUNTS.get((resource, q))  # only accepted (str, str) pairs are stored
        if value is not None:
            return value
    if type(resource) is not str:
        raise InputError("resource names must be strings", source, path)
    try:
        value = _quantity_amount(resource, q)
    except QuantityError as exc:
        raise InputError(f"{exc.reason} in {exc.text!r}", source, f"{path}.{resource}") from None
    if value < 0:
        raise InputError(f"negative quantity {q!r}", source, f"{path}.{resource}")
    if type(q) is str and len(AMOUNTS) < _AMOUNTS_LIMIT:
        AMOUNTS[(resource, q)] = value
    return value


_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):(\d\d))?"
)


# datetime.fromisoformat reads a trailing "Z" as UTC itself from Python 3.11 on, at a third of
# the cost of rewriting it to "+00:00" first (two timestamps on each of 151k pods).
_FROMISO_Z = sys.version_info >= (3, 11)


def timestamp(value: Any, source: Source, field: str) -> float | None:
    """RFC3339 (what the API server writes) -> epoch seconds; a naive time counts as UTC."""
    if value is None:
        return None
    if type(value) is str:
        dt = None
        if _FROMISO_Z and value[-1:] == "Z":
            try:
                dt = datetime.datetime.fromisoformat(value)
            except ValueError:
                pass
        if dt is None:
            try:
                dt = datetime.datetime.fromisoformat(
                    value[:-1] + "+00:00" if value[-1:] in "Zz" else value)
            except ValueError:
                dt = _slow_time(value, source, field)
    elif type(value) is datetime.datetime:  # an unquoted timestamp in YAML
        dt = value
    else:
        raise type_error(value, "an RFC3339 timestamp string", source, field)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return dt.timestamp()


def _slow_time(value: str, source: Source, field: str) -> datetime.datetime:
    m = _ISO.fullmatch(value)
    if m is None:
        raise InputError(f"not an RFC3339 timestamp: {value!r}", source, field)
    y, mo, d, h, mi, s, frac, _z, sign, oh, om = m.groups()
    try:
        tz = datetime.timezone.utc
        if sign:
            offset = datetime.timedelta(hours=int(oh), minutes=int(om))
            tz = datetime.timezone(offset if sign == "+" else -offset)
        micro = int((frac or "0")[:6].ljust(6, "0"))
        return datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), micro, tzinfo=tz)
    except ValueError as exc:
        raise InputError(f"not an RFC3339 timestamp: {value!r} ({exc})", source, field) from None


Head = tuple[dict[str, Any], str, str]  # (metadata, namespace, name) read once per object


def object_head(obj: dict[str, Any], source: Source, namespaced: bool) -> Head:
    meta = obj.get("metadata")
    if type(meta) is not dict:
        if meta is None:
            raise InputError("missing (required)", source, "metadata.name")
        raise type_error(meta, "a mapping", source, "metadata")
    name = meta.get("name")
    if type(name) is not str or not name:
        if name is None or name == "":
            raise InputError("missing (required)", source, "metadata.name")
        raise type_error(name, "a string", source, "metadata.name")
    ns = ""
    if namespaced:
        ns = meta.get("namespace") or "default"
        if type(ns) is not str:
            raise type_error(ns, "a string", source, "metadata.namespace")
    return meta, ns, name


def missing_field(source: Source, field: str) -> Any:
    raise InputError("missing (required)", source, field)
