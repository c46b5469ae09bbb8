"""Every input error of the loader as the one exact line a user sees, YAML and JSON alike.

One row per ``raise`` site of the ingest package (``wapctl/ingest/``: the readers, the
builders, ``constraints.py``, ``fields.py``) that input can reach: a minimal object with one
field made bad, and the whole ``str()`` of the ``InputError`` (``Kind ns/name (file:line,
document N[, item I], field F): reason``), compared with ``==``. Each row is read twice: as
``snap.yaml`` and as the same object in ``snap.json`` (the JSON fast path,
``ingest/json_reader.py``, which hands over to the safe path on a shape problem); the line is
the same in both except where given apart (a List's items start on other lines in indented
JSON than in YAML). Several objects are written as one ``List``.

Rows of raw text (``RAW``) and the last tests cover the reading sites: files, sizes,
encodings, syntax, duplicate keys, depth and alias limits. The CLI prints each object row's
line alone on stderr (``error: ...``) and exits 2 (a sample of the rows).

Raise sites not covered, and why:

- limits.py ``parse_size`` (2 sites): a command-line option (UsageError), not input; tested in
  tests/test_load.py.
- hints.py ``yaml_error``'s error without a place (``mark is None``): every MarkedYAMLError
  PyYAML 6 raises while reading carries one (CParser's scanner and parser errors always have
  libyaml's problem and its mark; the composer's and SafeConstructor's pass the event's or
  node's mark).
- sources.py / decode.py bare ``raise`` re-raising an InputError in ``_read_file`` /
  ``_parse_yaml``: not a site of its own.
- classify.py ``classify`` "an object must be a mapping": ``decode.flatten`` only hands on
  mappings.
- rebuild.py ``sort_again`` / assemble.py ``_pods`` ``Fallback`` (3 sites): internal, caught
  by ``_build``.
- classify.py ``about`` / assemble.py ``_pods`` / ``_templates`` re-raising with the object
  named: wrappers, reached by every Workload/PriorityClass/PodGroup/PDB, Node, Pod and
  controller row.
- constraints.py ``host_ports`` container not a mapping: ``pod_requests`` refuses such a
  container first (``container_requests``, row "container not a mapping").
"""

from __future__ import annotations

import copy
import io
import json
import socket
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import InputError
from wapctl.ingest import limits, sources, utf8

V1A1 = "scheduling.k8s.io/v1alpha1"
V1A2 = "scheduling.k8s.io/v1alpha2"
V1A3 = "scheduling.k8s.io/v1alpha3"
AFF = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
PAF = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
CLASS_GOLD = (
    "PriorityClass 'gold' does not exist in the snapshot and no priority number stands in for "
    "it: add it to the snapshot (kubectl get priorityclass gold -o yaml)"
)
BASIC_WHOLE = (
    "needs a gang policy: a basic group has no whole to preempt together (upstream forbids it)"
)

# ---- minimal objects -----------------------------------------------------------------------


def pod(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "d"},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                 **spec},
    }


def node(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n"},
        "spec": spec,
        "status": {"allocatable": {"cpu": "4"}},
    }


def pclass(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "c"}, "value": 10, **fields}


def pdb(*exprs: Any) -> dict[str, Any]:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "b", "namespace": "d"},
            "spec": {"selector": {"matchExpressions": list(exprs)}}}


def wl1(*groups: Any, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": V1A1, "kind": "Workload", "metadata": {"name": "w", "namespace": "d"},
            "spec": {"podGroups": list(groups), **spec}}


def wl2(*templates: Any, api: str = V1A2, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": api, "kind": "Workload", "metadata": {"name": "w", "namespace": "d"},
            "spec": {"podGroupTemplates": list(templates), **spec}}


def gang(name: str = "g", min_count: Any = 2, **extra: Any) -> dict[str, Any]:
    return {"name": name, "policy": {"gang": {"minCount": min_count}}, **extra}


def basic(name: str = "g", **extra: Any) -> dict[str, Any]:
    return {"name": name, "policy": {"basic": {}}, **extra}


def tmpl(name: str = "t", **extra: Any) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": {"gang": {"minCount": 2}}, **extra}


def pg(tname: str = "t", **spec: Any) -> dict[str, Any]:
    ref = {"podGroupTemplateRef": {"workload": {"workloadName": "w",
                                                "podGroupTemplateName": tname}}}
    return {"apiVersion": V1A2, "kind": "PodGroup", "metadata": {"name": "pg", "namespace": "d"},
            "spec": {**ref, **spec}}


