"""ingest.BuildCache: a second build that takes over what the first learnt of each pod document
(what ``audit`` does for the snapshot after a change) gives exactly the snapshot, or the
error, of a build from scratch.

Oracle: ``build_snapshot`` of the same documents without the cache. Inputs: every fixture
snapshot, each with changes that move what a cached pod must resolve again -- its classes'
values and policies, a deleted class, a new globalDefault, a Workload's classes -- while the
pod documents stay the same objects (as ``audit.apply_change`` keeps them).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from wapctl import ingest
from wapctl.errors import InputError
from wapctl.ingest import assemble, rebuild
from wapctl.model import LoadWarning, Pod, PodGroup, Workload

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = sorted(
    p
    for p in (ROOT / "fixtures").rglob("*")
    if p.suffix in (".json", ".yaml", ".yml") and ".expected." not in p.name
)


def _readable(path: Path) -> list[ingest.Document] | None:
    try:
        return ingest.read_documents([str(path)])
    except InputError:
        return None


def _changed(docs: list[ingest.Document], kind: str,
             change: Callable[[dict[str, Any]], dict[str, Any] | None],
             every: int = 1) -> list[ingest.Document]:
    """The documents with every (``every``-th) object of ``kind`` replaced by ``change(copy)``
    (None: deleted); the other documents are the same objects."""
    out = []
    n = 0
    for d in docs:
        if d.obj.get("kind") != kind:
            out.append(d)
            continue
        n += 1
        if n % every:
            out.append(d)
            continue
        new = change(copy.deepcopy(d.obj))
        if new is not None:
            out.append(ingest.Document(d.source, new))
    return out


def _bump(obj: dict[str, Any]) -> dict[str, Any]:
    if type(obj.get("value")) is int:
        obj["value"] += 7
    return obj


def _never(obj: dict[str, Any]) -> dict[str, Any]:
    obj["preemptionPolicy"] = "Never"
    return obj


def _flip_default(obj: dict[str, Any]) -> dict[str, Any]:
    obj["globalDefault"] = not obj.get("globalDefault")
    return obj


def _drop_first_class() -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    dropped: list[str] = []

    def change(obj: dict[str, Any]) -> dict[str, Any] | None:
        if not dropped:
            dropped.append(obj["metadata"]["name"])
            return None
        return obj

    return change


def _workload_classes(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    if type(spec) is dict:
        spec.pop("priorityClassName", None)
        spec["preemptionPriorityClassName"] = "no-such-class"
    return obj


def _group_class(obj: dict[str, Any]) -> dict[str, Any]:
    """A PodGroup (v1alpha2/3) that names another class than its pods: they diverge."""
    spec = obj.get("spec")
    if type(spec) is dict:
        spec["priorityClassName"] = "system-cluster-critical"
        spec.pop("priority", None)
    return obj


def _own_priority(obj: dict[str, Any]) -> dict[str, Any]:
    """A pod (a new document: not in the cache) carrying a priority of its own."""
    spec = obj.get("spec")
    if type(spec) is dict:
        spec["priority"] = 123
    return obj


CHANGES = {
    "class values": ("PriorityClass", _bump),
    "class policies": ("PriorityClass", _never),
    "globalDefault": ("PriorityClass", _flip_default),
    "deleted class": ("PriorityClass", None),
    "workload classes": ("Workload", _workload_classes),
    # pods read again resolve against pod groups that moved, vanished or now disagree
    "pod group classes": ("PodGroup", _group_class),
    "deleted pod groups": ("PodGroup", lambda obj: None),
    "deleted workloads": ("Workload", lambda obj: None),
    # pods read again next to new pod documents of the same groups and classes
    "new pod documents": ("Pod", _own_priority),
}
EVERY = {"new pod documents": 2}  # the other pods stay the same documents


def _outcome(docs: list[ingest.Document], cache: ingest.BuildCache | None) -> Any:
    try:
        return ingest.build_snapshot(docs, reuse=cache)
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_second_build_with_the_cache_is_a_build_from_scratch(path: Path, change: str) -> None:
    docs = _readable(path)
    if docs is None:
        pytest.skip("not a readable snapshot (an input-error fixture)")
    kind, how = CHANGES[change]
    after = _changed(docs, kind, how if how is not None else _drop_first_class(),
                     EVERY.get(change, 1))
    cache = ingest.BuildCache()
    assert _outcome(docs, cache) == _outcome(docs, None)
    assert _outcome(after, cache) == _outcome(after, None)
    # and back: the cache holds what the first build learnt, not what the second one resolved
    assert _outcome(docs, cache) == _outcome(docs, None)


def test_a_pod_the_change_leaves_alone_is_shared_and_one_it_moves_is_new() -> None:
    """Raising one class's value re-resolves the pods whose priority comes from it (here the
    pending pod ``urgent``, class ``high``, no spec.priority); the others are the same objects
    in both snapshots."""
    docs = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    changed = _changed(docs, "PriorityClass",
                       lambda o: _bump(o) if o["metadata"]["name"] == "high" else o)
    after = ingest.build_snapshot(changed, reuse=cache)
    scratch = ingest.build_snapshot(changed)
    shared = 0
    for key, pod in before.pods.items():
        assert after.pods[key] == scratch.pods[key]
        assert (after.pods[key] is pod) == (scratch.pods[key] == pod)
        shared += after.pods[key] is pod
    assert shared == len(before.pods) - 1
    assert after.pods["default/urgent"].priority == before.pods["default/urgent"].priority + 7


def _member(name: str, priority: int, never: bool = False) -> dict[str, Any]:
    """A pod of the v1alpha1 group ml/train/workers carrying its own priority."""
    spec: dict[str, Any] = {
        "priority": priority,
        "workloadRef": {"name": "train", "podGroup": "workers"},
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
    }
    if never:
        spec["preemptionPolicy"] = "Never"
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ml"},
            "spec": spec}


GROUP_FROM_MEMBERS = [
    {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
     "metadata": {"name": "train", "namespace": "ml"},
     "spec": {"podGroups": [{"name": "workers", "policy": {"gang": {"minCount": 3}}}]}},
    {"apiVersion": "v1", "kind": "List", "items": [
        _member("w-0", 9), _member("w-1", 5), _member("w-2", 9, never=True),
        _member("w-3", 5), _member("w-4", 9, never=True),
    ]},
]


def test_pods_read_again_still_give_their_group_its_priority(tmp_path: Path) -> None:
    """A v1alpha1 group without a class takes the lowest priority of its pods, and any pod's
    preemptionPolicy Never makes the group Never (priority.group_values). Derived by hand:
    pods 9, 5, 9 (Never), 5 and 9 (Never) -> the group is 5, Never. The second build reads
    every pod document again; pods with the same (priority, class, policy, group) resolve once
    (rebuild.pod_again), and every pod must still count as a member, with its policy."""
    path = tmp_path / "group.yaml"
    path.write_text(yaml.safe_dump_all(GROUP_FROM_MEMBERS))
    docs = ingest.read_documents([str(path)])
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    added = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    classes = [d for d in added if d.obj.get("kind") == "PriorityClass"]
    after = ingest.build_snapshot([*docs, *classes], reuse=cache)
    for snap in (before, after):
        group = snap.pod_groups["ml/train/workers"]
        assert (group.priority, group.preemption_policy) == (5, "Never")
    assert after == ingest.build_snapshot([*docs, *classes])
    assert all(after.pods[k] is before.pods[k] for k in before.pods)


# ---- the model objects: what the loader makes is what their constructors make --------------


def test_loaded_pods_groups_and_workloads_are_built_by_their_constructors() -> None:
    """preemption-priority.yaml's pending pod, a Workload member, its group and its Workload,
    worked out by hand from the fixture (classes high=1000, batch-low=100, protected=2000),
    equal what ``Pod(...)``, ``PodGroup(...)`` and ``Workload(...)`` make; they are frozen."""
    snap = ingest.build_snapshot(
        ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")]))
    urgent = Pod(namespace="default", name="urgent", key="default/urgent",
                 requests={"cpu": 4000}, priority=1000, preemption_priority=1000,
                 own_preemption_policy="PreemptLowerPriority", priority_class_name="high",
                 own_priority=1000)
    sim = Pod(namespace="research", name="sim-0", key="research/sim-0", requests={"cpu": 4000},
              priority=100, preemption_priority=2000,
              own_preemption_policy="PreemptLowerPriority", node_name="n1", phase="Running",
              group_key="research/sim/main", start_time=1767258000.0)
    group = PodGroup(namespace="research", workload="sim", name="main", key="research/sim/main",
                     policy="Basic", min_count=None, disruption_mode="Pod", priority=100,
                     preemption_priority=2000, preemption_policy="PreemptLowerPriority",
                     priority_class_name="batch-low", preemption_priority_class_name="protected",
                     declared_preemption_policy="PreemptLowerPriority")  # batch-low's default
    workload = Workload(namespace="research", name="sim", key="research/sim",
                        api_version="scheduling.k8s.io/v1alpha1", group_names=("main",),
                        priority_class_name="batch-low",
                        preemption_priority_class_name="protected")
    loaded = (snap.pods["default/urgent"], snap.pods["research/sim-0"],
              snap.pod_groups["research/sim/main"], snap.workloads["research/sim"])
    for obj, expected in zip(loaded, (urgent, sim, group, workload), strict=True):
        assert type(obj) is type(expected)
        assert msgspec.structs.replace(obj, source=None) == expected
        with pytest.raises(AttributeError):
            obj.name = "other"  # type: ignore[misc]


def test_a_second_build_re_resolves_a_changed_class_into_a_new_pod() -> None:
    """A class whose value and policy change (high: 1000 -> 1007, Never): the second build with
    the cache gives its pod the new priorities and policies -- the pod a first build makes, by
    hand ``Pod(...)`` -- and leaves the first snapshot's pod as it was."""
    docs = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    first = before.pods["default/urgent"]
    kept = msgspec.structs.asdict(first)

    def change(obj: dict[str, Any]) -> dict[str, Any]:
        return _never(_bump(obj)) if obj["metadata"]["name"] == "high" else obj

    changed = _changed(docs, "PriorityClass", change)
    after = ingest.build_snapshot(changed, reuse=cache)
    assert after == ingest.build_snapshot(changed)
    again = after.pods["default/urgent"]
    assert type(again) is Pod and again is not first
    assert msgspec.structs.replace(again, source=None) == Pod(
        namespace="default", name="urgent", key="default/urgent", requests={"cpu": 4000},
        priority=1007, preemption_priority=1007, preemption_policy="Never",
        own_preemption_policy="Never", priority_class_name="high", own_priority=1007)
    assert again.source == first.source
    assert msgspec.structs.asdict(first) == kept


