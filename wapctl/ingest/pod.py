"""A ``Pod`` from its object: effective requests (upstream ``resourcehelper.PodRequests``),
tolerations, required node affinity, inter-pod constraints, phase and termination; its
priority and pod group through ``wapctl.ingest.resolve``."""

from __future__ import annotations

from typing import Any

from wapctl.errors import InputError, Source
from wapctl.ingest import constraints, resize
from wapctl.ingest.fields import AMOUNTS, Head, amount, timestamp
from wapctl.ingest.fields import enum as _enum
from wapctl.ingest.fields import list_field as _list
from wapctl.ingest.fields import mapping as _mapping
from wapctl.ingest.fields import opt_str as _opt_str
from wapctl.ingest.fields import requirement as _requirement
from wapctl.ingest.fields import str_map as _str_map
from wapctl.ingest.fields import type_error as _type_error
from wapctl.ingest.resolve import PodContext, pod_priority, resolved_fields
from wapctl.model import NEVER, PREEMPT_LOWER, NodeSelectorTerm, Pod, Toleration

# ---- Pod -----------------------------------------------------------------------------------

_PHASES = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
_TOLERATION_OPERATORS = ("Equal", "Exists")
_TOLERATION_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_NODE_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPERATORS = ("In", "NotIn")
_EMPTY: dict[str, int] = {}


def container_requests(c: Any, source: Source, path: str) -> dict[str, int]:
    """One container's requests, defaulted from its limits as the API server does."""
    if type(c) is not dict:
        raise _type_error(c, "a mapping", source, path)
    res = c.get("resources")
    if not res:
        if res is None or type(res) is dict:
            return _EMPTY
        raise _type_error(res, "a mapping", source, path + ".resources")
    if type(res) is not dict:
        raise _type_error(res, "a mapping", source, path + ".resources")
    req = res.get("requests")
    lim = res.get("limits")
    out: dict[str, int] = {}
    if req:
        if type(req) is not dict:
            raise _type_error(req, "a mapping", source, path + ".resources.requests")
        for k, q in req.items():
            out[k] = amount(k, q, source, path + ".resources.requests")
    elif req is not None and type(req) is not dict:
        raise _type_error(req, "a mapping", source, path + ".resources.requests")
    if lim:
        if type(lim) is not dict:
            raise _type_error(lim, "a mapping", source, path + ".resources.limits")
        for k, q in lim.items():
            value = amount(k, q, source, path + ".resources.limits")
            if k not in out:
                out[k] = value
    elif lim is not None and type(lim) is not dict:
        raise _type_error(lim, "a mapping", source, path + ".resources.limits")
    return out


def _add_spec_containers(total: dict[str, int], containers: list[Any], source: Source) -> None:
    """The containers' spec requests added into ``total`` (a pod without container statuses)."""
    amounts = AMOUNTS
    for i, c in enumerate(containers):
        res = c.get("resources") if type(c) is dict else None
        if type(res) is dict and "limits" not in res:
            req = res.get("requests")
            if type(req) is dict:
                # the usual container: requests only, amounts read before (``amount``'s
                # cache; anything else takes ``container_requests``)
                for k, q in req.items():
                    v = amounts.get((k, q)) if type(q) is str else None
                    if v is None:
                        v = amount(k, q, source, f"spec.containers[{i}].resources.requests")
                    total[k] = total.get(k, 0) + v
                continue
        for k, v in container_requests(c, source, f"spec.containers[{i}]").items():
            total[k] = total.get(k, 0) + v


def _resized(c: Any, path: str, found: resize.Statuses, is_infeasible: bool,
             source: Source) -> dict[str, int]:
    """One container's requests: its spec's, or what its status says it holds."""
    r = container_requests(c, source, path)
    name = c.get("name")
    entry = found.get(name) if type(name) is str else None
    if entry is None:
        return r
    res = c.get("resources")
    spec_raw = res.get("requests") if type(res) is dict else None
    return resize.effective(r, spec_raw, entry, is_infeasible, source)


