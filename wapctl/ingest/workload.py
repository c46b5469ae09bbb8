"""Workloads and PodGroup objects of scheduling.k8s.io v1alpha1 ... v1beta1 -> pod group
drafts (policy, disruption mode, priority settings), before their pods join them.

A PodGroup object's fields win over its template's, which win over the Workload's
(``priorityClassName``/``priority`` travel as a pair); see the package docstring for the
shapes and the upstream revisions they follow.
"""

from __future__ import annotations

from typing import Any, cast

from wapctl import priority as prio
from wapctl.errors import InputError, Source
from wapctl.ingest import fields
from wapctl.ingest.fields import Head
from wapctl.ingest.fields import enum as _enum
from wapctl.ingest.fields import list_field as _list
from wapctl.ingest.fields import mapping as _mapping
from wapctl.ingest.fields import opt_int as _opt_int
from wapctl.ingest.fields import opt_str as _opt_str
from wapctl.ingest.fields import req_str as _req_str
from wapctl.ingest.fields import type_error as _type_error
from wapctl.ingest.priority_class import POLICIES, ClassBook, missing_class
from wapctl.model import DisruptionMode, GroupPolicy, LoadWarning, PriorityClass
from wapctl.workload_api import UNION_SHAPES, V1ALPHA1, union_mode

# ---- Workload and PodGroup -----------------------------------------------------------------


class GroupDraft:
    """A pod group being assembled: the merged policy and priority settings of one group."""

    __slots__ = (
        "api_version",
        "disruption_mode",
        "key",
        "member_never",
        "members",
        "min_count",
        "name",
        "namespace",
        "policy",
        "priority",
        "source",
        "workload",
    )

    def __init__(self, namespace: str, workload: str, name: str, api_version: str, source: Source):
        self.namespace = namespace
        self.workload = workload
        self.name = name
        self.key = f"{namespace}/{workload}/{name}"
        self.api_version = api_version
        self.source = source
        self.policy: GroupPolicy = "Basic"
        self.min_count: int | None = None
        self.disruption_mode: DisruptionMode = "Pod"
        self.priority = prio.GroupPriority()
        self.members: list[int] = []
        self.member_never = False


class WorkloadDraft:
    __slots__ = (
        "api_version",
        "group_names",
        "groups",
        "name",
        "namespace",
        "preemption_class",
        "priority_class",
        "source",
        "templates",
    )

    def __init__(self, namespace: str, name: str, api_version: str, source: Source):
        self.namespace = namespace
        self.name = name
        self.api_version = api_version
        self.source = source
        self.priority_class: PriorityClass | None = None
        self.preemption_class: PriorityClass | None = None
        self.groups: dict[str, GroupDraft] = {}  # v1alpha1
        self.templates: dict[str, dict[str, Any]] = {}  # v1alpha2/3: name -> parsed settings
        self.group_names: list[str] = []


def _policy(
    value: Any, source: Source, field: str
) -> tuple[GroupPolicy, int | None, dict[str, Any]]:
    """``basic: {}`` or ``gang: {minCount}`` -> (policy, minCount, gang mapping)."""
    if value is None:
        raise InputError("missing (required): basic or gang", source, field)
    pol = _mapping(value, source, field)
    has_basic = pol.get("basic") is not None
    gang = pol.get("gang")
    if has_basic == (gang is not None):
        raise InputError(
            "exactly one of basic or gang must be set" if has_basic else "missing: basic or gang",
            source,
            field,
        )
    if has_basic:
        _mapping(pol.get("basic"), source, field + ".basic")
        return "Basic", None, {}
    gang = _mapping(gang, source, field + ".gang")
    mc = gang.get("minCount")
    if type(mc) is not int:
        if mc is None:
            raise InputError("missing (required)", source, field + ".gang.minCount")
        raise _type_error(mc, "an integer", source, field + ".gang.minCount")
    if mc < 1:
        raise InputError(f"must be at least 1, got {mc}", source, field + ".gang.minCount")
    return "Gang", mc, gang


_MODES = ("Pod", "PodGroup")


