"""The planner, after upstream's ``Evaluator.Preempt`` (pkg/scheduler/framework/preemption/
preemption.go) for a single pod and ``PodGroupEvaluator.Preempt`` (podgrouppreemption.go) for a
pod group; the package docstring has the algorithm per model. ``Evaluator.run``'s steps:

1. fits now -> Schedulable (no preemption needed: upstream never reaches PostFilter);
2. eligibility: ``pod_eligible_to_preempt_others`` (upstream step 1, 1.36 and upstream models),
   ``waiting`` (the KEP model: terminating pods are free space);
3. preemptionPolicy Never (also upstream's eligibility);
4. candidates and the best one: a single pod ``plan_pod`` (``default_preemption``: upstream
   steps 2 ``findCandidates`` / ``DryRunPreemption``, 4 ``SelectCandidate``); a pod group
   ``select_victims_on_domain`` (upstream model) or ``plan_group`` (1.36, KEP);
5. prepare: ``outcome.actuate`` (upstream ``prepareCandidate``: victims deleted, the already
   terminating ones waited for).

Upstream's step 3 (extenders) has no counterpart: a snapshot has no extenders."""
from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import (
    Accounting,
    ClusterState,
    StaticFitCache,
    request_items,
    static_key,
)
from wapctl.gcpause import gc_paused
from wapctl.model import NEVER, PREEMPT_LOWER, Pod, Snapshot
from wapctl.models import BehaviourModel, select_model
from wapctl.preemption.budgets import Budgets, PdbRules
from wapctl.preemption.default_preemption import PodPreemption
from wapctl.preemption.feasibility import (
    ClusterCheck,
    CountCheck,
    FixedCheck,
    GreedyCheck,
    RescheduleCheck,
)
from wapctl.preemption.outcome import actuate
from wapctl.preemption.outcome import plural as _plural
from wapctl.preemption.outcome import terminating_on as _terminating
from wapctl.preemption.outcome import victim_records as _victim_records
from wapctl.preemption.placement import Placer, ScoredPlacer
from wapctl.preemption.result import (
    SCHEDULABLE,
    UNSCHEDULABLE,
    WAITING,
    Placement,
    Plan,
    PlanStatus,
    TerminatingPod,
    Tie,
    Victim,
    waiting_reason,
)
from wapctl.preemption.search import LevelSearch, reprieve
from wapctl.preemption.units import (
    Unit,
    UnitIndex,
    victim_units,
)
from wapctl.preemptor import Preemptor

# ---- plan -------------------------------------------------------------------------------------


def _placements(placed: Iterable[tuple[Pod, int]], state: ClusterState) -> tuple[Placement, ...]:
    return tuple(sorted((Placement(p.key, state.nodes[i].name) for p, i in placed),
                        key=lambda pl: pl.pod))


def _unplaced(preemptor: Preemptor, placed: Iterable[tuple[Pod, int]]) -> tuple[str, ...]:
    done = {p.key for p, _ in placed}
    return tuple(p.key for p in preemptor.pods if p.key not in done)


def _filter_summary(state: ClusterState, pod: Pod, cache: StaticFitCache,
                    filters: PlanFilters | None = None) -> str:
    """kube-scheduler style: how many nodes each static filter rejected (and, on nodes with
    room, each pod-dependent one), the "N reason" strings in byte order as upstream's
    ``FitError.Error`` sorts them (``sort.Strings`` in framework/types.go)."""
    nodes = state.nodes
    key = static_key(pod)
    counts = dict(cache.rejected(pod, nodes, key))  # the static filters' answers are kept
    if filters is not None:  # the pod-dependent ones, on the nodes with room
        items = request_items(pod.requests)
        for i in cache.passing(pod, nodes, key)[0]:
            if nodes[i].fits(items):
                reason = filters.reason(pod, i)
                if reason is not None:
                    counts[reason] = counts.get(reason, 0) + 1
    passing = len(state.nodes) - sum(counts.values())
    parts = [f"{n} {r}" for r, n in counts.items()]
    if passing:
        parts.append(f"{passing} node(s) without enough room")
    parts.sort()
    if not parts:
        return "the cluster has no nodes"
    return f"0/{len(state.nodes)} nodes are available: " + ", ".join(parts)