def _add_init_containers(total: dict[str, int], inits: list[Any], found: resize.Statuses | None,
                         is_infeasible: bool, source: Source) -> None:
    """Init containers into ``total`` as upstream: a sidecar (``restartPolicy: Always``) adds
    to the sum and to every later init container; the largest init container (with the
    sidecars before it) is a floor. Only a sidecar's status is read (upstream 1.36)."""
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for i, c in enumerate(inits):
        path = f"spec.initContainers[{i}]"
        sidecar = type(c) is dict and c.get("restartPolicy") == "Always"
        if sidecar and found is not None:
            r = _resized(c, path, found, is_infeasible, source)
        else:
            r = container_requests(c, source, path)
        if sidecar:
            for k, v in r.items():
                total[k] = total.get(k, 0) + v
                sidecars[k] = sidecars.get(k, 0) + v
            current = sidecars
        else:
            current = dict(sidecars)
            for k, v in r.items():
                current[k] = current.get(k, 0) + v
        for k, v in current.items():
            if v > init_max.get(k, 0):
                init_max[k] = v
    for k, v in init_max.items():
        if v > total.get(k, 0):
            total[k] = v


def pod_requests(
    spec: dict[str, Any], source: Source, status: dict[str, Any] | None = None
) -> dict[str, int]:
    """Effective requests as upstream ``resourcehelper.PodRequests`` with
    ``UseStatusResources`` (the scheduler's NodeInfo in 1.36): the larger of the containers'
    sum (plus restartable "sidecar" init containers) and each regular init container (plus
    the sidecars started before it), then plus ``spec.overhead``. A container (or sidecar)
    whose status has ``resources`` counts what an in-place resize leaves it holding
    (``wapctl.ingest.resize``)."""
    total: dict[str, int] = {}
    found = resize.statuses(status, source) if status else None
    is_infeasible = found is not None and status is not None and resize.infeasible(status, source)
    containers = spec.get("containers")
    if containers is not None:
        if type(containers) is not list:
            raise _type_error(containers, "a list", source, "spec.containers")
        if found is None:
            _add_spec_containers(total, containers, source)
        else:
            for i, c in enumerate(containers):
                r = _resized(c, f"spec.containers[{i}]", found, is_infeasible, source)
                for k, v in r.items():
                    total[k] = total.get(k, 0) + v
    inits = spec.get("initContainers")
    if inits:
        if type(inits) is not list:
            raise _type_error(inits, "a list", source, "spec.initContainers")
        _add_init_containers(total, inits, found, is_infeasible, source)
    elif inits is not None and type(inits) is not list:
        raise _type_error(inits, "a list", source, "spec.initContainers")
    pod_level = spec.get("resources")
    if pod_level is not None:
        # PodLevelResources (on by default since 1.34): pod-level cpu / memory / hugepages
        # requests replace the containers' aggregate, as upstream PodRequests does.
        for k, v in container_requests(spec, source, "spec").items():
            if k in ("cpu", "memory") or k.startswith("hugepages-"):
                total[k] = v
    overhead = spec.get("overhead")
    if overhead:
        if type(overhead) is not dict:
            raise _type_error(overhead, "a mapping", source, "spec.overhead")
        for k, q in overhead.items():
            total[k] = total.get(k, 0) + amount(k, q, source, "spec.overhead")
    total.pop("pods", None)  # a pod always counts as one pod; "pods" is not a request
    return total


# Toleration objects by their raw fields: pods of one cluster repeat the same few tolerations.
_TOLERATIONS: dict[tuple[Any, ...], Toleration] = {}


# A list of tolerations read before -> (the list, what it reads as), by the list's identity:
# the fast reader hands every pod that writes its tolerations alike the same list
# (json_reader._shared_tolerations). The list is kept, so its id stays its own.
_TOLERATION_LISTS: dict[int, tuple[list[Any], tuple[Toleration, ...]]] = {}