# ---- audit.plan_changes: a plan the change cannot touch is planned once --------------------

NEW_CLASS = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
             "metadata": {"name": "audit-test-new"}, "value": 7}


@pytest.mark.parametrize("change", ["added unused class", "class values"])
@pytest.mark.parametrize(
    "path", sorted((ROOT / "fixtures" / "plan").glob("*.yaml")), ids=lambda p: p.name
)
def test_plan_changes_reusing_plans_is_planning_both_sides(
    path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the plan of the snapshot before reused where nothing a plan reads changed, the
    plan changes are those of planning both sides; a class-value change is not reused."""
    from wapctl import audit

    docs = ingest.read_documents([str(path)])
    if change == "added unused class":
        after_docs = [*docs, ingest.Document(docs[0].source, NEW_CLASS)]
    else:
        after_docs = _changed(docs, "PriorityClass", _bump)
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    after = ingest.build_snapshot(after_docs, reuse=cache)
    assert audit.same_for_planning(before, after) is (change == "added unused class")
    reused = audit.plan_changes(before, after, max_plans=10)
    monkeypatch.setattr(audit, "same_for_planning", lambda b, a: False)
    assert audit.plan_changes(before, after, max_plans=10) == reused


# ---- audit.audit: one priority graph for both sides when the change cannot touch it -------


@pytest.mark.parametrize("change", ["added unused class", "class values"])
@pytest.mark.parametrize(
    "path",
    sorted([*(ROOT / "fixtures" / "cycles").glob("*.yaml"),
            *(ROOT / "fixtures" / "plan").glob("*.yaml")]),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_audit_sharing_the_graph_is_building_both(
    path: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where nothing the priority graph reads changed (an added class nobody names), audit
    uses the graph, its cycles and violations of the snapshot before for both sides; the
    report is the one of building both graphs. A class-value change builds both."""
    from wapctl import audit
    from wapctl.render.audit import audit_to_dict

    docs = _readable(path)
    assert docs is not None  # every cycles/ and plan/ fixture is a readable snapshot
    if change == "added unused class":
        proposed = [ingest.Document(docs[0].source, NEW_CLASS)]
    else:
        proposed = [ingest.Document(d.source, _bump(copy.deepcopy(d.obj)))
                    for d in docs if d.obj.get("kind") == "PriorityClass"]
    try:
        shared = audit.audit(docs, proposed)
    except InputError as exc:
        shared = str(exc)  # type: ignore[assignment]
    monkeypatch.setattr(audit, "same_for_graph", lambda b, a: False)
    try:
        both = audit.audit(docs, proposed)
    except InputError as exc:
        both = str(exc)  # type: ignore[assignment]
    if isinstance(shared, str):
        assert shared == both
        return
    if change == "added unused class":
        assert shared.graph_after is shared.graph_before
    assert audit_to_dict(shared) == audit_to_dict(both)  # type: ignore[arg-type]


# ---- cache.Memory: a second build from the memory of the first is a build from scratch -----
#
# Oracle: ``build_snapshot`` of the same documents without a cache. The documents are a small
# cluster drawn at random (classes, v1alpha1 Workloads, v1alpha2 Workloads and PodGroups, pods
# naming them -- or classes and groups that do not exist -- nodes, a Namespace, a PDB, an ignored
# kind), then changed by random edits that keep every other document the same object, as
# ``audit.apply_change`` does: classes' values, policies and globalDefault, classes added and
# removed, Workloads and PodGroups changed or removed, pods added, removed or replaced,
# documents moved, a document given twice, a duplicate name, a document that does not read.

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from wapctl.errors import Source  # noqa: E402

CLASS_NAMES = ["low", "mid", "high", "top"]
NAMED_CLASSES = [*CLASS_NAMES, "ghost"]  # ghost: never in the snapshot
GROUP_REFS = [  # missing groups are warnings
    None, None,
    ("Workload", "wl-a", "g1"), ("Workload", "wl-a", "g2"), ("Workload", "wl-b", "g1"),
    ("Workload", "wl-gone", "g1"),
    ("PodGroup", "pg-x"), ("PodGroup", "pg-y"), ("PodGroup", "pg-gone"), ("PodGroup", None),
]
# what a build refuses: no such group in the Workload; a v1alpha2 Workload named the v1alpha1
# way; a class the snapshot lacks with no number standing in for it
BAD_POD = st.sampled_from([
    (100, "low", False, ("Workload", "wl-a", "nope"), None),
    (100, "low", False, ("Workload", "wl-new", "tpl"), None),
    (None, "ghost", False, None, None),
])


def _class(name: str, value: int, never: bool, default: bool) -> dict[str, Any]:
    obj: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": name}, "value": value}
    if never:
        obj["preemptionPolicy"] = "Never"
    if default:
        obj["globalDefault"] = True
    return obj


def _workload_v1(name: str, pcn: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"podGroups": [
        {"name": "g1", "policy": {"gang": {"minCount": 2}}},
        {"name": "g2", "policy": {"basic": {}}},
    ]}
    if pcn is not None:
        spec["priorityClassName"] = pcn
    return {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec}


def _workload_v2(pcn: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
            "metadata": {"name": "wl-new", "namespace": "ml"},
            "spec": {"podGroupTemplates": [{"name": "tpl", "schedulingPolicy": {"basic": {}},
                                            "priorityClassName": pcn}]}}


def _pod_group(name: str, pcn: str | None, priority: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "podGroupTemplateRef": {"workload": {"workloadName": "wl-new",
                                             "podGroupTemplateName": "tpl"}},
        "schedulingPolicy": {"basic": {}},
    }
    if pcn is not None:
        spec["priorityClassName"] = pcn
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml"}, "spec": spec}


def _pod_doc(name: str, ns: str, priority: int | None, pcn: str | None, never: bool,
             ref: tuple[Any, ...] | None, node: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    if priority is not None:
        spec["priority"] = priority
    if pcn is not None:
        spec["priorityClassName"] = pcn
    if never:
        spec["preemptionPolicy"] = "Never"
    if ref is not None and ref[0] == "Workload":
        spec["workloadRef"] = {"name": ref[1], "podGroup": ref[2]}
    elif ref is not None:
        spec["schedulingGroup"] = {"podGroupName": ref[1]}
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": spec}


# Mostly what admission writes (a class name with its number, or neither), sometimes a
# number alone or a class alone.
OWN_PRIORITY = st.sampled_from([
    *[(n, c) for n in (5, 100, 700) for c in ("low", "mid", "high", "top", "ghost")],
    (None, None), (None, None), (None, None), (5, None), (None, "low"), (None, "mid"),
])
pods_st = st.builds(
    lambda own, never, ref, node: (*own, never, ref, node),
    OWN_PRIORITY,
    st.booleans(),
    st.sampled_from(GROUP_REFS),
    st.sampled_from([None, "n1"]),
)


@st.composite
def clusters(draw: st.DrawFn) -> list[ingest.Document]:
    objs: list[dict[str, Any]] = []
    for name in CLASS_NAMES:  # all of them: the edits remove some
        objs.append(_class(name, draw(st.sampled_from([10, 100, 500, 1000])),
                           draw(st.booleans()), name == "mid" and draw(st.booleans())))
    objs.append(_workload_v1("wl-a", draw(st.sampled_from([None, *CLASS_NAMES]))))
    objs.append(_workload_v1("wl-b", draw(st.sampled_from([None, *CLASS_NAMES]))))
    objs.append(_workload_v2(draw(st.sampled_from(CLASS_NAMES))))
    for name in ("pg-x", "pg-y"):
        objs.append(_pod_group(name, draw(st.sampled_from([None, *CLASS_NAMES])),
                               draw(st.sampled_from([None, 100, 900]))))
    objs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
                 "status": {"allocatable": {"cpu": "8", "pods": "110"}}})
    objs.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml"}})
    objs.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                 "metadata": {"name": "pdb", "namespace": "ml"},
                 "spec": {"selector": {"matchLabels": {"app": "x"}}},
                 "status": {"disruptionsAllowed": 1}})
    objs.append({"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": "cm", "namespace": "ml"}})
    specs = draw(st.lists(pods_st, min_size=1, max_size=14))
    if draw(st.integers(0, 7)) == 0:
        specs.append(draw(BAD_POD))
    for i, (priority, pcn, never, ref, node) in enumerate(specs):
        objs.append(_pod_doc(f"p{i}", draw(st.sampled_from(["ml", "web"])), priority, pcn,
                             never, ref, node))
    order = draw(st.permutations(range(len(objs))))
    return [ingest.Document(Source("cluster.yaml", n + 1), objs[i]) for n, i in enumerate(order)]


