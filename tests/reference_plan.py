"""A deliberately simple re-implementation of the plan algorithm (SPEC.md §3), for tests.

Nothing incremental: every feasibility check recomputes node usage from the snapshot's pods
and places the preemptor's pods greedily from scratch. It is slow and obviously follows the
spec; ``tests/test_fast_vs_reference.py`` asserts that ``wapctl.preemption.plan`` gives the
same answer.

It shares nothing with the engine but the model's plain data (``wapctl.model``): the static node
filters and label-selector matching are its own (tests/reference_filters.py, from upstream's
source), and of the preemptor it is asked about it reads only the question (``kind`` and
``pods``) and works out the priority, policy, group and target itself (``resolve``).
tests/test_reference_independence.py keeps it so.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference_filters import label_selector_as_selector, static_filters_pass

from wapctl.model import Pod, Snapshot

OFFSET = 2**31
INF = float("inf")


@dataclass(frozen=True)
class RefUnit:
    kind: str
    name: str
    priority: int
    pods: tuple[Pod, ...]  # sorted by key
    tier: int

    def importance(self) -> tuple:
        starts = [p.start_time for p in self.pods if p.start_time is not None]
        size = len(self.pods) if self.kind == "PodGroup" else 1
        return (-self.priority, self.tier, -size, min(starts) if starts else INF, self.name)


@dataclass(frozen=True)
class RefPlan:
    status: str
    placements: tuple[tuple[str, str], ...]  # (pod, node) sorted
    victims: tuple[tuple[str, str, int, str, str, bool], ...]  # sorted by pod
    terminating: tuple[tuple[str, str], ...]
    unplaced: tuple[str, ...]


@dataclass(frozen=True)
class RefPreemptor:
    """What the oracle places, worked out from the snapshot by ``resolve``."""

    kind: str  # "Pod" or "PodGroup"
    pods: tuple[Pod, ...]  # sorted by key
    group_key: str | None
    priority: int
    preemption_policy: str
    needed: int


def resolve(snapshot: Snapshot, asked) -> RefPreemptor:
    """The preemptor behind the question ``asked`` (any object with ``kind`` and ``pods``, e.g.
    a ``wapctl.preemptor.Preemptor``: which pending pods, one pod or as a pod group). The rest
    comes from the model, as SPEC §2 / §3 say: a pod preempts with its own priority and policy
    and needs 1 pod placed; a pod group with its group's, and needs all its pending pods placed
    for a basic group, or for a gang its ``minCount`` (all its pending pods when unset) minus
    its pods already bound and still running, never below 0."""
    pods = tuple(sorted(asked.pods, key=lambda p: p.key))
    if asked.kind == "Pod":
        (pod,) = pods
        return RefPreemptor("Pod", pods, pod.group_key, pod.priority, pod.preemption_policy, 1)
    group = snapshot.pod_groups[pods[0].group_key]
    if group.policy == "Gang":
        running = sum(1 for p in snapshot.pods.values()
                      if p.group_key == group.key and p.node_name is not None
                      and not p.terminating and not p.finished)
        declared = len(pods) if group.min_count is None else group.min_count
        needed = max(0, declared - running)
    else:
        needed = len(pods)
    return RefPreemptor("PodGroup", pods, group.key, group.priority, group.preemption_policy,
                        needed)


def _requests(pod: Pod) -> dict[str, int]:
    return {r: q for r, q in pod.requests.items() if r != "pods"}


def usage(snapshot: Snapshot, preemptor: RefPreemptor, removed: set[str], with_terminating: bool
          ) -> dict[str, tuple[dict[str, int], int]]:
    """Requested totals and pod count per node, from scratch."""
    own = {p.key for p in preemptor.pods}
    out: dict[str, tuple[dict[str, int], int]] = {n: ({}, 0) for n in snapshot.nodes}
    for pod in snapshot.pods.values():
        if pod.finished:
            continue
        if pod.node_name is not None:
            if pod.node_name not in out or pod.key in removed:
                continue
            if pod.terminating and not with_terminating:
                continue
            where = pod.node_name
        elif (not pod.terminating and pod.nominated_node in out and pod.key not in own
              and pod.priority >= preemptor.priority):
            where = pod.nominated_node
        else:
            continue
        req, count = out[where]
        for r, q in _requests(pod).items():
            req[r] = req.get(r, 0) + q
        out[where] = (req, count + 1)
    return out


def fits_on(snapshot: Snapshot, pod: Pod, node: str, req: dict[str, int], count: int) -> bool:
    n = snapshot.nodes[node]
    if not static_filters_pass(pod, n):
        return False
    if count + 1 > n.allocatable.get("pods", 0):
        return False
    return all(req.get(r, 0) + q <= n.allocatable.get(r, 0)
               for r, q in _requests(pod).items() if q > 0)


def greedy(snapshot: Snapshot, preemptor: RefPreemptor, used: dict[str, tuple[dict[str, int], int]],
           limit: int, nodes: list[str] | None = None) -> list[tuple[str, str]]:
    """Each pod: nominated node if it fits there, else the first node by name that fits."""
    used = {n: (dict(r), c) for n, (r, c) in used.items()}
    order = sorted(snapshot.nodes) if nodes is None else nodes
    placed: list[tuple[str, str]] = []
    for pod in preemptor.pods:
        if len(placed) >= limit:
            break
        candidates = list(order)
        if pod.nominated_node in snapshot.nodes and (nodes is None or pod.nominated_node in nodes):
            candidates = [pod.nominated_node, *candidates]
        for n in candidates:
            req, count = used[n]
            if fits_on(snapshot, pod, n, req, count):
                for r, q in _requests(pod).items():
                    req[r] = req.get(r, 0) + q
                used[n] = (req, count + 1)
                placed.append((pod.key, n))
                break
    return placed


def victim_units(snapshot: Snapshot, preemptor: RefPreemptor) -> list[RefUnit]:
    groups: dict[str, list[Pod]] = {}
    units = []
    for pod in snapshot.pods.values():
        if pod.node_name not in snapshot.nodes or pod.terminating or pod.finished:
            continue
        if pod.group_key is not None and pod.group_key == preemptor.group_key:
            continue
        group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
        if group is not None and group.disruption_mode == "PodGroup":
            if group.preemption_priority < preemptor.priority:
                groups.setdefault(group.key, []).append(pod)
        elif pod.preemption_priority < preemptor.priority:
            units.append(RefUnit("Pod", pod.key, pod.preemption_priority, (pod,),
                                 1 if pod.group_key else 2))
    for key, pods in groups.items():
        units.append(RefUnit("PodGroup", key, snapshot.pod_groups[key].preemption_priority,
                             tuple(sorted(pods, key=lambda p: p.key)), 0))
    return units


def violating_pods(snapshot: Snapshot, ordered: list[RefUnit],
                   rules: tuple[bool, bool, bool, bool] = (False, False, False, False)
                   ) -> set[str]:
    """``rules``: (an empty selector selects all, unlabeled pods match, a violating pod spends
    every matching PDB, a unit stops at its first violating pod) — SPEC §0 per version."""
    empty_all, unlabeled, spend_all, stop_unit = rules
    allowed = {pdb.key: pdb.disruptions_allowed for pdb in snapshot.pdbs}
    bad: set[str] = set()
    for unit in ordered:
        for pod in unit.pods:
            if not pod.labels and not unlabeled:
                continue
            for pdb in snapshot.pdbs:
                if pdb.namespace != pod.namespace:
                    continue
                # metav1.LabelSelectorAsSelector: invalid -> no match, nil -> Nothing(), empty ->
                # Everything(); the scheduler's "A PDB with a nil or empty selector matches
                # nothing" is its selector.Empty() skip, which the newest upstream drops
                selector = label_selector_as_selector(pdb.selector)
                if selector is None or (selector.empty() and not empty_all):
                    continue
                if not selector.matches(pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue
                allowed[pdb.key] -= 1
                if allowed[pdb.key] < 0:
                    bad.add(pod.key)
                    if not spend_all:
                        break
            if stop_unit and pod.key in bad:
                break
    return bad


def _rules(model: str, group_preemptor: bool) -> tuple[bool, bool, bool, bool]:
    if model == "1.36":
        return (False, False, not group_preemptor, group_preemptor)
    return (True, True, False, False)


def search(snapshot, preemptor, units, feasible):
    """Binary search over unit priorities, then reprieve; ``feasible(removed_units)``."""
    if not units:
        return None
    levels = sorted({u.priority for u in units})

    def removed_at(level):
        return [u for u in units if u.priority <= level]

    # SPEC §3 binary search for the lowest level whose removal makes room. The probe order
    # (0, 1, 3, 7, ... then bisection) matches wapctl's, so even a non-monotone greedy check
    # (pods of several shapes) gives both the same level; for monotone checks any binary
    # search finds the same answer.
    lo, k, step = 0, 0, 1
    while not feasible(removed_at(levels[k])):
        if k == len(levels) - 1:
            return None
        lo = k + 1
        k = min(len(levels) - 1, k + step)
        step *= 2
    hi = k
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(removed_at(levels[mid])):
            hi = mid
        else:
            lo = mid + 1
    candidates = sorted(removed_at(levels[hi]), key=RefUnit.importance)
    bad = violating_pods(snapshot, candidates)
    first = [u for u in candidates if any(p.key in bad for p in u.pods)]
    rest = [u for u in candidates if u not in first]
    victims = list(candidates)
    for u in first + rest:
        trial = [v for v in victims if v is not u]
        if feasible(trial):
            victims = trial
    return victims, bad


def _pods_of(units):
    return {p.key for u in units for p in u.pods}


def _terminating(snapshot: Snapshot) -> list[tuple[str, str]]:
    """(pod, node) of every terminating pod still holding a node."""
    return [(p.key, p.node_name) for p in snapshot.pods.values()
            if p.terminating and not p.finished and p.node_name in snapshot.nodes]


def _plan_maker(pods):
    """``done(status, placed, victims, bad, term, held)``: the RefPlan for ``pods``.

    A victim already terminating is not deleted again (upstream ``prepareCandidate`` skips a
    pod whose deletionTimestamp is set): it leaves ``victims`` for ``terminating``, and with no
    other victim nothing starts (WaitingForTermination). ``held``: the search ran with the
    terminating pods holding their room, so only those victims are waited for; else ``term``
    (the terminating pods on the nodes used, taken as gone) are."""
    def done(status, placed=(), victims=(), bad=frozenset(), term=(), held=False):
        records = tuple(sorted(
            (p.key, p.node_name, u.priority, u.kind, u.name, p.key in bad)
            for u in victims for p in u.pods if not p.terminating))
        going = [(p.key, p.node_name) for u in victims for p in u.pods if p.terminating]
        if going:
            status = "RequiresPreemption" if records else "WaitingForTermination"
        term = sorted(set(going) | (set() if held else set(term)))
        placed_keys = {k for k, _ in placed}
        return RefPlan(status, tuple(sorted(placed)), records, tuple(term),
                       tuple(p.key for p in pods if p.key not in placed_keys))
    return done


def _node_key(victims, bad, name) -> tuple:
    """A single pod's node ranking: fewest violating victims, lowest top priority, lowest
    priority sum, fewest victims, latest earliest start among the top-priority victims, name."""
    vp = [(p, u.priority) for u in victims for p in u.pods]
    top = max(u.priority for u in victims)
    earliest = min((p.start_time if p.start_time is not None else INF
                    for p, pr in vp if pr == top), default=INF)
    return (sum(1 for p, _ in vp if p.key in bad), top, sum(pr + OFFSET for _, pr in vp),
            len(vp), -earliest, name)


def _reprieve(snapshot, units, model, group, still_fits):
    """Every unit as a victim, then put back one by one (violating ones first, each in
    importance order) while ``still_fits`` the remaining victims. (victims, violating pods)."""
    order = sorted(units, key=lambda u: _importance(model, group, u))
    bad = violating_pods(snapshot, order, _rules(model, group))
    first = [u for u in order if any(p.key in bad for p in u.pods)]
    victims = list(order)
    for u in first + [u for u in order if u not in first]:
        trial = [v for v in victims if v is not u]
        if still_fits(trial):
            victims = trial
    return victims, bad


def reference_plan(snapshot: Snapshot, asked) -> RefPlan:
    """The SPEC §3 (kep-5710) plan for the preemptor ``asked`` (see ``resolve``)."""
    preemptor = resolve(snapshot, asked)
    pods = preemptor.pods
    needed = preemptor.needed
    terminating = _terminating(snapshot)
    done = _plan_maker(pods)

    if needed > len(pods):
        return done("Unschedulable")
    placed = greedy(snapshot, preemptor, usage(snapshot, preemptor, set(), True), len(pods))
    if len(placed) >= needed:
        return done("Schedulable", placed)
    base = usage(snapshot, preemptor, set(), False)
    placed = greedy(snapshot, preemptor, base, len(pods))
    if len(placed) >= needed:
        nodes = {n for _, n in placed}
        return done("WaitingForTermination", placed,
                    term=[t for t in terminating if t[1] in nodes])
    if preemptor.preemption_policy == "Never":
        return done("Unschedulable")
    units = victim_units(snapshot, preemptor)

    if preemptor.kind == "PodGroup":
        def feasible(removed):
            used = usage(snapshot, preemptor, _pods_of(removed), False)
            return len(greedy(snapshot, preemptor, used, needed)) >= needed

        found = search(snapshot, preemptor, units, feasible)
        if found is None:
            return done("Unschedulable")
        victims, bad = found
        used = usage(snapshot, preemptor, _pods_of(victims), False)
        placed = greedy(snapshot, preemptor, used, len(pods))
        nodes = {n for _, n in placed}
        return done("RequiresPreemption", placed, victims, bad,
                    [t for t in terminating if t[1] in nodes])

    pod = pods[0]
    best = None
    for name in sorted(snapshot.nodes):
        local = [u for u in units if any(p.node_name == name for p in u.pods)]

        def feasible(removed, name=name):
            used = usage(snapshot, preemptor, _pods_of(removed), False)
            return bool(greedy(snapshot, preemptor, used, 1, nodes=[name]))

        if not local or not static_filters_pass(pod, snapshot.nodes[name]):
            continue
        found = search(snapshot, preemptor, local, feasible)
        if found is None:
            continue
        victims, bad = found
        key = _node_key(victims, bad, name)
        if best is None or key < best[0]:
            best = (key, name, victims, bad)
    if best is None:
        return done("Unschedulable")
    _, name, victims, bad = best
    return done("RequiresPreemption", [(pod.key, name)], victims, bad,
                [t for t in terminating if t[1] == name])


def fast_as_reference(plan) -> RefPlan:
    """A ``wapctl.preemption.Plan`` in the reference's shape, for comparison."""
    return RefPlan(
        plan.status,
        tuple((p.pod, p.node) for p in plan.placements),
        tuple((v.pod, v.node, v.priority, v.unit_kind, v.unit_name, v.pdb_violation)
              for v in plan.victims),
        tuple((t.pod, t.node) for t in plan.terminating),
        plan.unplaced,
    )


