"""In-place pod resize (InPlacePodVerticalScaling, GA and always on in 1.36): what a bound pod's
containers hold while their ``status`` differs from their ``spec``.

Upstream, Kubernetes 1.36 (k8s.io/component-helpers ``resource/helpers.go`` at tag v0.36.2,
kubernetes/component-helpers commit d4b52afdf6f1f74272a04be7f4658c1e0dccb430; the file as last
changed by kubernetes/kubernetes commit 0f815fd0e5aaa7f55fbdce530ed00cd890aa47f7): the
scheduler's NodeInfo counts ``resourcehelper.PodRequests(pod, {UseStatusResources: true})``,
whose ``AggregateContainerRequests`` matches each container to its status by name (a map of
``status.containerStatuses`` and then ``status.initContainerStatuses``) and, where the status
has ``resources`` (``cs.Resources != nil``), counts ``determineEffectiveRequests``:

- the pod's resize is Infeasible (``IsPodResizeInfeasible``: the first ``status.conditions``
  entry of type ``PodResizePending`` has reason ``Infeasible``):
  ``max(cs.resources.requests, cs.allocatedResources)``, per resource;
- otherwise ``max(spec requests, cs.resources.requests, cs.allocatedResources)``.

Regular containers and restartable ("sidecar") init containers are read so; a regular init
container counts its spec only. The 1.36 API has no ``status.resize`` field (replaced by the
PodResizePending / PodResizeInProgress conditions in 1.33), so only the condition is read.
"""

from __future__ import annotations

from typing import Any

from wapctl.errors import Source
from wapctl.ingest.fields import amount
from wapctl.ingest.fields import type_error as _type_error

# name -> (status.resources.requests, status.allocatedResources, the status's field path)
Statuses = dict[str, tuple[Any, Any, str]]
_FIELDS = ("containerStatuses", "initContainerStatuses")


def statuses(status: dict[str, Any], source: Source) -> Statuses | None:
    """The container statuses that have ``resources``, by container name (an init container's
    status replaces a container's of the same name, as upstream's map); None when there is
    none. Every entry's shape is checked; its amounts are read where a container uses it."""
    out: Statuses | None = None
    for field in _FIELDS:
        value = status.get(field)
        if value is None:
            continue
        if type(value) is not list:
            raise _type_error(value, "a list", source, f"status.{field}")
        for i, cs in enumerate(value):
            entry = _entry(cs, source, field, i)
            if entry is not None:
                if out is None:
                    out = {}
                out[entry[0]] = entry[1]
    return out


def _entry(cs: Any, source: Source, field: str, i: int) -> tuple[str, Any] | None:
    if type(cs) is not dict:
        raise _type_error(cs, "a mapping", source, f"status.{field}[{i}]")
    name = cs.get("name")
    if name is not None and type(name) is not str:
        raise _type_error(name, "a string", source, f"status.{field}[{i}].name")
    res = cs.get("resources")
    requests = None
    if res is not None:
        if type(res) is not dict:
            raise _type_error(res, "a mapping", source, f"status.{field}[{i}].resources")
        requests = res.get("requests")
        if requests is not None and type(requests) is not dict:
            raise _type_error(requests, "a mapping", source,
                              f"status.{field}[{i}].resources.requests")
    allocated = cs.get("allocatedResources")
    if allocated is not None and type(allocated) is not dict:
        raise _type_error(allocated, "a mapping", source,
                          f"status.{field}[{i}].allocatedResources")
    if res is None or name is None:  # upstream: no status found, or ``cs.Resources == nil``
        return None
    return name, (requests, allocated, f"status.{field}[{i}]")


def infeasible(status: dict[str, Any], source: Source) -> bool:
    """Upstream ``IsPodResizeInfeasible``: the first condition of type PodResizePending decides,
    by its reason alone (its ``status`` is not read). Conditions that are not a list, and
    entries that are not mappings, are passed over as ``_preempted_by_scheduler`` does (the
    fast reader keeps a pod's conditions only where a builder reads them)."""
    conditions = status.get("conditions")
    if type(conditions) is not list:
        return False
    for i, cond in enumerate(conditions):
        if type(cond) is dict and cond.get("type") == "PodResizePending":
            reason = cond.get("reason")
            if reason is not None and type(reason) is not str:
                raise _type_error(reason, "a string", source, f"status.conditions[{i}].reason")
            return reason == "Infeasible"
    return False


def effective(spec: dict[str, int], spec_raw: Any, entry: tuple[Any, Any, str],
              is_infeasible: bool, source: Source) -> dict[str, int]:
    """Upstream ``determineEffectiveRequests`` of one container: ``spec`` its spec requests
    (read, limits defaulted in), ``spec_raw`` its ``resources.requests`` as written."""
    actual, allocated, path = entry
    if not is_infeasible and (actual is None or actual == spec_raw or not actual) and (
            allocated is None or allocated == spec_raw or not allocated):
        return spec  # the usual running container: its status says what its spec says
    out: dict[str, int] = {} if is_infeasible else dict(spec)
    if actual:
        _max_into(out, actual, source, path + ".resources.requests")
    if allocated:
        _max_into(out, allocated, source, path + ".allocatedResources")
    return out


def _max_into(out: dict[str, int], raw: dict[str, Any], source: Source, path: str) -> None:
    for k, q in raw.items():
        v = amount(k, q, source, path)
        if v > out.get(k, -1):
            out[k] = v
