"""The scheduling.k8s.io Workload API shapes that write disruptionMode as a union.

v1alpha3 and v1beta1 agree on every field wapctl reads (upstream kubernetes/kubernetes
``staging/src/k8s.io/api/scheduling/v1beta1/types.go`` at commit 01d0b7277d40, compared with
``.../v1alpha3/types.go`` at 0c66e103c5b3): a Workload's ``spec.podGroupTemplates[]`` with
``name``, ``schedulingPolicy`` (``basic: {}`` or ``gang: {minCount}``), ``disruptionMode`` (the
union ``{single: {}}`` or ``{all: {}}``), ``priorityClassName``, ``priority`` and
``preemptionPolicy``; a PodGroup's ``spec.workloadRef`` (``workloadName``, ``templateName``)
and the same settings of its own. So a v1beta1 object is read exactly as a v1alpha3 one
(``wapctl.ingest``); only the apiVersion it remembers differs.
"""

from __future__ import annotations

from typing import Any

from wapctl.errors import InputError, Source

API_GROUP = "scheduling.k8s.io"
V1ALPHA1 = "scheduling.k8s.io/v1alpha1"
V1ALPHA2 = "scheduling.k8s.io/v1alpha2"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"
V1BETA1 = "scheduling.k8s.io/v1beta1"
# the versions whose disruptionMode is the {single: {}} | {all: {}} union, whose PodGroups
# name their template with spec.workloadRef, and whose templates carry a preemptionPolicy
UNION_SHAPES = (V1ALPHA3, V1BETA1)


def union_mode(value: Any, api_version: str, source: Source, field: str) -> str | None:
    """The union ``{single: {}} | {all: {}}`` -> Pod | PodGroup (None when unset)."""
    if value is None:
        return None
    if type(value) is not dict:
        raise InputError(
            f"must be {{single: {{}}}} or {{all: {{}}}} in {api_version}, not {value!r}",
            source,
            field,
        )
    single, all_ = value.get("single"), value.get("all")
    extra = sorted(str(k) for k in value if k not in ("single", "all"))
    if extra:
        raise InputError(
            f"unknown disruption mode {extra[0]!r} (expected single or all)", source, field
        )
    if (single is None) == (all_ is None):
        raise InputError("exactly one of single or all must be set", source, field)
    return "Pod" if single is not None else "PodGroup"