# ---- the upstream models (1.36, upstream): docs/SPEC.md §0 -----------------------------------
#
# Written from the table, independently of wapctl.preemption / wapctl.models / wapctl.scoring:
# every lower unit removed at once, the preemptor scheduled once (filters + default scores,
# from scratch), that placement fixed, units put back one by one if the fixed placement still
# holds; terminating pods hold their resources and are potential victims.


def _importance(model: str, group_preemptor: bool, u: RefUnit) -> tuple:
    starts = [p.start_time for p in u.pods if p.start_time is not None]
    start = min(starts) if starts else INF
    size = len(u.pods)
    if model == "upstream":
        grouped = u.kind == "PodGroup" or u.pods[0].group_key is not None
        return (-u.priority, 0 if grouped else 1, -size, start, u.name)
    if not group_preemptor:  # 1.36 MoreImportantPod
        return (-u.priority, start, u.name)
    in_group = u.pods[0].group_key is not None  # 1.36 moreImportantVictim: IsPodGroup
    return (-u.priority, 0, -size, start, u.name) if in_group else (-u.priority, 1, 0, start,
                                                                      u.name)


def _alone(pod: Pod, model: str) -> int:
    """A pod's priority as a victim on its own: 1.36 compares corev1helpers.PodPriority, the
    pod's spec.priority, even where its pod group says otherwise; newer upstream, the group's."""
    if model == "1.36" and pod.own_priority is not None:
        return pod.own_priority
    return pod.priority


