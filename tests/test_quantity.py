"""resource.Quantity parsing: every accepted form, exact values, upstream rounding."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl.quantity import QuantityError, amount, parse_quantity

# text, exact value (hand-checked)
VALUES = [
    ("100m", Fraction(1, 10)),
    ("1.5", Fraction(3, 2)),
    ("2Gi", Fraction(2 * 1024**3)),
    ("512M", Fraction(512_000_000)),
    ("1e3", Fraction(1000)),
    ("1E-3", Fraction(1, 1000)),
    ("1e+3", Fraction(1000)),
    ("0.5Ki", Fraction(512)),
    ("1.1m", Fraction(11, 10_000)),
    ("5.", Fraction(5)),
    (".5", Fraction(1, 2)),
    ("+1", Fraction(1)),
    ("-1", Fraction(-1)),
    ("0", Fraction(0)),
    ("1n", Fraction(1, 10**9)),
    ("1u", Fraction(1, 10**6)),
    ("1k", Fraction(1000)),
    ("1M", Fraction(10**6)),
    ("1G", Fraction(10**9)),
    ("1T", Fraction(10**12)),
    ("1P", Fraction(10**15)),
    ("1E", Fraction(10**18)),  # E alone is exa, not an exponent
    ("1Ki", Fraction(1024)),
    ("1Mi", Fraction(1024**2)),
    ("1Ti", Fraction(1024**4)),
    ("1Pi", Fraction(1024**5)),
    ("1Ei", Fraction(1024**6)),
    ("1.25Gi", Fraction(5 * 1024**3, 4)),
    ("007", Fraction(7)),
]


@pytest.mark.parametrize(("text", "expected"), VALUES, ids=[v[0] for v in VALUES])
def test_parse_quantity_text(text: str, expected: Fraction) -> None:
    """Each textual form Kubernetes accepts parses to its exact rational value."""
    assert expected == parse_quantity(text)


NUMBERS = [
    (2, Fraction(2)),
    (0, Fraction(0)),
    (0.1, Fraction(1, 10)),  # read through repr: one tenth, not the binary float
    (1.5, Fraction(3, 2)),
    (1e-3, Fraction(1, 1000)),
    (1e20, Fraction(10**20)),
]


@pytest.mark.parametrize(("number", "expected"), NUMBERS, ids=[repr(n[0]) for n in NUMBERS])
def test_parse_quantity_numbers(number: float, expected: Fraction) -> None:
    """Quantities written as YAML/JSON numbers mean the decimal value as written."""
    assert expected == parse_quantity(number)


# resource, quantity, model amount (cpu in millicores rounded up, else base units rounded up)
AMOUNTS = [
    ("cpu", "100m", 100),
    ("cpu", "1.5", 1500),
    ("cpu", "2", 2000),
    ("cpu", 2, 2000),
    ("cpu", "1.1m", 2),  # 1.1 millicores rounds up to 2
    ("cpu", "1n", 1),
    ("cpu", "0", 0),
    ("cpu", 0.25, 250),
    ("memory", "2Gi", 2147483648),
    ("memory", "512M", 512000000),
    ("memory", "1e3", 1000),
    ("memory", "0.5Ki", 512),
    ("memory", "100m", 1),  # a tenth of a byte rounds up to 1
    ("memory", "1.5", 2),
    ("memory", 1024, 1024),
    ("nvidia.com/gpu", "1", 1),
    ("ephemeral-storage", "10Gi", 10 * 1024**3),
    ("pods", "110", 110),
]


@pytest.mark.parametrize(
    ("resource", "quantity", "expected"),
    AMOUNTS,
    ids=[f"{r}={q!r}" for r, q, _ in AMOUNTS],
)
def test_amount(resource: str, quantity: object, expected: int) -> None:
    """cpu becomes millicores (MilliValue), everything else base units (Value), rounded up."""
    assert expected == amount(resource, quantity)


def test_amount_repeated_is_cached_and_stable() -> None:
    """The same raw value gives the same amount every time (the cache changes nothing)."""
    assert [amount("cpu", "250m") for _ in range(3)] == [250, 250, 250]
    assert [amount("memory", "250m") for _ in range(3)] == [1, 1, 1]


def test_amount_keeps_negative_for_caller() -> None:
    """A negative quantity is returned as is: the loader rejects it naming the field."""
    assert -500 == amount("cpu", "-0.5")


BAD = [
    ("", "empty"),
    (".", "no digits"),
    ("abc", "no digits"),
    ("1K", "unknown suffix 'K'"),
    ("1mi", "unknown suffix 'mi'"),
    ("1e", "unknown suffix 'e'"),
    ("1 Gi", "expected a number"),
    ("1e3m", "expected a number"),
    ("1.2.3", "expected a number"),
    ("1e999", "exponent beyond"),
    ("1" * 100, "longer than"),
    (True, "boolean"),
    (None, "expected a string or a number, got NoneType"),
    ([1], "expected a string or a number, got list"),
    (float("inf"), "not a finite number"),
]


@pytest.mark.parametrize(("value", "reason"), BAD, ids=[repr(b[0])[:12] for b in BAD])
def test_parse_quantity_rejects(value: object, reason: str) -> None:
    """Unparsable input raises QuantityError (a ValueError) that says why."""
    with pytest.raises(QuantityError) as info:
        parse_quantity(value)
    assert isinstance(info.value, ValueError)
    assert reason in str(info.value)


def test_amount_rejects_boolean_even_though_true_equals_one() -> None:
    """True is not the quantity 1, even after 1 was cached."""
    amount("memory", 1)
    with pytest.raises(QuantityError):
        amount("memory", True)


def test_amount_rejects_unhashable() -> None:
    """A mapping where a quantity belongs is a clear QuantityError, not a TypeError."""
    with pytest.raises(QuantityError, match="got dict"):
        amount("cpu", {"a": 1})


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**12),
    st.integers(min_value=0, max_value=6),
    st.sampled_from(["", "m", "k", "M", "Ki", "Mi", "Gi"]),
)
def test_decimal_text_round_trip(units: int, scale: int, suffix: str) -> None:
    """A decimal number written with `scale` fraction digits and a suffix equals the same
    value computed by hand with exact arithmetic."""
    digits = str(units).rjust(scale + 1, "0")
    text = f"{digits[:-scale]}.{digits[-scale:]}{suffix}" if scale else f"{digits}{suffix}"
    multiplier = {
        "": Fraction(1),
        "m": Fraction(1, 1000),
        "k": Fraction(1000),
        "M": Fraction(10**6),
        "Ki": Fraction(1024),
        "Mi": Fraction(1024**2),
        "Gi": Fraction(1024**3),
    }[suffix]
    assert Fraction(units, 10**scale) * multiplier == parse_quantity(text)
