"""``wapctl snapshot``: save the live cluster state as one kubectl-style List file.

The file is what every other command reads, so a cluster can be listed once (read-only) and
audited offline as often as needed. Items are sorted so the same cluster state gives the same
file.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from enum import Enum
from typing import Annotated, Any

import typer

from wapctl.commands.common import (
    ContextOpt,
    KubeconfigOpt,
    PageSizeOpt,
    RequestTimeoutOpt,
    SnapshotOptions,
    boundary,
    dump_json,
    dump_yaml,
    read_documents,
    write_atomically,
)


class SnapshotFormat(str, Enum):
    yaml = "yaml"
    json = "json"


# Definitions before the objects that use them; any other kind after these, by name.
KIND_ORDER = ("PriorityClass", "Node", "Workload", "PodGroup", "PodDisruptionBudget", "Pod")


def _order(obj: dict[str, Any]) -> tuple[int, str, str, str, str]:
    kind = str(obj.get("kind", ""))
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    rank = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
    return (
        rank,
        kind,
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        str(obj.get("apiVersion", "")),
    )


def snapshot_list(objects: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """One ``kind: List`` document holding the objects, sorted by kind, namespace and name."""
    return {"apiVersion": "v1", "kind": "List", "items": sorted(objects, key=_order)}


def render(doc: dict[str, Any], fmt: SnapshotFormat) -> str:
    return dump_json(doc) if fmt is SnapshotFormat.json else dump_yaml(doc)


@boundary
def snapshot(
    kubeconfig: KubeconfigOpt = None,
    context: ContextOpt = None,
    request_timeout: RequestTimeoutOpt = 30.0,
    page_size: PageSizeOpt = 500,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the snapshot to FILE (through a temporary file: an interrupted run "
            "leaves no half file). Default: stdout.",
            show_default=False,
        ),
    ] = None,
    fmt: Annotated[
        SnapshotFormat | None,
        typer.Option(
            "--format",
            help="yaml or json (default: json when FILE ends in .json, else yaml).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Save the live cluster state as one List file that every other command reads.

    Lists Nodes, Pods, PriorityClasses, PodDisruptionBudgets, Workloads and PodGroups.

    Read-only (only GET requests, page by page); items sorted by kind, namespace and name.
    """
    if fmt is None:
        fmt = SnapshotFormat.json if output and output.endswith(".json") else SnapshotFormat.yaml
    opts = SnapshotOptions(
        kubeconfig=kubeconfig,
        context=context,
        request_timeout=request_timeout,
        page_size=page_size,
    )
    documents = read_documents(opts, progress=True)
    text = render(snapshot_list(doc.obj for doc in documents), fmt)
    if output is None or output == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomically(output, text)
    counts = Counter(str(doc.obj.get("kind")) for doc in documents)
    parts = [f"{counts[k]} {k}" for k in sorted(counts, key=lambda k: _order({"kind": k}))]
    summary = ", ".join(parts) if parts else "no objects"
    sys.stderr.write(f"wrote {len(documents)} objects ({summary}) to {output}\n")