def put(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``obj`` with the field at dotted ``path`` (list indices as numbers) set."""
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    target: Any = out
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return out


def drop(obj: dict[str, Any], path: str) -> dict[str, Any]:
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    target: Any = out
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    del target[last]
    return out


def term(**t: Any) -> dict[str, Any]:
    """A pod with one required node affinity term."""
    return pod(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [t]}}})


def pod_term(**t: Any) -> dict[str, Any]:
    """A pod with one required pod affinity term."""
    return pod(affinity={"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "z", **t}]}})


def spread(**c: Any) -> dict[str, Any]:
    return pod(topologySpreadConstraints=[c])


def tol(*t: Any) -> dict[str, Any]:
    return pod(tolerations=list(t))


def taint(**t: Any) -> dict[str, Any]:
    return node(taints=[t])


def ports(*p: Any) -> dict[str, Any]:
    return pod(containers=[{"name": "c", "ports": list(p)}])


def res(**r: Any) -> dict[str, Any]:
    return pod(containers=[{"name": "c", "resources": r}])


def running(**status: Any) -> dict[str, Any]:
    """A pod bound to node n (spec cpu 1 in container c) with ``status``."""
    return {**pod(nodeName="n"), "status": {"phase": "Running", **status}}


def terminating(status: Any) -> dict[str, Any]:
    out = pod(nodeName="n")
    out["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    out["status"] = {"phase": "Running", "conditions": [
        {"type": "DisruptionTarget", "status": status, "reason": "PreemptionByScheduler"}]}
    return out


def listed(*items: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


class Row(NamedTuple):
    id: str
    doc: Any  # the one document of the file (several objects: a List)
    yaml: str  # the whole line, reading snap.yaml
    json: str | None = None  # reading snap.json, when not the same with the file renamed


P = "Pod d/p (snap.yaml:1, document 1, field "
N = "Node n (snap.yaml:1, document 1, field "
W = "Workload d/w (snap.yaml:1, document 1, field "
G = "PodGroup d/pg (snap.yaml:1, document 1, field "
B = "PodDisruptionBudget d/b (snap.yaml:1, document 1, field "
C = "PriorityClass c (snap.yaml:1, document 1, field "
ONE = "snap.yaml:1, document 1, field "
# a List's item 0 starts on line 4 of its YAML (apiVersion, kind, items:) and line 5 of its
# indented JSON ({, apiVersion, kind, items: [)
I0 = "(snap.yaml:4, document 1, item 0, field "
J0 = "(snap.json:5, document 1, item 0, field "


def two(label: str, field: str, reason: str) -> tuple[str, str]:
    """The YAML and JSON lines of an error about item 0 of a List."""
    return f"{label} {I0}{field}): {reason}", f"{label} {J0}{field}): {reason}"


ROWS: list[Row] = [
    # ---- fields.py ---------------------------------------------------------------------------
    Row("mapping: pod spec a number", put(pod(), "spec", 5),
        P + "spec): must be a mapping, not a number"),
    Row("list_field: taints a string", node(taints="x"),
        N + "spec.taints): must be a list, not a string"),
    Row("opt_str: taint value a number", taint(key="k", value=5, effect="NoSchedule"),
        N + "spec.taints[0].value): must be a string, not a number"),
    Row("req_str: taint key missing", taint(effect="NoSchedule"),
        N + "spec.taints[0].key): missing (required)"),
    Row("req_str: taint key a number", taint(key=5, effect="NoSchedule"),
        N + "spec.taints[0].key): must be a string, not a number"),
    Row("opt_int: PDB disruptionsAllowed a float",
        put(pdb(), "status", {"disruptionsAllowed": 1.5}),
        B + "status.disruptionsAllowed): must be an integer, not a decimal number"),
    Row("opt_bool: unschedulable a string", node(unschedulable="yes"),
        N + "spec.unschedulable): must be true or false, not a string"),
    Row("enum: taint effect unknown", taint(key="k", effect="Sometimes"),
        N + "spec.taints[0].effect): unknown value 'Sometimes' "
        "(expected one of: NoSchedule, PreferNoSchedule, NoExecute)"),
    Row("str_map: labels an empty list", put(node(), "metadata.labels", []),
        N + "metadata.labels): must be a mapping, not a list"),
    Row("str_map: labels a string", put(node(), "metadata.labels", "a=b"),
        N + "metadata.labels): must be a mapping, not a string"),
    Row("str_map: label value a boolean", put(node(), "metadata.labels", {"gpu": True}),
        N + "metadata.labels.gpu): must map strings to strings, but has a boolean True "
        "(quote it)"),
    Row("requirement: PDB expression a string", pdb("x"),
        B + "spec.selector.matchExpressions[0]): must be a mapping, not a string"),
    Row("requirement: PDB operator missing", pdb({"key": "a"}),
        B + "spec.selector.matchExpressions[0].operator): missing (required)"),
    Row("requirement: PDB value a number", pdb({"key": "a", "operator": "In", "values": [1]}),
        B + "spec.selector.matchExpressions[0].values[0]): must be a string (quote it), "
        "not a number"),
    Row("requirement: values a string", pdb({"key": "a", "operator": "In", "values": "x"}),
        B + "spec.selector.matchExpressions[0].values): must be a list, not a string"),
    Row("requirement: In without values", pdb({"key": "a", "operator": "In"}),
        B + "spec.selector.matchExpressions[0].values): operator In needs at least one value"),
    # kubernetes' selector validation: NotIn, like In, needs a non-empty values list
    Row("requirement: NotIn without values", pdb({"key": "app", "operator": "NotIn"}),
        B + "spec.selector.matchExpressions[0].values): operator NotIn needs at least one value"),
    Row("requirement: Exists with values",
        pdb({"key": "a", "operator": "Exists", "values": ["x"]}),
        B + "spec.selector.matchExpressions[0].values): operator Exists takes no values"),
    Row("requirement: Gt not an integer",
        term(matchExpressions=[{"key": "k", "operator": "Gt", "values": ["x"]}]),
        P + AFF + ".nodeSelectorTerms[0].matchExpressions[0].values): "
        "operator Gt needs exactly one integer value"),
    # ---- constraints.py ----------------------------------------------------------------------
    Row("pod affinity namespace a number", pod_term(namespaces=[1]),
        P + PAF + "[0].namespaces[0]): must be a string, not a number"),
    Row("pod affinity key in both lists", pod_term(matchLabelKeys=["a"], mismatchLabelKeys=["a"]),
        P + PAF + "[0].mismatchLabelKeys): key 'a' is in both matchLabelKeys and "
        "mismatchLabelKeys"),
    Row("spread constraint a string", pod(topologySpreadConstraints=["x"]),
        P + "spec.topologySpreadConstraints[0]): must be a mapping, not a string"),
    Row("spread whenUnsatisfiable missing", spread(maxSkew=1, topologyKey="z"),
        P + "spec.topologySpreadConstraints[0].whenUnsatisfiable): missing (required)"),
    Row("spread maxSkew 0", spread(maxSkew=0, topologyKey="z", whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].maxSkew): must be an integer greater than 0"),
    Row("spread minDomains 0", spread(maxSkew=1, topologyKey="z", minDomains=0,
                                      whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].minDomains): must be greater than 0"),
    Row("spread minDomains with ScheduleAnyway",
        spread(maxSkew=1, topologyKey="z", minDomains=2, whenUnsatisfiable="ScheduleAnyway"),
        P + "spec.topologySpreadConstraints[0].minDomains): may only be set with "
        "whenUnsatisfiable DoNotSchedule"),
    Row("port a string", ports("x"),
        P + "spec.containers[0].ports[0]): must be a mapping, not a string"),
    Row("hostPort out of range", ports({"hostPort": 70000}),
        P + "spec.containers[0].ports[0].hostPort): must be between 1 and 65535"),
    # ---- classify.py: documents and kinds ----------------------------------------------------
    Row("document a list", ["a"],
        "snap.yaml, document 1: a document must be a mapping (a Kubernetes object or List), "
        "not a list"),
    Row("List items a string", {"apiVersion": "v1", "kind": "List", "items": "x"},
        ONE + "items: must be a list, not a string"),
    Row("List item a number", listed(5),
        "snap.yaml:4, document 1, item 0: a List item must be a mapping (a Kubernetes "
        "object), not a number",
        "snap.json:5, document 1, item 0: a List item must be a mapping (a Kubernetes "
        "object), not a number"),
    Row("kind missing", drop(node(), "kind"), ONE + "kind: missing (required)"),
    Row("kind a number", put(node(), "kind", 5), ONE + "kind: must be a string, not a number"),
    # a kind or apiVersion wapctl cannot read: the object named when it says its name
    Row("Workload without apiVersion", drop(wl1(gang()), "apiVersion"),
        W + "apiVersion): missing: needed to tell the Workload API shape "
        "(scheduling.k8s.io/v1alpha1, scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha3, "
        "scheduling.k8s.io/v1beta1)"),
    Row("apiVersion a number", put(node(), "apiVersion", 1),
        N + "apiVersion): must be a string, not a number"),
    # a list or mapping cannot be looked up among the (kind, apiVersion) pairs already read: the
    # same error as a number, not a TypeError
    Row("apiVersion a list", put(node(), "apiVersion", ["v1"]),
        N + "apiVersion): must be a string, not a list"),
    Row("apiVersion a mapping", put(pod(), "apiVersion", {"group": ""}),
        P + "apiVersion): must be a string, not a mapping"),
    Row("Workload version unsupported", put(wl1(gang()), "apiVersion", "scheduling.k8s.io/v9"),
        W + "apiVersion): unsupported Workload version 'scheduling.k8s.io/v9' (supported: "
        "scheduling.k8s.io/v1alpha1, scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha3, "
        "scheduling.k8s.io/v1beta1)"),
    Row("PodGroup version unsupported", put(pg(), "apiVersion", V1A1),
        G + "apiVersion): unsupported PodGroup version 'scheduling.k8s.io/v1alpha1' "
        "(supported: scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha3, "
        "scheduling.k8s.io/v1beta1)"),
    Row("kind unsupported, no name", drop(put(wl1(gang()), "apiVersion", "scheduling.k8s.io/v9"),
                                          "metadata.name"),
        ONE + "apiVersion: unsupported Workload version 'scheduling.k8s.io/v9' (supported: "
        "scheduling.k8s.io/v1alpha1, scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha3, "
        "scheduling.k8s.io/v1beta1)"),
    # a name or namespace of the wrong shape: the object is named by what it does say
    Row("metadata missing", drop(node(), "metadata"),
        "Node (snap.yaml:1, document 1, field metadata.name): missing (required)"),
    Row("metadata a number", put(node(), "metadata", 5),
        "Node (snap.yaml:1, document 1, field metadata): must be a mapping, not a number"),
    # the fast JSON reader refuses an item of this shape and hands the List to the safe one
    # (json), whose items' lines are found as the fast reader's are
    Row("List item's metadata a number", listed(put(node(), "metadata", 5)),
        "Node (snap.yaml:4, document 1, item 0, field metadata): must be a mapping, not a "
        "number",
        "Node (snap.json:5, document 1, item 0, field metadata): must be a mapping, not a "
        "number"),
    Row("name empty", put(node(), "metadata.name", ""),
        "Node (snap.yaml:1, document 1, field metadata.name): missing (required)"),
    Row("name a number", put(node(), "metadata.name", 5),
        "Node (snap.yaml:1, document 1, field metadata.name): must be a string, not a number"),
    # not "Pod default/p": its namespace is not default, it is the number 5
    Row("namespace a number", put(pod(), "metadata.namespace", 5),
        "Pod p (snap.yaml:1, document 1, field metadata.namespace): must be a string, not a "
        "number"),
    Row("duplicate Node", listed({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}},
                                 {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}),
        "snap.yaml:8, document 1, item 1, field metadata.name: duplicate Node n "
        "(first defined at snap.yaml, document 1, item 0, line 4)",
        "snap.json:12, document 1, item 1, field metadata.name: duplicate Node n "
        "(first defined at snap.json, document 1, item 0, line 5)"),
    # ---- node.py -----------------------------------------------------------------------------
    Row("allocatable unparsable", put(node(), "status.allocatable.cpu", "lots"),
        N + "status.allocatable.cpu): no digits in 'lots'"),
    Row("allocatable negative", put(node(), "status.allocatable.cpu", "-1"),
        N + "status.allocatable.cpu): negative quantity '-1'"),
    Row("taint a string", node(taints=["x"]),
        N + "spec.taints[0]): must be a mapping, not a string"),
    Row("taint effect missing", taint(key="k"),
        N + "spec.taints[0].effect): missing (required)"),
    # ---- priority_class.py -------------------------------------------------------------------
    Row("class value missing", drop(pclass(), "value"), C + "value): missing (required)"),
    Row("class value a string", pclass(value="1"), C + "value): must be an integer, not a string"),
    Row("class value out of int32", pclass(value=2**31),
        C + "value): 2147483648 is out of range: a priority is a 32-bit integer "
        "(-2147483648 to 2147483647)"),
    # ---- workload.py: Workload ---------------------------------------------------------------
    Row("Workload spec missing", drop(wl1(), "spec"), W + "spec): missing (required)"),
    Row("v1alpha1 podGroups missing", put(wl1(), "spec", {}),
        W + "spec.podGroups): missing (required)"),
    Row("v1alpha1 with podGroupTemplates", wl1(gang(), podGroupTemplates=[]),
        W + "spec.podGroupTemplates): scheduling.k8s.io/v1alpha1 Workloads list podGroups "
        "(podGroupTemplates is the v1alpha2+ shape)"),
    Row("v1alpha1 group a string", wl1("g"),
        W + "spec.podGroups[0]): must be a mapping, not a string"),
    Row("v1alpha1 duplicate group", wl1(gang(), gang()),
        W + "spec.podGroups[1].name): duplicate pod group name 'g'"),
    Row("policy missing", wl1({"name": "g"}),
        W + "spec.podGroups[0].policy): missing (required): basic or gang"),
    Row("policy both", wl1({"name": "g", "policy": {"basic": {}, "gang": {"minCount": 1}}}),
        W + "spec.podGroups[0].policy): exactly one of basic or gang must be set"),
    Row("policy neither", wl1({"name": "g", "policy": {}}),
        W + "spec.podGroups[0].policy): missing: basic or gang"),
    Row("minCount missing", wl1({"name": "g", "policy": {"gang": {}}}),
        W + "spec.podGroups[0].policy.gang.minCount): missing (required)"),
    Row("minCount a string", wl1(gang(min_count="two")),
        W + "spec.podGroups[0].policy.gang.minCount): must be an integer, not a string"),
    Row("minCount 0", wl1(gang(min_count=0)),
        W + "spec.podGroups[0].policy.gang.minCount): must be at least 1, got 0"),
    Row("modes differ", wl1(gang(disruptionMode="Pod", preemptionMode="PodGroup")),
        W + "spec.podGroups[0].preemptionMode): disruption mode given twice with different "
        "values (spec.podGroups[0].disruptionMode=Pod, spec.podGroups[0].preemptionMode=PodGroup)"),
    Row("v1alpha1 basic with PodGroup mode", wl1(basic(disruptionMode="PodGroup")),
        W + "spec.podGroups[0].disruptionMode): disruption mode PodGroup " + BASIC_WHOLE),
    Row("composite templates", wl2(api=V1A3, compositePodGroupTemplates=[{"name": "c"}]),
        W + "spec.compositePodGroupTemplates): CompositePodGroup templates are not supported "
        "by wapctl yet"),
    Row("v1alpha2 with podGroups", put(wl1(gang()), "apiVersion", V1A2),
        W + "spec.podGroups): scheduling.k8s.io/v1alpha2 Workloads list podGroupTemplates "
        "(podGroups is the v1alpha1 shape)"),
    Row("v1alpha2 templates missing", put(wl2(), "spec", {}),
        W + "spec.podGroupTemplates): missing (required)"),
    Row("template a string", wl2("t"),
        W + "spec.podGroupTemplates[0]): must be a mapping, not a string"),
    Row("duplicate template", wl2(tmpl(), tmpl()),
        W + "spec.podGroupTemplates[1].name): duplicate template name 't'"),
    Row("v1alpha2 basic template with PodGroup mode",
        wl2({"name": "t", "schedulingPolicy": {"basic": {}}, "disruptionMode": "PodGroup"}),
        W + "spec.podGroupTemplates[0].disruptionMode): disruption mode PodGroup " + BASIC_WHOLE),
    # ---- workload.py: PodGroup ---------------------------------------------------------------
    Row("PodGroup spec missing", drop(pg(), "spec"), G + "spec): missing (required)"),
    Row("PodGroup without template ref", put(pg(), "spec", {"schedulingPolicy": {"basic": {}}}),
        G + "spec.podGroupTemplateRef): missing: a PodGroup without a Workload template "
        "reference is not supported by wapctl yet"),
    Row("PodGroup Workload missing", pg(),
        G + "spec.podGroupTemplateRef.workload.workloadName): Workload d/w does not exist in "
        "the snapshot and the PodGroup has no schedulingPolicy of its own: add the Workload to "
        "the snapshot"),
    Row("PodGroup of a v1alpha1 Workload", listed(pg(), wl1(gang())),
        *two("PodGroup d/pg", "spec.podGroupTemplateRef.workload.workloadName",
             "Workload d/w is scheduling.k8s.io/v1alpha1, which has no podGroupTemplates to "
             "refer to")),
    Row("PodGroup template missing", listed(pg("nope"), wl2(tmpl())),
        *two("PodGroup d/pg", "spec.podGroupTemplateRef.workload.podGroupTemplateName",
             "Workload d/w has no podGroupTemplate 'nope' (it has: t)")),
    # the names it has sorted and joined by ", " (listed out of order), or "none"
    Row("PodGroup template missing among several",
        listed(pg("nope"), wl2(tmpl("b"), tmpl("a"))),
        *two("PodGroup d/pg", "spec.podGroupTemplateRef.workload.podGroupTemplateName",
             "Workload d/w has no podGroupTemplate 'nope' (it has: a, b)")),
    Row("PodGroup template missing from a Workload without templates",
        listed(pg("nope"), wl2()),
        *two("PodGroup d/pg", "spec.podGroupTemplateRef.workload.podGroupTemplateName",
             "Workload d/w has no podGroupTemplate 'nope' (it has: none)")),
    # the class is the Workload's template's: the line names the Workload, whose line and field
    # it gives (it named the PodGroup inheriting it, with the Workload's line and field)
    Row("PodGroup inherits a missing class",
        listed(pg(), wl2(tmpl(priorityClassName="gold"))),
        "Workload d/w (snap.yaml:14, document 1, item 1, field "
        "spec.podGroupTemplates[0].priorityClassName): " + CLASS_GOLD,
        "Workload d/w (snap.json:21, document 1, item 1, field "
        "spec.podGroupTemplates[0].priorityClassName): " + CLASS_GOLD),
    # assemble.py _groups: a pod group's key is namespace/workload/group, and names are not
    # checked for a "/": v1alpha1 Workload d/w's group "a/b" and PodGroup d/b of (missing)
    # Workload "w/a" are both d/w/a/b. The line is the PodGroup's, item 1 of the List: line 15
    # of the YAML (items at 4; the Workload takes 11 lines: apiVersion, kind, metadata, name,
    # namespace, spec, podGroups, - name, policy, gang, minCount), line 25 of the JSON (item 1's
    # "{" after item 0's 20 lines from line 5).
    Row("pod group key twice through a slash in a name",
        listed(wl1(gang("a/b")),
               put(put(pg(schedulingPolicy={"gang": {"minCount": 2}}), "metadata.name", "b"),
                   "spec.podGroupTemplateRef.workload.workloadName", "w/a")),
        "snap.yaml:15, document 1, item 1, field metadata.name: pod group d/w/a/b defined twice",
        "snap.json:25, document 1, item 1, field metadata.name: pod group d/w/a/b defined twice"),
    # ---- pod.py and resolve.py: Pod ----------------------------------------------------------
    Row("containers a mapping", pod(containers={"name": "c"}),
        P + "spec.containers): must be a list, not a mapping"),
    Row("container a string", pod(containers=["c"]),
        P + "spec.containers[0]): must be a mapping, not a string"),
    Row("resources an empty list", pod(containers=[{"name": "c", "resources": []}]),
        P + "spec.containers[0].resources): must be a mapping, not a list"),
    Row("resources a string", pod(containers=[{"name": "c", "resources": "x"}]),
        P + "spec.containers[0].resources): must be a mapping, not a string"),
    Row("requests a string", res(requests="x"),
        P + "spec.containers[0].resources.requests): must be a mapping, not a string"),
    Row("requests an empty list", res(requests=[]),
        P + "spec.containers[0].resources.requests): must be a mapping, not a list"),
    Row("limits a string", res(limits="x"),
        P + "spec.containers[0].resources.limits): must be a mapping, not a string"),
    Row("limits an empty list", res(limits=[]),
        P + "spec.containers[0].resources.limits): must be a mapping, not a list"),
    Row("request unparsable", res(requests={"memory": "1 Gi"}),
        P + "spec.containers[0].resources.requests.memory): expected a number with an optional "
        "suffix, e.g. 100m, 1.5, 2Gi in '1 Gi'"),
    Row("limit negative", res(limits={"cpu": "-1"}),
        P + "spec.containers[0].resources.limits.cpu): negative quantity '-1'"),
    # ---- resize.py: container statuses (in-place resize) --------------------------------------
    Row("containerStatuses a mapping", running(containerStatuses={"name": "c"}),
        P + "status.containerStatuses): must be a list, not a mapping"),
    Row("initContainerStatuses a string", running(initContainerStatuses="c"),
        P + "status.initContainerStatuses): must be a list, not a string"),
    Row("container status a string", running(containerStatuses=["c"]),
        P + "status.containerStatuses[0]): must be a mapping, not a string"),
    Row("container status name a number", running(containerStatuses=[{"name": 1}]),
        P + "status.containerStatuses[0].name): must be a string, not a number"),
    Row("container status resources a list",
        running(containerStatuses=[{"name": "c", "resources": []}]),
        P + "status.containerStatuses[0].resources): must be a mapping, not a list"),
    Row("container status requests a string",
        running(containerStatuses=[{"name": "c", "resources": {"requests": "1"}}]),
        P + "status.containerStatuses[0].resources.requests): must be a mapping, not a string"),
    Row("allocatedResources a string",
        running(containerStatuses=[{"name": "c", "resources": {}, "allocatedResources": "2"}]),
        P + "status.containerStatuses[0].allocatedResources): must be a mapping, not a string"),
    Row("status request unparsable",
        running(containerStatuses=[{"name": "c", "resources": {"requests": {"cpu": "1 c"}}}]),
        P + "status.containerStatuses[0].resources.requests.cpu): expected a number with an "
        "optional suffix, e.g. 100m, 1.5, 2Gi in '1 c'"),
    Row("allocated amount negative",
        running(containerStatuses=[{"name": "c", "resources": {},
                                    "allocatedResources": {"memory": "-1"}}]),
        P + "status.containerStatuses[0].allocatedResources.memory): negative quantity '-1'"),
    Row("PodResizePending reason a number",
        running(containerStatuses=[{"name": "c", "resources": {}}],
                conditions=[{"type": "PodResizePending", "status": "True", "reason": 1}]),
        P + "status.conditions[0].reason): must be a string, not a number"),
    Row("initContainers a string", pod(initContainers="x"),
        P + "spec.initContainers): must be a list, not a string"),
    Row("initContainers an empty mapping", pod(initContainers={}),
        P + "spec.initContainers): must be a list, not a mapping"),
    Row("overhead a string", pod(overhead="x"),
        P + "spec.overhead): must be a mapping, not a string"),
    Row("tolerations a number", pod(tolerations=5),
        P + "spec.tolerations): must be a list, not a number"),
    Row("toleration a string", tol("x"),
        P + "spec.tolerations[0]): must be a mapping, not a string"),
    Row("toleration empty key with Equal", tol({"operator": "Equal"}),
        P + "spec.tolerations[0].operator): an empty key needs operator Exists"),
    Row("toleration value a number", tol({"key": "k", "value": 5}),
        P + "spec.tolerations[0].value): must be a string (quote it), not a number"),
    Row("toleration Exists with a value", tol({"key": "k", "operator": "Exists", "value": "v"}),
        P + "spec.tolerations[0].value): must be empty when operator is Exists"),
    Row("matchFields key not metadata.name",
        term(matchFields=[{"key": "x", "operator": "In", "values": ["a"]}]),
        P + AFF + ".nodeSelectorTerms[0].matchFields[0].key): only metadata.name can be "
        "matched, not 'x'"),
    Row("matchFields two values",
        term(matchFields=[{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]),
        P + AFF + ".nodeSelectorTerms[0].matchFields[0].values): operator In takes exactly "
        "one value in matchFields"),
    Row("pod class missing", pod(priorityClassName="gold"),
        P + "spec.priorityClassName): " + CLASS_GOLD),
    Row("pod both group references",
        pod(workloadRef={"name": "w", "podGroup": "g"}, schedulingGroup={"podGroupName": "pg"}),
        P + "spec.schedulingGroup): set spec.workloadRef (v1alpha1) or spec.schedulingGroup "
        "(v1alpha2+), not both"),
    Row("pod workloadRef to a v1alpha2 Workload",
        listed(pod(workloadRef={"name": "w", "podGroup": "t"}), wl2(tmpl())),
        *two("Pod d/p", "spec.workloadRef", "Workload d/w is scheduling.k8s.io/v1alpha2: its "
             "pods join a PodGroup through spec.schedulingGroup.podGroupName")),
    Row("pod to a missing v1alpha1 group",
        listed(pod(workloadRef={"name": "w", "podGroup": "x"}), wl1(gang())),
        *two("Pod d/p", "spec.workloadRef.podGroup",
             "Workload d/w has no pod group 'x' (it has: g)")),
    Row("pod to a missing v1alpha1 group among several",
        listed(pod(workloadRef={"name": "w", "podGroup": "x"}), wl1(gang("b"), basic("a"))),
        *two("Pod d/p", "spec.workloadRef.podGroup",
             "Workload d/w has no pod group 'x' (it has: a, b)")),
    Row("pod to a group of a Workload without groups",
        listed(pod(workloadRef={"name": "w", "podGroup": "x"}), wl1()),
        *two("Pod d/p", "spec.workloadRef.podGroup",
             "Workload d/w has no pod group 'x' (it has: none)")),
    Row("pod priority a string", pod(priority="high"),
        P + "spec.priority): must be an integer, not a string"),
    Row("pod priority out of int32", pod(priority=-(2**31) - 1),
        P + "spec.priority): -2147483649 is out of range: a priority is a 32-bit integer "
        "(-2147483648 to 2147483647)"),
    Row("pod priorityClassName a number", pod(priorityClassName=5),
        P + "spec.priorityClassName): must be a string, not a number"),
    Row("pod phase unknown", put(pod(), "status", {"phase": "Sleeping"}),
        P + "status.phase): unknown value 'Sleeping' "
        "(expected one of: Pending, Running, Succeeded, Failed, Unknown)"),
    Row("nodeName a number", pod(nodeName=5), P + "spec.nodeName): must be a string, not a number"),
    Row("nominatedNodeName a number", put(pod(), "status", {"nominatedNodeName": 5}),
        P + "status.nominatedNodeName): must be a string, not a number"),
    Row("schedulingGates a string", pod(schedulingGates="x"),
        P + "spec.schedulingGates): must be a list, not a string"),
    Row("creationTimestamp a number", put(pod(), "metadata.creationTimestamp", 5),
        P + "metadata.creationTimestamp): must be an RFC3339 timestamp string, not a number"),
    Row("creationTimestamp not a time", put(pod(), "metadata.creationTimestamp", "yesterday"),
        P + "metadata.creationTimestamp): not an RFC3339 timestamp: 'yesterday'"),
    Row("startTime month 13", put(pod(), "status", {"startTime": "2026-13-01T00:00:00Z"}),
        P + "status.startTime): not an RFC3339 timestamp: '2026-13-01T00:00:00Z' "
        "(month must be in 1..12)"),
    Row("DisruptionTarget status a boolean", terminating(True),
        P + 'status.conditions[0].status): must be a string: "True", "False" or "Unknown" '
        "(quote it), not a boolean"),
    # ---- each field path the loader names through the fields.py checks --------------------
    Row("Node status a string", put(node(), "status", "x"),
        N + "status): must be a mapping, not a string"),
    Row("Node spec a string", put(node(), "spec", "x"),
        N + "spec): must be a mapping, not a string"),
    Row("allocatable a string", put(node(), "status", {"allocatable": "x"}),
        N + "status.allocatable): must be a mapping, not a string"),
    Row("capacity a string", put(node(), "status", {"capacity": "x"}),
        N + "status.capacity): must be a mapping, not a string"),
    Row("capacity negative", put(node(), "status", {"allocatable": {}, "capacity": {"cpu": "-1"}}),
        N + "status.capacity.cpu): negative quantity '-1'"),
    Row("class value a boolean", pclass(value=True),
        C + "value): must be an integer, not a boolean"),
    Row("class globalDefault a string", pclass(globalDefault="yes"),
        C + "globalDefault): must be true or false, not a string"),
    Row("class preemptionPolicy unknown", pclass(preemptionPolicy="Sometimes"),
        C + "preemptionPolicy): unknown value 'Sometimes' "
        "(expected one of: PreemptLowerPriority, Never)"),
    Row("PDB spec a string", put(pdb(), "spec", "x"), B + "spec): must be a mapping, not a string"),
    Row("PDB status a string", put(pdb(), "status", "x"),
        B + "status): must be a mapping, not a string"),
    Row("PDB disruptedPods a string", put(pdb(), "status", {"disruptedPods": "x"}),
        B + "status.disruptedPods): must be a mapping, not a string"),
    Row("PDB selector a string", put(pdb(), "spec.selector", "x"),
        B + "spec.selector): must be a mapping, not a string"),
    Row("PDB matchExpressions a string", put(pdb(), "spec.selector.matchExpressions", "x"),
        B + "spec.selector.matchExpressions): must be a list, not a string"),
    Row("PDB matchLabels value a number", put(pdb(), "spec.selector.matchLabels", {"a": 1}),
        B + "spec.selector.matchLabels.a): must map strings to strings, but has a number 1 "
        "(quote it)"),
    Row("PDB expression key missing", pdb({"operator": "Exists"}),
        B + "spec.selector.matchExpressions[0].key): missing (required)"),
    Row("Workload spec a string", put(wl1(), "spec", "x"),
        W + "spec): must be a mapping, not a string"),
    Row("Workload priorityClassName a number", wl1(gang(), priorityClassName=5),
        W + "spec.priorityClassName): must be a string, not a number"),
    Row("Workload priorityClassName missing class", wl1(gang(), priorityClassName="gold"),
        W + "spec.priorityClassName): PriorityClass 'gold' does not exist in the snapshot"),
    Row("Workload preemptionPriorityClassName a number",
        wl1(gang(), preemptionPriorityClassName=5),
        W + "spec.preemptionPriorityClassName): must be a string, not a number"),
    Row("Workload preemptionPriorityClassName missing class",
        wl1(gang(), preemptionPriorityClassName="gold"),
        W + "spec.preemptionPriorityClassName): PriorityClass 'gold' does not exist in the "
        "snapshot"),
    Row("v1alpha1 podGroups a string", put(wl1(), "spec.podGroups", "x"),
        W + "spec.podGroups): must be a list, not a string"),
    Row("v1alpha1 group name missing", wl1({"policy": {"basic": {}}}),
        W + "spec.podGroups[0].name): missing (required)"),
    Row("policy a string", wl1({"name": "g", "policy": "x"}),
        W + "spec.podGroups[0].policy): must be a mapping, not a string"),
    Row("policy basic a string", wl1({"name": "g", "policy": {"basic": "x"}}),
        W + "spec.podGroups[0].policy.basic): must be a mapping, not a string"),
    Row("policy gang a string", wl1({"name": "g", "policy": {"gang": "x"}}),
        W + "spec.podGroups[0].policy.gang): must be a mapping, not a string"),
    Row("v1alpha1 disruptionMode unknown", wl1(gang(disruptionMode="Foo")),
        W + "spec.podGroups[0].disruptionMode): unknown value 'Foo' (expected one of: Pod, "
        "PodGroup)"),
    Row("v1alpha1 preemptionMode unknown", wl1(gang(preemptionMode="Foo")),
        W + "spec.podGroups[0].preemptionMode): unknown value 'Foo' (expected one of: Pod, "
        "PodGroup)"),
    Row("v1alpha1 gang disruptionMode unknown",
        wl1({"name": "g", "policy": {"gang": {"minCount": 2, "disruptionMode": "Foo"}}}),
        W + "spec.podGroups[0].policy.gang.disruptionMode): unknown value 'Foo' (expected one "
        "of: Pod, PodGroup)"),
    Row("v1alpha2 templates a string", put(wl2(), "spec.podGroupTemplates", "x"),
        W + "spec.podGroupTemplates): must be a list, not a string"),
    Row("template name missing", wl2(drop(tmpl(), "name")),
        W + "spec.podGroupTemplates[0].name): missing (required)"),
    Row("template schedulingPolicy missing", wl2({"name": "t"}),
        W + "spec.podGroupTemplates[0].schedulingPolicy): missing (required): basic or gang"),
    Row("template minCount 0", wl2({"name": "t", "schedulingPolicy": {"gang": {"minCount": 0}}}),
        W + "spec.podGroupTemplates[0].schedulingPolicy.gang.minCount): must be at least 1, "
        "got 0"),
    Row("template disruptionMode unknown", wl2(tmpl(disruptionMode="Foo")),
        W + "spec.podGroupTemplates[0].disruptionMode): unknown value 'Foo' (expected one of: "
        "Pod, PodGroup)"),
    Row("template priorityClassName a number", wl2(tmpl(priorityClassName=5)),
        W + "spec.podGroupTemplates[0].priorityClassName): must be a string, not a number"),
    Row("template priority a string", wl2(tmpl(priority="x")),
        W + "spec.podGroupTemplates[0].priority): must be an integer, not a string"),
    Row("template priority out of int32", wl2(tmpl(priority=2**31)),
        W + "spec.podGroupTemplates[0].priority): 2147483648 is out of range: a priority is a "
        "32-bit integer (-2147483648 to 2147483647)"),
    Row("template preemptionPriorityClassName a number",
        wl2(tmpl(preemptionPriorityClassName=5)),
        W + "spec.podGroupTemplates[0].preemptionPriorityClassName): must be a string, not a "
        "number"),
    Row("template preemptionPriorityClassName missing class",
        wl2(tmpl(preemptionPriorityClassName="gold")),
        W + "spec.podGroupTemplates[0].preemptionPriorityClassName): PriorityClass 'gold' does "
        "not exist in the snapshot"),
    Row("v1alpha3 template preemptionPolicy unknown", wl2(tmpl(preemptionPolicy="x"), api=V1A3),
        W + "spec.podGroupTemplates[0].preemptionPolicy): unknown value 'x' (expected one of: "
        "PreemptLowerPriority, Never)"),
    Row("v1alpha3 disruptionMode a string", wl2(tmpl(disruptionMode="PodGroup"), api=V1A3),
        W + "spec.podGroupTemplates[0].disruptionMode): must be {single: {}} or {all: {}} in "
        "scheduling.k8s.io/v1alpha3, not 'PodGroup'"),
    Row("v1alpha3 basic template with all", wl2({"name": "t", "schedulingPolicy": {"basic": {}},
                                                 "disruptionMode": {"all": {}}}, api=V1A3),
        W + "spec.podGroupTemplates[0].disruptionMode): disruption mode all " + BASIC_WHOLE),
    Row("PodGroup spec a string", put(pg(), "spec", "x"),
        G + "spec): must be a mapping, not a string"),
    Row("PodGroup templateRef a string", put(pg(), "spec.podGroupTemplateRef", "x"),
        G + "spec.podGroupTemplateRef): must be a mapping, not a string"),
    Row("PodGroup templateRef.workload a string",
        put(pg(), "spec.podGroupTemplateRef.workload", "x"),
        G + "spec.podGroupTemplateRef.workload): must be a mapping, not a string"),
    Row("PodGroup workloadName missing",
        drop(pg(), "spec.podGroupTemplateRef.workload.workloadName"),
        G + "spec.podGroupTemplateRef.workload.workloadName): missing (required)"),
    Row("PodGroup template name a number",
        put(pg(), "spec.podGroupTemplateRef.workload.podGroupTemplateName", 5),
        G + "spec.podGroupTemplateRef.workload.podGroupTemplateName): must be a string, not a "
        "number"),
    Row("PodGroup flat templateRef name missing",
        put(pg(), "spec.podGroupTemplateRef", {"workloadName": "w"}),
        G + "spec.podGroupTemplateRef.podGroupTemplateName): missing (required)"),
    Row("v1alpha3 PodGroup templateName missing",
        {**put(pg(), "spec", {"workloadRef": {"workloadName": "w"}}), "apiVersion": V1A3},
        G + "spec.workloadRef.templateName): missing (required)"),
    Row("PodGroup schedulingPolicy a string", pg(schedulingPolicy="x"),
        G + "spec.schedulingPolicy): must be a mapping, not a string"),
    Row("PodGroup priority a string", pg(priority="x"),
        G + "spec.priority): must be an integer, not a string"),
    Row("PodGroup own basic policy under a PodGroup-mode template",
        listed(pg(schedulingPolicy={"basic": {}}), wl2(tmpl(disruptionMode="PodGroup"))),
        *two("PodGroup d/pg", "spec.schedulingPolicy", "disruption mode PodGroup " + BASIC_WHOLE)),
    Row("pod status a string", put(pod(), "status", "x"),
        P + "status): must be a mapping, not a string"),
    Row("pod schedulingGroup a string", pod(schedulingGroup="x"),
        P + "spec.schedulingGroup): must be a mapping, not a string"),
    Row("pod podGroupName a number", pod(schedulingGroup={"podGroupName": 5}),
        P + "spec.schedulingGroup.podGroupName): must be a string, not a number"),
    Row("pod workloadRef a string", pod(workloadRef="x"),
        P + "spec.workloadRef): must be a mapping, not a string"),
    Row("pod workloadRef name missing", pod(workloadRef={"podGroup": "g"}),
        P + "spec.workloadRef.name): missing (required)"),
    Row("pod workloadRef podGroup missing", pod(workloadRef={"name": "w"}),
        P + "spec.workloadRef.podGroup): missing (required)"),
    Row("pod preemptionPolicy unknown", pod(preemptionPolicy="Always"),
        P + "spec.preemptionPolicy): unknown value 'Always' (expected one of: "
        "PreemptLowerPriority, Never)"),
    Row("pod labels value a number", put(pod(), "metadata.labels", {"a": 1}),
        P + "metadata.labels.a): must map strings to strings, but has a number 1 (quote it)"),
    Row("nodeSelector value a boolean", pod(nodeSelector={"gpu": False}),
        P + "spec.nodeSelector.gpu): must map strings to strings, but has a boolean False "
        "(quote it)"),
    Row("pod-level resources a string", pod(resources="x"),
        P + "spec.resources): must be a mapping, not a string"),
    Row("overhead negative", pod(overhead={"cpu": "-1"}),
        P + "spec.overhead.cpu): negative quantity '-1'"),
    Row("init container request negative",
        pod(initContainers=[{"name": "i", "resources": {"requests": {"cpu": "-1"}}}]),
        P + "spec.initContainers[0].resources.requests.cpu): negative quantity '-1'"),
    Row("init container a string", pod(initContainers=["i"]),
        P + "spec.initContainers[0]): must be a mapping, not a string"),
    Row("toleration operator unknown", tol({"key": "k", "operator": "Like"}),
        P + "spec.tolerations[0].operator): unknown value 'Like' (expected one of: Equal, "
        "Exists)"),
    Row("toleration effect unknown", tol({"key": "k", "effect": "Sometimes"}),
        P + "spec.tolerations[0].effect): unknown value 'Sometimes' (expected one of: "
        "NoSchedule, PreferNoSchedule, NoExecute)"),
    Row("toleration key a number", tol({"key": 5}),
        P + "spec.tolerations[0].key): must be a string, not a number"),
    Row("second toleration a string", tol({"key": "k"}, "x"),
        P + "spec.tolerations[1]): must be a mapping, not a string"),
    Row("affinity a string", pod(affinity="x"),
        P + "spec.affinity): must be a mapping, not a string"),
    Row("nodeAffinity a string", pod(affinity={"nodeAffinity": "x"}),
        P + "spec.affinity.nodeAffinity): must be a mapping, not a string"),
    Row("node affinity required a string",
        pod(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": "x"}}),
        P + AFF + "): must be a mapping, not a string"),
    Row("nodeSelectorTerms a string", pod(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": "x"}}}),
        P + AFF + ".nodeSelectorTerms): must be a list, not a string"),
    Row("node selector term a string", pod(affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": ["x"]}}}),
        P + AFF + ".nodeSelectorTerms[0]): must be a mapping, not a string"),
    Row("term matchExpressions a string", term(matchExpressions="x"),
        P + AFF + ".nodeSelectorTerms[0].matchExpressions): must be a list, not a string"),
    Row("term matchFields a string", term(matchFields="x"),
        P + AFF + ".nodeSelectorTerms[0].matchFields): must be a list, not a string"),
    Row("matchFields operator Exists",
        term(matchFields=[{"key": "metadata.name", "operator": "Exists"}]),
        P + AFF + ".nodeSelectorTerms[0].matchFields[0].operator): unknown value 'Exists' "
        "(expected one of: In, NotIn)"),
    Row("node affinity operator unknown", term(matchExpressions=[{"key": "k", "operator": "Near"}]),
        P + AFF + ".nodeSelectorTerms[0].matchExpressions[0].operator): unknown value 'Near' "
        "(expected one of: In, NotIn, Exists, DoesNotExist, Gt, Lt)"),
    Row("Lt with two values",
        term(matchExpressions=[{"key": "k", "operator": "Lt", "values": ["1", "2"]}]),
        P + AFF + ".nodeSelectorTerms[0].matchExpressions[0].values): operator Lt needs "
        "exactly one integer value"),
    Row("podAffinity a string", pod(affinity={"podAffinity": "x"}),
        P + "spec.affinity.podAffinity): must be a mapping, not a string"),
    Row("podAntiAffinity required a string",
        pod(affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": "x"}}),
        P + "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution): "
        "must be a list, not a string"),
    Row("pod affinity term a string",
        pod(affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": ["x"]}}),
        P + PAF + "[0]): must be a mapping, not a string"),
    Row("pod affinity topologyKey empty", pod_term(topologyKey=""),
        P + PAF + "[0].topologyKey): missing (required)"),
    Row("pod affinity labelSelector a string", pod_term(labelSelector="x"),
        P + PAF + "[0].labelSelector): must be a mapping, not a string"),
    Row("pod affinity namespaceSelector matchLabels a string",
        pod_term(namespaceSelector={"matchLabels": "x"}),
        P + PAF + "[0].namespaceSelector.matchLabels): must be a mapping, not a string"),
    Row("pod affinity namespaces a string", pod_term(namespaces="x"),
        P + PAF + "[0].namespaces): must be a list, not a string"),
    Row("pod affinity matchLabelKeys a number", pod_term(matchLabelKeys=[1]),
        P + PAF + "[0].matchLabelKeys[0]): must be a string, not a number"),
    Row("pod affinity mismatchLabelKeys a string", pod_term(mismatchLabelKeys="x"),
        P + PAF + "[0].mismatchLabelKeys): must be a list, not a string"),
    Row("spread constraints a string", pod(topologySpreadConstraints="x"),
        P + "spec.topologySpreadConstraints): must be a list, not a string"),
    Row("spread whenUnsatisfiable unknown", spread(maxSkew=1, topologyKey="z",
                                                    whenUnsatisfiable="Never"),
        P + "spec.topologySpreadConstraints[0].whenUnsatisfiable): unknown value 'Never' "
        "(expected one of: DoNotSchedule, ScheduleAnyway)"),
    Row("spread maxSkew a string", spread(maxSkew="1", topologyKey="z",
                                          whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].maxSkew): must be an integer, not a string"),
    Row("spread topologyKey missing", spread(maxSkew=1, whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].topologyKey): missing (required)"),
    Row("spread labelSelector a string", spread(maxSkew=1, topologyKey="z", labelSelector="x",
                                                whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].labelSelector): must be a mapping, not a string"),
    Row("spread minDomains a string", spread(maxSkew=1, topologyKey="z", minDomains="2",
                                             whenUnsatisfiable="DoNotSchedule"),
        P + "spec.topologySpreadConstraints[0].minDomains): must be an integer, not a string"),
    Row("spread nodeAffinityPolicy unknown",
        spread(maxSkew=1, topologyKey="z", whenUnsatisfiable="DoNotSchedule",
               nodeAffinityPolicy="x"),
        P + "spec.topologySpreadConstraints[0].nodeAffinityPolicy): unknown value 'x' "
        "(expected one of: Honor, Ignore)"),
    Row("spread nodeTaintsPolicy unknown",
        spread(maxSkew=1, topologyKey="z", whenUnsatisfiable="DoNotSchedule",
               nodeTaintsPolicy="x"),
        P + "spec.topologySpreadConstraints[0].nodeTaintsPolicy): unknown value 'x' "
        "(expected one of: Honor, Ignore)"),
    Row("spread matchLabelKeys a string",
        spread(maxSkew=1, topologyKey="z", whenUnsatisfiable="DoNotSchedule",
               matchLabelKeys="x"),
        P + "spec.topologySpreadConstraints[0].matchLabelKeys): must be a list, not a string"),
    Row("ports a string", pod(containers=[{"name": "c", "ports": "x"}]),
        P + "spec.containers[0].ports): must be a list, not a string"),
    Row("hostPort a string", ports({"hostPort": "80"}),
        P + "spec.containers[0].ports[0].hostPort): must be an integer, not a string"),
    Row("port protocol unknown", ports({"hostPort": 80, "protocol": "HTTP"}),
        P + "spec.containers[0].ports[0].protocol): unknown value 'HTTP' (expected one of: "
        "TCP, UDP, SCTP)"),
    Row("hostIP a number", ports({"hostPort": 80, "hostIP": 5}),
        P + "spec.containers[0].ports[0].hostIP): must be a string, not a number"),
    Row("sidecar hostPort out of range",
        pod(initContainers=[{"name": "i", "restartPolicy": "Always",
                             "ports": [{"hostPort": 70000}]}]),
        P + "spec.initContainers[0].ports[0].hostPort): must be between 1 and 65535"),
    Row("Namespace label value a number",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "d", "labels": {"a": 1}}},
        "Namespace d (snap.yaml:1, document 1, field metadata.labels.a): must map strings to "
        "strings, but has a number 1 (quote it)"),
    # ---- templates.py: controllers (named by assemble.py) ------------------------------------
    Row("Deployment template priorityClassName a number",
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": "dep", "namespace": "d"},
         "spec": {"template": {"spec": {"containers": [{"name": "c"}], "priorityClassName": 5}}}},
        "Deployment d/dep (snap.yaml:1, document 1, field spec.template.spec.priorityClassName): "
        "must be a string, not a number"),
]


def _write(path: Path, doc: Any, form: str) -> None:
    if form == "yaml":
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    else:
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _error(paths: list[str], **kwargs: Any) -> str:
    with pytest.raises(InputError) as info:
        ingest.build_snapshot(ingest.read_documents(paths, **kwargs))
    return str(info.value)


def _expected(row: Row, form: str) -> str:
    if form == "yaml":
        return row.yaml
    return row.json if row.json is not None else row.yaml.replace("snap.yaml", "snap.json")


@pytest.mark.parametrize("form", ["yaml", "json"])
@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_object_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: Row,
                           form: str) -> None:
    """The whole line of each malformed or contradictory object, read from YAML and JSON."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / f"snap.{form}", row.doc, form)
    assert _expected(row, form) == _error([f"snap.{form}"])


@pytest.mark.parametrize("form", ["yaml", "json"])
def test_cli_prints_each_line_alone_and_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                form: str) -> None:
    """``wapctl validate`` prints that line, and only it, on stderr, and exits 2: no
    traceback (every tenth row: the CLI reports every InputError alike)."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for row in ROWS[::10]:
        _write(tmp_path / f"snap.{form}", row.doc, form)
        result = runner.invoke(app, ["validate", f"snap.{form}"], catch_exceptions=False)
        assert (2, "", f"error: {_expected(row, form)}\n") == (
            result.exit_code, result.stdout, result.stderr), row.id


def test_resource_name_not_a_string(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """YAML alone can write a mapping key that is not a string (JSON keys are strings)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {1: '2'}}\n",
        encoding="utf-8")
    assert ("Node n (snap.yaml:1, document 1, field status.allocatable): resource names must "
            "be strings") == _error(["snap.yaml"])



