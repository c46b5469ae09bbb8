"""PodTopologySpread, ``whenUnsatisfiable: DoNotSchedule`` constraints.

Follows kube-scheduler ``pkg/scheduler/framework/plugins/podtopologyspread/filtering.go``
(``calPreFilterState``, ``updateWithPod``, ``updateMin``, ``Filter``) and ``common.go``
(``filterTopologySpreadConstraints``, ``matchNodeInclusionPolicies``, ``countPodsMatchSelector``)
in kubernetes/kubernetes (common.go at commit 76b564f18e878c5c69034301fb6fcf324b666033):

- Only the pod's own DoNotSchedule constraints filter. A pod without constraints gets the
  cluster's default constraints (``hostname`` maxSkew 3 and ``zone`` maxSkew 5 in the built-in
  defaults), but those are ``ScheduleAnyway``: they only matter to scoring, so they never filter
  and wapctl does not model them.
- Domains: every node that has ALL the constraints' topology keys and, per constraint, passes
  its inclusion policies (``nodeAffinityPolicy`` Honor by default: the pod's nodeSelector and
  required node affinity; ``nodeTaintsPolicy`` Ignore by default, Honor: every NoSchedule /
  NoExecute taint tolerated) contributes its domain, with 0 pods if none match.
- Counted pods: same namespace as the incoming pod, not terminating, matched by the selector
  (``matchLabelKeys`` already merged in by the loader). An empty selector counts no pod
  (``countPodsMatchSelector``) yet matches the incoming pod itself.
- ``Filter``: the node must have each topology key (else ``UnschedulableAndUnresolvable``), and
  ``count(domain) + selfMatch - globalMin <= maxSkew``, where ``globalMin`` is 0 while there
  are fewer domains than ``minDomains``.

``SpreadCounts`` is the ``preFilterState``; ``update`` is ``updateWithPod`` and keeps the
global minimum exact in O(1) per pod with a histogram of domains per count, as ``updateMin``
does. Upstream's ``updateWithPod`` does not skip terminating pods or empty selectors while its
PreFilter does; wapctl follows the PreFilter (a fresh scheduling cycle) in both, so a state
updated pod by pod always equals a fresh one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from wapctl.filters.selectors import selector_empty, selector_matches
from wapctl.fit import check_node_affinity, check_node_selector, check_taints
from wapctl.model import Node, Pod, SpreadConstraint

REASON_CONSTRAINTS = "node(s) didn't match pod topology spread constraints"
REASON_MISSING_LABEL = (
    "node(s) didn't match pod topology spread constraints (missing required label)"
)
UNRESOLVABLE = frozenset({REASON_MISSING_LABEL})

_MAX_INT32 = 2**31 - 1


def included(constraint: SpreadConstraint, pod: Pod, node: Node) -> bool:
    """``matchNodeInclusionPolicies``: does ``node`` count as a domain for ``pod``?"""
    if constraint.node_affinity_policy == "Honor" and (
        check_node_selector(pod, node) is not None or check_node_affinity(pod, node) is not None
    ):
        return False
    return not (constraint.node_taints_policy == "Honor" and check_taints(pod, node) is not None)


def counts_pod(constraint: SpreadConstraint, labels: Mapping[str, str]) -> bool:
    """Is a pod with ``labels`` (same namespace, not terminating) counted by the constraint?"""
    sel = constraint.selector
    return not selector_empty(sel) and selector_matches(sel, labels)


class SpreadCounts:
    """Matching pods per domain for each of one pod's DoNotSchedule constraints."""

    __slots__ = ("counts", "eligible", "hist", "minimum", "pod", "self_match")

    def __init__(self, pod: Pod, nodes: Iterable[Node]) -> None:
        self.pod = pod
        cons = pod.spread_constraints
        # Per node name: the indices of the constraints that count pods on it.
        self.eligible: dict[str, tuple[int, ...]] = {}
        self.counts: list[dict[str, int]] = [{} for _ in cons]
        if cons:
            keys = [c.topology_key for c in cons]
            for node in nodes:
                labels = node.labels
                if any(k not in labels for k in keys):
                    continue
                idx = tuple(i for i, c in enumerate(cons) if included(c, pod, node))
                if idx:
                    self.eligible[node.name] = idx
                    for i in idx:
                        self.counts[i][labels[keys[i]]] = 0
        self.hist: list[dict[int, int]] = [{0: len(c)} if c else {} for c in self.counts]
        self.minimum = [0 if c else _MAX_INT32 for c in self.counts]
        self.self_match = [int(selector_matches(c.selector, pod.labels)) for c in cons]

    def update(self, other: Pod, node: Node, delta: int) -> None:
        """``updateWithPod``: ``other`` joins (+1) or leaves (-1) ``node``."""
        idx = self.eligible.get(node.name)
        if idx is None or other.namespace != self.pod.namespace or other.terminating:
            return
        cons = self.pod.spread_constraints
        for i in idx:
            c = cons[i]
            if not counts_pod(c, other.labels):
                continue
            counts = self.counts[i]
            value = node.labels[c.topology_key]
            old = counts[value]
            cur = counts[value] = old + delta
            hist = self.hist[i]
            left = hist[old] - 1
            if left:
                hist[old] = left
            else:
                del hist[old]
            hist[cur] = hist.get(cur, 0) + 1
            if cur < self.minimum[i]:
                self.minimum[i] = cur
            elif old == self.minimum[i] and not left:
                self.minimum[i] = cur

    def reason(self, node: Node, pod: Pod | None = None) -> str | None:
        """``Filter``. ``pod``: another pod with the same namespace, constraints and node
        eligibility (its own labels decide whether it matches itself)."""
        labels = node.labels
        self_match = self.self_match
        if pod is not None and pod is not self.pod:
            self_match = [int(selector_matches(c.selector, pod.labels))
                          for c in self.pod.spread_constraints]
        for i, c in enumerate(self.pod.spread_constraints):
            value = labels.get(c.topology_key)
            if value is None:
                return REASON_MISSING_LABEL
            counts = self.counts[i]
            low = 0 if len(counts) < c.min_domains else self.minimum[i]
            if counts.get(value, 0) + self_match[i] - low > c.max_skew:
                return REASON_CONSTRAINTS
        return None


def check(pod: Pod, node: Node, nodes: Iterable[Node],
          placed: Iterable[tuple[Pod, Node]]) -> str | None:
    """Does ``pod`` fit ``node`` given all ``nodes`` and the pods ``placed`` on them? None or
    the upstream reason."""
    counts = SpreadCounts(pod, nodes)
    for other, where in placed:
        counts.update(other, where, 1)
    return counts.reason(node)