def upstream_units(snapshot: Snapshot, preemptor: RefPreemptor, model: str,
                   terminating: bool = True) -> list[RefUnit]:
    """Every pod of a NodeInfo below the preemptor is a potential victim, a terminating one
    included (``terminating``; False once they are taken as gone)."""
    whole = preemptor.kind == "PodGroup" or model == "upstream"
    groups: dict[str, list[Pod]] = {}
    units = []
    for pod in snapshot.pods.values():
        if pod.node_name not in snapshot.nodes or pod.finished:
            continue
        if pod.terminating and not terminating:
            continue
        if pod.group_key is not None and pod.group_key == preemptor.group_key:
            continue
        group = snapshot.pod_groups.get(pod.group_key) if pod.group_key else None
        if whole and group is not None and group.disruption_mode == "PodGroup":
            if group.priority < preemptor.priority:
                groups.setdefault(group.key, []).append(pod)
        elif _alone(pod, model) < preemptor.priority:
            units.append(RefUnit("Pod", pod.key, _alone(pod, model), (pod,),
                                 1 if pod.group_key else 2))
    for key, pods in groups.items():
        units.append(RefUnit("PodGroup", key, snapshot.pod_groups[key].priority,
                             tuple(sorted(pods, key=lambda p: p.key)), 0))
    return units


