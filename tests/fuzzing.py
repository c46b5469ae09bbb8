"""Snapshot mutations and the core path they are run through (issue 8 §2).

Shared by ``tests/test_fuzz.py`` (hypothesis, a modest count in CI) and
``tests/fuzz/run_fuzz.py`` (a long run). A mutation starts from a valid fixture's objects and
breaks or bends them the way real manifests go wrong: dropped and renamed fields, values of the
wrong type, out-of-range and huge numbers, mangled quantities, unicode and empty names,
duplicate objects, dangling references, objects pasted into the wrong place; the result is
written as YAML or JSON and sometimes corrupted as text. Every run must end in a clean result
or a ``WapctlError``, never another exception.

Choices go through a ``Chooser`` so the same mutations run under hypothesis (shrinkable draws)
or under a plain ``random.Random`` (fast, for the long run).
"""

from __future__ import annotations

import copy
import io
import json
import math
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
FIXTURE_DIRS = ("plan", "cycles", "cycles/audit", "simulate", "api-versions")

T = TypeVar("T")


class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, options: Sequence[T]) -> T: ...


class RandomChooser:
    """Choices from a seeded ``random.Random`` (the long fuzz run)."""

    def __init__(self, rng: Any) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]


class HypothesisChooser:
    """Choices drawn from hypothesis' ``st.data()``, so failures shrink."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self.data = data
        self.st = st

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def choice(self, options: Sequence[T]) -> T:
        return options[self.data.draw(self.st.integers(0, len(options) - 1))]


# ---- the fixtures ----------------------------------------------------------------------------


def fixture_files() -> list[Path]:
    """Every valid snapshot and change file under fixtures/ (plan, cycles, simulate, api)."""
    files: list[Path] = []
    for d in FIXTURE_DIRS:
        files.extend(sorted((FIXTURES / d).glob("*.yaml")))
    return files


def fixture_objects(path: Path) -> list[dict[str, Any]]:
    """The objects of one fixture file, List items flattened, in file order."""
    out: list[dict[str, Any]] = []
    for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
        if doc is None:
            continue
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(doc["items"])
        else:
            out.append(doc)
    return out


def load_corpus() -> list[tuple[str, list[dict[str, Any]]]]:
    """(relative name, objects) per fixture; the audit change files stand alone too."""
    return [(str(p.relative_to(FIXTURES)), fixture_objects(p)) for p in fixture_files()]


# ---- odd values --------------------------------------------------------------------------------

QUANTITIES = (
    "1.5.3Gi", "-0", "1e999", "NaN", "nan", "Inf", "-1", "+1", "0x10", "1_000", " 1", "1 ",
    "1Gi ", "Gi", ".", "-", "+", "1e", "1e+", "1E3", "1e-999", "1e64", "1e65", "1Ei", "999Ei",
    "0.0000000001", "1m", "1n", "1u", "1.", ".5", "-.5", "1.5Ki", "1KiB", "1k", "1K", "٣",
    "１", "9" * 64, "9" * 65, "1" + "0" * 63 + "Ei", "0.5m", "1e-3", "1e3m", "",
)
NUMBERS = (
    0, -1, 1, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63, -(2**63),
    2**64, 10**30, -(10**30), 0.5, -0.5, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan,
    1.0, 0.0, -0.0,
)
NAMES = (
    "", " ", "ünïcødé", "名前", "🙂", "a/b", "a b", "-", ".", "..", "A" * 300, "x\ny", "x\ttab",
    "null", "true", "0", "*", "&a", "!tag", "#", "%", "\u202e", "\ufeffbom", "\u0000", "ns/wl/g",
    "[bold]rich[/bold]", "::error::", "a%0Ab",
)
WRONG = (
    None, "", "x", 0, -1, 1.5, True, False, [], [None], ["a"], {}, {"a": 1}, {"": None},
    [[[]]], {"nested": {"deep": [1, {"x": None}]}},
    datetime(2026, 1, 1, tzinfo=timezone.utc), datetime(1, 1, 1), b"\x00\xff",
)
REFERENCE_KEYS = (
    "nodeName", "nominatedNodeName", "priorityClassName", "preemptionPriorityClassName",
    "name", "podGroup", "podGroupName", "workloadName", "podGroupTemplateName", "templateName",
    "namespace",
)
KNOWN_KEYS = (
    "apiVersion", "kind", "metadata", "name", "namespace", "labels", "spec", "status", "items",
    "value", "globalDefault", "preemptionPolicy", "priority", "priorityClassName",
    "preemptionPriorityClassName", "podGroups", "podGroupTemplates", "policy",
    "schedulingPolicy", "basic", "gang", "minCount", "disruptionMode", "preemptionMode",
    "single", "all", "workloadRef", "podGroup", "schedulingGroup", "podGroupName",
    "podGroupTemplateRef", "workload", "workloadName", "podGroupTemplateName", "templateName",
    "containers", "initContainers", "restartPolicy", "resources", "requests", "limits",
    "overhead", "cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage", "allocatable",
    "capacity", "taints", "tolerations", "key", "operator", "effect", "values", "selector",
    "matchLabels", "matchExpressions", "matchFields", "disruptionsAllowed", "disruptedPods",
    "phase", "deletionTimestamp", "creationTimestamp", "startTime", "nodeName",
    "nominatedNodeName", "nodeSelector", "affinity", "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms", "unschedulable",
    "compositePodGroupTemplates",
)
ENUMS = (
    "Pod", "PodGroup", "Never", "PreemptLowerPriority", "Running", "Pending", "Succeeded",
    "Failed", "Unknown", "NoSchedule", "NoExecute", "PreferNoSchedule", "Exists", "Equal", "In",
    "NotIn", "Gt", "Lt", "DoesNotExist", "Always", "Basic", "Gang", "List", "PodList",
    "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1", "v1", "policy/v1", "scheduling.k8s.io/v9", "kueue.x-k8s.io/v1beta1",
)


# ---- walking and editing the object tree ---------------------------------------------------------

Slot = tuple[Any, Any]  # (container, key or index)


def slots(root: Any, limit: int = 5000) -> list[Slot]:
    """Every (container, key) below ``root``, breadth first, iteratively."""
    out: list[Slot] = []
    todo = [root]
    while todo and len(out) < limit:
        node = todo.pop()
        if type(node) is dict:
            for k, v in node.items():
                out.append((node, k))
                if type(v) in (dict, list):
                    todo.append(v)
        elif type(node) is list:
            for i, v in enumerate(node):
                out.append((node, i))
                if type(v) in (dict, list):
                    todo.append(v)
    return out


def _pick_slot(c: Chooser, objs: list[Any], want: Callable[[Slot], bool] | None = None) -> Slot:
    everything = slots(objs)
    if want is not None and c.integer(0, 3):
        focused = [s for s in everything if want(s)]
        if focused:
            return c.choice(focused)
    return c.choice(everything) if everything else (objs, 0) if objs else ([None], 0)


def _known(s: Slot) -> bool:
    return type(s[0]) is dict and s[1] in KNOWN_KEYS


def _is_leaf(s: Slot) -> bool:
    v = s[0][s[1]]
    return type(v) not in (dict, list)


def _is_quantity_like(s: Slot) -> bool:
    v = s[0][s[1]]
    return (type(v) is str and v[:1].isdigit()) or type(v) in (int, float)


def _odd_value(c: Chooser, current: Any) -> Any:
    kind = c.integer(0, 7)
    if kind == 0:
        return c.choice(WRONG)
    if kind == 1:
        return c.choice(NUMBERS)
    if kind == 2:
        return c.choice(QUANTITIES)
    if kind == 3:
        return c.choice(NAMES)
    if kind == 4:
        return c.choice(ENUMS)
    if kind == 5:  # the same value as another type
        return _retyped(c, current)
    if kind == 6:
        return c.choice(KNOWN_KEYS)
    return copy.deepcopy(current)


def _retyped(c: Chooser, v: Any) -> Any:
    form = c.integer(0, 5)
    if form == 0:
        return str(v) if v is not None else "null"
    if form == 1:
        try:
            return int(v)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            return len(str(v))
    if form == 2:
        return [v]
    if form == 3:
        return {"value": v}
    if form == 4:
        return None
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return math.nan


def _objects(objs: list[Any]) -> list[dict[str, Any]]:
    return [o for o in objs if type(o) is dict]


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    m = obj.get("metadata")
    if type(m) is not dict:
        m = {}
        obj["metadata"] = m
    return m


# Each mutation edits ``objs`` (a list of objects) in place.


def m_drop(c: Chooser, objs: list[Any]) -> None:
    """Drop a field or a list element."""
    container, key = _pick_slot(c, objs, _known)
    if type(container) is dict:
        container.pop(key, None)
    elif container:
        del container[key]


def m_rename(c: Chooser, objs: list[Any]) -> None:
    """Rename a field: a near miss, another known field, or an odd key."""
    container, key = _pick_slot(c, objs, _known)
    if type(container) is not dict or key not in container:
        return
    style = c.integer(0, 4)
    if style == 0:
        new: Any = str(key).upper()
    elif style == 1:
        new = f"{key}s"
    elif style == 2:
        new = c.choice(KNOWN_KEYS)
    elif style == 3:
        new = c.choice(NAMES)
    else:
        new = c.choice((1, 0, None, True, 1.5))
    container[new] = container.pop(key)


def m_retype(c: Chooser, objs: list[Any]) -> None:
    """Put an odd value (wrong type, odd number, odd text) where a field was."""
    container, key = _pick_slot(c, objs, _known)
    if type(container) is dict and key not in container:
        return
    if type(container) is list and not (0 <= key < len(container)):
        return
    container[key] = _odd_value(c, container[key])


def m_number(c: Chooser, objs: list[Any]) -> None:
    """Replace a number or quantity with an out-of-range number or a mangled quantity."""
    container, key = _pick_slot(c, objs, lambda s: _is_leaf(s) and _is_quantity_like(s))
    container[key] = c.choice(NUMBERS) if c.integer(0, 1) else c.choice(QUANTITIES)


def m_name(c: Chooser, objs: list[Any]) -> None:
    """Give an object an odd (unicode, empty, long, slashed) name or namespace."""
    objects = _objects(objs)
    if not objects:
        return
    meta = _meta(c.choice(objects))
    field = c.choice(("name", "namespace"))
    meta[field] = c.choice(NAMES)


def m_duplicate(c: Chooser, objs: list[Any]) -> None:
    """Copy an object: exactly (a duplicate), or under a new name (valid but odd)."""
    objects = _objects(objs)
    if not objects:
        return
    dup = copy.deepcopy(c.choice(objects))
    if c.integer(0, 1):
        meta = _meta(dup)
        meta["name"] = f"{meta.get('name')}-copy{c.integer(0, 3)}"
    objs.insert(c.integer(0, len(objs)), dup)


def m_dangle(c: Chooser, objs: list[Any]) -> None:
    """Point a reference (node, class, workload, group, template) at something missing."""
    container, key = _pick_slot(
        c, objs, lambda s: type(s[0]) is dict and s[1] in REFERENCE_KEYS
    )
    if type(container) is dict and key in container:
        container[key] = c.choice(("ghost", "", "GHOST", "ghost-" + str(container[key])))


def m_remove_object(c: Chooser, objs: list[Any]) -> None:
    """Delete a whole object (its references dangle)."""
    if objs:
        del objs[c.integer(0, len(objs) - 1)]


def m_transplant(c: Chooser, objs: list[Any]) -> None:
    """Paste a subtree of one place into another (a pod's spec under a node, ...)."""
    everything = slots(objs)
    if len(everything) < 2:
        return
    src_c, src_k = c.choice(everything)
    dst_c, dst_k = c.choice(everything)
    value = copy.deepcopy(src_c[src_k])
    try:
        dst_c[dst_k] = value
    except (IndexError, TypeError):
        pass


def m_kind(c: Chooser, objs: list[Any]) -> None:
    """Change an object's kind or apiVersion (another kind read, an unknown one, a List)."""
    objects = _objects(objs)
    if not objects:
        return
    obj = c.choice(objects)
    if c.integer(0, 1):
        obj["kind"] = c.choice(
            ("Pod", "Node", "PriorityClass", "PodDisruptionBudget", "Workload", "PodGroup",
             "List", "PodList", "ConfigMap", "", None, 7)
        )
    else:
        obj["apiVersion"] = c.choice((*ENUMS, None, 1, ""))


def m_nest_list(c: Chooser, objs: list[Any]) -> None:
    """Wrap some objects into a List item (or a List inside a List)."""
    if not objs:
        return
    i = c.integer(0, len(objs) - 1)
    j = c.integer(i, min(len(objs), i + 3))
    inner = objs[i:j]
    objs[i:j] = [{"apiVersion": "v1", "kind": c.choice(("List", "PodList", "List")),
                  "items": inner if c.integer(0, 3) else c.choice((None, {}, "x", [1]))}]


def m_requests(c: Chooser, objs: list[Any]) -> None:
    """Set a resource amount on a pod container or a node to an odd quantity."""
    objects = [o for o in _objects(objs) if o.get("kind") in ("Pod", "Node")]
    if not objects:
        return
    obj = c.choice(objects)
    resource = c.choice(("cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage", "", "x"))
    amount = c.choice(QUANTITIES + NUMBERS)
    if obj.get("kind") == "Node":
        status = obj.setdefault("status", {})
        if type(status) is dict:
            alloc = status.setdefault(c.choice(("allocatable", "capacity")), {})
            if type(alloc) is dict:
                alloc[resource] = amount
        return
    spec = obj.setdefault("spec", {})
    if type(spec) is not dict:
        return
    containers = spec.setdefault(c.choice(("containers", "initContainers")), [])
    if type(containers) is not list:
        return
    if not containers or c.integer(0, 3) == 0:
        containers.append({"name": "fz"})
    box = containers[c.integer(0, len(containers) - 1)]
    if type(box) is dict:
        res = box.setdefault("resources", {})
        if type(res) is dict:
            section = res.setdefault(c.choice(("requests", "limits")), {})
            if type(section) is dict:
                section[resource] = amount


def m_priority(c: Chooser, objs: list[Any]) -> None:
    """Push a priority value, minCount or budget out of range."""
    objects = _objects(objs)
    if not objects:
        return
    obj = c.choice(objects)
    kind = obj.get("kind")
    value = c.choice(NUMBERS)
    if kind == "PriorityClass":
        obj["value"] = value
    elif kind == "Pod" and type(obj.get("spec")) is dict:
        obj["spec"]["priority"] = value
    elif kind == "PodDisruptionBudget":
        status = obj.setdefault("status", {})
        if type(status) is dict:
            status["disruptionsAllowed"] = value
    else:
        container, key = _pick_slot(c, [obj], lambda s: s[1] in ("minCount", "priority"))
        if type(container) is dict and key in ("minCount", "priority"):
            container[key] = value


def m_shuffle(c: Chooser, objs: list[Any]) -> None:
    """Move one object elsewhere (definitions after their users, ...)."""
    if len(objs) > 1:
        obj = objs.pop(c.integer(0, len(objs) - 1))
        objs.insert(c.integer(0, len(objs)), obj)


# ---- valid but odd: these keep the snapshot loadable, to stress the core ----------------------

VALID_INTS = (0, 1, -1, 2, 7, 100, 2**31 - 1, -(2**31), 2**31, 2**53 + 1, 2**63 - 1, -(2**63),
              2**64, 10**30, -(10**30))
VALID_AMOUNTS = ("0", "1n", "1m", "100m", "1", "3", "4", "8", "999Ei", "1e64", "1e-9", "0.1",
                 "16Gi", "1Ei", 10**30, 0, 1, 0.1, 2**63, "110", "1k")
TIMES = ("2026-01-01T10:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
         "2026-01-01T10:00:00.123456789+05:30", "2026-01-01T10:00:00-12:00",
         "2026-01-01 10:00:00", "1970-01-01T00:00:00Z", None)


def _of_kind(objs: list[Any], *kinds: str) -> list[dict[str, Any]]:
    return [o for o in _objects(objs) if o.get("kind") in kinds]


def _names_of(objs: list[Any], kind: str) -> list[str]:
    out = []
    for o in _of_kind(objs, kind):
        m = o.get("metadata")
        if type(m) is dict and type(m.get("name")) is str:
            out.append(m["name"])
    return out


def _spec(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.setdefault("spec", {})
    return spec if type(spec) is dict else None


def m_valid_int(c: Chooser, objs: list[Any]) -> None:
    """A priority value, pod priority, minCount or budget at an extreme but valid integer."""
    objects = _of_kind(objs, "PriorityClass", "Pod", "PodDisruptionBudget", "Workload",
                       "PodGroup")
    if not objects:
        return
    obj = c.choice(objects)
    value = c.choice(VALID_INTS)
    kind = obj.get("kind")
    if kind == "PriorityClass":
        obj["value"] = value
    elif kind == "Pod":
        spec = _spec(obj)
        if spec is not None:
            spec["priority"] = value
    elif kind == "PodDisruptionBudget":
        status = obj.setdefault("status", {})
        if type(status) is dict:
            status["disruptionsAllowed"] = value
    else:
        for container, key in slots([obj]):
            if key == "minCount":
                container[key] = max(1, value) if c.integer(0, 3) else value


def m_valid_amount(c: Chooser, objs: list[Any]) -> None:
    """A pod request or node allocatable at an extreme but valid quantity."""
    objects = _of_kind(objs, "Pod", "Node")
    if not objects:
        return
    obj = c.choice(objects)
    amount = c.choice(VALID_AMOUNTS)
    resource = c.choice(("cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage"))
    if obj.get("kind") == "Node":
        status = obj.setdefault("status", {})
        if type(status) is dict:
            alloc = status.setdefault("allocatable", {})
            if type(alloc) is dict:
                alloc[resource] = amount
        return
    spec = _spec(obj)
    if spec is None:
        return
    where = c.choice(("containers", "containers", "initContainers", "overhead"))
    if where == "overhead":
        spec["overhead"] = {resource: amount}
        return
    boxes = spec.setdefault(where, [])
    if type(boxes) is not list:
        return
    box: dict[str, Any] = {"name": f"fz{len(boxes)}",
                           "resources": {c.choice(("requests", "limits")): {resource: amount}}}
    if where == "initContainers" and c.integer(0, 1):
        box["restartPolicy"] = "Always"
    boxes.append(box)


def m_pod_state(c: Chooser, objs: list[Any]) -> None:
    """Move a pod between states: pending, bound (to a real or a missing node), nominated,
    terminating, finished; odd creation and start times."""
    pods = _of_kind(objs, "Pod")
    if not pods:
        return
    pod = c.choice(pods)
    spec = _spec(pod)
    status = pod.setdefault("status", {})
    meta = _meta(pod)
    if spec is None or type(status) is not dict:
        return
    nodes = [*_names_of(objs, "Node"), "ghost-node"]
    what = c.integer(0, 6)
    if what == 0:
        spec.pop("nodeName", None)
        status["phase"] = "Pending"
    elif what == 1:
        spec["nodeName"] = c.choice(nodes)
        status["phase"] = c.choice(("Running", "Pending", "Unknown"))
    elif what == 2:
        status["nominatedNodeName"] = c.choice(nodes)
    elif what == 3:
        meta["deletionTimestamp"] = "2026-01-01T11:00:00Z"
    elif what == 4:
        status["phase"] = c.choice(("Succeeded", "Failed"))
    elif what == 5:
        meta["creationTimestamp"] = c.choice(TIMES)
    else:
        status["startTime"] = c.choice(TIMES)


def m_policy(c: Chooser, objs: list[Any]) -> None:
    """Flip preemption policies, group policies and disruption modes (consistently)."""
    objects = _of_kind(objs, "PriorityClass", "Pod", "Workload", "PodGroup")
    if not objects:
        return
    obj = c.choice(objects)
    kind = obj.get("kind")
    if kind == "PriorityClass":
        obj["preemptionPolicy"] = c.choice(("Never", "PreemptLowerPriority"))
        if c.integer(0, 3) == 0:
            obj["globalDefault"] = True
        return
    if kind == "Pod":
        spec = _spec(obj)
        if spec is not None:
            spec["preemptionPolicy"] = c.choice(("Never", "PreemptLowerPriority"))
        return
    for container, key in slots([obj]):
        if key in ("policy", "schedulingPolicy") and type(container[key]) is dict:
            if c.integer(0, 1):
                container[key] = {"gang": {"minCount": c.choice((1, 2, 3, 5, 100, 2**31))}}
            elif not any(k in container for k in ("disruptionMode", "preemptionMode")):
                container[key] = {"basic": {}}
        elif key in ("disruptionMode", "preemptionMode") and type(container[key]) is str:
            container[key] = c.choice(("Pod", "PodGroup"))


def m_clone(c: Chooser, objs: list[Any]) -> None:
    """Clone an object several times under new names (more nodes, more pods, more classes)."""
    objects = _of_kind(objs, "Pod", "Node", "PriorityClass", "PodDisruptionBudget")
    if not objects:
        return
    obj = c.choice(objects)
    for i in range(c.integer(1, 12)):
        dup = copy.deepcopy(obj)
        meta = _meta(dup)
        meta["name"] = f"{meta.get('name')}-c{i}"
        if dup.get("kind") == "PriorityClass":
            dup["globalDefault"] = False
        objs.append(dup)


def _pending_first(c: Chooser, objects: list[dict[str, Any]]) -> dict[str, Any]:
    """Usually a pending pod (constraints matter for preemptors), else any of ``objects``."""
    pending = [o for o in objects if o.get("kind") == "Pod" and type(o.get("spec")) is dict
               and not o["spec"].get("nodeName")]
    return c.choice(pending) if pending and c.integer(0, 2) else c.choice(objects)


TAINT_KEYS = ("k", "gpu", "dedicated", "")
LABEL_VALUES = ("a", "b", "3", "-1", "10", "x")


def m_constraints(c: Chooser, objs: list[Any]) -> None:
    """Valid taints, tolerations, node selectors, required node affinity (matchExpressions and
    matchFields) and PDB selectors, drawn so that they often match each other."""
    objects = _of_kind(objs, "Pod", "Node", "PodDisruptionBudget")
    if not objects:
        return
    obj = _pending_first(c, objects)
    kind = obj.get("kind")
    spec = _spec(obj)
    if spec is None:
        return
    if kind == "Node":
        which = c.integer(0, 2)
        if which == 0:
            spec["taints"] = [{"key": c.choice(TAINT_KEYS[:3]), "value": c.choice(("v", "")),
                               "effect": c.choice(("NoSchedule", "NoExecute", "PreferNoSchedule"))}
                              for _ in range(c.integer(1, 2))]
        elif which == 1:
            spec["unschedulable"] = c.choice((True, False))
        _meta(obj)["labels"] = {"zone": c.choice(LABEL_VALUES), "gpu": "true",
                                "rank": c.choice(LABEL_VALUES)}
    elif kind == "Pod":
        which = c.integer(0, 4)
        if which == 0:
            spec["tolerations"] = [
                {k: v for k, v in (("key", c.choice(TAINT_KEYS)),
                                   ("operator", c.choice(("Exists", "Equal", ""))),
                                   ("value", c.choice(("v", ""))),
                                   ("effect", c.choice(("NoSchedule", "NoExecute", ""))))
                 if v or c.integer(0, 1)}
                for _ in range(c.integer(1, 2))]
            for t in spec["tolerations"]:
                if t.get("operator") == "Exists":
                    t.pop("value", None)
        elif which == 1:
            spec["nodeSelector"] = {c.choice(("zone", "gpu", "rank")): c.choice(LABEL_VALUES)}
        elif which == 2:
            op = c.choice(("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"))
            values = {"In": [c.choice(LABEL_VALUES)], "NotIn": [c.choice(LABEL_VALUES)],
                      "Gt": [c.choice(("3", "-1", "0"))], "Lt": [c.choice(("3", "-1", "0"))]
                      }.get(op)
            expr: dict[str, Any] = {"key": c.choice(("zone", "rank", "gpu", "none")),
                                    "operator": op}
            if values:
                expr["values"] = values
            term: dict[str, Any] = {"matchExpressions": [expr]}
            if c.integer(0, 2) == 0:
                nodes = _names_of(objs, "Node") or ["n1"]
                term["matchFields"] = [{"key": "metadata.name",
                                        "operator": c.choice(("In", "NotIn")),
                                        "values": [c.choice(nodes)]}]
            spec["affinity"] = {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [term] * c.integer(0, 2)}}}
        elif which == 3:
            spec["nodeName"] = c.choice([*_names_of(objs, "Node"), "ghost"])
        else:
            _meta(obj)["labels"] = {"app": c.choice(("a", "b", "web", "training"))}
    else:
        spec["selector"] = c.choice(({}, {"matchLabels": {"app": "a"}},
                                     {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
                                     {"matchExpressions": [{"key": "app", "operator": "In",
                                                            "values": ["a", "training"]}]}))
        status = obj.setdefault("status", {})
        if type(status) is dict:
            status["disruptedPods"] = c.choice(({}, {"x": "2026-01-01T10:00:00Z"}))


def m_share(c: Chooser, objs: list[Any]) -> None:
    """Make two places hold the very same subtree: YAML output then carries an anchor and
    aliases (``&id001`` / ``*id001``), which the loader's alias checks must read."""
    everything = [s for s in slots(objs) if type(s[0][s[1]]) in (dict, list)]
    if len(everything) < 2:
        return
    src_c, src_k = c.choice(everything)
    dst_c, dst_k = c.choice(everything)
    shared = src_c[src_k]
    if dst_c is shared or _contains(shared, dst_c):
        return  # would make a recursive structure, which no serialiser writes
    dst_c[dst_k] = shared


def _contains(root: Any, target: Any) -> bool:
    todo = [root]
    while todo:
        node = todo.pop()
        if node is target:
            return True
        if type(node) is dict:
            todo.extend(v for v in node.values() if type(v) in (dict, list))
        elif type(node) is list:
            todo.extend(v for v in node if type(v) in (dict, list))
    return False


_CORPUS: list[tuple[str, list[dict[str, Any]]]] = []


def m_merge(c: Chooser, objs: list[Any]) -> None:
    """Add the objects of another fixture (duplicates, or new combinations of kinds and API
    shapes)."""
    if not _CORPUS:
        _CORPUS.extend(load_corpus())
    _, other = c.choice(_CORPUS)
    objs.extend(copy.deepcopy(other[: c.integer(1, len(other))]))


MUTATIONS: tuple[Callable[[Chooser, list[Any]], None], ...] = (
    m_drop, m_rename, m_retype, m_retype, m_number, m_name, m_duplicate, m_dangle,
    m_remove_object, m_transplant, m_kind, m_nest_list, m_requests, m_requests, m_priority,
    m_priority, m_shuffle,
    m_valid_int, m_valid_int, m_valid_amount, m_valid_amount, m_pod_state, m_pod_state,
    m_pod_state, m_policy, m_policy, m_clone, m_constraints, m_constraints, m_constraints,
    m_share, m_merge,
)


def mutate(c: Chooser, objects: list[dict[str, Any]], max_mutations: int = 4) -> list[Any]:
    """A mutated deep copy of ``objects`` (0..max_mutations edits; 0 keeps the fixture valid).
    Subtrees may end up shared (``m_share``): serialise, do not edit, the result."""
    objs: list[Any] = copy.deepcopy(objects)
    for _ in range(c.integer(0, max_mutations)):
        c.choice(MUTATIONS)(c, objs)
    return objs


# ---- serialising -------------------------------------------------------------------------------

FORMATS = ("yaml-docs", "yaml-list", "yaml-flow", "json-list", "json-compact", "json-one")


def _json_default(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else str(v)


def serialise(c: Chooser, objs: list[Any]) -> tuple[str, bytes]:
    """(format, bytes): multi-document YAML, one YAML List, flow YAML, or a JSON List; now and
    then corrupted as text (truncated, a byte changed)."""
    fmt = c.choice(FORMATS)
    if fmt == "json-one" and len(objs) != 1:
        fmt = "json-list"
    if fmt.startswith("json"):
        doc: Any = objs[0] if fmt == "json-one" else {"apiVersion": "v1", "kind": "List",
                                                       "items": objs}
        indent = None if fmt == "json-compact" else 2
        text = json.dumps(doc, indent=indent, default=_json_default, ensure_ascii=False)
    elif fmt == "yaml-docs":
        text = yaml.safe_dump_all(objs, allow_unicode=True, sort_keys=False) if objs else "---\n"
    else:
        doc = {"apiVersion": "v1", "kind": "List", "items": objs}
        text = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False,
                              default_flow_style=(fmt == "yaml-flow"), width=120)
    data = text.encode("utf-8")
    if data and c.integer(0, 9) == 0:
        pos = c.integer(0, len(data) - 1)
        how = c.integer(0, 3)
        if how == 0:
            data = data[:pos]
        elif how == 1:
            data = data[:pos] + bytes([c.integer(0, 255)]) + data[pos + 1:]
        elif how == 2:
            data = data[:pos] + c.choice((b"&a ", b"*a", b"!!python/object:os.system ",
                                          b"\t", b"---\n", b"{", b"]", b"\xef\xbb\xbf",
                                          b"\r\n", b":", b"- ", b"'", b'"')) + data[pos:]
        else:
            data = data + data[:pos]
    return fmt, data


# ---- the core path -------------------------------------------------------------------------------

MAX_PLANS = 3
SIM_STEPS = 12


def exercise_core(data: bytes, audit_base: list[Any] | None = None) -> str:
    """Run ``data`` (one snapshot) through load -> snapshot -> preemptors -> plan -> document,
    the cycle check, a short simulate and an audit; return what happened ("ok", or the
    WapctlError class name). Any other exception propagates: that is a bug."""
    from rich.console import Console

    from wapctl import audit, graph, ingest, preemption, preemptor, simulate
    from wapctl.errors import InputError, WapctlError
    from wapctl.render import audit as render_audit
    from wapctl.render import cycles as render_cycles
    from wapctl.render import plan as render_plan
    from wapctl.render import simulate as render_simulate
    from wapctl.render import validate as render_validate

    console = Console(file=io.StringIO(), width=100, no_color=True)
    try:
        documents = ingest.read_documents(["-"], stdin=io.BytesIO(data))
        snapshot = ingest.build_snapshot(documents)
    except InputError as exc:
        if exc.source is None:
            raise AssertionError(f"an input error that names no file: {exc}") from exc
        return type(exc).__name__
    outcome = "ok"
    render_validate.render_validation(render_validate.validation_to_dict(snapshot), console)
    queue = preemptor.pending_preemptors(snapshot)
    for p in queue[:MAX_PLANS]:
        plan = preemption.plan(snapshot, p)
        doc = render_plan.plan_to_dict(plan)
        json.dumps(doc)
        render_plan.render_plan(doc, console)
    try:
        first = preemptor.select_preemptor(snapshot)
        assert queue and first == queue[0]
    except WapctlError:
        assert not queue
    for pod in list(snapshot.pods)[:2]:
        try:
            preemption.plan(snapshot, preemptor.select_preemptor(snapshot, pod=pod))
        except WapctlError:
            pass
    for key in list(snapshot.pod_groups)[:2]:
        try:
            preemption.plan(snapshot, preemptor.select_preemptor(snapshot, workload=key))
        except WapctlError:
            pass
    report = graph.check(snapshot)
    json.dumps(render_cycles.report_to_dict(report))
    render_cycles.render_table(report, console)
    render_cycles.github_lines(report)
    result = simulate.simulate(snapshot, max_steps=SIM_STEPS)
    doc = render_simulate.simulation_to_dict(result)
    json.dumps(doc)
    render_simulate.render_simulation(doc, console)
    if audit_base is not None:
        change = [d for d in documents
                  if type(d.obj.get("kind")) is str
                  and d.obj["kind"] in ("PriorityClass", "Workload", "PodGroup")]
        try:
            ar = audit.audit(audit_base, change, max_plans=2)
        except WapctlError as exc:
            outcome = f"ok+audit:{type(exc).__name__}"
        else:
            json.dumps(render_audit.audit_to_dict(ar))
            render_audit.render_table(ar, console)
    return outcome


def base_documents(objects: list[dict[str, Any]]) -> list[Any] | None:
    """The fixture's own documents (for audit), or None when it does not load on its own
    (the audit change files are fragments)."""
    from wapctl import ingest
    from wapctl.errors import WapctlError

    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).encode()
    try:
        docs = ingest.read_documents(["-"], stdin=io.BytesIO(data))
        ingest.build_snapshot(docs)
    except WapctlError:
        return None
    return docs