def _edit(docs: list[ingest.Document], draw: st.DrawFn) -> list[ingest.Document]:
    """One random edit of the documents; the others stay the same objects."""
    out = list(docs)
    what = draw(st.sampled_from([  # the edits that make an error, less often
        "class", "class", "class", "class gone", "class added", "workload", "workload", "gone",
        "pod replaced", "pod added", "moved", "pod group", "pod group",
        "twice", "duplicate name", "unreadable",
    ]))
    kinds = [i for i, d in enumerate(out) if d.obj.get("kind") == "PriorityClass"]
    pods = [i for i, d in enumerate(out) if d.obj.get("kind") == "Pod"]
    src = Source("change.yaml", draw(st.integers(1, 1000)))
    if what == "class" and kinds:
        i = draw(st.sampled_from(kinds))
        new = copy.deepcopy(out[i].obj)
        how = draw(st.sampled_from(["value", "never", "default"]))
        if how == "value":
            new["value"] = draw(st.sampled_from([10, 100, 500, 1000, 4500]))
        elif how == "never":
            new["preemptionPolicy"] = "Never" if new.get("preemptionPolicy") is None else None
        else:
            new["globalDefault"] = not new.get("globalDefault")
        out[i] = ingest.Document(src, new)
    elif what == "class gone" and kinds:
        del out[draw(st.sampled_from(kinds))]
    elif what == "class added":
        name = draw(st.sampled_from(["ghost", "extra", "low"]))  # low: a duplicate
        out.append(ingest.Document(src, _class(name, draw(st.sampled_from([1, 600])), False,
                                              draw(st.booleans()))))
    elif what in ("workload", "pod group", "gone"):
        kind = {"workload": "Workload", "pod group": "PodGroup"}.get(
            what, draw(st.sampled_from(["Workload", "PodGroup", "Node", "Namespace",
                                        "ConfigMap", "Pod", "PodDisruptionBudget"])))
        found = [i for i, d in enumerate(out) if d.obj.get("kind") == kind]
        if found:
            i = draw(st.sampled_from(found))
            if what == "gone":
                del out[i]
            elif kind == "Workload" and out[i].obj["apiVersion"].endswith("v1alpha1"):
                out[i] = ingest.Document(src, _workload_v1(
                    out[i].obj["metadata"]["name"], draw(st.sampled_from([None, *NAMED_CLASSES]))))
            elif kind == "Workload":
                out[i] = ingest.Document(src, _workload_v2(draw(st.sampled_from(CLASS_NAMES))))
            else:
                out[i] = ingest.Document(src, _pod_group(
                    out[i].obj["metadata"]["name"], draw(st.sampled_from([None, *NAMED_CLASSES])),
                    draw(st.sampled_from([None, 3, 900]))))
    elif what == "pod replaced" and pods:
        i = draw(st.sampled_from(pods))
        new = copy.deepcopy(out[i].obj)
        new["spec"]["priority"] = draw(st.sampled_from([1, 100, 700]))
        out[i] = ingest.Document(src, new)
    elif what == "pod added":
        priority, pcn, never, ref, node = draw(pods_st if draw(st.integers(0, 5)) else BAD_POD)
        doc = ingest.Document(src, _pod_doc(f"new{draw(st.integers(0, 3))}", "ml", priority, pcn,
                                           never, ref, node))
        out.insert(draw(st.integers(0, len(out))), doc)
    elif what == "moved" and len(out) > 1:
        doc = out.pop(draw(st.integers(0, len(out) - 1)))
        out.insert(draw(st.integers(0, len(out))), doc)
    elif what == "twice" and out:
        out.insert(draw(st.integers(0, len(out))), draw(st.sampled_from(out)))
    elif what == "duplicate name" and pods:
        # the same pod, another object and source: refused as a duplicate
        out.insert(draw(st.integers(0, len(out))),
                   ingest.Document(src, copy.deepcopy(out[draw(st.sampled_from(pods))].obj)))
    elif what == "unreadable":
        bad = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad", "namespace": "ml"},
               "spec": {"priority": "high"}}
        out.insert(draw(st.integers(0, len(out))), ingest.Document(src, bad))
    return out


