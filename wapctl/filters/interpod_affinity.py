"""InterPodAffinity, required terms: the incoming pod's pod affinity and anti-affinity, and the
required anti-affinity of the pods already on the nodes against the incoming pod.

Follows kube-scheduler ``pkg/scheduler/framework/plugins/interpodaffinity/filtering.go``
(kubernetes/kubernetes; read at the version whose ``Filter`` takes ``fwk.NodeInfo``, same logic
as commit 53f1b9d6f8de259644c05a25aa7ac8c6a67258e2 plus namespaceSelector):

- ``PreFilter`` builds three counters keyed by topology pair (key, value of the node label):
  ``affinityCounts`` (existing pods matching ALL the incoming pod's affinity terms, once per
  term), ``antiAffinityCounts`` (existing pods matching each anti-affinity term) and
  ``existingAntiAffinityCounts`` (existing pods' anti-affinity terms matching the incoming pod).
- ``AddPod`` / ``RemovePod`` (``updateWithPod``) move those counters by ±1 per pod; the
  preemption's victim search removes and re-adds pods through them. ``AffinityCounts`` is that
  state: ``update`` is ``updateWithPod``, ``reason`` is ``Filter``.
- ``satisfyPodAffinity``: every affinity term's topology key must be on the node, and the node's
  pair must count > 0 for every term, except "the first pod of a series": when no existing pod
  matches (``len(affinityCounts) == 0``) and the pod matches all its own terms, any node with
  all the keys passes. Failing it is ``UnschedulableAndUnresolvable`` (preemption skips the
  node: removing pods cannot create a match).
- ``satisfyPodAntiAffinity`` / ``satisfyExistingPodsAntiAffinity``: a count > 0 at the node's
  pair fails (``Unschedulable``: removing the matching pods helps).

Only ``requiredDuringSchedulingIgnoredDuringExecution`` terms filter; preferred terms only
score. ``check`` is the pure one-shot form: "does this pod fit this node given these pods".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from wapctl.filters.selectors import namespace_labels, term_matches
from wapctl.model import Node, Pod, PodAffinityTerm

REASON_AFFINITY = "node(s) didn't match pod affinity rules"
REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
# Filter statuses that are UnschedulableAndUnresolvable: preemption does not try the node.
UNRESOLVABLE = frozenset({REASON_AFFINITY})

Pair = tuple[str, str]


def _bump(counts: dict[Pair, int], key: str, labels: Mapping[str, str], delta: int) -> None:
    """``topologyToMatchedTermCount.update``: a node without the key adds nothing; an entry
    back at zero is deleted (the "no existing pod matches" test reads ``len``)."""
    value = labels.get(key)
    if value is None:
        return
    pair = (key, value)
    n = counts.get(pair, 0) + delta
    if n:
        counts[pair] = n
    else:
        del counts[pair]


def matches_all(terms: tuple[PodAffinityTerm, ...], pod: Pod,
                ns_labels: Mapping[str, str]) -> bool:
    """``podMatchesAllAffinityTerms``: false for no terms."""
    if not terms:
        return False
    return all(term_matches(t, pod.namespace, pod.labels, ns_labels) for t in terms)


def has_terms(pod: Pod) -> bool:
    return bool(pod.affinity_terms or pod.anti_affinity_terms)


class AffinityCounts:
    """The plugin's ``preFilterState`` for one incoming pod, kept up to date pod by pod."""

    __slots__ = ("_namespaces", "affinity", "anti", "existing", "ns_labels", "pod", "self_match")

    def __init__(self, pod: Pod, namespaces: Mapping[str, Mapping[str, str]]) -> None:
        self.pod = pod
        self._namespaces = namespaces
        self.ns_labels = namespace_labels(namespaces, pod.namespace)
        self.affinity: dict[Pair, int] = {}
        self.anti: dict[Pair, int] = {}
        self.existing: dict[Pair, int] = {}
        self.self_match = matches_all(pod.affinity_terms, pod, self.ns_labels)

    def update(self, other: Pod, node: Node, delta: int) -> None:
        """``updateWithPod``: ``other`` joins (+1) or leaves (-1) ``node``."""
        pod = self.pod
        labels = node.labels
        if other.anti_affinity_terms:
            for t in other.anti_affinity_terms:
                if term_matches(t, pod.namespace, pod.labels, self.ns_labels):
                    _bump(self.existing, t.topology_key, labels, delta)
        if pod.affinity_terms or pod.anti_affinity_terms:
            other_ns = namespace_labels(self._namespaces, other.namespace)
            if matches_all(pod.affinity_terms, other, other_ns):
                for t in pod.affinity_terms:
                    _bump(self.affinity, t.topology_key, labels, delta)
            for t in pod.anti_affinity_terms:
                if term_matches(t, other.namespace, other.labels, other_ns):
                    _bump(self.anti, t.topology_key, labels, delta)

    def reason(self, node: Node) -> str | None:
        """``Filter``: affinity, then anti-affinity, then existing pods' anti-affinity."""
        labels = node.labels
        pod = self.pod
        if pod.affinity_terms:
            pods_exist = True
            for t in pod.affinity_terms:
                value = labels.get(t.topology_key)
                if value is None:
                    return REASON_AFFINITY  # all topology labels must exist on the node
                if self.affinity.get((t.topology_key, value), 0) <= 0:
                    pods_exist = False
            if not pods_exist and not (not self.affinity and self.self_match):
                return REASON_AFFINITY
        if self.anti:
            for t in pod.anti_affinity_terms:
                value = labels.get(t.topology_key)
                if value is not None and self.anti.get((t.topology_key, value), 0) > 0:
                    return REASON_ANTI_AFFINITY
        if self.existing:
            existing = self.existing
            for pair in labels.items():
                if existing.get(pair, 0) > 0:
                    return REASON_EXISTING_ANTI_AFFINITY
        return None


def check(
    pod: Pod,
    node: Node,
    placed: Iterable[tuple[Pod, Node]],
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> str | None:
    """Does ``pod`` fit ``node`` given the pods ``placed`` (each with its node)? None or the
    upstream reason. ``namespaces``: Namespace labels by name (for namespaceSelector)."""
    counts = AffinityCounts(pod, namespaces or {})
    for other, where in placed:
        counts.update(other, where, 1)
    return counts.reason(node)