def _tolerations(value: Any, source: Source) -> tuple[Toleration, ...]:
    if value is None:
        return ()
    known = _TOLERATION_LISTS.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    out = _read_tolerations(value, source)
    if len(_TOLERATION_LISTS) < 4096:
        _TOLERATION_LISTS[id(value)] = (value, out)
    return out


def _read_tolerations(value: Any, source: Source) -> tuple[Toleration, ...]:
    if type(value) is not list:
        raise _type_error(value, "a list", source, "spec.tolerations")
    out = []
    for i, t in enumerate(value):
        if type(t) is dict:
            raw = (t.get("key"), t.get("operator"), t.get("value"), t.get("effect"))
            try:
                known = _TOLERATIONS.get(raw)
            except TypeError:  # an unhashable field: let the checks below name it
                known = None
            if known is not None:
                out.append(known)
                continue
        made = _toleration(t, source, f"spec.tolerations[{i}]")
        if len(_TOLERATIONS) < 10_000:
            _TOLERATIONS[raw] = made
        out.append(made)
    return tuple(out)


def _toleration(t: Any, source: Source, f: str) -> Toleration:
    if type(t) is not dict:
        raise _type_error(t, "a mapping", source, f)
    key = _opt_str(t.get("key"), source, f + ".key") or ""
    op = _enum(t.get("operator"), _TOLERATION_OPERATORS, source, f + ".operator") or "Equal"
    if not key and op != "Exists":
        raise InputError("an empty key needs operator Exists", source, f + ".operator")
    val = t.get("value")
    if val is not None and type(val) is not str:
        raise _type_error(val, "a string (quote it)", source, f + ".value")
    if op == "Exists" and val:
        raise InputError("must be empty when operator is Exists", source, f + ".value")
    return Toleration(
        key=key,
        operator=op,
        value=val or "",
        effect=_enum(t.get("effect"), _TOLERATION_EFFECTS, source, f + ".effect") or "",
    )


def _required_affinity(spec: dict[str, Any], source: Source) -> tuple[NodeSelectorTerm, ...] | None:
    affinity = spec.get("affinity")
    if not affinity:
        return None
    affinity = _mapping(affinity, source, "spec.affinity")
    na = _mapping(affinity.get("nodeAffinity"), source, "spec.affinity.nodeAffinity")
    base = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    req = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    if req is None:
        return None
    req = _mapping(req, source, base)
    terms = []
    for i, term in enumerate(
        _list(req.get("nodeSelectorTerms"), source, base + ".nodeSelectorTerms")
    ):
        f = f"{base}.nodeSelectorTerms[{i}]"
        term = _mapping(term, source, f)
        exprs = tuple(
            _requirement(e, _NODE_OPERATORS, source, f"{f}.matchExpressions[{j}]", numeric=True)
            for j, e in enumerate(
                _list(term.get("matchExpressions"), source, f + ".matchExpressions")
            )
        )
        fields = []
        for j, e in enumerate(_list(term.get("matchFields"), source, f + ".matchFields")):
            r = _requirement(e, _FIELD_OPERATORS, source, f"{f}.matchFields[{j}]", numeric=False)
            # As the API server's validateNodeFieldSelectorRequirement
            # (pkg/apis/core/validation/validation.go): metadata.name only, one value.
            if r.key != "metadata.name":
                raise InputError(
                    f"only metadata.name can be matched, not {r.key!r}",
                    source,
                    f"{f}.matchFields[{j}].key",
                )
            if len(r.values) != 1:
                raise InputError(f"operator {r.operator} takes exactly one value in matchFields",
                                 source, f"{f}.matchFields[{j}].values")
            fields.append(r)
        terms.append(NodeSelectorTerm(match_expressions=exprs, match_fields=tuple(fields)))
    return tuple(terms)