def _exactly(docs: list[ingest.Document], cache: ingest.BuildCache | None) -> Any:
    """The outcome of a build, with the order of every mapping (the snapshot's iteration
    order is part of its contract) and of the warnings."""
    try:
        snap = ingest.build_snapshot(docs, reuse=cache)
    except InputError as exc:
        return ("error", str(exc))
    orders = tuple(list(m) for m in (snap.nodes, snap.pods, snap.priority_classes,
                                     snap.workloads, snap.pod_groups, snap.ignored_kinds,
                                     snap.namespaces, snap.templates))
    return snap, orders, snap.warnings


@st.composite
def edited(draw: st.DrawFn) -> tuple[list[ingest.Document], list[list[ingest.Document]]]:
    docs = draw(clusters())
    steps = []
    current = docs
    for _ in range(draw(st.integers(1, 3))):
        for _ in range(draw(st.integers(1, 3))):
            current = _edit(current, draw)
        steps.append(current)
    return docs, steps


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited())
def test_builds_from_memory_are_builds_from_scratch(
    case: tuple[list[ingest.Document], list[list[ingest.Document]]],
) -> None:
    """Every build with the cache -- the first, then each edit in turn, then the first
    documents again -- equals the build from scratch, order included; an error is the same
    error."""
    docs, steps = case
    cache = ingest.BuildCache()
    for current in (docs, *steps, docs):
        assert _exactly(current, cache) == _exactly(current, None)


