"""A ``Node`` from its object: allocatable, labels, taints, unschedulable."""

from __future__ import annotations

from typing import Any

from wapctl.errors import Source
from wapctl.ingest import limits
from wapctl.ingest.fields import Head, amount, missing_field
from wapctl.ingest.fields import enum as _enum
from wapctl.ingest.fields import list_field as _list
from wapctl.ingest.fields import mapping as _mapping
from wapctl.ingest.fields import opt_bool as _opt_bool
from wapctl.ingest.fields import opt_str as _opt_str
from wapctl.ingest.fields import req_str as _req_str
from wapctl.ingest.fields import str_map as _str_map
from wapctl.ingest.fields import type_error as _type_error
from wapctl.model import Node, Taint

# ---- Node ----------------------------------------------------------------------------------

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def read_node(obj: dict[str, Any], source: Source, head: Head) -> Node:
    """``status.allocatable`` (``status.capacity`` when a node reports no allocatable), labels,
    taints and ``spec.unschedulable``. A node that lists no ``pods`` allocatable gets
    ``DEFAULT_NODE_PODS`` (110, the kubelet's default ``--max-pods``)."""
    meta, _, name = head
    spec = _mapping(obj.get("spec"), source, "spec")
    status = _mapping(obj.get("status"), source, "status")
    raw = status.get("allocatable")
    path = "status.allocatable"
    if not raw:
        raw, path = status.get("capacity"), "status.capacity"
    raw = _mapping(raw, source, path)
    allocatable = {k: amount(k, q, source, path) for k, q in raw.items()}
    if "pods" not in allocatable:
        allocatable["pods"] = limits.DEFAULT_NODE_PODS
    taints = []
    for i, t in enumerate(_list(spec.get("taints"), source, "spec.taints")):
        f = f"spec.taints[{i}]"
        if type(t) is not dict:
            raise _type_error(t, "a mapping", source, f)
        taints.append(
            Taint(
                key=_req_str(t.get("key"), source, f + ".key"),
                value=_opt_str(t.get("value"), source, f + ".value") or "",
                effect=_enum(t.get("effect"), _TAINT_EFFECTS, source, f + ".effect")
                or missing_field(source, f + ".effect"),
            )
        )
    return Node(
        name=name,
        labels=_str_map(meta.get("labels"), source, "metadata.labels"),
        allocatable=allocatable,
        taints=tuple(taints),
        unschedulable=_opt_bool(spec.get("unschedulable"), source, "spec.unschedulable"),
        source=source,
    )
