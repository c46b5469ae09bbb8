"""kube-scheduler's default node scoring, for placing a preemptor as the scheduler would.

The default profile's score plugins that can tell nodes of a snapshot apart, with their default
weights (pkg/scheduler/apis/config/v1/default_plugins.go):

- ``NodeResourcesFit`` (weight 1), strategy LeastAllocated, cpu and memory weight 1 each:
  per resource ``(allocatable - requested) * 100 / allocatable`` (0 when over), averaged over the
  resources the node has (noderesources/least_allocated.go ``leastResourceScorer``). The pod's
  own cpu/memory count as 100m / 200Mi when it requests none (``GetNonzeroRequests``);
- ``NodeResourcesBalancedAllocation`` (weight 1): ``(1 - std(fractions)) * 100`` over cpu and
  memory, fractions capped at 1 (noderesources/balanced_allocation.go);
- ``TaintToleration`` (weight 3): the count of ``PreferNoSchedule`` taints the pod does not
  tolerate, normalised and reversed (``helper.DefaultNormalizeScore(100, true, ...)``).

``NodeAffinity`` preferred terms, ``InterPodAffinity``, ``PodTopologySpread`` (system default
constraints need owner selectors) and ``ImageLocality`` read data the snapshot model does not
keep; they score every node alike here. Approximations, said in docs/SPEC.md: requested totals
of running pods are their real requests (upstream scores LeastAllocated on the non-zero ones),
and the TaintToleration normalisation takes its maximum over the nodes passing the static
filters (upstream: over the nodes passing every filter for that pod).

Equal top scores are a random pick upstream (``selectHost``); here the first node by name, with
the number of equal nodes reported so that the plan can say so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from wapctl.fit import NodeState, RequestItems, tolerated
from wapctl.model import Pod, Taint

MAX_NODE_SCORE = 100
WEIGHT_FIT = 1
WEIGHT_BALANCED = 1
WEIGHT_TAINT = 3
DEFAULT_MILLI_CPU = 100  # schedutil.DefaultMilliCPURequest
DEFAULT_MEMORY = 200 * 1024 * 1024  # schedutil.DefaultMemoryRequest


def intolerable_prefer_no_schedule(pod: Pod, taints: Iterable[Taint]) -> int:
    """TaintToleration Score: PreferNoSchedule taints the pod's tolerations do not cover."""
    tols = [t for t in pod.tolerations if t.effect in ("", "PreferNoSchedule")]
    return sum(1 for taint in taints
               if taint.effect == "PreferNoSchedule" and not tolerated(tols, taint))


def least_allocated(node: NodeState, cpu: int, memory: int) -> int:
    """NodeResourcesFit LeastAllocated with the pod's (non-zero) cpu and memory added."""
    total = weight = 0
    for name, extra in (("cpu", cpu), ("memory", memory)):
        capacity = node.allocatable.get(name, 0)
        if capacity == 0:
            continue
        requested = node.requested.get(name, 0) + extra
        weight += 1
        if requested <= capacity:
            total += (capacity - requested) * MAX_NODE_SCORE // capacity
    return total // weight if weight else 0


def balanced_allocation(node: NodeState, cpu: int, memory: int) -> int:
    """NodeResourcesBalancedAllocation over cpu and memory (the pod's real requests)."""
    fractions = []
    for name, extra in (("cpu", cpu), ("memory", memory)):
        capacity = node.allocatable.get(name, 0)
        if capacity == 0:
            continue
        fractions.append(min(1.0, (node.requested.get(name, 0) + extra) / capacity))
    if len(fractions) < 2:
        return MAX_NODE_SCORE if fractions else 0
    mean = sum(fractions) / len(fractions)
    std = math.sqrt(sum((f - mean) ** 2 for f in fractions) / len(fractions))
    return int((1 - std) * MAX_NODE_SCORE)


class ShapeScorer:
    """Scores of one pod shape on the nodes passing its static filters."""

    __slots__ = ("cpu", "memory", "nz_cpu", "nz_memory", "taint")

    def __init__(self, pod: Pod, items: RequestItems, nodes: Sequence[NodeState],
                 allowed: Sequence[int]) -> None:
        req = dict(items)
        self.cpu = req.get("cpu", 0)
        self.memory = req.get("memory", 0)
        self.nz_cpu = self.cpu or DEFAULT_MILLI_CPU
        self.nz_memory = self.memory or DEFAULT_MEMORY
        counts = {i: intolerable_prefer_no_schedule(pod, nodes[i].node.taints) for i in allowed}
        top = max(counts.values(), default=0)
        self.taint = {i: (MAX_NODE_SCORE if top == 0
                          else MAX_NODE_SCORE - c * MAX_NODE_SCORE // top)
                      for i, c in counts.items()}

    def score(self, node: NodeState, i: int) -> int:
        return (WEIGHT_FIT * least_allocated(node, self.nz_cpu, self.nz_memory)
                + WEIGHT_BALANCED * balanced_allocation(node, self.cpu, self.memory)
                + WEIGHT_TAINT * self.taint[i])