@pytest.mark.parametrize(("value", "expected"), [
    ("priorityClassName: !!binary aGVsbG8=", "field spec.priorityClassName): must be a string, "
                                              "not bytes"),
    ("nodeSelector: !!set {a, b}", "field spec.nodeSelector): must be a mapping, not set"),
], ids=["binary", "set"])
def test_yaml_only_value_types_are_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, expected: str
) -> None:
    """YAML's ``!!binary`` and ``!!set`` tags build values JSON has no type for (bytes, a set):
    a field given one says what it got, in the value's own type name, on the CLI's one error
    line (exit 2), rather than a blank or ``None``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_text(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  {value}\n"
        "  containers: []\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", "snap.yaml"], catch_exceptions=False)
    assert (2, "", f"error: Pod default/p (snap.yaml:1, document 1, {expected}\n") == (
        result.exit_code, result.stdout, result.stderr)

# ---- reading: raw text -------------------------------------------------------------------

DEEP = b"[" * 101 + b"]" * 101
NODE_DUP_YAML = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  name: m\n"
NODE_DUP_JSON = b'{"apiVersion": "v1", "kind": "Node",\n "metadata": {"name": "n",\n "name": "m"}}'


class Raw(NamedTuple):
    id: str
    name: str  # the file written (in the test's directory)
    data: bytes
    expected: str


HEX_KEY = "0x" + "f" * 5000

RAW: list[Raw] = [
    Raw("empty YAML", "snap.yaml", b"  \n\n", "snap.yaml: empty input: no YAML or JSON documents"),
    Raw("empty JSON", "snap.json", b"  \n\n", "snap.json: empty input: no YAML or JSON documents"),
    Raw("only empty YAML documents", "snap.yaml", b"# nothing\n---\n---\n",
        "snap.yaml: no YAML or JSON documents (only empty ones)"),
    Raw("JSON null", "snap.json", b"null",
        "snap.json, document 1: a document must be a mapping (a Kubernetes object or List), "
        "not null"),
    Raw("binary YAML", "snap.yaml", b"kind: \x00Node\n",
        "snap.yaml: binary data (NUL bytes), not YAML or JSON"),
    Raw("binary JSON", "snap.json", b'{"kind": "\x00"}',
        "snap.json: binary data (NUL bytes), not YAML or JSON"),
    Raw("not UTF-8 YAML", "snap.yaml", b"kind: Node\nmetadata: {name: caf\xe9}\n",
        "snap.yaml: not UTF-8 text (a binary file?)"),
    Raw("not UTF-8 JSON", "snap.json", b'{"kind": "Node", "metadata": {"name": "caf\xe9"}}',
        "snap.json: not UTF-8 text (a binary file?)"),
    # in a key no builder reads: the fast JSON reader skips it, yet the file is no more UTF-8
    Raw("not UTF-8 in a key the fast reader skips", "snap.json",
        b'{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}, "x\xff": 1}',
        "snap.json: not UTF-8 text (a binary file?)"),
    # in a comment of YAML big enough for the fast YAML reader (1 MiB on), which skips it
    Raw("not UTF-8 in a comment of a big YAML file", "snap.yaml",
        b"# caf\xe9\n# " + b"x" * (1 << 20) + b"\napiVersion: v1\nkind: Namespace\n"
        b"metadata: {name: a}\n",
        "snap.yaml: not UTF-8 text (a binary file?)"),
    Raw("invalid JSON", "snap.json", b'{"kind": "Node",\n "metadata": {name: "a"}}',
        "snap.json:2, document 1: invalid JSON: Expecting property name enclosed in double "
        "quotes (line 2, column 15)"),
    # not Python's hint to call sys.set_int_max_str_digits(), which a CLI user cannot
    Raw("JSON integer too long", "snap.json",
        b'{"kind": "Node", "metadata": {"name": ' + b"1" * 5000 + b"}}",
        "snap.json, document 1: invalid JSON: an integer of more than 4300 digits"),
    Raw("YAML integer too long", "snap.yaml", b"kind: Node\nx: " + b"1" * 5000 + b"\n",
        "snap.yaml:2, document 1: invalid YAML value: an integer of more than 4300 digits "
        "(line 2, column 4)"),
    # a hex integer of 5,000 digits reads (16**5000 - 1), but has 6,021 decimal digits, more
    # than Python prints (4,300): written twice as a key, the duplicate is named as the file
    # writes it, with both lines (it used to be "invalid YAML value", without a line)
    Raw("YAML duplicate key, a hex integer too long to print", "snap.yaml",
        b"kind: Node\n---\n? 0x" + b"f" * 5000 + b"\n: 1\n? 0x" + b"f" * 5000 + b"\n: 2\n",
        f"snap.yaml:3, document 2, field {HEX_KEY}: duplicate key {HEX_KEY!r}: first at "
        "snap.yaml:3, again at snap.yaml:5 (kubectl refuses duplicate keys)"),
    # a scalar its tag cannot read: the value, what the tag asks for, and where it is
    Raw("YAML date month 13", "snap.yaml", b"kind: Node\nx: 2026-13-01\n",
        "snap.yaml:2, document 1: invalid YAML value: '2026-13-01' is not a timestamp: month "
        "must be in 1..12 (line 2, column 4)"),
    Raw("YAML explicit timestamp tag", "snap.yaml", b"kind: Node\nx: !!timestamp soon\n",
        "snap.yaml:2, document 1: invalid YAML value: 'soon' is not a timestamp (line 2, "
        "column 4)"),
    Raw("YAML explicit bool tag", "snap.yaml", b"kind: Node\nx: !!bool maybe\n",
        "snap.yaml:2, document 1: invalid YAML value: 'maybe' is not a boolean (true or false) "
        "(line 2, column 4)"),
    Raw("YAML explicit int tag, a long value", "snap.yaml",
        b"kind: Node\nx:\n  - !!int " + b"7" * 60 + b"x\n",
        "snap.yaml:3, document 1: invalid YAML value: '" + "7" * 40 + "'... (61 characters) is "
        "not an integer (line 3, column 5)"),
    # a value that merely holds the words of Python's message for a 5,000-digit integer
    # ("Exceeds the limit ... for integer string conversion") is named as itself: only that
    # message, start and words, is said as "an integer of more than 4300 digits"
    Raw("YAML explicit int tag, words of the digit-limit message", "snap.yaml",
        b"kind: Node\nx: !!int integer string conversion\n",
        "snap.yaml:2, document 1: invalid YAML value: 'integer string conversion' is not an "
        "integer (line 2, column 4)"),
    # the cut's boundary: a value of 40 characters is shown whole, one of 41 is cut at 40 (a
    # user reads the whole value whenever it fits, and its length whenever it is cut)
    Raw("YAML explicit int tag, a value of 40 characters", "snap.yaml",
        b"kind: Node\nx:\n  - !!int " + b"7" * 39 + b"x\n",
        "snap.yaml:3, document 1: invalid YAML value: '" + "7" * 39 + "x' is not an integer "
        "(line 3, column 5)"),
    Raw("YAML explicit int tag, a value of 41 characters", "snap.yaml",
        b"kind: Node\nx:\n  - !!int " + b"7" * 40 + b"x\n",
        "snap.yaml:3, document 1: invalid YAML value: '" + "7" * 40 + "'... (41 characters) is "
        "not an integer (line 3, column 5)"),
    # an empty value under !!int or !!float: PyYAML's constructor looks at its first character
    # (its sign) and fails with IndexError; named as any other unreadable scalar, at its place
    Raw("YAML explicit float tag, an empty value", "snap.yaml", b"kind: Node\nx: !!float ''\n",
        "snap.yaml:2, document 1: invalid YAML value: '' is not a number (line 2, column 4)"),
    Raw("YAML explicit int tag, an empty value", "snap.yaml", b"kind: Node\nx:\n  - !!int\n",
        "snap.yaml:3, document 1: invalid YAML value: '' is not an integer (line 3, column 5)"),
    # a tag that would construct an object: the tag named, not libyaml's "could not determine
    # a constructor for the tag" (the node starts at "!", column 4 of "x: !!python...")
    Raw("YAML constructing tag", "snap.yaml", b"kind: Node\nx: !!python/name:os.system\n",
        "snap.yaml, document 1: invalid YAML: tag 'tag:yaml.org,2002:python/name:os.system' is "
        "not allowed (only plain YAML data is read, nothing is constructed) (line 2, column 4)"),
    Raw("duplicate key YAML", "snap.yaml", NODE_DUP_YAML,
        "Node m (snap.yaml:1, document 1, field metadata.name): duplicate key 'name': first at "
        "snap.yaml:4, again at snap.yaml:5 (kubectl refuses duplicate keys)"),
    # JSON's line names where the document starts, as YAML's does
    Raw("duplicate key JSON (fast path)", "snap.json", NODE_DUP_JSON,
        "Node m (snap.json:1, document 1, field metadata.name): duplicate key 'name': first at "
        "snap.json:2, again at snap.json:3 (kubectl refuses duplicate keys)"),
    # a duplicate key followed by a syntax error: the syntax error, as kubectl's decoder reads
    # the whole text before the keys (it was an internal error, exit 70); x is on line 3, after
    # ' "name": "m"}} ' (15 characters); a number where a key belongs, after ' "name": "m"}, '
    # (15 characters: column 16; not a trailing comma, which Python 3.13 words differently)
    Raw("duplicate key JSON, then text after the document", "snap.json", NODE_DUP_JSON + b" x",
        "snap.json:3, document 1: invalid JSON: Extra data (line 3, column 16)"),
    Raw("duplicate key JSON, then a number for a key", "snap.json",
        NODE_DUP_JSON[:-1] + b", 1}",
        "snap.json:3, document 1: invalid JSON: Expecting property name enclosed in double "
        "quotes (line 3, column 16)"),
    Raw("duplicate key JSON (safe path: nested too deep for the fast one)", "snap.json",
        b"\n" + NODE_DUP_JSON[:-1] + b', "x": ' + DEEP + b"}",
        "Node m (snap.json:2, document 1, field metadata.name): duplicate key 'name': first at "
        "snap.json:3, again at snap.json:4 (kubectl refuses duplicate keys)"),
    # a namespaced kind without a namespace is named as the loader names it: in default
    Raw("duplicate key in a Pod without a namespace, YAML", "snap.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: a, nodeName: b}\n",
        "Pod default/p (snap.yaml:1, document 1, field spec.nodeName): duplicate key 'nodeName': "
        "first at snap.yaml:4, again at snap.yaml:4 (kubectl refuses duplicate keys)"),
    Raw("duplicate key in a Pod with a null namespace, YAML", "snap.yaml",
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ~}\nspec: {a: 1, a: 2}\n",
        "Pod default/p (snap.yaml:1, document 1, field spec.a): duplicate key 'a': first at "
        "snap.yaml:4, again at snap.yaml:4 (kubectl refuses duplicate keys)"),
    Raw("duplicate key in a List item with a null kind, YAML", "snap.yaml",
        b"apiVersion: v1\nkind: PodList\nitems:\n- kind: null\n  metadata: {name: p}\n"
        b"  spec: {a: 1, a: 2}\n",
        "Pod default/p (snap.yaml:4, document 1, item 0, field spec.a): duplicate key 'a': "
        "first at snap.yaml:6, again at snap.yaml:6 (kubectl refuses duplicate keys)"),
    Raw("duplicate key in a List item, JSON", "snap.json",
        b'{"apiVersion": "v1", "kind": "List", "items": [\n'
        b' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}},\n'
        b' {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},\n'
        b'  "spec": {"a": 1, "a": 2}}]}',
        "Pod default/p (snap.json:3, document 1, item 1, field spec.a): duplicate key 'a': "
        "first at snap.json:4, again at snap.json:4 (kubectl refuses duplicate keys)"),
    # a key twice in the List itself (not in an item): the List is the object named
    Raw("duplicate key in a List's own fields, YAML", "snap.yaml",
        b"apiVersion: v1\nkind: List\nmetadata: {}\nmetadata: {}\nitems: []\n",
        "List (snap.yaml:1, document 1, field metadata): duplicate key 'metadata': first at "
        "snap.yaml:3, again at snap.yaml:4 (kubectl refuses duplicate keys)"),
    # a key twice at an item's own top level: the item (line 4) is named, its field is spec
    Raw("duplicate key at a List item's top level, YAML", "snap.yaml",
        b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n"
        b"  metadata: {name: p, namespace: n}\n  spec: {}\n  spec: {}\n",
        "Pod n/p (snap.yaml:4, document 1, item 0, field spec): duplicate key 'spec': "
        "first at snap.yaml:7, again at snap.yaml:8 (kubectl refuses duplicate keys)"),
    # the third item (index 2, after two commas), named by the last name written
    Raw("duplicate key in a List's third item, JSON", "snap.json",
        b'{"apiVersion": "v1", "kind": "List", "items": [\n'
        b' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},\n'
        b' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}},\n'
        b' {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "c", "name": "d"}}]}\n',
        "Node d (snap.json:4, document 1, item 2, field metadata.name): duplicate key 'name': "
        "first at snap.json:4, again at snap.json:4 (kubectl refuses duplicate keys)"),
    Raw("duplicate key in a Pod without a namespace, JSON", "snap.json",
        b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},\n'
        b' "spec": {"nodeName": "a",\n "nodeName": "b"}}',
        "Pod default/p (snap.json:1, document 1, field spec.nodeName): duplicate key 'nodeName': "
        "first at snap.json:2, again at snap.json:3 (kubectl refuses duplicate keys)"),
    Raw("YAML nested too deep", "snap.yaml", b"a: " + DEEP,
        "snap.yaml:1, document 1: nested deeper than 100 levels"),
    Raw("JSON nested too deep", "snap.json", DEEP,
        "snap.json, document 1: nested deeper than 100 levels"),
    Raw("YAML nested past libyaml's own limit", "snap.yaml", b"a: " + b"[" * 1200 + b"]" * 1200,
        "snap.yaml, document 1: nested deeper than 100 levels"),
    # within libyaml's 1,000 levels, but PyYAML flattens nested merge keys (<<) recursively, one
    # Python frame a level: its RecursionError is the same error, not a traceback
    Raw("YAML merge keys nested past Python's recursion limit", "snap.yaml",
        b"a: " + b"{<<: " * 998 + b"{}" + b"}" * 998 + b"\n",
        "snap.yaml, document 1: nested deeper than 100 levels"),
    Raw("JSON nested past the parser", "snap.json", b"[" * 100_000 + b"]" * 100_000,
        "snap.json, document 1: nested deeper than 100 levels"),
    Raw("YAML nested too deep, with aliases", "snap.yaml",
        b"a: &x 1\nb: *x\nc: " + DEEP + b"\n",
        "snap.yaml, document 1: nested deeper than 100 levels"),
    Raw("YAML alias undefined", "snap.yaml", b"a: &x 1\nb: *y\n",
        "snap.yaml, document 1: YAML alias *y refers to no complete anchor (undefined, or a "
        "recursive structure)"),
    # with no anchor (&) anywhere in the file the aliases are not checked ahead: PyYAML's
    # composer finds the undefined one and its error names the line and column
    Raw("YAML alias undefined, no anchor in the file", "snap.yaml", b"a: 1\nb: *y\n",
        "snap.yaml, document 1: invalid YAML: found undefined alias (line 2, column 4)"),
    Raw("YAML alias bomb", "snap.yaml", b"a: &x 1\nb: [" + b"*x, " * 101 + b"]\n",
        "snap.yaml, document 1: YAML aliases exceed the limits (100 aliases, 100000 expanded "
        "nodes per document): an alias bomb?"),
]


@pytest.mark.parametrize("raw", RAW, ids=[r.id for r in RAW])
def test_reading_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: Raw) -> None:
    """The whole line of each input that cannot be read as documents."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / raw.name).write_bytes(raw.data)
    assert raw.expected == _error([raw.name])


