"""The size and shape limits on input, and --max-input-size.

Every input is measured before it is read (``wapctl.ingest.sources``) and the safe readers
never take more than ``MAX_INPUT_SIZE`` (``wapctl.ingest.decode``); see the package docstring
for what each limit guards against. Code reads them as ``limits.NAME`` when it applies them, so
a test (or an embedding program) can lower one here (``wapctl.ingest.limits.MAX_DEPTH = 50``);
the names ``wapctl.ingest`` re-exports are their values at import, to read.
"""

from __future__ import annotations

from wapctl.errors import UsageError
from wapctl.quantity import QuantityError, parse_quantity

MAX_INPUT_SIZE = 256 * 1024 * 1024  # bytes per file / stdin (and what the safe readers take)
MAX_FAST_INPUT_SIZE = 8 << 30  # ... for JSON, read fast (a 5,000-node export is ~3 GB)
FAST_FROM = 1 << 20  # inputs from this size on get MAX_FAST_INPUT_SIZE
FAST_YAML_FROM = 1 << 20  # YAML from this size on tries the fast reader (smaller: PyYAML)
MAX_ALIASES = 100  # alias uses per YAML document
MAX_ALIAS_EXPANSION = 100_000  # nodes the aliases of one document may stand for, expanded
MAX_DEPTH = 100  # nesting levels per document
# A node whose status lists no "pods" allocatable gets the kubelet's default --max-pods.
DEFAULT_NODE_PODS = 110


# ---- sizes ---------------------------------------------------------------------------------


def parse_size(text: str) -> int:
    """A byte count written as a quantity (``512Mi``, ``2Gi``, ``1e9``) for --max-input-size."""
    try:
        size = parse_quantity(text.strip() if isinstance(text, str) else text)
    except QuantityError as exc:
        raise UsageError(
            f"--max-input-size: {exc.reason} in {text!r} (e.g. 512Mi or 2Gi)"
        ) from None
    if size <= 0:
        raise UsageError(f"--max-input-size must be positive, got {text!r}")
    return -((-size.numerator) // size.denominator)


def byte_count(size: int) -> str:
    """``1 byte``, ``7433 bytes``."""
    return "1 byte" if size == 1 else f"{size} bytes"


def human(size: int) -> str:
    for unit, shift in (("Gi", 30), ("Mi", 20), ("Ki", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{unit}"
    return byte_count(size)