def _score(snapshot: Snapshot, pod: Pod, node: str, req: dict[str, int],
           taint_max: int) -> int:
    alloc = snapshot.nodes[node].allocatable
    cpu, mem = pod.requests.get("cpu", 0), pod.requests.get("memory", 0)
    least, weight = 0, 0
    fractions = []
    for r, own, nz in (("cpu", cpu, cpu or 100), ("memory", mem, mem or 200 * 1024 * 1024)):
        cap = alloc.get(r, 0)
        if cap == 0:
            continue
        weight += 1
        if req.get(r, 0) + nz <= cap:
            least += (cap - req.get(r, 0) - nz) * 100 // cap
        fractions.append(min(1.0, (req.get(r, 0) + own) / cap))
    least = least // weight if weight else 0
    if len(fractions) == 2:
        balanced = int((1 - abs(fractions[0] - fractions[1]) / 2) * 100)
    else:
        balanced = 100 if fractions else 0
    taints = _prefer_taints(snapshot, pod, node)
    taint = 100 if taint_max == 0 else 100 - taints * 100 // taint_max
    return least + balanced + 3 * taint


def _prefer_taints(snapshot: Snapshot, pod: Pod, node: str) -> int:
    count = 0
    for t in snapshot.nodes[node].taints:
        if t.effect != "PreferNoSchedule":
            continue
        if not any(tol.effect in ("", "PreferNoSchedule") and (
                (tol.operator == "Exists" and tol.key in ("", t.key))
                or (tol.operator != "Exists" and tol.key == t.key and tol.value == t.value))
                for tol in pod.tolerations):
            count += 1
    return count