def test_a_class_change_takes_the_pods_from_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual audit change -- a class's value -- goes the memory's way (sort_again, then
    pods_again for the unchanged pod documents), not the ordinary one."""
    docs = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    calls: list[str] = []
    for module, name in ((assemble, "_sort"), (rebuild, "sort_again"), (assemble, "_pods"),
                         (rebuild, "pods_again")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _r=real, _n=name: calls.append(_n) or _r(*a))
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    assert calls == ["_sort", "_pods"]
    calls.clear()
    changed = _changed(docs, "PriorityClass",
                       lambda o: _bump(o) if o["metadata"]["name"] == "high" else o)
    assert ingest.build_snapshot(changed, reuse=cache) == ingest.build_snapshot(changed)
    assert calls[:2] == ["sort_again", "pods_again"]


def test_an_error_resolving_the_pods_from_memory_is_the_error_from_scratch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pod without spec.priority names a class the change deletes: an error, which the
    memory's way (pods_again) meets first; the build reports it as a build from scratch does
    (naming the first such pod in document order, here p-0)."""
    def pod(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "a"},
                "spec": {"priorityClassName": "gone-soon", "containers": []}}

    klass = _class("gone-soon", 10, False, False)
    src = Source("c.yaml", 1)
    docs = [ingest.Document(Source("c.yaml", i + 2), pod(f"p-{i}")) for i in range(3)]
    docs.insert(1, ingest.Document(src, klass))
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    raised: list[str] = []
    real = rebuild.pods_again

    def spy(*args: Any) -> Any:
        try:
            return real(*args)
        except InputError as exc:
            raised.append(str(exc))
            raise

    monkeypatch.setattr(rebuild, "pods_again", spy)
    after = [d for d in docs if d.obj is not klass]
    with pytest.raises(InputError) as cached:
        ingest.build_snapshot(after, reuse=cache)
    with pytest.raises(InputError) as scratch:
        ingest.build_snapshot(after)
    assert raised  # the memory's way was taken, and gave up
    assert str(cached.value) == str(scratch.value)
    assert "Pod a/p-0" in str(scratch.value)


