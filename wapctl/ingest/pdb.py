"""A ``PodDisruptionBudget`` from its object: selector, disruptionsAllowed, disruptedPods."""

from __future__ import annotations

from typing import Any

from wapctl.errors import Source
from wapctl.ingest.fields import Head
from wapctl.ingest.fields import label_selector as _label_selector
from wapctl.ingest.fields import mapping as _mapping
from wapctl.ingest.fields import opt_int as _opt_int
from wapctl.model import PodDisruptionBudget

# ---- PodDisruptionBudget -------------------------------------------------------------------


def read_pdb(obj: dict[str, Any], source: Source, head: Head) -> PodDisruptionBudget:
    _, ns, name = head
    spec = _mapping(obj.get("spec"), source, "spec")
    status = _mapping(obj.get("status"), source, "status")
    allowed = _opt_int(status.get("disruptionsAllowed"), source, "status.disruptionsAllowed")
    disrupted = _mapping(status.get("disruptedPods"), source, "status.disruptedPods")
    return PodDisruptionBudget(
        namespace=ns,
        name=name,
        selector=_label_selector(spec.get("selector"), source, "spec.selector"),
        disruptions_allowed=allowed or 0,
        disrupted_pods=frozenset(str(k) for k in disrupted),
        source=source,
    )