def scored(snapshot: Snapshot, preemptor: RefPreemptor, used: dict[str, tuple[dict[str, int], int]],
           limit: int, nodes: list[str] | None = None) -> list[tuple[str, str]]:
    """Each pod: its nominated node if it fits there, else the feasible node of the highest
    default score, first by name among equal ones."""
    used = {n: (dict(r), c) for n, (r, c) in used.items()}
    order = sorted(snapshot.nodes) if nodes is None else nodes
    placed: list[tuple[str, str]] = []
    for pod in preemptor.pods:
        if len(placed) >= limit:
            break
        passing = [n for n in sorted(snapshot.nodes)
                   if static_filters_pass(pod, snapshot.nodes[n])]
        taint_max = max((_prefer_taints(snapshot, pod, n) for n in passing), default=0)
        target = None
        nom = pod.nominated_node
        if nom in snapshot.nodes and (nodes is None or nom in nodes) and fits_on(
                snapshot, pod, nom, *used[nom]):
            target = nom
        else:
            best = None
            for n in order:
                if fits_on(snapshot, pod, n, *used[n]):
                    s = _score(snapshot, pod, n, used[n][0], taint_max)
                    if best is None or s > best[0]:
                        best = (s, n)
            target = best[1] if best else None
        if target is not None:
            req, count = used[target]
            for r, q in _requests(pod).items():
                req[r] = req.get(r, 0) + q
            used[target] = (req, count + 1)
            placed.append((pod.key, target))
    return placed