def _settings(
    spec: dict[str, Any],
    api_version: str,
    source: Source,
    field: str,
    classes: ClassBook,
    *,
    policy_required: bool,
    label: str = "",
) -> dict[str, Any]:
    """A v1alpha2/v1alpha3 template's or PodGroup's own settings; absent ones are left out.

    A template (``policy_required``) naming a missing class without a number records
    ``missing_class``: only an error if a PodGroup without its own priority inherits it."""
    out: dict[str, Any] = {"source": source, "field": field}
    pol = spec.get("schedulingPolicy")
    if pol is not None or policy_required:
        out["policy"] = _policy(pol, source, field + "schedulingPolicy")
    dm = spec.get("disruptionMode")
    if api_version in UNION_SHAPES:
        mode = union_mode(dm, api_version, source, field + "disruptionMode")
        pp = _enum(spec.get("preemptionPolicy"), POLICIES, source, field + "preemptionPolicy")
        if pp is not None:
            out["preemption_policy"] = pp
    else:
        mode = _enum(dm, _MODES, source, field + "disruptionMode")
    if mode is not None:
        out["disruption_mode"] = (mode, field + "disruptionMode")
        if mode == "PodGroup" and "policy" in out and out["policy"][0] == "Basic":
            raise _basic_whole(api_version, source, field + "disruptionMode")
    pcn = _opt_str(spec.get("priorityClassName"), source, field + "priorityClassName")
    number = _opt_int(spec.get("priority"), source, field + "priority")
    if number is not None:
        fields.check_int32(number, source, field + "priority")
    if pcn is not None or number is not None:
        pc = None
        if pcn:
            pc = classes.resolve(pcn, number, label, source, field + "priorityClassName",
                                 deferred=policy_required)
            if pc is None and number is None:
                out["missing_class"] = (pcn, source, field + "priorityClassName")
        out["priority"] = (pc, number)
    ppcn = _opt_str(
        spec.get("preemptionPriorityClassName"), source, field + "preemptionPriorityClassName"
    )
    if ppcn is not None:
        out["preemption_class"] = prio.lookup(
            classes, ppcn, source, field + "preemptionPriorityClassName"
        )
    return out


def read_workload(
    obj: dict[str, Any], source: Source, head: Head, classes: ClassBook
) -> WorkloadDraft:
    _, ns, name = head
    api = obj["apiVersion"]
    wl = WorkloadDraft(ns, name, api, source)
    spec = obj.get("spec")
    if spec is None:
        raise InputError("missing (required)", source, "spec")
    spec = _mapping(spec, source, "spec")
    pcn = _opt_str(spec.get("priorityClassName"), source, "spec.priorityClassName")
    if pcn is not None:
        wl.priority_class = prio.lookup(classes, pcn, source, "spec.priorityClassName")
    ppcn = _opt_str(
        spec.get("preemptionPriorityClassName"), source, "spec.preemptionPriorityClassName"
    )
    if ppcn is not None:
        wl.preemption_class = prio.lookup(classes, ppcn, source, "spec.preemptionPriorityClassName")
    if api == V1ALPHA1:
        _workload_v1alpha1(wl, spec, source)
        return wl
    if spec.get("compositePodGroupTemplates"):
        raise InputError(
            "CompositePodGroup templates are not supported by wapctl yet",
            source,
            "spec.compositePodGroupTemplates",
        )
    if "podGroups" in spec:
        raise InputError(
            f"{api} Workloads list podGroupTemplates (podGroups is the v1alpha1 shape)",
            source,
            "spec.podGroups",
        )
    raw = spec.get("podGroupTemplates")
    if raw is None:
        raise InputError("missing (required)", source, "spec.podGroupTemplates")
    for i, t in enumerate(_list(raw, source, "spec.podGroupTemplates")):
        f = f"spec.podGroupTemplates[{i}]"
        if type(t) is not dict:
            raise _type_error(t, "a mapping", source, f)
        tname = _req_str(t.get("name"), source, f + ".name")
        if tname in wl.templates:
            raise InputError(f"duplicate template name {tname!r}", source, f + ".name")
        wl.templates[tname] = _settings(t, api, source, f + ".", classes, policy_required=True,
                                        label=f"Workload {ns}/{name}")
    return wl


def _workload_v1alpha1(wl: WorkloadDraft, spec: dict[str, Any], source: Source) -> None:
    if "podGroupTemplates" in spec:
        raise InputError(
            f"{V1ALPHA1} Workloads list podGroups (podGroupTemplates is the v1alpha2+ shape)",
            source,
            "spec.podGroupTemplates",
        )
    raw = spec.get("podGroups")
    if raw is None:
        raise InputError("missing (required)", source, "spec.podGroups")
    for i, g in enumerate(_list(raw, source, "spec.podGroups")):
        f = f"spec.podGroups[{i}]"
        if type(g) is not dict:
            raise _type_error(g, "a mapping", source, f)
        gname = _req_str(g.get("name"), source, f + ".name")
        if gname in wl.groups:
            raise InputError(f"duplicate pod group name {gname!r}", source, f + ".name")
        policy, min_count, gang = _policy(g.get("policy"), source, f + ".policy")
        modes = []
        for key, path in (
            ("disruptionMode", f + ".disruptionMode"),
            ("preemptionMode", f + ".preemptionMode"),
        ):
            m = _enum(g.get(key), _MODES, source, path)
            if m is not None:
                modes.append((m, path))
        m = _enum(gang.get("disruptionMode"), _MODES, source, f + ".policy.gang.disruptionMode")
        if m is not None:
            modes.append((m, f + ".policy.gang.disruptionMode"))
        if len({m for m, _ in modes}) > 1:
            raise InputError(
                "disruption mode given twice with different values "
                f"({', '.join(f'{p}={m}' for m, p in modes)})",
                source,
                modes[1][1],
            )
        group = GroupDraft(wl.namespace, wl.name, gname, V1ALPHA1, source)
        group.policy, group.min_count = policy, min_count
        if modes:
            group.disruption_mode = cast(DisruptionMode, modes[0][0])  # one of _MODES
            _check_mode(group, source, modes[0][1])
        wl.groups[gname] = group
        wl.group_names.append(gname)


