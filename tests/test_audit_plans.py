"""``audit``'s planning of both sides (``audit.plan_changes``) and the per-snapshot passes it
leans on: the same answers as the plain definitions, however they are computed."""

from __future__ import annotations

from dataclasses import replace

from builders import basic, gang, member, node, pod, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wapctl.model import Pod, Snapshot
from wapctl.preemptor import _group_preemptor, _pod_preemptor, _queue_key, bound_members, \
    pending_preemptors

# ---- the queue: pending_preemptors / bound_members against the Pod properties -------------


def _queue_oracle(snap: Snapshot, namespace: str | None) -> list:
    """The queue from its definition: pods whose ``Pod.pending`` holds; gangs' pods together,
    ``needed`` from the pods whose ``Pod.running`` holds."""
    pending = [p for p in snap.pods.values() if p.pending
               and (namespace is None or p.namespace == namespace)]
    running: dict[str, int] = {}
    for p in snap.pods.values():
        if p.group_key is not None and p.running:
            running[p.group_key] = running.get(p.group_key, 0) + 1
    gangs: dict[str, list[Pod]] = {}
    out = []
    for p in pending:
        group = snap.pod_groups.get(p.group_key) if p.group_key else None
        if group is not None and group.policy == "Gang":
            gangs.setdefault(group.key, []).append(p)
        else:
            out.append(_pod_preemptor(p))
    out += [_group_preemptor(snap, snap.pod_groups[k], ps, running) for k, ps in gangs.items()]
    return sorted(out, key=_queue_key)


@st.composite
def pod_states(draw) -> Snapshot:
    """Pods in every state a pod can be in: bound or not, each phase, terminating, gated,
    nominated, in a gang, a basic group or none, in two namespaces."""
    groups = [gang("g", min_count=draw(st.integers(1, 4)), prio=draw(st.integers(0, 3))),
              basic("b", prio=draw(st.integers(0, 3))),
              gang("h", ns="other", min_count=2, prio=1)]
    pods = []
    for k in range(draw(st.integers(0, 12))):
        kw = {
            "node": draw(st.sampled_from([None, None, "n1"])),
            "terminating": draw(st.integers(0, 4)) == 0,
            "created": draw(st.sampled_from([None, 1.0, 2.0])),
            "nominated": draw(st.sampled_from([None, "n1"])),
        }
        phase = draw(st.sampled_from([None, "Pending", "Running", "Succeeded", "Failed",
                                      "Unknown"]))
        if phase is not None:
            kw["phase"] = phase
        where = draw(st.sampled_from([None, 0, 1, 2]))
        p = (pod(f"p{k}", draw(st.sampled_from(["default", "other"])),
                 prio=draw(st.integers(0, 3)), **kw)
             if where is None else member(groups[where], f"p{k}", **kw))
        if draw(st.integers(0, 5)) == 0:
            p = replace(p, gated=True)
        pods.append(p)
    return snapshot(nodes=[node("n1")], pods=pods, groups=groups)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pod_states(), st.sampled_from([None, "default", "other"]))
def test_queue_is_the_one_the_pod_properties_define(snap, namespace):
    """``pending_preemptors`` and ``bound_members`` test the pod fields inline; they must
    agree with ``Pod.pending`` / ``Pod.running`` in every pod state."""
    assert _queue_oracle(snap, namespace) == pending_preemptors(snap, namespace)
    expected: dict[str, int] = {}
    for p in snap.pods.values():
        if p.group_key is not None and p.running:
            expected[p.group_key] = expected.get(p.group_key, 0) + 1
    assert expected == bound_members(snap)
