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
    """The plugin's ``preFilterState`` for one incoming pod, kept up to date pod by pod.

    With ``existing=False`` it leaves out the present pods' anti-affinity (a caller keeping
    ``ExistingAntiAffinity`` for every incoming pod at once): the rest depends only on the pod's
    namespace and terms, so pods of one group that differ in other labels share it."""

    __slots__ = ("_namespaces", "affinity", "anti", "existing", "ns_labels", "pod", "self_match",
                 "with_existing")

    def __init__(self, pod: Pod, namespaces: Mapping[str, Mapping[str, str]],
                 existing: bool = True) -> None:
        self.pod = pod
        self._namespaces = namespaces
        self.ns_labels = namespace_labels(namespaces, pod.namespace)
        self.affinity: dict[Pair, int] = {}
        self.anti: dict[Pair, int] = {}
        self.existing: dict[Pair, int] = {}
        self.with_existing = existing
        self.self_match = matches_all(pod.affinity_terms, pod, self.ns_labels)

    def update(self, other: Pod, node: Node, delta: int) -> None:
        """``updateWithPod``: ``other`` joins (+1) or leaves (-1) ``node``."""
        pod = self.pod
        labels = node.labels
        if other.anti_affinity_terms and self.with_existing:
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

    def reason(self, node: Node, pod: Pod | None = None) -> str | None:
        """``Filter``: affinity, then anti-affinity, then existing pods' anti-affinity.
        ``pod``: another pod of the same namespace and terms (its own labels decide whether
        it matches its own affinity terms)."""
        labels = node.labels
        if pod is None or pod is self.pod:
            pod, self_match = self.pod, self.self_match
        else:
            self_match = matches_all(pod.affinity_terms, pod, self.ns_labels)
        if pod.affinity_terms:
            pods_exist = True
            for t in pod.affinity_terms:
                value = labels.get(t.topology_key)
                if value is None:
                    return REASON_AFFINITY  # all topology labels must exist on the node
                if self.affinity.get((t.topology_key, value), 0) <= 0:
                    pods_exist = False
            if not pods_exist and not (not self.affinity and self_match):
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


class ExistingAntiAffinity:
    """The present pods' required anti-affinity terms, for every incoming pod at once.

    Equal terms (same selector, namespaces, topology key) share one counter of present pods
    per topology pair, kept by ``update``. For an incoming pod the terms that match it are
    found once per (namespace, labels) and cached: a term whose selector has matchLabels is
    only tried on pods carrying one of those labels. ``reason`` is then
    ``satisfyExistingPodsAntiAffinity`` over those terms only."""

    def __init__(self, namespaces: Mapping[str, Mapping[str, str]]) -> None:
        self._namespaces = namespaces
        self._ids: dict[str, int] = {}
        self.terms: list[PodAffinityTerm] = []
        self.counts: list[dict[str, int]] = []  # per term: topology value -> present pods
        self._by_label: dict[tuple[str, str], list[int]] = {}
        self._generic: list[int] = []  # terms without matchLabels
        self._matching: dict[tuple[object, ...], tuple[int, ...]] = {}

    def _id(self, term: PodAffinityTerm) -> int:
        key = repr(term)
        tid = self._ids.get(key)
        if tid is None:
            tid = self._ids[key] = len(self.terms)
            self.terms.append(term)
            self.counts.append({})
            sel = term.selector
            if sel is not None and sel.match_labels:
                k, v = next(iter(sel.match_labels.items()))
                self._by_label.setdefault((k, v), []).append(tid)
            else:
                self._generic.append(tid)
            self._matching.clear()
        return tid

    def update(self, other: Pod, node: Node, delta: int) -> None:
        for t in other.anti_affinity_terms:
            value = node.labels.get(t.topology_key)
            if value is None:
                continue
            counts = self.counts[self._id(t)]
            n = counts.get(value, 0) + delta
            if n:
                counts[value] = n
            else:
                del counts[value]

    def matching(self, pod: Pod) -> tuple[int, ...]:
        """The ids of the known terms that match ``pod``."""
        key = (pod.namespace, tuple(sorted(pod.labels.items())))
        found = self._matching.get(key)
        if found is None:
            if len(self._matching) > 10_000:
                self._matching.clear()
            ns = namespace_labels(self._namespaces, pod.namespace)
            candidates = set(self._generic)
            for item in pod.labels.items():
                candidates.update(self._by_label.get(item, ()))
            found = self._matching[key] = tuple(sorted(
                tid for tid in candidates
                if term_matches(self.terms[tid], pod.namespace, pod.labels, ns)))
        return found

    def active(self, pod: Pod) -> bool:
        """Does a present pod's term match ``pod`` anywhere now?"""
        return any(self.counts[tid] for tid in self.matching(pod))

    def reason(self, pod: Pod, node: Node) -> str | None:
        labels = node.labels
        for tid in self.matching(pod):
            counts = self.counts[tid]
            if counts:
                value = labels.get(self.terms[tid].topology_key)
                if value is not None and counts.get(value, 0) > 0:
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