def test_a_value_pyyaml_fails_to_construct_names_its_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tagged value PyYAML's constructor trips over with Python's own exception (a
    ``!!timestamp`` on a mapping with a ``=`` value key hands the regex a list: TypeError) is an
    input error naming the file and the document it is in (the second document here), which a
    user needs to find it in a stream; Python's wording of the exception is not pinned."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_bytes(
        b"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
        b"kind: Node\nx: !!timestamp {=: 1}\n"
    )
    assert _error(["snap.yaml"]).startswith(
        "snap.yaml, document 2: invalid YAML value (TypeError: "
    )


def test_yaml_syntax_error_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A YAML syntax error, found while composing and (with aliases) while checking them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_bytes(b"kind: Node\nmetadata: {name: [x\n")
    (tmp_path / "b.yaml").write_bytes(b"a: &x 1\nb: *x\nc: [x\n")
    assert ("a.yaml, document 1: invalid YAML: did not find expected ',' or ']' "
            "(line 3, column 1)") == _error(["a.yaml"])
    assert ("b.yaml, document 1: invalid YAML: did not find expected ',' or ']' "
            "(line 4, column 1)") == _error(["b.yaml"])


def test_yaml_control_character_names_the_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libyaml's reader refuses a control character (BEL, 0x07) with an error that carries no
    line mark (PyYAML's ReaderError, not a MarkedYAMLError) and a second line giving its offset
    in "<unicode string>" (in bytes, from libyaml). The error is one line naming the file, the
    line and the column to fix: in "x: a<BEL>b" on line 2 the BEL is column 5; in
    "x: \u00e9\u00e9a<BEL>b" on line 4 (the second document) column 7, counted in characters
    (bytes would say 9). No
    document is named: the reader checks text ahead of the parser, which is still in the
    first document when the second one's BEL is refused."""
    monkeypatch.chdir(tmp_path)
    why = "invalid YAML: unacceptable character #x0007: control characters are not allowed"
    (tmp_path / "snap.yaml").write_bytes(b"kind: Node\nx: a\x07b\n")
    assert f"snap.yaml:2: {why} (line 2, column 5)" == _error(["snap.yaml"])
    (tmp_path / "two.yaml").write_bytes(
        b"kind: Node\n---\nkind: Node\nx: \xc3\xa9\xc3\xa9a\x07b\n")
    assert f"two.yaml:4: {why} (line 4, column 7)" == _error(["two.yaml"])


def test_yaml_second_control_character_is_not_the_one_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with the same control character twice (a BEL on line 2, column 5 and another on
    line 3, column 8): the reader stops at the first, so the error names line 2, column 5 --
    the user fixes that one first, not the last one in the file."""
    monkeypatch.chdir(tmp_path)
    why = "invalid YAML: unacceptable character #x0007: control characters are not allowed"
    (tmp_path / "snap.yaml").write_bytes(b"kind: Node\nx: a\x07b\ny: cdef\x07g\n")
    assert f"snap.yaml:2: {why} (line 2, column 5)" == _error(["snap.yaml"])


def test_yaml_control_character_line_counts_every_line_break_yaml_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """YAML ends a line at CR LF, LF, a lone CR (old Mac files), NEL (U+0085), LS (U+2028)
    and PS (U+2029) alike, and so must the control character's place: in each file below the
    BEL follows "y: ab" on line 3 (two breaks before it, of the kind named), so column 6."""
    monkeypatch.chdir(tmp_path)
    why = "invalid YAML: unacceptable character #x0007: control characters are not allowed"
    for label, brk in {"crlf": b"\r\n", "cr": b"\r", "nel": "\u0085".encode(),
                       "ls": "\u2028".encode(), "ps": "\u2029".encode()}.items():
        (tmp_path / f"{label}.yaml").write_bytes(b"kind: Node" + brk + b"x: 1" + brk
                                                 + b"y: ab\x07c\n")
        assert f"{label}.yaml:3: {why} (line 3, column 6)" == _error([f"{label}.yaml"]), label


def test_json_on_stdin_or_in_a_yaml_file_is_read_as_json(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Text that starts as JSON does (``{``) is read by the JSON reader whatever its name:
    ``kubectl get -o json | wapctl validate -`` is JSON. In JSON ``1e3`` is a number (YAML 1.1
    reads it as the string "1e3"), so the error says what a .json file's would: a decimal
    number, not a string."""
    monkeypatch.chdir(tmp_path)
    data = (b'{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",\n'
            b' "metadata": {"name": "gold"}, "value": 1e3}\n')
    reason = "document 1, field value): must be an integer, not a decimal number"
    assert f"PriorityClass gold (<stdin>:1, {reason}" == _error(["-"], stdin=io.BytesIO(data))
    (tmp_path / "snap.yaml").write_bytes(data)
    assert f"PriorityClass gold (snap.yaml:1, {reason}" == _error(["snap.yaml"])


def test_file_error_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing file, a path through a file, a directory without inputs, a file too large."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_bytes(b"kind: Node\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "readme.txt").write_bytes(b"x")
    assert "nope.yaml: no such file or directory" == _error(["nope.yaml"])
    assert "snap.yaml/x: cannot read: Not a directory" == _error(["snap.yaml/x"])
    assert "dir: directory has no *.yaml, *.yml or *.json files" == _error(["dir"])
    assert ("snap.yaml: file is 11 bytes, larger than the 10 bytes limit (raise it with "
            "--max-input-size)") == _error(["snap.yaml"], max_input_size=10)
    # not a regular file: measured as it is read
    assert ("/dev/zero: input is larger than the 10 bytes limit (raise it with "
            "--max-input-size)") == _error(["/dev/zero"], max_input_size=10)
    assert ("<stdin>: input is larger than the 10 bytes limit (raise it with "
            "--max-input-size)") == _error(["-"], max_input_size=10, stdin=io.BytesIO(b"x" * 99))
    # stat succeeds, open does not (a socket)
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("snap.sock")
        assert "snap.sock: cannot read: No such device or address" == _error(["snap.sock"])