# ---- the command line ----------------------------------------------------------------------------

CLEAN_EXIT_CODES = (0, 1, 2, 3)


ODD_TEXT = ("", "/", "//", "a//b", "default/", "/x", "x" * 300, "名/前", "-", "--", "\t",
            "ml/train/workers/extra", "default/p\n", "*", "0")
ODD_NUMBERS = ("0", "1", "-1", "2", "1e3", "nan", "inf", "99999999999999999999", "1.5", "", "x")
ODD_SIZES = ("", "0", "1", "100", "1Ki", "512Mi", "1.5.3Gi", "-0", "1e999", "NaN", "0.5",
             "1Ei", "9" * 80, "2Gi ", " ")


def cli_args(c: Chooser, snapshot: str, change: str) -> list[str]:
    """One command line over ``snapshot`` (a path or -), a change file for audit; now and then
    with odd option values (names, counts, sizes) too."""
    command = c.choice(("plan", "validate", "check-cycles", "simulate", "audit", "plan"))
    args = [command, snapshot]
    odd = c.integer(0, 3) == 0
    if command == "simulate":
        args += ["--max-steps", c.choice(ODD_NUMBERS) if odd else str(c.integer(1, SIM_STEPS))]
        if c.integer(0, 1):
            args.append("--no-requeue")
    elif command == "audit":
        args += ["--change", change]
        if c.integer(0, 2) == 0:
            args += ["--delete", c.choice(("PriorityClass/low", "Workload/ml/train", "Pod/x",
                                           "Node/n1", "bogus", "PriorityClass/", "a/b/c/d",
                                           "PodGroup/ml/train-workers", *ODD_TEXT))]
        if odd:
            args += ["--max-plans", c.choice(ODD_NUMBERS)]
    elif command == "plan" and (odd or c.integer(0, 2) == 0):
        args += [c.choice(("--pod", "--workload")),
                 c.choice(("default/p", "ml/train", "ml/train/workers", "x", "a/b/c",
                           *ODD_TEXT))]
    elif command == "check-cycles":
        if odd:
            args += ["--max-cycles", c.choice(ODD_NUMBERS)]
        if c.integer(0, 3) == 0:
            args += ["--format", "github"]
            return [*args, "--no-color"]
    if odd:
        args += ["--max-input-size", c.choice(ODD_SIZES)]
    if c.integer(0, 2) == 0:
        args += ["-n", c.choice(("default", "ml", "team-a", "none", "名前", *ODD_TEXT))]
    args += ["-o", c.choice(("json", "yaml", "table"))]
    return [*args, "--no-color"]


def check_cli_result(exit_code: int, output: str) -> str | None:
    """Why a CLI run was not clean, or None."""
    if exit_code not in CLEAN_EXIT_CODES:
        return f"exit code {exit_code}"
    for bad in ("Traceback", "internal error"):
        if bad in output:
            return f"{bad!r} in the output"
    return None