def _holds(snapshot: Snapshot, preemptor: RefPreemptor, removed: set[str],
           placed: list[tuple[str, str]], held: bool = True) -> bool:
    """The fixed placement still passes resource filters with only ``removed`` gone."""
    used = usage(snapshot, preemptor, removed, held)
    pods = {p.key: p for p in preemptor.pods}
    for key, n in placed:
        req, count = used[n]
        for r, q in _requests(pods[key]).items():
            req[r] = req.get(r, 0) + q
        used[n] = (req, count + 1)
    for n, (req, count) in used.items():
        if not any(m == n for _, m in placed):
            continue
        alloc = snapshot.nodes[n].allocatable
        if count > alloc.get("pods", 0):
            return False
        if any(q > alloc.get(r, 0) for r, q in req.items() if r in {
                r2 for k, m in placed if m == n for r2, q2 in pods[k].requests.items()
                if q2 > 0 and r2 != "pods"}):
            return False
    return True


def _unresolvable(snapshot: Snapshot, pod: Pod, name: str) -> bool:
    """PodEligibleToPreemptOthers' exception (default_preemption.go): the nominated node's
    filters answer UnschedulableAndUnresolvable -- a static filter fails there, or the pod asks
    more of some resource than the node has at all (fit.go: Unresolvable)."""
    n = snapshot.nodes[name]
    return not static_filters_pass(pod, n) or any(
        q > n.allocatable.get(r, 0) for r, q in _requests(pod).items() if q > 0 and r != "pods")