def read_pod(obj: dict[str, Any], source: Source, head: Head, ctx: PodContext) -> Pod:
    meta, ns, name = head
    key = f"{ns}/{name}"
    spec = obj.get("spec")
    spec = {} if spec is None else _mapping(spec, source, "spec")
    status = obj.get("status")
    status = {} if status is None else _mapping(status, source, "status")

    requests = pod_requests(spec, source, status)
    pcn, pp, group = pod_priority(spec, ns, key, source, ctx)

    phase = status.get("phase") or "Pending"
    if phase not in _PHASES:
        _enum(phase, _PHASES, source, "status.phase")
    node_name = spec.get("nodeName") or None
    if node_name is not None and type(node_name) is not str:
        raise _type_error(node_name, "a string", source, "spec.nodeName")
    nominated = status.get("nominatedNodeName") or None
    if nominated is not None and type(nominated) is not str:
        raise _type_error(nominated, "a string", source, "status.nominatedNodeName")
    affinity = _required_affinity(spec, source) if "affinity" in spec else None
    gates = spec.get("schedulingGates")
    if gates is not None and type(gates) is not list:
        raise _type_error(gates, "a list", source, "spec.schedulingGates")
    labels = _str_map(meta.get("labels"), source, "metadata.labels")
    affinity_terms, anti_terms = (
        constraints.pod_affinity_terms(spec, ns, labels, source) if "affinity" in spec else ((), ())
    )
    spread = (constraints.spread_constraints(spec, labels, source)
              if "topologySpreadConstraints" in spec else ())
    ports = constraints.host_ports(spec, source)
    finished = phase in ("Succeeded", "Failed")
    terminating = meta.get("deletionTimestamp") is not None
    warnings = constraints.pod_warnings(
        spec, key, pending=node_name is None and not finished and not terminating,
        gated=bool(gates) and node_name is None, source=source)
    if warnings:
        ctx.warnings.extend(warnings)

    pod = Pod(
        namespace=ns,
        name=name,
        key=key,
        preempted_by_scheduler=terminating and _preempted_by_scheduler(status, source),
        requests=requests,
        priority=pp.priority,
        preemption_priority=pp.preemption_priority,
        preemption_policy=pp.preemption_policy,
        own_preemption_policy=NEVER if pp.own_never else PREEMPT_LOWER,
        priority_class_name=pcn or None,
        node_name=node_name,
        phase=phase,
        terminating=terminating,
        nominated_node=nominated,
        group_key=group.key if group is not None else None,
        creation_time=timestamp(
            meta.get("creationTimestamp"), source, "metadata.creationTimestamp"),
        start_time=timestamp(status.get("startTime"), source, "status.startTime"),
        labels=labels,
        node_selector=_str_map(spec.get("nodeSelector"), source, "spec.nodeSelector"),
        required_affinity=affinity,
        tolerations=_tolerations(spec.get("tolerations"), source),
        source=source,
        gated=bool(gates),
        affinity_terms=affinity_terms,
        anti_affinity_terms=anti_terms,
        spread_constraints=spread,
        host_ports=ports,
        own_priority=pp.own_priority,
    )
    if ctx.reuse is not None:  # every document _build classified has its Seen
        seen = ctx.reuse[id(obj)]
        seen.built, seen.warnings, seen.resolved = pod, warnings, resolved_fields(pcn, pp, group)
    return pod


def _preempted_by_scheduler(status: dict[str, Any], source: Source) -> bool:
    """Upstream ``PodTerminatingByPreemption`` (preemption/util.go) of a terminating pod: the
    first ``DisruptionTarget`` condition is True with reason ``PreemptionByScheduler``. Read
    only for pods with a ``deletionTimestamp`` (upstream answers false first for the others).
    The condition's ``status`` is a string (``ConditionStatus``); a YAML boolean there (an
    unquoted ``True``) is refused as the API server would refuse it, not read as false."""
    conditions = status.get("conditions")
    if type(conditions) is not list:
        return False
    for i, cond in enumerate(conditions):
        if isinstance(cond, dict) and cond.get("type") == "DisruptionTarget":
            value = cond.get("status")
            if value is not None and type(value) is not str:
                raise _type_error(value, 'a string: "True", "False" or "Unknown" (quote it)',
                                  source, f"status.conditions[{i}].status")
            return value == "True" and cond.get("reason") == "PreemptionByScheduler"
    return False