def _check_mode(group: GroupDraft, source: Source, field: str) -> None:
    if group.disruption_mode == "PodGroup" and group.policy == "Basic":
        raise _basic_whole(group.api_version, source, field)


def _basic_whole(api_version: str, source: Source, field: str) -> InputError:
    shown = "all" if api_version in UNION_SHAPES else "PodGroup"
    return InputError(
        f"disruption mode {shown} needs a gang policy: a basic group has no whole to "
        "preempt together (upstream forbids it)",
        source,
        field,
    )


def _template_ref(spec: dict[str, Any], api: str, source: Source) -> tuple[str, str, str, str]:
    """(workload name, template name, and their field paths) of a PodGroup."""
    if api in UNION_SHAPES:
        base = "spec.workloadRef"
        ref = spec.get("workloadRef")
        wkey, tkey = "workloadName", "templateName"
    else:
        base = "spec.podGroupTemplateRef"
        ref = spec.get("podGroupTemplateRef")
        wkey, tkey = "workloadName", "podGroupTemplateName"
        if type(ref) is dict and ref.get("workload") is not None:
            base += ".workload"
            ref = ref["workload"]
    if ref is None:
        raise InputError(
            "missing: a PodGroup without a Workload template reference is not supported by "
            "wapctl yet",
            source,
            base,
        )
    ref = _mapping(ref, source, base)
    return (
        _req_str(ref.get(wkey), source, f"{base}.{wkey}"),
        _req_str(ref.get(tkey), source, f"{base}.{tkey}"),
        f"{base}.{wkey}",
        f"{base}.{tkey}",
    )


def read_pod_group(
    obj: dict[str, Any],
    source: Source,
    head: Head,
    classes: ClassBook,
    workloads: dict[str, WorkloadDraft],
    default: PriorityClass | None,
    warnings: list[LoadWarning],
) -> GroupDraft:
    _, ns, name = head
    api = obj["apiVersion"]
    spec = obj.get("spec")
    if spec is None:
        raise InputError("missing (required)", source, "spec")
    spec = _mapping(spec, source, "spec")
    wname, tname, wfield, tfield = _template_ref(spec, api, source)
    own = _settings(spec, api, source, "spec.", classes, policy_required=False,
                    label=f"PodGroup {ns}/{name}")
    wl = workloads.get(f"{ns}/{wname}")
    if wl is None:
        # An export of PodGroups without their Workloads: a PodGroup as the API server admitted
        # it carries its own policy and priority, so the Workload is not needed to plan.
        if "policy" not in own:
            raise InputError(
                f"Workload {ns}/{wname} does not exist in the snapshot and the PodGroup has no "
                "schedulingPolicy of its own: add the Workload to the snapshot",
                source,
                wfield,
            )
        warnings.append(LoadWarning(
            "MissingWorkload", f"PodGroup {ns}/{name}", wfield,
            f"Workload {ns}/{wname} is not in the snapshot; the PodGroup's own settings are used",
            source,
        ))
        wl = WorkloadDraft(ns, wname, api, source)
        wl.templates[tname] = {}
    if wl.api_version == V1ALPHA1:
        raise InputError(
            f"Workload {ns}/{wname} is {V1ALPHA1}, which has no podGroupTemplates to refer to",
            source,
            wfield,
        )
    template = wl.templates.get(tname)
    if template is None:
        raise InputError(
            f"Workload {ns}/{wname} has no podGroupTemplate {tname!r}"
            f" (it has: {', '.join(sorted(wl.templates)) or 'none'})",
            source,
            tfield,
        )
    group = GroupDraft(ns, wname, name, api, source)

    def pick(key: str) -> Any:
        return own[key] if key in own else template.get(key)

    group.policy, group.min_count, _ = pick("policy")
    mode = pick("disruption_mode")
    if mode is not None:
        group.disruption_mode = mode[0]
        if "disruption_mode" in own or "policy" not in own:
            where, field = (own if "disruption_mode" in own else template)["source"], mode[1]
        else:  # the PodGroup's own policy contradicts the mode it inherits
            where, field = source, "spec.schedulingPolicy"
        _check_mode(group, where, field)
    pc, number = pick("priority") or (None, None)
    if "priority" not in own and "missing_class" in template:
        raise missing_class(*template["missing_class"]).about(f"Workload {ns}/{wname}")
    if pc is None and number is None and wl.priority_class is not None:
        pc = wl.priority_class
    group.priority = prio.resolve_group(
        priority_class=pc,
        priority=number,
        preemption_class=pick("preemption_class") or wl.preemption_class,
        preemption_policy=pick("preemption_policy"),
        default=default,
        use_default=True,
    )
    if f"{ns}/{wname}" in workloads:
        wl.group_names.append(name)
    return group