def test_a_directory_that_cannot_be_listed(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A directory the OS refuses to list (no read permission, an I/O error) is an input
    error naming the directory and the OS's reason, exit 2, as a missing file is; not an
    internal error. (The tests may run as root, whom chmod 000 does not stop: the listing is
    refused by hand, for that directory alone.)"""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "snap.yaml").write_bytes(b"apiVersion: v1\nkind: Node\n")
    real_listdir = sources.os.listdir

    def refuse(path: Any) -> list[str]:
        if path == "dir":
            raise PermissionError(13, "Permission denied", path)
        return real_listdir(path)

    monkeypatch.setattr(sources.os, "listdir", refuse)
    assert "dir: cannot list directory: Permission denied" == _error(["dir"])
    result = CliRunner().invoke(app, ["validate", "dir"], catch_exceptions=False)
    assert (2, "", "error: dir: cannot list directory: Permission denied\n") == (
        result.exit_code, result.stdout, result.stderr)


def test_duplicate_whose_first_copy_has_no_line() -> None:
    """A duplicated object read from stdin as one-line JSON: neither copy has a known line
    (stdin registers no line finder), so "first defined at" names the first copy's document
    and item and ends there, with nothing after them."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, node]}).encode()
    assert ("<stdin>, document 1, item 1, field metadata.name: duplicate Node n "
            "(first defined at <stdin>, document 1, item 0)") == _error(
                ["-"], stdin=io.BytesIO(data))


@pytest.mark.parametrize("fast_yaml", [False, True], ids=["pyyaml", "fast"])
def test_utf8_is_checked_across_slices_as_the_safe_readers_decode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_yaml: bool
) -> None:
    """The fast readers' UTF-8 check takes the text ``utf8.SLICE`` bytes at a time (16 MiB;
    3 here, so every 2-, 3- and 4-byte character below is cut by a slice's end somewhere): each
    is read whole and the file is valid. A character whose first byte (C3) is followed by
    ASCII is not UTF-8, where the slice ends too. A lone surrogate written raw (ED A0 80) is
    read by JSON (Python's json decodes it, as the safe JSON reader) and refused in YAML
    (PyYAML's reader takes strict UTF-8), whichever reader takes the file."""
    monkeypatch.setattr(utf8, "SLICE", 3)
    if fast_yaml:
        monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    monkeypatch.chdir(tmp_path)
    chars = "caf\u00e9 \u20ac \U0001f600 \u00e9\u00e9".encode()
    head = b"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"
    (tmp_path / "ok.yaml").write_bytes(head + b"# " + chars + b"\n# " + chars[1:] + b"\n")
    (tmp_path / "ok.json").write_bytes(
        b'{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}, "x": "'
        + chars + b'", "y\xed\xa0\x80": 1}')
    (tmp_path / "cut.yaml").write_bytes(head + b"# caf\xc3x\n")
    (tmp_path / "surrogate.yaml").write_bytes(head + b"# \xed\xa0\x80\n")
    for ok in ("ok.yaml", "ok.json"):
        result = CliRunner().invoke(app, ["validate", ok])
        assert (0, "") == (result.exit_code, result.stderr), ok
    for bad in ("cut.yaml", "surrogate.yaml"):
        assert f"{bad}: not UTF-8 text (a binary file?)" == _error([bad]), bad


