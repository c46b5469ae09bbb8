"""Properties of plan() on tiny random clusters, checked against a brute-force oracle.

The oracle enumerates every subset of victim units and places gangs of identical pods
exhaustively (a gang fits iff the per-node copy counts add up), with its own independent
accounting and fit check (cpu, pod slots, taints, cordoned nodes).
"""

from __future__ import annotations

from itertools import combinations

from builders import gang, member, node, pdb, pod, snapshot, taint, toleration
from hypothesis import given, settings
from hypothesis import strategies as st

from wapctl.model import NEVER, PREEMPT_LOWER, Pod, Snapshot
from wapctl.models import get_model
from wapctl.preemption import Plan, plan
from wapctl.preemptor import Preemptor, pending_preemptors

KEP = get_model("kep-5710")  # these tests pin the KEP-5710 model (SPEC §3)

INF = float("inf")


# ---- random tiny clusters -----------------------------------------------------------------


@st.composite
def clusters(draw) -> tuple[Snapshot, Preemptor]:
    n_nodes = draw(st.integers(1, 4))
    nodes = [
        node(f"n{i}", cpu=draw(st.sampled_from([2, 3, 4, 6])),
             pods=draw(st.sampled_from([2, 3, 110])),
             taints=[taint("gpu", "yes")] if draw(st.booleans()) and i else [],
             unschedulable=draw(st.integers(0, 9)) == 0)
        for i in range(n_nodes)
    ]
    names = [n.name for n in nodes]
    room = {n.name: [n.allocatable["cpu"] // 1000, n.allocatable["pods"]] for n in nodes}
    prio = st.sampled_from([0, 10, 20, 30])
    whole = gang("whole", min_count=1, mode="PodGroup", prio=draw(prio),
                 preempt_prio=draw(st.sampled_from([None, 0, 40])))
    single = gang("single", min_count=1, mode="Pod", prio=draw(prio))
    pods: list[Pod] = []
    for k in range(draw(st.sampled_from([0, 3, 5, 6, 7, 8, 8, 8]))):
        kind = draw(st.sampled_from(["standalone", "standalone", "whole", "single"]))
        cpu, where = draw(st.integers(1, 3)), draw(st.sampled_from(names))
        room[where][0] -= cpu
        room[where][1] -= 1
        if min(room[where]) < 0 and draw(st.integers(0, 5)):  # overcommit only rarely
            room[where][0] += cpu
            room[where][1] += 1
            continue
        kw = {
            "cpu": cpu, "node": where,
            "terminating": draw(st.integers(0, 6)) == 0,
            "labels": {"app": draw(st.sampled_from(["a", "b"]))},
            "start": draw(st.sampled_from([None, 1.0, 2.0, 3.0])),
        }
        if kind == "standalone":
            p = draw(prio)
            pods.append(pod(f"v{k}", prio=p, preempt_prio=draw(st.sampled_from([p, p, p + 25])),
                            **kw))
        else:
            pods.append(member(whole if kind == "whole" else single, f"v{k}", **kw))
    if draw(st.booleans()):
        pods.append(pod("other", cpu=draw(st.integers(1, 3)), prio=draw(st.sampled_from([5, 50])),
                        nominated=draw(st.sampled_from(names))))
    tolerate = [toleration("gpu", "Exists")] if draw(st.integers(0, 3)) else []
    policy = NEVER if draw(st.integers(0, 9)) == 0 else PREEMPT_LOWER
    my_prio = draw(st.sampled_from([15, 25, 35]))
    groups = [whole, single]
    if draw(st.booleans()):
        pods.append(pod("me", cpu=draw(st.integers(1, 4)), prio=my_prio, policy=policy,
                        tolerations=tolerate, nominated=draw(st.sampled_from([None, *names]))))
        target = "default/me"
    else:
        size = draw(st.integers(1, 4))
        too_many = draw(st.integers(0, 7)) == 0  # more than the pending pods can give
        mine = gang("mine", min_count=size + 1 if too_many else draw(st.integers(1, size)),
                    prio=my_prio,
                    preempt_prio=draw(st.sampled_from([None, 5])), policy=policy)
        groups.append(mine)
        cpu = draw(st.integers(1, 3))
        for k in range(size):
            pods.append(member(mine, f"m{k}", cpu=cpu, tolerations=tolerate,
                               nominated=draw(st.sampled_from([None, *names]))))
        for k in range(draw(st.integers(0, 2))):
            pods.append(member(mine, f"mb{k}", cpu=cpu, node=draw(st.sampled_from(names))))
        target = "default/mine/main"
    pdbs = [pdb(f"p-{app}", match={"app": app}, allowed=draw(st.integers(0, 2)))
            for app in ("a", "b") if draw(st.booleans())]
    snap = snapshot(nodes=nodes, pods=pods, groups=groups, pdbs=pdbs)
    preemptor = next(p for p in pending_preemptors(snap) if p.key == target)
    return snap, preemptor


# ---- the oracle ---------------------------------------------------------------------------


def _tolerates(p: Pod, n) -> bool:
    if n.unschedulable and not any(t.key == "" and t.operator == "Exists" for t in p.tolerations):
        return False
    return all(any(t.key == tn.key for t in p.tolerations) for tn in n.taints)


def oracle_units(snap: Snapshot, pre: Preemptor) -> dict[str, tuple[int, list[Pod]]]:
    """unit name -> (priority, pods)."""
    units: dict[str, tuple[int, list[Pod]]] = {}
    for p in snap.pods.values():
        if p.node_name is None or p.terminating or p.finished or (p.group_key == pre.group_key \
                and p.group_key is not None):
            continue
        group = snap.pod_groups.get(p.group_key) if p.group_key else None
        if group is not None and group.disruption_mode == "PodGroup":
            if group.preemption_priority < pre.priority:
                units.setdefault(group.key, (group.preemption_priority, []))[1].append(p)
        elif p.preemption_priority < pre.priority:
            units[p.key] = (p.preemption_priority, [p])
    return units


def used(snap: Snapshot, pre: Preemptor, removed: set[str], terminating_gone: bool):
    """cpu and pod count per node, computed from scratch."""
    out = {n: [0, 0] for n in snap.nodes}
    mine = {p.key for p in pre.pods}
    for p in snap.pods.values():
        if p.finished or p.key in removed:
            continue
        if p.node_name is not None:
            if p.terminating and terminating_gone:
                continue
            where = p.node_name
        elif p.nominated_node and p.key not in mine and p.priority >= pre.priority:
            where = p.nominated_node
        else:
            continue
        out[where][0] += p.requests.get("cpu", 0)
        out[where][1] += 1
    return out


def copies(snap: Snapshot, p: Pod, name: str, usage) -> int:
    n = snap.nodes[name]
    if not _tolerates(p, n):
        return 0
    cpu_free = n.allocatable["cpu"] - usage[name][0]
    slots = n.allocatable["pods"] - usage[name][1]
    return max(0, min(cpu_free // p.requests["cpu"], slots))


def fits_gang(snap, pre, usage) -> bool:
    return sum(copies(snap, pre.pods[0], n, usage) for n in snap.nodes) >= pre.needed


def fits_on(snap, pre, usage, name) -> bool:
    return copies(snap, pre.pods[0], name, usage) >= 1


def subsets(names):
    for r in range(len(names) + 1):
        yield from combinations(names, r)


def pods_of(units, names) -> set[str]:
    return {p.key for n in names for p in units[n][1]}


def placement_fits(snap, pre, result: Plan, removed: set[str], terminating_gone: bool) -> bool:
    """Independent check: every placed pod passes the filters and fits alongside the others."""
    usage = used(snap, pre, removed, terminating_gone)
    mine = {p.key: p for p in pre.pods}
    for pl in result.placements:
        p = mine[pl.pod]
        n = snap.nodes[pl.node]
        if not _tolerates(p, n):
            return False
        usage[pl.node][0] += p.requests["cpu"]
        usage[pl.node][1] += 1
    return all(usage[n][0] <= snap.nodes[n].allocatable["cpu"]
               and usage[n][1] <= snap.nodes[n].allocatable["pods"]
               for n in {pl.node for pl in result.placements})


def importance(units, name) -> tuple:
    priority, pods = units[name]
    whole = len(pods) > 1 or name.count("/") == 2
    tier = 0 if whole else (1 if pods[0].group_key else 2)
    start = min((p.start_time for p in pods if p.start_time is not None), default=INF)
    return (-priority, tier, -len(pods) if whole else -1, start, name)


def mirror_node_pick(snap, pre, units):
    """The single-pod node choice, mirrored: per node the brute-force lowest level, the
    upstream reprieve and PDB marking, then pickOneNodeForPreemption's order."""
    best = None
    for name in sorted(snap.nodes):
        local = [u for u in units if any(p.node_name == name for p in units[u][1])]
        feasible = [s for s in subsets(local)
                    if fits_on(snap, pre, used(snap, pre, pods_of(units, s), True), name)]
        if not local or not feasible:
            continue
        level = min(max(units[u][0] for u in s) for s in feasible if s)
        cands = sorted((u for u in local if units[u][0] <= level),
                       key=lambda u: importance(units, u))
        allowed = {b.key: b.disruptions_allowed for b in snap.pdbs}
        bad = set()
        for u in cands:
            for p in units[u][1]:
                for b in snap.pdbs:
                    if b.selector.match_labels.items() <= p.labels.items():
                        allowed[b.key] -= 1
                        if allowed[b.key] < 0:
                            bad.add(p.key)
                            break
        order = [u for u in cands if any(p.key in bad for p in units[u][1])]
        order += [u for u in cands if u not in order]
        victims = set(cands)
        for u in order:
            if fits_on(snap, pre, used(snap, pre, pods_of(units, victims - {u}), True), name):
                victims.discard(u)
        vp = [(p, units[u][0]) for u in victims for p in units[u][1]]
        top = max(pr for _, pr in vp)
        earliest = min((p.start_time if p.start_time is not None else INF
                        for p, pr in vp if pr == top), default=INF)
        key = (sum(1 for p, _ in vp if p.key in bad), top, sum(pr + 2**31 for _, pr in vp),
               len(vp), -earliest, name)
        if best is None or key < best[0]:
            best = (key, name, level)
    return best


# ---- the properties -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(clusters())
def test_plan_matches_brute_force_oracle(case):
    """Status, fit of the placement, whole units, victims below the preemptor, lowest possible
    highest victim priority, victims only where the preemptor goes, and minimal victims."""
    snap, pre = case
    result = plan(snap, pre, model=KEP)
    units = oracle_units(snap, pre)
    is_gang = pre.kind == "PodGroup"
    no_victims = used(snap, pre, set(), False)

    def feasible_with(names) -> bool:
        usage = used(snap, pre, pods_of(units, names), True)
        if is_gang:
            return fits_gang(snap, pre, usage)
        return any(fits_on(snap, pre, usage, n) for n in snap.nodes)

    # Status.
    if pre.needed > len(pre.pods):
        expected = "Unschedulable"
    elif (fits_gang(snap, pre, no_victims) if is_gang
          else any(fits_on(snap, pre, no_victims, n) for n in snap.nodes)):
        expected = "Schedulable"
    elif feasible_with(()):
        expected = "WaitingForTermination"
    elif pre.preemption_policy == NEVER or not feasible_with(tuple(units)):
        expected = "Unschedulable"
    else:
        expected = "RequiresPreemption"
    assert expected == result.status

    if expected == "Unschedulable":
        assert ((), ()) == (result.victims, result.placements)
        return

    # The placement fits (terminating pods gone unless Schedulable, victims gone) and
    # places at least the needed pods.
    victim_pods = {v.pod for v in result.victims}
    assert placement_fits(snap, pre, result, victim_pods, expected != "Schedulable")
    assert len(result.placements) >= pre.needed
    used_nodes = {pl.node for pl in result.placements}
    if expected == "Schedulable":
        assert () == result.terminating
    else:
        expected_terminating = sorted((p.key, p.node_name) for p in snap.pods.values()
                                      if p.terminating and p.node_name in used_nodes)
        assert expected_terminating == [(t.pod, t.node) for t in result.terminating]
    if expected != "RequiresPreemption":
        assert () == result.victims
        return

    # Units are whole; every victim is strictly below the preemptor.
    victim_units = {v.unit_name for v in result.victims}
    assert victim_units <= set(units)
    assert victim_pods == pods_of(units, victim_units)
    assert all(v.priority == units[v.unit_name][0] < pre.priority for v in result.victims)

    # Every victim unit has a pod on a node the placement uses.
    assert all(any(p.node_name in used_nodes for p in units[u][1]) for u in victim_units)

    # Reprieve minimality: any victim unit put back makes the preemptor not fit (on its node).
    for u in victim_units:
        rest = pods_of(units, victim_units - {u})
        usage = used(snap, pre, rest, True)
        still = fits_gang(snap, pre, usage) if is_gang else fits_on(
            snap, pre, usage, result.placements[0].node)
        assert not still

    # The highest victim priority is the lowest possible.
    if is_gang:
        lowest = min(max(units[u][0] for u in s) for s in subsets(sorted(units))
                     if s and feasible_with(s))
        assert lowest == result.max_victim_priority
    else:
        _, name, level = mirror_node_pick(snap, pre, units)
        assert (name, level) == (result.placements[0].node, result.max_victim_priority)
        if not snap.pdbs:  # then the node order starts with the lowest level over all nodes
            levels = [max(units[u][0] for u in s)
                      for s in subsets(sorted(units)) if s
                      for n in snap.nodes
                      if fits_on(snap, pre, used(snap, pre, pods_of(units, s), True), n)]
            assert min(levels) == result.max_victim_priority
