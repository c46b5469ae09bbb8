"""Kubernetes ``resource.Quantity`` parsing, exactly (no floats).

Accepted forms are the ones ``k8s.io/apimachinery/pkg/api/resource.ParseQuantity`` accepts::

    <quantity>  ::= <sign>? <number> <suffix>
    <number>    ::= <digits> | <digits> "." <digits>? | "." <digits>
    <suffix>    ::= "" | n | u | m | k | M | G | T | P | E        (decimal SI)
                  | Ki | Mi | Gi | Ti | Pi | Ei                    (binary SI)
                  | (e | E) <sign>? <digits>                       (decimal exponent)

plus integers and floats given as YAML/JSON numbers (a float is read through its shortest
``repr``, so ``0.1`` means one tenth, as the text said, not the nearest binary fraction).

``amount`` turns a quantity into the integer the model stores: ``cpu`` in millicores rounded up
(upstream ``MilliValue``), every other resource in base units rounded up (upstream ``Value``).
Parsed values are cached: real snapshots repeat the same few request strings many times.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import cast

__all__ = ["QuantityError", "amount", "millivalue", "parse_quantity", "value"]

# Longest quantity text we try to read; upstream quantities are short, and this keeps a hostile
# "1e999999999" or a million-digit number from costing time or memory.
MAX_QUANTITY_LENGTH = 64
MAX_EXPONENT = 64  # |decimal exponent|; 1e64 is far beyond any real resource amount

_DECIMAL = {
    "": 0,
    "n": -9,
    "u": -6,
    "m": -3,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}

_QUANTITY_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?P<suffix>[A-Za-z]*[+-]?[0-9]*)"
)
_EXPONENT_RE = re.compile(r"[eE](?P<exp>[+-]?[0-9]+)")


class QuantityError(ValueError):
    """Text that is not a Kubernetes quantity; ``reason`` says why."""

    def __init__(self, text: object, reason: str) -> None:
        super().__init__(f"invalid quantity {text!r}: {reason}")
        self.text = text
        self.reason = reason


def _ratio(text: str) -> tuple[int, int]:
    """The exact value of quantity text as (numerator, positive denominator), unreduced:
    integer arithmetic only, so the hot path never builds a Fraction."""
    if not text:
        raise QuantityError(text, "empty")
    if len(text) > MAX_QUANTITY_LENGTH:
        raise QuantityError(text[:20] + "...", f"longer than {MAX_QUANTITY_LENGTH} characters")
    m = _QUANTITY_RE.fullmatch(text)
    if m is None:
        raise QuantityError(text, "expected a number with an optional suffix, e.g. 100m, 1.5, 2Gi")
    int_part, frac_part, suffix = m.group("int"), m.group("frac") or "", m.group("suffix")
    if not int_part and not frac_part:
        raise QuantityError(text, "no digits")
    den = 10 ** len(frac_part)
    num = int(int_part or "0") * den + int(frac_part or "0")
    if m.group("sign") == "-":
        num = -num
    if suffix in _DECIMAL:
        exp = _DECIMAL[suffix]
    elif suffix in _BINARY:
        return num << _BINARY[suffix], den
    else:
        e = _EXPONENT_RE.fullmatch(suffix)
        if e is None:
            raise QuantityError(
                text,
                f"unknown suffix {suffix!r} (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, "
                "Ei or an exponent like e3)",
            )
        exp = int(e.group("exp"))
        if abs(exp) > MAX_EXPONENT:
            raise QuantityError(text, f"exponent beyond +-{MAX_EXPONENT}")
    if exp >= 0:
        return num * 10**exp, den
    return num, den * 10**-exp


def _parse_text(text: str) -> Fraction:
    num, den = _ratio(text)
    return Fraction(num, den)


def parse_quantity(value: object) -> Fraction:
    """The exact value of a quantity given as text, an int, or a float.

    Raises ``QuantityError`` (a ``ValueError``) with a clear reason for anything else.
    """
    kind = type(value)
    if kind is str:
        return _parse_text(cast(str, value))
    if kind is int:
        return Fraction(cast(int, value))
    if kind is float:
        if not math.isfinite(cast(float, value)):
            raise QuantityError(value, "not a finite number")
        return _parse_text(repr(value))
    if kind is bool:
        raise QuantityError(value, "a boolean is not a quantity")
    raise QuantityError(value, f"expected a string or a number, got {kind.__name__}")


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def millivalue(q: Fraction) -> int:
    """Thousandths, rounded up, as ``Quantity.MilliValue()``."""
    return _ceil(q * 1000)


def value(q: Fraction) -> int:
    """Base units, rounded up, as ``Quantity.Value()``."""
    return _ceil(q)


# (is_cpu, raw value) -> amount. Keys are the raw str/int/float values as they appear in input.
_CACHE: dict[tuple[bool, object], int] = {}
_CACHE_LIMIT = 100_000


def amount(resource_name: str, q: object) -> int:
    """The model's integer for ``q`` of ``resource_name``: millicores for ``cpu``, else base
    units, rounded up. ``q`` is raw input (text or number) or an already parsed ``Fraction``.
    Negative amounts are returned as they are: the caller knows the field and reports it."""
    is_cpu = resource_name == "cpu"
    kind = type(q)
    if kind is Fraction:
        return millivalue(q) if is_cpu else value(q)  # type: ignore[arg-type]
    if kind is bool:  # True == 1 would otherwise hit the cache entry of 1
        raise QuantityError(q, "a boolean is not a quantity")
    key = (is_cpu, q)
    try:
        return _CACHE[key]
    except KeyError:
        pass
    except TypeError:  # unhashable (a list or a mapping where a quantity belongs)
        raise QuantityError(q, f"expected a string or a number, got {kind.__name__}") from None
    if kind is str:
        num, den = _ratio(q)  # type: ignore[arg-type]
        if is_cpu:
            num *= 1000
        result = -((-num) // den)
    else:
        parsed = parse_quantity(q)
        result = millivalue(parsed) if is_cpu else value(parsed)
    if len(_CACHE) < _CACHE_LIMIT:
        _CACHE[key] = result
    return result