def test_duplicate_key_json_reads_an_escaped_and_a_raw_surrogate_as_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python's ``json`` reads the label key escaped as ``"\\ud800"`` and the same lone surrogate
    written as raw bytes (ED A0 80, which ``json`` decodes with surrogatepass) as one key: a
    duplicate. The scan that finds its place decodes the text as ``json`` did, so the error
    names that key, its field under metadata.labels, and both
    copies' line (2) -- not another key, and not a line left out."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.json").write_bytes(
        b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d",\n'
        b' "labels": {"\\ud800": "a", "\xed\xa0\x80": "b"}}, "spec": {"containers": []}}\n'
    )
    # the field holds the key itself (stderr writes the lone surrogate escaped); the key named
    # after "duplicate key" is written as Python writes it
    assert ('Pod d/p (snap.json:1, document 1, field metadata.labels["\ud800"]): duplicate key '
            "'\\ud800': first at snap.json:2, again at snap.json:2 (kubectl refuses duplicate "
            "keys)") == _error(["snap.json"])


@pytest.mark.parametrize(
    ("limit", "size", "written"),
    [(2 << 30, 2147483649, "2Gi"), (3 << 20, 3145729, "3Mi"),
     (1536 << 20, 1610612737, "1536Mi"), (1 << 30, 1073741825, "1Gi")],
    ids=["2 GiB", "3 MiB", "1.5 GiB", "1 GiB"],
)
def test_a_limit_is_written_in_the_largest_unit_that_divides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int, size: int,
        written: str) -> None:
    """The size limit is written in the largest binary unit that divides it, as a user writes
    --max-input-size: 2 GiB is "2Gi", not "2048Mi"; 3 MiB is "3Mi" (a whole number of MiB,
    though not of 2 MiB), not "3072Ki"; 1.5 GiB is "1536Mi" (over 1 GiB but not a whole number
    of GiB), not "1Gi"; exactly 1 GiB is "1Gi", not "1024Mi". (The file is sparse: the
    limit + 1 byte by stat, refused before it is read.)"""
    monkeypatch.chdir(tmp_path)
    with open("big.json", "wb") as fh:
        fh.truncate(limit + 1)
    assert (f"big.json: file is {size} bytes, larger than the {written} limit (raise it with "
            "--max-input-size)") == _error(["big.json"], max_input_size=ingest.parse_size(written))


