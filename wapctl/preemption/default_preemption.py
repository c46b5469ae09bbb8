"""A single pod's preemption, after upstream's ``DefaultPreemption`` plugin
(pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go) and the
``Evaluator`` steps it drives (pkg/scheduler/framework/preemption/preemption.go): candidate
nodes, ``dry_run_preemption`` over them with ``select_victims_on_node`` on each, then
``pick_one_node_for_preemption`` (``node_choice``). Mixed into ``evaluator.Evaluator``."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from wapctl.filters import node_ports
from wapctl.filters.plan_view import PlanFilters
from wapctl.fit import ClusterState, RequestItems, request_items
from wapctl.models import BehaviourModel, ImportanceKey
from wapctl.preemption.budgets import Budgets
from wapctl.preemption.feasibility import NodeCheck
from wapctl.preemption.node_choice import (
    PRIORITY_OFFSET,
    NodeScore,
    may_win,
    node_score,
    pick_one_node_for_preemption,
)
from wapctl.preemption.outcome import actuate
from wapctl.preemption.outcome import victim_records as _victim_records
from wapctl.preemption.placement import Placer
from wapctl.preemption.result import UNSCHEDULABLE, Plan, Tie
from wapctl.preemption.search import LevelSearch, node_ties
from wapctl.preemption.units import Unit
from wapctl.preemptor import Preemptor

if TYPE_CHECKING:
    from wapctl.model import Pod
    from wapctl.preemption.result import PlanStatus, TerminatingPod, Victim

# (node index, victim units, PDB-violating pod keys, the node's units) of a candidate node
_Chosen = tuple[int, list[Unit], set[str], list[Unit]]


def _candidate_sample(nodes: int) -> int:
    """Upstream ``calculateNumCandidates``: max(10% of the nodes, 100), at most all nodes."""
    return min(nodes, max(nodes * 10 // 100, 100))


class PodPreemption:
    """The single-pod steps of ``evaluator.Evaluator`` (which sets these attributes)."""

    state: ClusterState
    preemptor: Preemptor
    model: BehaviourModel
    rng: random.Random | None
    filters: PlanFilters | None
    placer: Placer
    ties: list[Tie]
    tie_list: list[Tie] | None
    importance: Callable[..., ImportanceKey]
    desc: str

    if TYPE_CHECKING:  # the planner's own, used here
        def result(self, status: PlanStatus, reason: str,
                   placed: Sequence[tuple[Pod, int]] = (), victims: tuple[Victim, ...] = (),
                   terminating: tuple[TerminatingPod, ...] = ()) -> Plan: ...

        def summary(self) -> str: ...

        def units_per_node(self, ordered: Sequence[Unit]) -> dict[int, list[Unit]]: ...

    def plan_pod(self, units: Sequence[Unit], budgets: Budgets) -> Plan:
        """A single pod: upstream ``Evaluator.Preempt`` after eligibility
        (pkg/scheduler/framework/preemption/preemption.go): ``findCandidates``
        (``dry_run_preemption``, each node's victims from ``select_victims_on_node``),
        ``SelectCandidate`` (``pick_one_node_for_preemption``), then ``prepareCandidate``
        (``outcome.actuate``). All three models; the KEP model (SPEC.md §3) differs only
        inside ``select_victims_on_node`` (its level search) and in pruning the node visits.
        ``units`` are in (priority, name) order."""
        state = self.state
        pod = self.preemptor.pods[0]
        candidates, scored = self.dry_run_preemption(units, budgets)
        picked = pick_one_node_for_preemption(candidates)
        if picked is None:
            return self.result(UNSCHEDULABLE,
                               f"{self.desc} does not fit on any node even after preempting "
                               f"every lower-priority unit ({self.summary()}).")
        best, (i, victim_units, violating, local) = picked
        if scored and self.rng is None:
            self.candidate_ties(best, scored)
        if self.rng is None and self.tie_list is not None:  # the winner's reprieve, tie-checked
            with NodeCheck(state.nodes[i], i, request_items(pod.requests), self.filters,
                           pod) as node_check:
                node_ties(local, node_check, budgets, self.importance, self.ties)
        chosen_victims = _victim_records(victim_units, violating, state)
        status, reason, victims, terminating = actuate(
            state, chosen_victims, [i], f"{self.desc} fits on node {state.nodes[i].name}")
        return self.result(status, reason, [(pod, i)], victims, terminating)

    def unresolvable_on(self, i: int) -> bool:
        """Whether the scheduling cycle's filters answer ``UnschedulableAndUnresolvable`` for
        the preemptor on node ``i`` now: the first failing filter, in kube-scheduler's default
        order, is one whose answer removing pods cannot change -- a static predicate
        (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity), NodeResourcesFit asking
        more of some resource than the node has at all (fit.go ``fitsRequest``:
        ``Unresolvable: podRequest > allocatable``; "Too many pods" is resolvable), or a
        pod-dependent filter's unresolvable reason (a pod affinity no pod matches, a missing
        topology key). NodePorts, ahead of NodeResourcesFit, answers Unschedulable."""
        pod = self.preemptor.pods[0]
        if i not in self.placer.allowed_set[0]:
            return True
        filters = self.filters
        if filters is not None and filters.reason(pod, i) == node_ports.REASON:
            return False
        node = self.state.nodes[i]
        items = request_items(pod.requests)
        if not node.fits(items):
            alloc = node.allocatable
            return any(amount > alloc.get(name, 0) for name, amount in items)
        return filters is not None and filters.unresolvable(pod, i)

    def candidate_nodes(self, units: Sequence[Unit], potential: Sequence[int] = ()
                        ) -> list[tuple[int, str, int, list[Unit]]]:
        """The nodes ``dry_run_preemption`` visits, as (lowest unit priority, name, index, the
        node's units): nodes with a victim unit that pass the static predicates and no
        unresolvable pod-dependent filter (upstream ``nodesWherePreemptionMightHelp``), by
        (lowest priority, name); where the model draws at random, in node order from a random
        offset (upstream ``DryRunPreemption``'s ``offset``)."""
        pod = self.preemptor.pods[0]
        per_node = self.units_per_node(units)
        allowed = self.placer.allowed_set[0]  # the nodes passing the static predicates
        nodes, filters = self.state.nodes, self.filters
        candidates: list[tuple[int, str, int, list[Unit]]] = [
            (local[0].priority, nodes[i].name, i, local)
            for i, local in per_node.items() if i in allowed
            and (filters is None or not filters.unresolvable(pod, i))]
        candidates.sort(key=lambda t: (t[0], t[1]))
        if self.rng is not None and candidates:
            # DryRunPreemption: the ``potential`` nodes (``potential_nodes``, which the caller
            # counted already) from a random offset among them (here: in node order,
            # rotated), stopping once enough are candidates (dry_run_preemption)
            # only potential nodes are visited: a node too small for the pod even when empty
            # (fit.go: Unresolvable) has victims but is none of them
            at = {i: k for k, i in enumerate(potential)}
            candidates = [t for t in candidates if t[2] in at]
            if candidates:
                offset = self.rng.randrange(len(potential))
                candidates.sort(key=lambda t: (at[t[2]] - offset) % len(potential))
        return candidates

    def potential_nodes(self) -> list[int]:
        """Upstream ``nodesWherePreemptionMightHelp``: the nodes whose filters do not answer
        UnschedulableAndUnresolvable for the preemptor (``unresolvable_on``), in node order;
        how many candidates upstream looks for and its random offset both come from their
        number (``calculateNumCandidates(len(potentialNodes))``)."""
        return [i for i in range(len(self.state.nodes)) if not self.unresolvable_on(i)]

    def dry_run_preemption(self, units: Sequence[Unit], budgets: Budgets
                           ) -> tuple[list[tuple[NodeScore, _Chosen]], list[NodeScore]]:
        """Upstream ``Evaluator.DryRunPreemption`` (preemption.go): ``select_victims_on_node``
        on each candidate node (``candidate_nodes``); where the model draws at random, stop
        after ``calculateNumCandidates(len(potential_nodes))`` nodes where preemption works,
        once one of them violates no PDB. Returns the candidates
        (score, (node index, victim units, PDB-violating keys, the node's units)) and, for the
        upstream models, every candidate's score (for the tie notes).

        With the KEP's level search, nodes may be visited in any order as long as only nodes
        that provably score above the best so far are passed over. Where removing pods never
        makes the pod stop fitting (no filters, or ``PlanFilters.monotone``), a node's score is
        at least (0 PDB violations, its level): its highest victim priority *is* its level
        (victims all below it would fit with every unit below the level removed), and its level
        is at least its lowest unit priority. Nodes are visited by that lower bound: with a
        violation-free best, a node whose bound exceeds the best's level cannot win (nor can
        any later one). When the best is one victim pod of level L, a node of level L beats it
        only with exactly one victim pod too — each further victim pod adds priority + 2^31 > 0
        to the priority sum (checked: no unit priority at or below -2^31) — that started later
        (or at the same time, on a node whose name sorts first): ``node_choice.may_win``.
        Otherwise (the pod's topology spread or affinity counts a victim) a reprieve can end
        below the level, and every node is searched.
        Upstream's models (no level search: every lower unit removed, then reprieve) score
        every candidate node, which also tells the equal ones (a random pick upstream).
        """
        pod = self.preemptor.pods[0]
        items = request_items(pod.requests)
        binary = self.model.priority_search == "binary"
        rng = self.rng
        potential = self.potential_nodes() if rng is not None else []
        sample = (_candidate_sample(len(potential)) if rng is not None
                  else len(self.state.nodes) + 1)
        kept = [0, 0]  # DryRunPreemption's violating and non-violating candidate lists
        # the level bounds a node's highest victim priority only where removing pods never
        # makes the pod stop fitting (see the docstring)
        filters = self.filters
        bounded = binary and (filters is None or filters.monotone)
        prune = bounded and units[0].priority > -PRIORITY_OFFSET  # every victim pod adds > 0
        best: NodeScore | None = None
        found: list[tuple[NodeScore, _Chosen]] = []
        scored: list[NodeScore] = []
        for low, name, i, local in self.candidate_nodes(units, potential):
            bound = None
            if bounded and best is not None and best.pdb_violations == 0:
                if best.highest_priority < low:
                    break
                bound = partial(may_win, best, prune, name)
                if not bound(local, 0, low):
                    continue
            picked = self.select_victims_on_node(local, i, items, budgets, bound)
            if picked is None:
                continue
            victims, violating = picked
            key = node_score(victims, violating, name)
            if not binary:
                scored.append(key)
                if rng is not None:
                    key = key._replace(draw=rng.random())  # the final pick at random
                    clean = key.pdb_violations == 0
                    kept[clean] += 1
                    if kept[clean] > sample:
                        continue  # each list holds numCandidates: a full one drops it
            found.append((key, (i, victims, violating, local)))
            if best is None or key < best:
                best = key
            if kept[True] and min(kept[False], sample) + kept[True] >= sample:
                break  # enough candidates, one of them violating no PDB: cancel()
        return found, scored

    def select_victims_on_node(self, local: list[Unit], i: int, items: RequestItems,
                               budgets: Budgets,
                               bound: Callable[[list[Unit], int, int], bool] | None
                               ) -> tuple[list[Unit], set[str]] | None:
        """Upstream ``DefaultPreemption.SelectVictimsOnNode``
        (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go): on node
        ``i``, remove the lower-priority units ``local`` (1.36 and upstream: all of them; the
        KEP model: the lowest level that makes room, ``search.LevelSearch``), check that the pod
        fits, then reprieve unit by unit, PDB-violating first, most important first
        (``search.LevelSearch.reprieve``). Returns (victim units, PDB-violating pod keys), or None
        where the pod does not fit even so, or where ``bound`` (the KEP model's pruning) says
        the node cannot beat the best so far."""
        pod = self.preemptor.pods[0]
        # the filters are shared by every node's dry run: the block gives each one's moves back
        with NodeCheck(self.state.nodes[i], i, items, self.filters, pod) as node_check:
            search = LevelSearch(local, node_check, presorted=True,
                                 search=self.model.priority_search)
            level = search.level
            if level is None:
                return None
            if bound is not None and not bound(local, search.begin, level):
                return None
            return search.reprieve(budgets, self.importance, None, self.rng)

    def candidate_ties(self, best: NodeScore, scored: Sequence[NodeScore]) -> None:
        """The tie notes of an upstream node choice: nodes equal to the winner on every
        ``NODE_CRITERIA`` (a random pick upstream), and more candidates than upstream tries."""
        criteria = best.criteria()
        equal = sorted(k.node for k in scored if k.criteria() == criteria)
        if len(equal) > 1:
            self.ties.append(Tie("node for the preemption (pickOneNodeForPreemption)",
                                 (best.node,), tuple(n for n in equal if n != best.node)[:5],
                                 len(equal)))
        # DryRunPreemption keeps calculateNumCandidates(potential nodes) candidates of each kind
        # (violating a PDB or not) from a random start, and stops once it has that many, one
        # violating none. The sample is at least min(potential nodes, 100), and every scored
        # node is potential: with 100 scored or fewer, every one is kept.
        if len(scored) <= 100:
            return
        sample = _candidate_sample(len(self.potential_nodes()))
        clean = sum(k.pdb_violations == 0 for k in scored)
        # one candidate violating no PDB is always found (the search goes on until it is) and
        # beats every other: then the random start decides nothing
        if len(scored) > sample and clean != 1:
            how = "keeps" if not clean else "tries"
            more = ", more until one violates no PDB" if 0 < clean < len(scored) else ""
            self.ties.append(Tie(f"candidate nodes (upstream {how} {sample} of the "
                                 f"{len(scored)} where preemption works, from a random "
                                 f"start{more})", (best.node,), (), len(scored)))
