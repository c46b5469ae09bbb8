"""Why a pod was preempted (or is pending), checked against what the scheduler did.

For a victim: the ``Preempted`` event names the preemptor by UID; ``owners.ObjectIndex``
resolves it to the pod or PodGroup read; the other victims of the same preemptor are the
co-victims. ``replay.build_replay`` rebuilds the cluster just before, and the planning engine
(``wapctl.preemption.plan``, the one ``wapctl plan`` runs) predicts that preemptor's plan
there; the verdict compares the predicted victims and node with the recorded ones.

The decision chain says, from the engine's own figures:

- the node (a single pod preemptor): each ``pickOneNodeForPreemption`` criterion
  (``node_choice.node_criteria``) for the chosen node and the runner-up -- the node the same
  engine picks when the chosen one is closed to the preemptor (a ``NoSchedule`` taint it does
  not tolerate); upstream weighs each node's victims on their own, so this is the second best;
- the pods: each victim's priority against the preemptor's, and the other pods on the victims'
  nodes that stayed (priority not lower, or not needed once the lower ones went);
- the unit: a victim taken with its whole pod group.

Nothing here prints; ``wapctl.render.explain`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from wapctl.errors import UsageError
from wapctl.events import FAILED_SCHEDULING, EventLog, Preemption, unread_warnings
from wapctl.ingest import Document, build_snapshot
from wapctl.model import LoadWarning, Node, Pod, Snapshot, Taint
from wapctl.models import BehaviourModel
from wapctl.owners import Known, ObjectIndex
from wapctl.preemption import Plan
from wapctl.preemption import plan as make_plan
from wapctl.preemption.node_choice import PRIORITY_OFFSET, node_criteria
from wapctl.preemptor import Preemptor, select_preemptor, whole_group_of
from wapctl.replay import Replay, build_replay

RUNNER_UP_TAINT = "wapctl.io/explain-runner-up"


@dataclass(frozen=True)
class PreemptorInfo:
    kind: str  # Pod | PodGroup
    uid: str | None
    name: str | None  # "ns/name" when resolved (or named by the event)
    resolved: bool  # found among the objects read
    members: tuple[str, ...] = ()  # a pod group's pods read, by name


@dataclass(frozen=True)
class Criterion:
    """One ``pickOneNodeForPreemption`` criterion, its values for the two nodes as a person
    reads them (priorities summed without upstream's offset, start times as times)."""

    name: str
    chosen: str
    runner_up: str
    decides: bool  # the first criterion on which the two differ


@dataclass(frozen=True)
class NodeChoice:
    chosen: str
    runner_up: str | None
    criteria: tuple[Criterion, ...] = ()
    note: str = ""  # why there is no runner-up, or that the nodes tie
    runner_up_victims: tuple[str, ...] = ()  # what the runner-up would have cost


@dataclass(frozen=True)
class Verdict:
    agrees: bool | None  # None: no prediction could be made
    differences: tuple[str, ...] = ()
    causes: tuple[str, ...] = ()


@dataclass(frozen=True)
class VictimExplanation:
    pod: str
    preemption: Preemption
    preemptor: PreemptorInfo
    co_victims: tuple[Preemption, ...]  # every victim of the same preemptor, this one too
    replay: Replay | None
    plan: Plan | None
    node_choice: NodeChoice | None
    reasons: tuple[str, ...]  # why this pod, why not its neighbours, why its group
    verdict: Verdict
    earlier: int = 0  # earlier preemptions of a pod of the same name
    warnings: tuple[LoadWarning, ...] = ()


@dataclass(frozen=True)
class PendingExplanation:
    pod: str
    state: str  # pending | bound | terminating | finished | gated
    failed: tuple[str, ...]  # FailedScheduling notes, oldest first (with their counts)
    may_preempt: bool
    why_not: str  # why it may not preempt ("" when it may)
    nominated: str | None
    preempted: tuple[Preemption, ...]  # what it (or its group) has preempted already
    plan: Plan | None
    warnings: tuple[LoadWarning, ...] = ()


@dataclass(frozen=True)
class Inputs:
    """What ``explain`` reads: the current documents, ``--before``'s, and the events of both."""

    current: Sequence[Document]
    before: Sequence[Document] = ()
    log: EventLog = field(default_factory=EventLog)


def _resolve(p: Preemption, index: ObjectIndex) -> PreemptorInfo:
    known = index.by_uid.get(p.preemptor_uid) if p.preemptor_uid else None
    if known is None and p.preemptor_uid is None and p.preemptor_kind == "Pod":
        known = index.pods.get(p.preemptor_name or "")  # the older note: ns/name, no UID
    if known is not None and known.kind == p.preemptor_kind:
        members = (tuple(index.members(known.namespace, known.name))
                   if known.kind == "PodGroup" else ())
        return PreemptorInfo(p.preemptor_kind, p.preemptor_uid, known.key, True, members)
    name = p.preemptor_name
    members = ()
    if p.preemptor_kind == "PodGroup" and name:
        ns, _, group = name.partition("/")
        members = tuple(index.members(ns, group))
    return PreemptorInfo(p.preemptor_kind, p.preemptor_uid, name, False, members)


def _mover_pods(info: PreemptorInfo) -> list[str]:
    if info.name is None:
        return []
    if info.kind == "Pod":
        return [info.name]
    ns = info.name.partition("/")[0]
    return [f"{ns}/{m}" for m in info.members]


def _select(snapshot: Snapshot, info: PreemptorInfo, model: BehaviourModel) -> Preemptor:
    assert info.name is not None
    if info.kind == "Pod":
        chosen = select_preemptor(snapshot, pod=info.name)
        if chosen.kind == "Pod" and model.pod_plans_its_group:
            chosen = whole_group_of(snapshot, chosen) or chosen
        return chosen
    ns, _, group = info.name.partition("/")
    for g in snapshot.pod_groups.values():
        if g.namespace == ns and g.name == group:
            return select_preemptor(snapshot, workload=g.key)
    raise UsageError(f"pod group {info.name} is not in the snapshot")


# ---- the node ---------------------------------------------------------------------------------


def _victim_pods(snapshot: Snapshot, plan: Plan, node: str) -> tuple[list[tuple[Pod, int]],
                                                                      set[str]]:
    pods = [(snapshot.pods[v.pod], v.priority) for v in plan.victims if v.node == node]
    return pods, {v.pod for v in plan.victims if v.node == node and v.pdb_violation}


def _closed(snapshot: Snapshot, node: str) -> Snapshot:
    """``snapshot`` with ``node`` closed to every pod that does not tolerate all taints."""
    n = snapshot.nodes[node]
    taint = Taint(RUNNER_UP_TAINT, "", "NoSchedule")
    nodes: dict[str, Node] = dict(snapshot.nodes)
    nodes[node] = replace(n, taints=(*n.taints, taint))
    return replace(snapshot, nodes=nodes)


def _shown(criterion: str, value: float, victims: int) -> str:
    """A criterion's value as a person reads it."""
    if criterion.startswith("smallest sum"):
        return str(int(value) - victims * PRIORITY_OFFSET)
    if criterion.startswith("latest start"):
        if value == -float("inf") or value == float("inf"):
            return "not started"
        from datetime import datetime, timezone

        return datetime.fromtimestamp(-value, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(int(value))


def node_choice(snapshot: Snapshot, preemptor: Preemptor, plan: Plan,
                model: BehaviourModel) -> NodeChoice | None:
    """The chosen node against the runner-up, criterion by criterion (a single pod's
    preemption only: a pod group's is decided for the cluster, not node by node)."""
    if preemptor.kind != "Pod" or len(plan.placements) != 1 or not plan.victims:
        return None
    chosen = plan.placements[0].node
    pod = preemptor.pods[0]
    from wapctl.fit import tolerated

    if tolerated(pod.tolerations, Taint(RUNNER_UP_TAINT, "", "NoSchedule")):
        return NodeChoice(chosen, None, note="the preemptor tolerates every taint, so no other "
                          "node could be weighed against this one")
    closed = _closed(snapshot, chosen)
    other = make_plan(closed, select_preemptor(closed, pod=preemptor.key), model=model)
    if other.status != "RequiresPreemption" or len(other.placements) != 1:
        return NodeChoice(chosen, None, note="no other node could take the preemptor, even "
                          "with preemption")
    runner = other.placements[0].node
    mine = node_criteria(chosen, *_victim_pods(snapshot, plan, chosen))
    theirs = node_criteria(runner, *_victim_pods(closed, other, runner))
    criteria: list[Criterion] = []
    decided = False
    counts = (len(_victim_pods(snapshot, plan, chosen)[0]),
              len(_victim_pods(closed, other, runner)[0]))
    for (name, a), (_, b) in zip(mine, theirs, strict=True):
        decides = not decided and a != b
        decided = decided or decides
        criteria.append(Criterion(name, _shown(name, a, counts[0]), _shown(name, b, counts[1]),
                                  decides))
    note = "" if decided else ("the two nodes are equal on every criterion: the scheduler "
                               "picks one of them at random")
    return NodeChoice(chosen, runner, tuple(criteria), note,
                      tuple(sorted(v.pod for v in other.victims if v.node == runner)))


# ---- the pods ---------------------------------------------------------------------------------


def _unit_reason(plan: Plan, pod: str) -> str | None:
    for v in plan.victims:
        if v.pod == pod and v.unit_kind == "PodGroup":
            size = sum(1 for w in plan.victims if w.unit_name == v.unit_name)
            return (f"it went with its whole pod group {v.unit_name} ({size} pods): the group "
                    "is disrupted as one unit (disruptionMode PodGroup)")
    return None


def pod_reasons(snapshot: Snapshot, preemptor: Preemptor, plan: Plan,
                taken: Sequence[str], limit: int = 20,
                neighbours: bool = True) -> tuple[str, ...]:
    """Why the pods ``taken`` went and (``neighbours``: the replay holds every victim) why
    their neighbours stayed, in plain words."""
    out: list[str] = []
    by_pod = {v.pod: v for v in plan.victims}
    separate = plan.model is not None and plan.model.separate_preemption_priority
    for key in taken:
        pod = snapshot.pods.get(key)
        if pod is None:
            continue
        # the priority the model compares: a predicted victim's, else the pod's own reading
        prio = (by_pod[key].priority if key in by_pod
                else pod.preemption_priority if separate else pod.priority)
        if prio < preemptor.priority:
            out.append(f"{key} (priority {prio}) is below the preemptor's {preemptor.priority}")
        else:
            out.append(f"{key} (priority {prio}) is not below the preemptor's "
                       f"{preemptor.priority}: the model would never take it")
        unit = _unit_reason(plan, key)
        if unit:
            out.append(f"{key}: {unit}")
        if key in by_pod and by_pod[key].pdb_violation:
            out.append(f"{key}: taking it breaks a PodDisruptionBudget; no choice without a "
                       "violation was enough")
    if not neighbours:
        return tuple(out)
    nodes = {snapshot.pods[k].node_name for k in taken if k in snapshot.pods}
    if preemptor.kind == "PodGroup":
        nodes = set(snapshot.nodes)
    stayed = sorted((p for p in snapshot.pods.values()
                     if p.running and p.node_name in nodes and p.key not in set(taken)
                     and p.key not in by_pod), key=lambda p: (p.preemption_priority, p.key))
    top = max((v.priority for v in plan.victims), default=None)
    for p in stayed[:limit]:
        head = f"{p.key} on {p.node_name} (priority {p.preemption_priority}) stayed: "
        if p.preemption_priority >= preemptor.priority:
            out.append(head + f"not below the preemptor's {preemptor.priority}, so never a "
                       "victim")
        elif top is not None and p.preemption_priority > top:
            out.append(head + "not needed once the lower-priority victims went (the "
                       "scheduler spares the highest-priority pods first)")
        else:
            out.append(head + "not needed: the preemptor fits without it (the scheduler "
                       "keeps every pod it can do without)")
    if len(stayed) > limit:
        out.append(f"... and {len(stayed) - limit} more pods that stayed")
    return tuple(out)


# ---- the verdict ------------------------------------------------------------------------------


def _epoch(text: str | None) -> float | None:
    if not text:
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def verdict(plan: Plan | None, preemption: Preemption, co_victims: Sequence[Preemption],
            replay: Replay | None, snapshot: Snapshot | None,
            why_none: str = "") -> Verdict:
    """Whether the predicted plan matches what the scheduler did, and if not, what differs and
    what likely made it differ."""
    if plan is None:
        return Verdict(None, causes=(why_none,) if why_none else ())
    actual = {p.victim.key for p in co_victims}
    predicted = {v.pod for v in plan.victims}
    diffs: list[str] = []
    if predicted - actual:
        diffs.append("predicted but not taken: " + ", ".join(sorted(predicted - actual)))
    if actual - predicted:
        diffs.append("taken but not predicted: " + ", ".join(sorted(actual - predicted)))
    if preemption.node is not None and plan.placements:
        nodes = sorted({pl.node for pl in plan.placements})
        if nodes != [preemption.node]:
            diffs.append(f"node: predicted {', '.join(nodes)}, the scheduler chose "
                         f"{preemption.node}")
    if replay is not None and replay.missing:  # differences against it would be its gaps
        return Verdict(None, causes=(
            "cannot compare: victims not in the snapshot nor --before, so the replay lacks "
            "them: " + ", ".join(replay.missing) + " (give --before a snapshot taken before "
            "the preemption)",))
    if not diffs:
        return Verdict(True)
    causes: list[str] = []
    for tie in plan.ties:
        causes.append(f"a tie the scheduler breaks at random: {tie.decision} "
                      f"({', '.join(tie.chosen)} taken here)")
    when = _epoch(preemption.time)
    if snapshot is not None and when is not None:
        later = sorted(p.key for p in snapshot.pods.values()
                       if p.creation_time is not None and p.creation_time > when + 1)
        if later:
            causes.append("state changed since: pods created after the preemption: "
                          + ", ".join(later[:10]) + (" ..." if len(later) > 10 else ""))
    if not causes:
        causes.append("something the model does not cover, or another scheduler behaviour "
                      "(see --model and 'wapctl version')")
    return Verdict(False, tuple(diffs), tuple(causes))


# ---- the whole explanation --------------------------------------------------------------------


def _replan(inputs: Inputs, info: PreemptorInfo, co_victims: Sequence[Preemption],
            model: BehaviourModel | None) -> tuple[Replay, Snapshot | None, Preemptor | None,
                                                   Plan | None, str]:
    """The replay, its snapshot, the preemptor there and its plan; or why there is none."""
    replay = build_replay(inputs.current, inputs.before, [p.victim for p in co_victims],
                          _mover_pods(info))
    if info.name is None:
        return replay, None, None, None, (f"the preemptor ({info.kind} UID {info.uid}) is not "
                                         "among the objects read: nothing to replay")
    if replay.missing_preemptor or (info.kind == "PodGroup" and not info.members):
        gone = ", ".join(replay.missing_preemptor) or f"the pods of pod group {info.name}"
        return replay, None, None, None, (f"the preemptor's pods are not in the snapshot nor "
                                         f"--before ({gone}): nothing to replay")
    snapshot = build_snapshot(replay.documents)
    from wapctl.models import select_model

    chosen = model or select_model(snapshot)
    try:
        preemptor = _select(snapshot, info, chosen)
    except UsageError as exc:
        return replay, snapshot, None, None, f"cannot replay: {exc}"
    return replay, snapshot, preemptor, make_plan(snapshot, preemptor, model=chosen), ""


def explain_victim(key: str, preemptions: Sequence[Preemption], inputs: Inputs,
                   index: ObjectIndex, model: BehaviourModel | None) -> VictimExplanation:
    preemption = preemptions[-1]
    info = _resolve(preemption, index)
    co_victims = tuple(inputs.log.same_preemption(preemption))
    replay, snapshot, preemptor, plan, why = _replan(inputs, info, co_victims, model)
    choice = None
    reasons: tuple[str, ...] = ()
    if snapshot is not None and preemptor is not None and plan is not None:
        from wapctl.models import select_model

        chosen = model or select_model(snapshot)
        choice = node_choice(snapshot, preemptor, plan, chosen)
        reasons = pod_reasons(snapshot, preemptor, plan, [p.victim.key for p in co_victims],
                              neighbours=not replay.missing)
    return VictimExplanation(
        pod=key, preemption=preemption, preemptor=info, co_victims=co_victims, replay=replay,
        plan=plan, node_choice=choice, reasons=reasons,
        verdict=verdict(plan, preemption, co_victims, replay, snapshot, why),
        earlier=len(preemptions) - 1,
        warnings=snapshot.warnings if snapshot is not None else ())


def _state(pod: Pod) -> str:
    if pod.finished:
        return f"finished ({pod.phase})"
    if pod.terminating:
        return "terminating"
    if pod.gated:
        return "gated (spec.schedulingGates)"
    if pod.node_name is not None:
        return f"bound to {pod.node_name}"
    return "pending"


def _failed_notes(log: EventLog, ns: str, name: str) -> tuple[str, ...]:
    notes: dict[str, int] = {}
    for e in log.about("Pod", ns, name, FAILED_SCHEDULING):
        notes[e.note] = notes.pop(e.note, 0) + e.count  # latest last
    return tuple(f"{n} (x{c})" if c > 1 else n for n, c in notes.items())


def explain_other(key: str, snapshot: Snapshot, inputs: Inputs, index: ObjectIndex,
                  model: BehaviourModel | None) -> PendingExplanation:
    """A pod that no event shows preempted: why it is pending, whether it may preempt, what
    it has preempted already, and the plan for it now."""
    pod = snapshot.pods[key]
    known: Known | None = index.pod(pod.namespace, pod.name)
    uids = {known.uid} if known is not None and known.uid else set()
    if known is not None and known.group:
        group = next((k for k in index.by_uid.values() if k.kind == "PodGroup"
                      and k.namespace == pod.namespace and k.name == known.group), None)
        if group is not None:
            uids.add(group.uid)
    preempted = tuple(p for p in inputs.log.preemptions if p.preemptor_uid in uids
                      or (p.preemptor_uid is None and p.preemptor_kind == "Pod"
                          and p.preemptor_name == key))  # the older note: ns/name, no UID
    why_not = ""
    if pod.preemption_policy == "Never":
        why_not = "its preemptionPolicy is Never: it waits and never preempts"
    plan = None
    if pod.pending:
        from wapctl.models import select_model

        chosen = model or select_model(snapshot)
        preemptor = select_preemptor(snapshot, pod=key)
        if preemptor.kind == "Pod" and chosen.pod_plans_its_group:
            preemptor = whole_group_of(snapshot, preemptor) or preemptor
        plan = make_plan(snapshot, preemptor, model=chosen)
    return PendingExplanation(
        pod=key, state=_state(pod), failed=_failed_notes(inputs.log, pod.namespace, pod.name),
        may_preempt=not why_not, why_not=why_not, nominated=pod.nominated_node,
        preempted=preempted, plan=plan, warnings=snapshot.warnings)


def explain_pod(key: str, inputs: Inputs, model: BehaviourModel | None = None,
                snapshot: Snapshot | None = None) -> VictimExplanation | PendingExplanation:
    """Explain the pod ``namespace/name``: a victim of a recorded preemption (the latest, when
    a pod of that name was preempted more than once), else what it is waiting for."""
    ns, _, name = key.partition("/")
    index = ObjectIndex(inputs.current, inputs.before)
    preemptions = inputs.log.preemptions_of(ns, name)
    unread = unread_warnings(inputs.log, key)  # Preempted events about it, not read
    result: VictimExplanation | PendingExplanation
    if preemptions:
        result = explain_victim(key, preemptions, inputs, index, model)
        return replace(result, warnings=(*result.warnings, *unread)) if unread else result
    if snapshot is None:
        snapshot = build_snapshot(inputs.current)
    if key not in snapshot.pods:
        from wapctl.errors import did_you_mean

        if unread:
            raise UsageError(f"pod {key} is not in the snapshot and no Preempted event naming "
                             f"it can be read: {unread[0].object}: {unread[0].message}")
        # the pods of the snapshot and the victims the events name (gone ones included)
        known = {p.name for p in snapshot.pods.values() if p.namespace == ns}
        known.update(p.victim.name for p in inputs.log.preemptions
                     if p.victim.namespace == ns)
        hint = did_you_mean(name, sorted(known), prefix=f"{ns}/")
        raise UsageError(f"pod {key} is not in the snapshot and no Preempted event names it"
                         f"{hint}")
    result = explain_other(key, snapshot, inputs, index, model)
    return replace(result, warnings=(*result.warnings, *unread)) if unread else result