def test_a_zero_limit_is_written_in_bytes(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that reads with max_input_size=0 (nothing allowed) is told "the 0 bytes
    limit": zero is a whole number of every unit, but is written in bytes, not "0Gi"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_bytes(b"kind: Node\n")
    assert ("snap.yaml: file is 11 bytes, larger than the 0 bytes limit (raise it with "
            "--max-input-size)") == _error(["snap.yaml"], max_input_size=0)


def test_one_byte_is_written_in_the_singular(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``--max-input-size 1`` is the smallest limit the CLI takes: the error says "the 1 byte
    limit", and a one-byte file read with a zero limit "file is 1 byte" (not "1 bytes")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "snap.yaml").write_bytes(b"kind: Node\n")
    result = CliRunner().invoke(app, ["validate", "--max-input-size", "1", "snap.yaml"])
    assert (2, "error: snap.yaml: file is 11 bytes, larger than the 1 byte limit (raise it "
               "with --max-input-size)\n") == (result.exit_code, result.stderr)
    (tmp_path / "one.yaml").write_bytes(b"\n")
    assert ("one.yaml: file is 1 byte, larger than the 0 bytes limit (raise it with "
            "--max-input-size)") == _error(["one.yaml"], max_input_size=0)


def test_text_too_large_for_the_safe_readers_names_its_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Text the fast readers hand over (small YAML; JSON they refuse, NaN here) goes to the
    safe readers only up to the general limit. Lowered here to 2 KiB (from 256 MiB), with
    files from 1 KiB on allowed more by default, 3000-byte files pass the file's own size
    check and are refused there: the line names the file, as every reading error does."""
    monkeypatch.setattr(limits, "MAX_INPUT_SIZE", 2048)
    monkeypatch.setattr(limits, "FAST_FROM", 1024)
    monkeypatch.chdir(tmp_path)
    yaml_text = b"kind: Node\nx: " + b"a" * 2985 + b"\n"  # 11 + 3 + 2985 + 1 bytes
    json_text = b'{"kind": "Node", "x": NaN, "y": "' + b"a" * 2965 + b'"}'  # 33 + 2965 + 2
    (tmp_path / "snap.yaml").write_bytes(yaml_text)
    (tmp_path / "snap.json").write_bytes(json_text)
    assert 3000 == len(yaml_text) == len(json_text)
    assert ("snap.yaml: 3000 bytes of YAML, larger than the 2Ki limit: it needs the exact YAML "
            "1.1 reader, PyYAML, which takes about 30 times the file in memory; raise the limit "
            "with --max-input-size, or export JSON (-o json)") == _error(["snap.yaml"])
    assert ("snap.json: 3000 bytes of JSON, larger than the 2Ki limit: the fast JSON reader "
            "could not take it (a syntax error, an unusual value or nesting deeper than 100 "
            "levels) and the safe reader needs several times the file in memory; raise the "
            "limit with --max-input-size") == _error(["snap.json"])


def test_json_objects_one_after_another_are_named_as_such(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A shell loop of `kubectl get ... -o json` prints objects one after another, which is not
    one JSON document: the error line says where the second starts and what to do."""
    monkeypatch.chdir(tmp_path)
    one = json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}, indent=2)
    (tmp_path / "snap.json").write_text(one + "\n" + one.replace('"a"', '"b"') + "\n",
                                        encoding="utf-8")
    assert ("snap.json:8, document 1: invalid JSON: Extra data (line 8, column 1): a second "
            "JSON object starts there (objects printed one after another); put them in one "
            "List, or in a .yaml file with a line '---' between them") == _error(["snap.json"])
