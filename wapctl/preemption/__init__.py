"""The plan algorithm: where a preemptor goes, and whom it preempts — for the behaviour model
asked for (``wapctl.models``; docs/SPEC.md §0 is the table of what differs).

Upstream models (``1.36``, ``upstream``), after upstream ``SelectVictimsOnNode`` (one pod, one
node at a time) and ``selectVictimsOnDomain`` (a pod group, the whole cluster):

1. fits now -> Schedulable (placed as the scheduler would: filters, then default scores);
2. a pod nominated where a lower-priority pod terminates by preemption -> WaitingForTermination
   (``PodEligibleToPreemptOthers``); terminating pods otherwise hold their resources and are
   potential victims like any pod on their node;
3. preemptionPolicy Never -> no preemption;
4. every unit below the preemptor's priority removed at once; the preemptor scheduled once;
   that placement fixed; then each unit put back (PDB-violating first, most important first)
   if the placement still holds. A single pod's node is chosen by ``NODE_CRITERIA``.

The KEP-5710 model (SPEC.md §3) instead treats terminating pods as free space and searches the
lowest priority level whose removal makes room before reprieving.

The package, in the order of the algorithm:

- ``units``: victim units (a pod, or a ``PodGroup``-mode group on every node) and their index
  kept with a ``fit.Accounting``;
- ``budgets``: PodDisruptionBudgets spent in importance order;
- ``placement``: ``Placer`` (greedy) and ``ScoredPlacer`` (the scheduler's scoring);
- ``feasibility``: the checks ``CountCheck`` / ``GreedyCheck`` / ``FixedCheck`` /
  ``RescheduleCheck`` (a pod group, the whole cluster) and ``NodeCheck`` (one pod, one node);
- ``evaluator``: upstream's ``Evaluator`` (one plan run, its steps) and ``plan``, both
  re-exported here;
- ``default_preemption``: a single pod, node by node (``dry_run_preemption``,
  ``select_victims_on_node``); a pod group's ``select_victims_on_domain`` is in ``evaluator``;
- ``search``: the KEP's level search and upstream's reprieve;
- ``node_choice``: ``pickOneNodeForPreemption``'s criteria, one named function each;
- ``outcome``: what the chosen victims become (deleted, or already terminating and waited for);
- ``result``: ``Plan`` and its parts.

The filter hook. Every "does this pod fit this node" question goes through the placement layer:
``Placer.run`` / ``ScoredPlacer.run`` (a pod placed with the pods now present: victims removed
or reprieved, and the group's own pods placed before it) and the checks' ``try_add`` (a unit put
back: does every pod placed on the nodes it touches still fit?). Resource fit and the static
predicates are answered there today; a pod-dependent filter (inter-pod affinity, topology spread,
host ports) plugs in at exactly those two places — consulted per (pod, node) after the resource
fit, told about every pod placed, removed or restored — and may be skipped when no pod in the
snapshot carries such a constraint.

Everything runs on incremental state (``fit.ClusterState``): removing or restoring a unit touches
only the nodes it has pods on, and a gang of identical pods is checked by a per-node count of
how many copies fit, kept up to date for the touched nodes only. A caller planning many times
on a slowly changing cluster (``simulate``) passes a ``fit.Accounting`` instead of having the
state rebuilt from every pod; the search then undoes its own changes (units removed, terminating
pods released, reservations added) before returning, also on an exception.

Decisions where SPEC.md is silent (upstream kube-scheduler followed where it decides):

- "The preemptor fits" means greedy placement (each pod: its nominated node if it still fits,
  else the first node by name) places ``needed`` pods. Exact for identical pods; for a gang of
  several shapes it is the scheduler's greedy, not a bin-packing optimum. Reprieve re-places
  (upstream's PodGroup evaluator instead re-checks the assignments found before reprieve).
- The level search probes levels 0, 1, 3, 7, ... then bisects: the same lowest level as any
  binary search when feasibility is monotone (always, except pathological multi-shape greedy).
- PDB marking follows upstream ``FilterVictimsWithPDBViolation``: each victim pod (units in
  importance order, a unit's pods by key) spends every matching PDB (PDB key order, pods in
  ``disruptedPods`` skipped) and stops at the first budget taken below zero; a pod without
  labels matches none. ``pdb_violation`` is that pod's own flag; a unit violates if any pod
  does; the node choice counts violating victim *pods* (upstream ``NumPDBViolations``).
- Node choice sums ``priority + 2^31`` per victim pod, as upstream; a pod without a start time
  counts as started last (upstream uses "now").
- Victim units exclude the preemptor's own pod group; pods bound to nodes missing from the
  snapshot hold nothing and are never victims.
- KEP model: all terminating pods are free space regardless of their priority. Upstream models:
  a terminating pod holds its resources and, below the preemptor's priority, is a potential
  victim like any pod of its NodeInfo (once ``PodEligibleToPreemptOthers`` lets the preemptor
  preempt). A chosen victim that is already terminating is not deleted again (upstream
  ``prepareCandidate``): it is listed under ``terminating``, not ``victims`` (``outcome``).
"""
from __future__ import annotations

from wapctl.preemption.evaluator import Evaluator, plan
from wapctl.preemption.node_choice import NODE_CRITERIA
from wapctl.preemption.result import (
    REQUIRES_PREEMPTION,
    SCHEDULABLE,
    UNSCHEDULABLE,
    WAITING,
    Placement,
    Plan,
    PlanStatus,
    TerminatingPod,
    Tie,
    UnitKind,
    Victim,
)
from wapctl.preemption.search import lowest_level, reprieve

__all__ = [
    "NODE_CRITERIA",
    "REQUIRES_PREEMPTION",
    "SCHEDULABLE",
    "UNSCHEDULABLE",
    "WAITING",
    "Evaluator",
    "Placement",
    "Plan",
    "PlanStatus",
    "TerminatingPod",
    "Tie",
    "UnitKind",
    "Victim",
    "lowest_level",
    "plan",
    "reprieve",
]