def test_a_cache_whose_entries_were_taken_out_builds_the_ordinary_way() -> None:
    """Entries taken out of the cache between builds (here all of them) leave the memory of
    the last build without what its pods were made from: the next build, with one more pod
    or with a class changed, is still the build from scratch (it used to fail with KeyError
    when the pods were read again)."""
    docs = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    extra = ingest.Document(Source("extra.yaml", 1), {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late", "namespace": "default"},
        "spec": {"priorityClassName": "high", "containers": []}})
    changed = _changed(docs, "PriorityClass",
                       lambda o: _bump(o) if o["metadata"]["name"] == "high" else o)
    for after in ([*docs, extra], changed):
        cache = ingest.BuildCache()
        ingest.build_snapshot(docs, reuse=cache)
        cache.clear()
        assert _exactly(after, cache) == _exactly(after, None)


def test_long_stretches_of_unchanged_documents_are_taken_whole() -> None:
    """1,000 pod documents behind one class: the second build compares the unchanged
    documents a stretch at a time (longer stretches as they keep matching), so a change deep
    in a long stretch -- pod p-700 replaced by one without a class, and the class's value
    raised from 10 to 20 -- must still be found. Hand-worked: every pod then has priority 20
    but p-700, which has no class and no globalDefault to fall back on: 0. The build is the
    build from scratch, and so is the first documents' build again."""
    src = Source("big.yaml", 1)

    def pod(i: int, pcn: str | None) -> ingest.Document:
        return ingest.Document(Source("big.yaml", i + 2),
                               _pod_doc(f"p-{i}", "a", None, pcn, False, None, None))

    docs = [ingest.Document(src, _class("c", 10, False, False)),
            *(pod(i, "c") for i in range(1000))]
    cache = ingest.BuildCache()
    assert _exactly(docs, cache) == _exactly(docs, None)
    after = list(docs)
    after[0] = ingest.Document(src, _class("c", 20, False, False))
    after[1 + 700] = pod(700, None)
    snap = ingest.build_snapshot(after, reuse=cache)
    priorities = {key: p.priority for key, p in snap.pods.items()}
    assert priorities == {f"a/p-{i}": 0 if i == 700 else 20 for i in range(1000)}
    assert _exactly(after, None) == _exactly(after, cache)
    assert _exactly(docs, cache) == _exactly(docs, None)


@pytest.mark.parametrize("b_ref", [("wl-a", "g2"), ("wl-b", "g1")],
                         ids=["another pod group", "another Workload"])
def test_pods_read_again_stay_in_their_own_workload_pod_group(b_ref: tuple[str, str]) -> None:
    """Pods alike in all but the pod group they name (v1alpha1 ``spec.workloadRef``: another
    ``podGroup`` of the same Workload, or the same ``podGroup`` name in another Workload) do
    not resolve alike when they are read again from memory -- here in a second build with the
    class's value changed and one pod document added, so each known pod is read again on its
    own. Hand-worked: a-1 and a-2 name group g1 of Workload ml/wl-a, b-1 names ``b_ref``
    (ml/wl-a's g2, or ml/wl-b's g1), c-1 (new) none; all four class mid (100, then 200): keys
    ml/wl-a/g1, ml/<b_ref>, ml/wl-a/g1, none, priority 200 each; and the build is the build
    from scratch."""
    src = Source("wl.yaml", 1)
    refs = (("a-1", ("wl-a", "g1")), ("b-1", b_ref), ("a-2", ("wl-a", "g1")))
    workloads = sorted({wl for _, (wl, _) in refs})
    docs = [ingest.Document(src, _class("mid", 100, False, False)),
            *(ingest.Document(Source("wl.yaml", 2 + k), _workload_v1(wl, None))
              for k, wl in enumerate(workloads))]
    docs += [ingest.Document(Source("wl.yaml", len(docs) + 1 + i),
                             _pod_doc(name, "ml", None, "mid", False, ("Workload", *ref), None))
             for i, (name, ref) in enumerate(refs)]
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    after = [ingest.Document(src, _class("mid", 200, False, False)), *docs[1:],
             ingest.Document(Source("wl.yaml", len(docs) + 1),
                             _pod_doc("c-1", "ml", None, "mid", False, None, None))]
    snap = ingest.build_snapshot(after, reuse=cache)
    assert {k: (p.group_key, p.priority) for k, p in snap.pods.items()} == {
        "ml/a-1": ("ml/wl-a/g1", 200),
        "ml/b-1": (f"ml/{b_ref[0]}/{b_ref[1]}", 200),
        "ml/a-2": ("ml/wl-a/g1", 200),
        "ml/c-1": (None, 200),
    }
    assert _exactly(after, cache) == _exactly(after, None)


