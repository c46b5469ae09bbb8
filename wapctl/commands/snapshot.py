"""``wapctl snapshot``: save the live cluster state as one kubectl-style List.

The List is what every other command reads, so a cluster can be listed once (read-only) and
audited offline as often as needed. Items are sorted so the same cluster state gives the same
output. By default only the fields wapctl reads are kept (``wapctl.shareable``: no env values,
annotations, managedFields or secrets), which the output says (a YAML comment and, in both
formats, a List annotation); ``--full`` keeps every field. The server's version is kept in the
List's ``wapctl.io/server-version`` annotation (the loader reads it back).

Output: stdout (``-o yaml|json``, as kubectl), or ``--output-file FILE`` written through a
temporary file (an interrupted run leaves no half file) with owner-only permissions (0600).
"""

from __future__ import annotations

import os
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
from wapctl.errors import UsageError
from wapctl.render.warnings import warning_line, warnings_to_list
from wapctl.shareable import DROPPED, shareable


class SnapshotFormat(str, Enum):
    yaml = "yaml"
    json = "json"


# Definitions before the objects that use them; any other kind after these, by name.
KIND_ORDER = ("PriorityClass", "Namespace", "Node", "Workload", "PodGroup", "PodDisruptionBudget",
              "Pod")
CONTENTS_ANNOTATION = "wapctl.io/contents"
SERVER_VERSION_ANNOTATION = "wapctl.io/server-version"  # = wapctl.ingest's, which reads it back
STRIPPED = (
    "only the fields wapctl reads; left out: " + ", ".join(DROPPED)
    + " (wapctl snapshot --full keeps every field)"
)
FULL = "every field as the API server returned it (wapctl snapshot --full), except managedFields"
FILE_MODE = 0o600


def _order(obj: dict[str, Any]) -> tuple[int, str, str, str, str]:
    kind = str(obj.get("kind", ""))
    found = obj.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    rank = KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)
    return (
        rank,
        kind,
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        str(obj.get("apiVersion", "")),
    )


def snapshot_list(
    objects: Iterable[dict[str, Any]],
    *,
    server_version: str | None = None,
    full: bool = False,
) -> dict[str, Any]:
    """One ``kind: List`` document holding the objects, sorted by kind, namespace and name,
    stripped to the fields wapctl reads unless ``full``."""
    items = sorted(objects if full else (shareable(o) for o in objects), key=_order)
    annotations = {CONTENTS_ANNOTATION: FULL if full else STRIPPED}
    if server_version:
        annotations[SERVER_VERSION_ANNOTATION] = server_version
    return {"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations},
            "items": items}


def render(doc: dict[str, Any], fmt: SnapshotFormat) -> str:
    """The List as JSON, or as YAML under a comment saying what it holds."""
    if fmt is SnapshotFormat.json:
        return dump_json(doc)
    annotations = doc.get("metadata", {}).get("annotations", {})
    version = annotations.get(SERVER_VERSION_ANNOTATION)
    header = f"# wapctl snapshot of a Kubernetes {version} cluster\n" if version else \
        "# wapctl snapshot\n"
    header += f"# contents: {annotations.get(CONTENTS_ANNOTATION, '')}\n"
    return header + dump_yaml(doc)


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
            metavar="yaml|json",
            help="Output format (default: json when --output-file ends in .json, else yaml).",
            show_default=False,
        ),
    ] = None,
    output_file: Annotated[
        str | None,
        typer.Option(
            "--output-file",
            metavar="FILE",
            help="Write to FILE (owner-only permissions, through a temporary file: an "
            "interrupted run leaves no half file) instead of stdout.",
            show_default=False,
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Keep every field (env values, annotations, ...), not only those wapctl reads.",
        ),
    ] = False,
    events: Annotated[
        bool,
        typer.Option(
            "--events",
            help="Also keep the cluster's Events (events.k8s.io/v1), which the API server "
            "drops after an hour by default: 'wapctl explain' and 'history' read them.",
        ),
    ] = False,
) -> None:
    """Save the live cluster state as one List that every other command reads.

    Lists Namespaces, Nodes, Pods, PriorityClasses, PodDisruptionBudgets, Workloads and PodGroups
    (and Events, with --events).

    Read-only (only GET requests, page by page); items sorted by kind, namespace and name. By
    default only the fields wapctl reads are kept (no env values, annotations or secrets): the
    file is safe to share. --full keeps everything.
    """
    fmt = _format(output, output_file)
    opts = SnapshotOptions(
        kubeconfig=kubeconfig,
        context=context,
        request_timeout=request_timeout,
        page_size=page_size,
    )
    documents = read_documents(opts, progress=True)
    if events:
        from wapctl.live_events import fetch_events

        listed, warnings = fetch_events(kubeconfig=kubeconfig, context=context,
                                        request_timeout=request_timeout, page_size=page_size)
        documents.extend(listed)
        documents.warnings = (*getattr(documents, "warnings", ()), *warnings)  # type: ignore[attr-defined]
    for warning in warnings_to_list(getattr(documents, "warnings", ())):
        sys.stderr.write(warning_line(warning) + "\n")
    doc = snapshot_list((d.obj for d in documents),
                        server_version=getattr(documents, "server_version", None), full=full)
    text = render(doc, fmt)
    if output_file is None or output_file == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomically(output_file, text)
    os.chmod(output_file, FILE_MODE)
    _say_written(documents, output_file, full)


def _say_written(documents: Any, output_file: str, full: bool) -> None:
    """One stderr line: how many objects of each kind went to the file."""
    counts = Counter(str(d.obj.get("kind")) for d in documents)
    parts = [f"{counts[k]} {k}" for k in sorted(counts, key=lambda k: _order({"kind": k}))]
    summary = ", ".join(parts) if parts else "no objects"
    kept = "every field" if full else "only the fields wapctl reads"
    sys.stderr.write(f"wrote {len(documents)} objects ({summary}; {kept}) to {output_file}\n")


def _format(output: str | None, output_file: str | None) -> SnapshotFormat:
    if output is None:
        as_json = bool(output_file) and str(output_file).endswith(".json")
        return SnapshotFormat.json if as_json else SnapshotFormat.yaml
    try:
        return SnapshotFormat(output)
    except ValueError:
        hint = (f"; to write a file use --output-file {output}"
                if any(output.endswith(s) for s in (".yaml", ".yml", ".json")) or "/" in output
                else "")
        raise UsageError(f"-o/--output must be yaml or json, not {output!r}{hint}") from None
