"""The ``warnings`` list every report carries (SPEC.md §4) and its one-line rendering.

Each warning is ``{"code", "object", "field", "message"}``; the list is sorted by those four
fields and holds no duplicates, so the same input gives the same document. In tables each
warning is one yellow line, ``Warning: <object>[ <field>]: <message>``, printed before the
report (as kubectl prints the API server's warnings first).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text

from wapctl.model import LoadWarning, sorted_warnings

# Tables show at most this many warnings; the JSON/YAML document always holds them all.
TABLE_LIMIT = 20


def warnings_to_list(*groups: Iterable[LoadWarning]) -> list[dict[str, Any]]:
    """The ``warnings`` document of one or more snapshots' warnings: sorted, deduplicated."""
    return [
        {"code": w.code, "object": w.object, "field": w.field, "message": w.message}
        for w in sorted_warnings(w for group in groups for w in group)
    ]


def warning_line(doc: dict[str, Any]) -> str:
    where = doc["object"] + (f" {doc['field']}" if doc.get("field") else "")
    return f"Warning: {where}: {doc['message']}"


def render_warnings(docs: list[dict[str, Any]], console: Console) -> None:
    """One yellow line per warning (at most ``TABLE_LIMIT``, then a count of the rest)."""
    for doc in docs[:TABLE_LIMIT]:
        console.print(Text(warning_line(doc), style="yellow"), soft_wrap=True)
    if len(docs) > TABLE_LIMIT:
        console.print(
            Text(f"Warning: {len(docs) - TABLE_LIMIT} more warnings (-o json lists them all)",
                 style="yellow"),
            soft_wrap=True,
        )