class Evaluator(PodPreemption):
    """One plan run (upstream ``Evaluator`` / ``PodGroupEvaluator``): the preemptor, its view
    of the cluster and the caches it shares; ``run`` takes the steps of the module docstring.

    Its view of the cluster (``view``) is its own either way: built from the snapshot, or
    copied from an ``Accounting`` (no rebuild from every pod), and dropped with the run.
    """

    def __init__(self, snapshot: Snapshot, preemptor: Preemptor, model: BehaviourModel,
                 accounting: Accounting | None = None,
                 rng: random.Random | None = None) -> None:
        self.snapshot = snapshot
        # upstream's random choices drawn from rng (models without ties ignore it)
        self.rng = rng if model.priority_search == "none" else None
        self.preemptor = preemptor
        self.model = model
        self.desc = preemptor.describe()
        self.ties: list[Tie] = []  # tie_list: the same, where the model has random choices
        self.tie_list = self.ties if model.priority_search == "none" else None
        is_pod = preemptor.kind == "Pod"
        # Which units a victim search sees (models.py): whole PodGroup-mode groups for a group
        # preemptor always, for a single pod only where the model says so.
        self.whole_groups = not is_pod or model.pod_preemptor_takes_groups_whole
        self.importance = model.importance(not is_pod)
        # A basic group places as many pods as fit (upstream); the KEP model asks for all.
        self.needed = preemptor.needed
        group = snapshot.pod_groups.get(preemptor.group_key or "") if not is_pod else None
        if group is not None and group.policy == "Basic" and model.basic_group_places_what_fits:
            self.needed = min(1, len(preemptor.pods))
        self.policy = preemptor.preemption_policy
        if not is_pod and model.group_policy_upstream:
            if model.group_policy_own and group is not None:
                # PodGroupPreemptionPolicy: the PodGroup's own policy only
                # (manager.go getPreemptionPolicy)
                self.policy = group.declared_preemption_policy or PREEMPT_LOWER
            else:
                # 1.36 newPodGroupPreemptor / gate off: any member pod whose own policy is
                # Never makes the group Never; the PodGroup's policy is not read
                self.policy = (NEVER if any((p.own_preemption_policy or p.preemption_policy)
                                            == NEVER for p in preemptor.pods)
                               else PREEMPT_LOWER)
        self.accounting = accounting
        # The accounting's victim-unit index pays from its second plan on: a single plan builds
        # its units from the running pods for less than the index costs to build.
        self.indexed = False
        if accounting is not None:
            self.indexed = accounting.plans > 0
            accounting.plans += 1
        self.cache = accounting.cache if accounting is not None else StaticFitCache()
        self.view()

    def view(self) -> None:
        """The plan's own view of the cluster, as the snapshot has it (terminating pods holding
        their room, this preemptor's reservations made), with its placer and filters: built
        from the snapshot, or copied from the accounting's node states. The plan writes only
        here; a second call starts again from the snapshot."""
        preemptor, accounting = self.preemptor, self.accounting
        exclude = {p.key for p in preemptor.pods}
        if accounting is None:
            tracked = {r for p in preemptor.pods for r, q in p.requests.items() if q > 0}
            if self.model.scored_placement:
                tracked |= {"cpu", "memory"}
            self.state = ClusterState(self.snapshot, reserve_priority=preemptor.priority,
                                      exclude=exclude, tracked=tracked)
        else:
            self.state = ClusterState.over(accounting, reserve_priority=preemptor.priority,
                                           exclude=exclude)
        placer_cls = ScoredPlacer if self.model.scored_placement else Placer
        self.placer = placer_cls(self.state, preemptor.pods, self.cache)
        if isinstance(self.placer, ScoredPlacer):
            self.placer.rng = self.rng
        filters = PlanFilters(self.snapshot, self.state, preemptor.pods)
        self.filters = filters if filters.active else None
        self.placer.filters = self.filters

    def place(self, limit: int) -> list[tuple[Pod, int]]:
        """A placement run; the scheduler's random picks among equal nodes become ties."""
        placed = self.placer.place(limit)
        self.ties.extend(getattr(self.placer, "ties", ()))
        return placed

    def result(self, status: PlanStatus, reason: str,
               placed: Sequence[tuple[Pod, int]] = (), victims: tuple[Victim, ...] = (),
               terminating: tuple[TerminatingPod, ...] = ()) -> Plan:
        return Plan(preemptor=self.preemptor, status=status, reason=reason,
                    placements=_placements(placed, self.state), victims=victims,
                    terminating=terminating, unplaced=_unplaced(self.preemptor, placed),
                    model=self.model, ties=tuple(self.ties))

    def summary(self) -> str:
        return _filter_summary(self.state, self.preemptor.pods[0], self.cache, self.filters)

    def run(self) -> Plan:
        preemptor, state = self.preemptor, self.state
        pods, needed, desc = preemptor.pods, self.needed, self.desc
        is_pod = preemptor.kind == "Pod"
        if needed > len(pods):
            return self.result(UNSCHEDULABLE,
                               f"{desc} needs {needed} more pod(s) to reach minCount "
                               f"{preemptor.min_count} but only {len(pods)} are pending.")

        # 1. Fits now (terminating pods still hold their resources).
        placed = self.place(len(pods))
        if len(placed) >= needed:
            if is_pod:
                reason = (f"{desc} fits on node {state.nodes[placed[0][1]].name} "
                          f"without preemption.")
            elif needed == 0:
                reason = (f"{desc} already has its minCount of pods running; {len(placed)} of "
                          f"{len(pods)} pending pods also fit without preemption.")
            else:
                reason = (f"{desc}: {len(placed)} of {len(pods)} pending pods fit without "
                          f"preemption ({needed} needed).")
            return self.result(SCHEDULABLE, reason, placed)
        self.ties.clear()  # only the ties of the placement reported count

        if self.model.terminating_free:
            # 2. (KEP) Terminating pods are free space: fits once they are gone -> wait.
            waiting = self.waiting(hold=False)  # and they stay free for the victim search
            if waiting is not None:
                return waiting
        else:
            # 2. (upstream) A preemptor nominated where lower-priority pods still terminate by
            # preemption starts no new preemption (PodEligibleToPreemptOthers).
            blocked = self.pod_eligible_to_preempt_others()
            if blocked is not None:
                return blocked

        # 3. preemptionPolicy Never.
        if self.policy == NEVER:
            waiting = None if self.model.terminating_free else self.waiting()
            if waiting is not None:
                return waiting
            return self.result(UNSCHEDULABLE,
                               f"{desc} does not fit and its preemptionPolicy is Never: it waits "
                               f"for free space and preempts nothing.")

        # 4. Victim units.
        units = self.victim_units()
        if not units:
            found = None
        else:
            budgets = self.budgets()
            found = self.plan_pod(units, budgets) if is_pod else self.plan_group(units, budgets)
            if found.status != UNSCHEDULABLE:
                return found
        if not self.model.terminating_free and state.terminating:
            # Terminating pods hold their resources upstream, and the lower-priority ones were
            # potential victims above. With no victims that make room while they hold (the
            # terminating pods of equal or higher priority stand in the way), the preemptor
            # fits once they are gone (no new victims), or with them gone and victims besides.
            # Upstream would answer Unschedulable now and retry once they are gone.
            self.view()  # a new view: nothing of the failed search stays
            self.ties.clear()
            waiting = self.waiting(hold=False)
            if waiting is not None:
                return waiting
            units = self.victim_units()  # the terminating pods are gone: no victims now
            if units:
                budgets = self.budgets()
                again = (self.plan_pod(units, budgets) if is_pod
                         else self.plan_group(units, budgets))
                if again.status != UNSCHEDULABLE:
                    return again
        if found is not None:
            return found
        return self.result(UNSCHEDULABLE,
                           f"{desc} does not fit and no running pod has a preemption "
                           f"priority below {preemptor.priority} ({self.summary()}).")

    def budgets(self) -> Budgets:
        """The PDB budgets as this model matches and spends them (kept with an accounting)."""
        rules = PdbRules(*self.model.pdb_rules(self.preemptor.kind == "PodGroup"))
        memo = self.accounting.memo if self.accounting is not None else None
        return Budgets.of(self.snapshot.pdbs, memo, rules)

    def waiting(self, hold: bool = True) -> Plan | None:
        """WaitingForTermination if the preemptor fits once the terminating pods are gone;
        else None, the terminating pods holding their resources again if ``hold``."""
        state, pods, desc = self.state, self.preemptor.pods, self.desc
        state.release_terminating()
        placed = self.place(len(pods))
        if len(placed) < self.needed:
            if hold:
                state.hold_terminating()
            self.ties.clear()
            return None
        used = {i for _, i in placed}
        where = (f"on node {state.nodes[placed[0][1]].name}" if self.preemptor.kind == "Pod"
                 else f"({len(placed)} of {len(pods)} pending pods placed)")
        reason = waiting_reason(desc, where, [p.preempted_by_scheduler
                                              for p, i in state.terminating if i in used])
        return self.result(WAITING, reason, placed, terminating=_terminating(state, used))

    def pod_eligible_to_preempt_others(self) -> Plan | None:
        """Upstream ``DefaultPreemption.PodEligibleToPreemptOthers``
        (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go) / the pod
        group's ``PodGroupEvaluator.preemptorEligibleToPreemptOthers``
        (pkg/scheduler/framework/preemption/podgrouppreemption.go), 1.36 and upstream models
        (the KEP model waits for every terminating pod instead, ``waiting``): a preemptor with
        a pod nominated to a node where a pod of lower priority is terminating by preemption is
        not eligible to preempt; it waits for that node -- unless, for a single pod, the
        filters now answer UnschedulableAndUnresolvable on its nominated node
        (``unresolvable_on``: tainted, cordoned, no longer matching, too small, ...): then it
        is eligible and preempts elsewhere. "By preemption" needs the
        DisruptionTarget condition with reason PreemptionByScheduler where the model says so.
        Returns that WaitingForTermination plan where the preemptor is not eligible, else None
        (eligible; preemptionPolicy Never is step 3 of ``run``)."""
        state, pre = self.state, self.preemptor
        if pre.kind == "PodGroup" and not self.model.group_waits_for_termination:
            return None  # 1.36 preemptorEligibleToPreemptOthers: preemptionPolicy only
        nominated = {state.index[p.nominated_node] for p in pre.pods
                     if p.nominated_node is not None and p.nominated_node in state.index}
        if not nominated:
            return None
        if pre.kind != "PodGroup" and self.unresolvable_on(next(iter(nominated))):
            return None  # the nominated node can no longer take it: eligible to preempt again
        needs = self.model.terminating_needs_condition
        blocking = [(p, i) for p, i in state.terminating
                    if i in nominated and self.model.victim_priority(p) < pre.priority
                    and (p.preempted_by_scheduler or not needs)]
        if not blocking:
            return None
        nodes = sorted({state.nodes[i].name for _, i in blocking})
        terminating = tuple(TerminatingPod(p.key, state.nodes[i].name) for p, i in blocking)
        reason = (f"{self.desc} is nominated to {', '.join(nodes)} where "
                  f"{_plural(len(blocking), 'lower-priority pod')} still "
                  f"{'terminate' if len(blocking) > 1 else 'terminates'} by "
                  f"preemption; the scheduler starts no new preemption and waits for "
                  f"{'them' if len(blocking) > 1 else 'it'}.")
        placed = [(p, state.index[p.nominated_node]) for p in pre.pods
                  if p.nominated_node is not None and p.nominated_node in state.index]
        return self.result(WAITING, reason, placed, terminating=terminating)

    def victim_units(self) -> Sequence[Unit]:
        """Step 4 in (priority, name) order: from the accounting's index if kept, else built."""
        pre, separate = self.preemptor, self.model.separate_preemption_priority
        own = self.model.pod_priority_own
        if self.accounting is not None and self.indexed and not self.terminating_victims():
            return UnitIndex.of(self.accounting, self.snapshot.pod_groups, separate,
                                 self.whole_groups, own).below(pre.priority, pre.group_key)
        return victim_units(self.snapshot, self.state, pre, separate, self.whole_groups,
                             self.terminating_victims(), own)

    def terminating_victims(self) -> bool:
        """Upstream models: a terminating pod still holding its resources is a potential victim
        (1.36 default_preemption.go SelectVictimsOnNode takes every lower-priority pod of the
        NodeInfo; upstream types.go getCrossNodesVictims iterates node.GetPods()). The KEP
        model counts them as free space instead. The kept index has running pods only, so
        when a terminating pod may be a victim (its own or its group's priority below the
        preemptor's) the units are built from the state."""
        state = self.state
        if self.model.terminating_free or state.released or not state.terminating:
            return False
        limit, own, groups = self.preemptor.priority, self.preemptor.group_key, \
            self.snapshot.pod_groups
        for pod, _ in state.terminating:
            gk = pod.group_key
            if gk is not None and gk == own:
                continue
            group = groups.get(gk) if gk is not None else None
            low = min(pod.priority, pod.preemption_priority, self.model.victim_priority(pod))
            if group is not None:
                low = min(low, group.priority, group.preemption_priority)
            if low < limit:
                return True
        return False

    def units_per_node(self, ordered: Sequence[Unit]) -> dict[int, list[Unit]]:
        """The victim units on each node, each list in (priority, name) order."""
        pre = self.preemptor
        if self.accounting is not None and self.indexed and not self.terminating_victims():
            return UnitIndex.of(self.accounting, self.snapshot.pod_groups,
                                 self.model.separate_preemption_priority, self.whole_groups,
                                 self.model.pod_priority_own).per_node(pre.priority,
                                                                       pre.group_key)
        per_node: dict[int, list[Unit]] = {}
        for u in ordered:
            for i in u.nodes:
                per_node.setdefault(i, []).append(u)
        return per_node

    def plan_group(self, units: Sequence[Unit], budgets: Budgets) -> Plan:
        """Steps 5-6 with the whole cluster as the domain."""
        if self.model.group_reprieve == "fixed":
            return self.select_victims_on_domain(units, budgets)
        preemptor, state, placer = self.preemptor, self.state, self.placer
        needed = self.needed
        check: ClusterCheck
        if placer.shapes == 1 and self.filters is not None and self.filters.monotone:
            counted = self.plan_group_counted(units, budgets)
            if counted is not None:
                return counted
        if placer.shapes == 1 and self.filters is None:
            check = CountCheck(state, placer, needed)
        elif isinstance(placer, ScoredPlacer):
            check = RescheduleCheck(state, placer, needed)
        else:
            check = GreedyCheck(state, placer, needed)
        # 1.36: every unit removed, the group scheduled again for each unit put back
        # (selectVictimsOnDomain's reprieveVictim calls podGroupSchedulingFunc); KEP: the
        # lowest level first
        search = LevelSearch(units, check, presorted=True, search=self.model.priority_search)
        if search.level is None:
            most = len(placer.place(len(preemptor.pods)))
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {needed} pod(s) placed but at most {most} fit "
                               f"even after preempting every lower-priority unit "
                               f"({self.summary()}).")
        victim_units, violating = search.reprieve(budgets, self.importance, self.tie_list, self.rng)
        placed = self.place(len(preemptor.pods))
        return self.group_result(placed, victim_units, violating)

    def plan_group_counted(self, units: Sequence[Unit], budgets: Budgets) -> Plan | None:
        """One shape under pod-dependent filters that removing pods never fails
        (``PlanFilters.monotone``: no preemptor affinity or spread counts a present pod or
        the preemptor's own pods):
        search and reprieve by per-node copy counts (resources only), then place with the
        filters and those victims. Where placing works and the reprieve saw no tie this is the
        answer of the filter-aware search too (a set that passes the filters passes the counts;
        the first unit the counts keep and the filters would not leaves the filters failing
        with every later unit back too, so the placing fails); else None, with everything given
        back, and the caller searches with the filters. Ties are replayed by resources only
        here, so a tie found may be one the filters rule out: the filter-aware search decides."""
        placer, state, filters = self.placer, self.state, self.filters
        assert filters is not None
        placer.filters = None  # the count check moves units in the state only
        check = CountCheck(state, placer, self.needed)
        try:
            search = LevelSearch(units, check, presorted=True, search=self.model.priority_search)
            ties: list[Tie] | None = [] if self.tie_list is not None else None
            victim_units: list[Unit]
            violating: set[str]
            if search.level is None:  # every unit out: no level makes room even by counts
                victim_units, violating = [], set()
                removed = list(search.by_priority[: search.removed])
            else:
                victim_units, violating = search.reprieve(budgets, self.importance, ties, self.rng)
                removed = list(victim_units)
        finally:
            placer.filters = filters
        for u in removed:
            filters.remove(u.members)
        known_ties = len(self.ties)
        placed = self.place(len(self.preemptor.pods)) if search.level is not None else []
        if len(placed) >= self.needed and not ties:  # no victims' ties: only the nodes' stand
            return self.group_result(placed, victim_units, violating)
        del self.ties[known_ties:]
        for u in removed:
            filters.add(u.members)
        placer.filters = None
        try:
            for u in removed:
                check.add(u)
        finally:
            placer.filters = filters
        return None

    def select_victims_on_domain(self, units: Sequence[Unit], budgets: Budgets) -> Plan:
        """Upstream ``PodGroupEvaluator.selectVictimsOnDomain``
        (pkg/scheduler/framework/preemption/podgrouppreemption.go), the upstream model's pod
        group (``group_reprieve == "fixed"``; 1.36 and the KEP model take ``plan_group``'s other
        checks): remove every lower-priority unit, run the
        scheduling cycle once (filters and default scores; every pod it places is kept), fix
        that placement, then reprieve unit by unit against it."""
        preemptor, state, placer = self.preemptor, self.state, self.placer
        check = FixedCheck(state, placer, self.needed)
        for unit in units:
            check.remove(unit)
        placed = self.place(len(preemptor.pods))
        if len(placed) < self.needed:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} needs {self.needed} pod(s) placed but at most "
                               f"{len(placed)} fit even after preempting every lower-priority "
                               f"unit ({self.summary()}).")
        check.fix(placed)
        victim_units, violating = reprieve(units, check, budgets, self.importance, self.tie_list,
                                           self.rng)
        return self.group_result(placed, victim_units, violating)

    def group_result(self, placed: list[tuple[Pod, int]], victim_units: list[Unit],
                     violating: set[str]) -> Plan:
        pods = self.preemptor.pods
        used = sorted({i for _, i in placed})
        if not victim_units:
            # Every candidate went back and the placement still holds (a scheduling run in
            # preemption may place where the cycle's did not: selectVictimsOnDomain's run with
            # the candidates gone, or another random tie): the scheduler nominates the pods
            # there and deletes nothing; they bind at a later attempt.
            return self.result(SCHEDULABLE,
                               f"{self.desc}: {len(placed)} of {len(pods)} pending pods "
                               f"({self.needed} needed) fit on {_plural(len(used), 'node')} "
                               f"without victims. The scheduling cycle placed fewer; its "
                               f"preemption finds this placement, puts every candidate back "
                               f"and nominates the pods there, deleting nothing.", placed)
        chosen = _victim_records(victim_units, violating, self.state)
        status, reason, victims, terminating = actuate(
            self.state, chosen, used, f"{self.desc}: {len(placed)} of {len(pods)} pending pods "
            f"({self.needed} needed) fit on {_plural(len(used), 'node')}")
        return self.result(status, reason, placed, victims, terminating)