def test_pods_whose_missing_groups_appear_each_resolve_into_their_own() -> None:
    """Pods naming pod groups the snapshot lacks (a warning: each is planned standalone) do not
    resolve alike when read again from memory: audit's build of a change that adds the
    Workloads must put each pod in the group it names. Hand-worked: a-1 names ml/wl-a's g1,
    b-1 names ml/wl-b's g1, neither has a class or priority of its own; first build: no
    Workloads, both standalone with priority 0; the change adds wl-a (class high, 1000) and
    wl-b (class low, 10), the pod documents unchanged (read again from memory): a-1 in
    ml/wl-a/g1 with priority 1000, b-1 in ml/wl-b/g1 with 10; the build is the build from
    scratch."""
    src = Source("wl.yaml", 1)
    docs = [ingest.Document(src, _class("high", 1000, False, False)),
            ingest.Document(Source("wl.yaml", 2), _class("low", 10, False, False)),
            *(ingest.Document(Source("wl.yaml", i + 3),
                              _pod_doc(name, "ml", None, None, False, ("Workload", wl, "g1"),
                                       None))
              for i, (name, wl) in enumerate((("a-1", "wl-a"), ("b-1", "wl-b"))))]
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    assert {k: (p.group_key, p.priority) for k, p in before.pods.items()} == {
        "ml/a-1": (None, 0), "ml/b-1": (None, 0)}
    after = [*docs, ingest.Document(Source("wl.yaml", 5), _workload_v1("wl-a", "high")),
             ingest.Document(Source("wl.yaml", 6), _workload_v1("wl-b", "low"))]
    snap = ingest.build_snapshot(after, reuse=cache)
    assert {k: (p.group_key, p.priority) for k, p in snap.pods.items()} == {
        "ml/a-1": ("ml/wl-a/g1", 1000), "ml/b-1": ("ml/wl-b/g1", 10)}
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    assert _exactly(after, cache) == _exactly(after, None)