def upstream_reference_plan(snapshot: Snapshot, asked, model: str) -> RefPlan:
    """The SPEC §0 plan under ``model`` ("1.36" or "upstream") for ``asked`` (``resolve``)."""
    preemptor = resolve(snapshot, asked)
    pods = preemptor.pods
    is_group = preemptor.kind == "PodGroup"
    group = snapshot.pod_groups.get(preemptor.group_key or "") if is_group else None
    needed = min(1, len(pods)) if group is not None and group.policy == "Basic" else \
        preemptor.needed
    terminating = _terminating(snapshot)
    done = _plan_maker(pods)

    def waiting():
        placed = scored(snapshot, preemptor, usage(snapshot, preemptor, set(), False), len(pods))
        if len(placed) < needed:
            return None
        nodes = {n for _, n in placed}
        return done("WaitingForTermination", placed,
                    term=[t for t in terminating if t[1] in nodes])

    if needed > len(pods):
        return done("Unschedulable")
    held = usage(snapshot, preemptor, set(), True)
    placed = scored(snapshot, preemptor, held, len(pods))
    if len(placed) >= needed:
        return done("Schedulable", placed)
    nominated = ({p.nominated_node for p in pods if p.nominated_node in snapshot.nodes}
                 if not (is_group and model == "1.36") else set())
    if not is_group and any(_unresolvable(snapshot, p, p.nominated_node) for p in pods
                            if p.nominated_node in nominated):
        nominated = set()  # it can no longer go there: eligible to preempt again
    blocking = sorted((p.key, p.node_name) for p in snapshot.pods.values()
                      if p.terminating and not p.finished and p.node_name in nominated
                      and _alone(p, model) < preemptor.priority and p.preempted_by_scheduler)
    if blocking:
        return done("WaitingForTermination",
                    [(p.key, p.nominated_node) for p in pods if p.nominated_node in nominated],
                    term=blocking)
    never = (any(p.preemption_policy == "Never" for p in pods) if is_group
             else preemptor.preemption_policy == "Never")
    if never:
        return waiting() or done("Unschedulable")
    units = upstream_units(snapshot, preemptor, model)
    found = attempt(snapshot, preemptor, model, units, needed, terminating, done, True)
    if found is not None:
        return found
    if terminating:  # with no victims making room while they hold: once they are gone
        gone = upstream_units(snapshot, preemptor, model, terminating=False)
        found = waiting() or attempt(snapshot, preemptor, model, gone, needed, terminating,
                                     done, False)
    return found or done("Unschedulable")


def attempt(snapshot, preemptor, model, units, needed, terminating, done, held):
    """The victim search with terminating pods holding their resources (``held``) or gone."""
    pods = preemptor.pods
    is_group = preemptor.kind == "PodGroup"
    found = None
    if units and is_group and model == "1.36":
        # 1.36 selectVictimsOnDomain: the group scheduled again for every unit put back
        def schedules(removed):
            used = usage(snapshot, preemptor, _pods_of(removed), held)
            return len(scored(snapshot, preemptor, used, len(pods))) >= needed

        if schedules(units):
            victims, bad = _reprieve(snapshot, units, model, True, schedules)
            placed = scored(snapshot, preemptor,
                            usage(snapshot, preemptor, _pods_of(victims), held), len(pods))
            nodes = {n for _, n in placed}
            found = done("RequiresPreemption", placed, victims, bad,
                         [t for t in terminating if t[1] in nodes], held)
    elif units and is_group:
        everything = _pods_of(units)
        placed = scored(snapshot, preemptor, usage(snapshot, preemptor, everything, held),
                        len(pods))
        if len(placed) >= needed:
            victims, bad = _reprieve(
                snapshot, units, model, True,
                lambda trial: _holds(snapshot, preemptor, _pods_of(trial), placed, held))
            nodes = {n for _, n in placed}
            found = done("RequiresPreemption", placed, victims, bad,
                         [t for t in terminating if t[1] in nodes], held)
    elif units:
        pod = pods[0]
        best = None
        for name in sorted(snapshot.nodes):
            local = [u for u in units if any(p.node_name == name for p in u.pods)]
            if not local or not static_filters_pass(pod, snapshot.nodes[name]):
                continue

            def fits(removed, name=name):
                req, count = usage(snapshot, preemptor, _pods_of(removed), held)[name]
                return fits_on(snapshot, pod, name, req, count)

            if not fits(local):
                continue
            victims, bad = _reprieve(snapshot, local, model, False, fits)
            key = _node_key(victims, bad, name)
            if best is None or key < best[0]:
                best = (key, name, victims, bad)
        if best is not None:
            _, name, victims, bad = best
            found = done("RequiresPreemption", [(pod.key, name)], victims, bad,
                         [t for t in terminating if t[1] == name], held)
    return found