def plan(snapshot: Snapshot, preemptor: Preemptor, *, model: BehaviourModel | None = None,
         state: Accounting | None = None, rng: random.Random | None = None) -> Plan:
    """Plan one preemptor against a snapshot (pure: the snapshot is not modified).

    ``model`` is the scheduler behaviour to predict (``wapctl.models``); None picks it from the
    snapshot (``models.select_model``). ``state``, an ``fit.Accounting`` kept up to date with
    ``snapshot.pods`` (a queue replay updates it pod by pod), replaces the O(pods) rebuild of
    the cluster accounting; the plan is the same either way, and the plan writes nothing of
    ``state`` but what it keeps for the next plans: its count of plans (``plans``), static
    fit answers in its ``cache``, and in its ``memo`` the victim-unit index (from the second
    plan on, listening to ``update``) and the PDB budgets. The cyclic
    garbage collector is paused meanwhile (see ``wapctl.gcpause``).

    ``rng``: where the modelled scheduler decides at random (``Plan.ties``), draw from it
    instead of taking the first option by name — one of the outcomes the scheduler may reach
    (``wapctl.samples`` replays many). Ignored by models without random choices (kep-5710).
    """
    if state is not None and not state.matches(snapshot):
        raise ValueError("the Accounting was built for a snapshot with other nodes")
    if model is None:
        model = select_model(snapshot)
    with gc_paused():
        planner = Evaluator(snapshot, preemptor, model, state, rng)
        try:
            return planner.run()
        finally:
            del planner  # freed while the collector is still paused: it never scans it