def test_a_kind_whose_last_ignored_document_is_gone_is_no_longer_listed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Snapshot.ignored_kinds`` (validate's ``ignoredKinds``) counts the documents of each
    kind wapctl does not read; a kind none is left of is not listed. A second build from
    memory (audit's, after a change that deletes objects) takes the deleted ignored documents
    off the counts it took over and must drop a kind that falls to 0, as the build from scratch
    never lists it. Hand-worked: a class, a pod, two ConfigMaps and a Secret: ConfigMap 2,
    Secret 1; then the Secret and one ConfigMap deleted (the other documents the same
    objects): ConfigMap 1 and no Secret, and the build is the build from scratch."""
    def doc(line: int, kind: str, name: str) -> ingest.Document:
        return ingest.Document(Source("c.yaml", line), {
            "apiVersion": "v1", "kind": kind, "metadata": {"name": name, "namespace": "ml"}})

    docs = [ingest.Document(Source("c.yaml", 1), _class("low", 10, False, False)),
            doc(2, "ConfigMap", "cm-1"), doc(3, "Secret", "s"), doc(4, "ConfigMap", "cm-2"),
            ingest.Document(Source("c.yaml", 5),
                            _pod_doc("p", "ml", None, "low", False, None, None))]
    cache = ingest.BuildCache()
    assert {"ConfigMap": 2, "Secret": 1} == ingest.build_snapshot(docs, reuse=cache).ignored_kinds
    calls: list[str] = []
    real = rebuild.sort_again

    def recorded(*args: Any) -> Any:
        calls.append("sort_again")
        return real(*args)

    monkeypatch.setattr(rebuild, "sort_again", recorded)
    after = [docs[0], docs[1], docs[4]]
    snap = ingest.build_snapshot(after, reuse=cache)
    assert (["sort_again"], {"ConfigMap": 1}) == (calls, snap.ignored_kinds)
    monkeypatch.undo()
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    assert _exactly(after, cache) == _exactly(after, None)


def test_an_ignored_document_replaced_in_place_is_counted_once() -> None:
    """``Snapshot.ignored_kinds`` (validate's ``ignoredKinds``) counts each document of a kind
    wapctl does not read once, also in a second build from memory (audit's) where such a
    document was replaced in place -- another object at the same position, the documents
    around it the same objects -- past the start of the input. Hand-worked: a class, two
    ConfigMaps, a pod: ConfigMap 2; then the second ConfigMap (position 2) replaced by an
    edited copy: still ConfigMap 2 (the replacement counts, the replaced one no longer does),
    and the build is the build from scratch."""
    def config_map(line: int, name: str, value: str) -> ingest.Document:
        return ingest.Document(Source("c.yaml", line), {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "ml"},
            "data": {"k": value}})

    docs = [ingest.Document(Source("c.yaml", 1), _class("low", 10, False, False)),
            config_map(2, "cm-1", "a"), config_map(3, "cm-2", "a"),
            ingest.Document(Source("c.yaml", 4),
                            _pod_doc("p", "ml", None, "low", False, None, None))]
    cache = ingest.BuildCache()
    assert {"ConfigMap": 2} == ingest.build_snapshot(docs, reuse=cache).ignored_kinds
    after = [docs[0], docs[1], config_map(3, "cm-2", "b"), docs[3]]
    assert {"ConfigMap": 2} == ingest.build_snapshot(after, reuse=cache).ignored_kinds
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    assert _exactly(after, cache) == _exactly(after, None)


def test_pods_read_again_stay_in_their_own_pod_group() -> None:
    """Pods alike in all but the PodGroup they name (v1alpha2 ``spec.schedulingGroup
    .podGroupName``) do not resolve alike when they are read again from memory -- here in a
    second build (audit's, after a change) with one pod document added, so each known pod is
    read again on its own. Hand-worked: PodGroups ml/pg-x (class high, 1000) and ml/pg-y
    (class low, 10) of Workload ml/wl-new; x-1 names pg-x, y-1 names pg-y, neither carries a
    priority or class of its own, so each takes its group's priority (no divergence): x-1 in
    ml/wl-new/pg-x with 1000, y-1 in ml/wl-new/pg-y with 10; c-1 (new) none, 0 (no
    globalDefault); and the build is the build from scratch."""
    def doc(line: int, obj: dict[str, Any]) -> ingest.Document:
        return ingest.Document(Source("pg.yaml", line), obj)

    docs = [doc(1, _class("high", 1000, False, False)), doc(2, _class("low", 10, False, False)),
            doc(3, _workload_v2("low")), doc(4, _pod_group("pg-x", "high", None)),
            doc(5, _pod_group("pg-y", "low", None)),
            doc(6, _pod_doc("x-1", "ml", None, None, False, ("PodGroup", "pg-x"), None)),
            doc(7, _pod_doc("y-1", "ml", None, None, False, ("PodGroup", "pg-y"), None))]
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    expected = {"ml/x-1": ("ml/wl-new/pg-x", 1000), "ml/y-1": ("ml/wl-new/pg-y", 10)}
    assert {k: (p.group_key, p.priority) for k, p in before.pods.items()} == expected
    after = [*docs, doc(8, _pod_doc("c-1", "ml", None, None, False, None, None))]
    snap = ingest.build_snapshot(after, reuse=cache)
    assert {k: (p.group_key, p.priority) for k, p in snap.pods.items()} == {
        **expected, "ml/c-1": (None, 0)}
    assert _exactly(after, cache) == _exactly(after, None)


def test_pods_read_again_keep_their_own_preemption_policy() -> None:
    """Pods alike in all but ``spec.preemptionPolicy`` do not resolve alike when they are
    read again from memory (a second build, audit's, with one pod document added): a pod that
    says Never must not preempt, whatever a pod of the same class read before it says.
    Hand-worked: class mid (100, PreemptLowerPriority); p-1 names mid alone, p-2 names mid and
    preemptionPolicy Never, p-3 names mid alone again: p-1 and p-3 PreemptLowerPriority,
    p-2 Never (own and effective), all priority 100; c-1 (new) none: 0, PreemptLowerPriority;
    and the build is the build from scratch."""
    def doc(line: int, obj: dict[str, Any]) -> ingest.Document:
        return ingest.Document(Source("p.yaml", line), obj)

    docs = [doc(1, _class("mid", 100, False, False)),
            *(doc(2 + i, _pod_doc(f"p-{i + 1}", "ml", None, "mid", never, None, None))
              for i, never in enumerate((False, True, False)))]
    lower = ("PreemptLowerPriority", "PreemptLowerPriority", 100)
    never = ("Never", "Never", 100)
    expected = {"ml/p-1": lower, "ml/p-2": never, "ml/p-3": lower}
    cache = ingest.BuildCache()
    before = ingest.build_snapshot(docs, reuse=cache)
    assert {k: (p.preemption_policy, p.own_preemption_policy, p.priority)
            for k, p in before.pods.items()} == expected
    after = [*docs, doc(5, _pod_doc("c-1", "ml", None, None, False, None, None))]
    snap = ingest.build_snapshot(after, reuse=cache)
    assert {k: (p.preemption_policy, p.own_preemption_policy, p.priority)
            for k, p in snap.pods.items()} == {
        **expected, "ml/c-1": ("PreemptLowerPriority", "PreemptLowerPriority", 0)}
    assert _exactly(after, cache) == _exactly(after, None)


def test_a_first_build_with_the_cache_keeps_the_readers_warnings() -> None:
    """What the reader could not list but the run survives (``Documents.warnings``, e.g. a
    live read's NamespacesUnreadable) is in the snapshot ``build_snapshot`` gives with a fresh
    cache (the ordinary build, nothing learnt yet), as in one built without a cache."""
    docs = ingest.read_documents([str(ROOT / "fixtures" / "plan" / "preemption-priority.yaml")])
    unreadable = LoadWarning("NamespacesUnreadable", "Namespace", None, "403 Forbidden")
    docs.warnings = (unreadable,)
    assert unreadable in ingest.build_snapshot(docs).warnings
    assert unreadable in ingest.build_snapshot(docs, reuse=ingest.BuildCache()).warnings


def test_pods_read_again_keep_their_warnings(tmp_path: Path) -> None:
    """audit --delete of one pod changes the pod bucket, so the pods the deletion leaves alone
    are read again from the cache (``rebuild.pod_again``) -- their warnings with them: data,
    pending with a PersistentVolumeClaim, keeps its VolumeNotModelled warning, as in a build
    from scratch (a mutant that dropped them crashed audit with a TypeError)."""
    snapshot = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "run", "namespace": "default"},
         "spec": {"nodeName": "n1", "containers": [
             {"name": "c", "resources": {"requests": {"cpu": "4"}}}]},
         "status": {"phase": "Running"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "data", "namespace": "default"},
         "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}],
                  "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "pvc-1"}}]},
         "status": {"phase": "Pending"}},
    ]}
    (tmp_path / "snap.yaml").write_text(yaml.safe_dump(snapshot))
    docs = ingest.read_documents([str(tmp_path / "snap.yaml")])
    after = [d for d in docs if d.obj["metadata"]["name"] != "run"]  # the others: same objects
    cache = ingest.BuildCache()
    ingest.build_snapshot(docs, reuse=cache)
    again = ingest.build_snapshot(after, reuse=cache)
    assert [("VolumeNotModelled", "Pod default/data")] == [
        (w.code, w.object) for w in again.warnings]
    assert again == ingest.build_snapshot(after)
