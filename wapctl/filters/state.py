"""The pods present on each node, as the inter-pod filters see them, kept incrementally.

The preemption engine removes and re-adds victims many times per plan; recomputing the
inter-pod filters over every pod at each question would cost O(pods) per question. Like
kube-scheduler's CycleState with ``PreFilterExtensions.AddPod`` / ``RemovePod``, this keeps, for
each incoming pod shape asked about, the plugins' pre-filter counters, and moves them by one pod
on every ``add`` / ``remove``: a question is then O(terms + node labels).

Counters are kept for the most recently asked shapes (``KEEP``); an older one is rebuilt from
the present pods when asked again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping

from wapctl.filters import interpod_affinity, node_ports, topology_spread
from wapctl.filters.interpod_affinity import AffinityCounts, ExistingAntiAffinity
from wapctl.filters.node_ports import PortUsage
from wapctl.filters.selectors import namespace_labels, term_matches
from wapctl.filters.topology_spread import SpreadCounts
from wapctl.model import Node, Pod

KEEP = 16  # counters kept per kind (affinity, spread): the most recently asked shapes'

# Reasons for which upstream returns UnschedulableAndUnresolvable: removing pods cannot help,
# so preemption does not consider the node.
UNRESOLVABLE = interpod_affinity.UNRESOLVABLE | topology_spread.UNRESOLVABLE


# Counter keys: what a counter depends on. Not the pod's labels (they only decide whether the
# pod matches its own terms, asked per pod), so the pods of one group share one counter.
def _affinity_key(pod: Pod) -> tuple[object, ...]:
    return (pod.namespace, repr(pod.affinity_terms), repr(pod.anti_affinity_terms))


def _spread_key(pod: Pod) -> tuple[object, ...]:
    return (pod.namespace, repr(pod.spread_constraints),
            tuple(sorted(pod.node_selector.items())), pod.required_affinity, pod.tolerations)


def constrained(pod: Pod) -> bool:
    """Does ``pod`` carry anything these filters read as the incoming pod?"""
    return bool(pod.host_ports or pod.spread_constraints or pod.affinity_terms
                or pod.anti_affinity_terms)


class ConstraintState:
    """Present pods per node for NodePorts, PodTopologySpread and InterPodAffinity.

    ``add`` / ``remove`` a pod on a node by name; ``reason(pod, node_name)`` answers "does this
    pod fit this node given the pods now present" for the three filters, in kube-scheduler's
    Filter order (NodePorts, PodTopologySpread, InterPodAffinity), None when it fits.
    """

    def __init__(
        self,
        nodes: Iterable[Node],
        namespaces: Mapping[str, Mapping[str, str]] | None = None,
        placed: Iterable[tuple[Pod, str]] = (),
    ) -> None:
        self.nodes: dict[str, Node] = {n.name: n for n in nodes}
        self.namespaces: Mapping[str, Mapping[str, str]] = namespaces or {}
        self._placed: dict[str, tuple[Pod, str]] = {}
        self._by_namespace: dict[str, dict[str, tuple[Pod, str]]] = {}
        self._with_anti: dict[str, tuple[Pod, str]] = {}
        self._ports: dict[str, PortUsage] = {}
        self._existing = ExistingAntiAffinity(self.namespaces)
        self._affinity: OrderedDict[tuple[object, ...], AffinityCounts] = OrderedDict()
        self._spread: OrderedDict[tuple[object, ...], SpreadCounts] = OrderedDict()
        self._keys: dict[int, tuple[Pod, tuple[object, ...], tuple[object, ...]]] = {}
        for pod, node_name in placed:
            self.add(pod, node_name)

    @classmethod
    def of_running(cls, nodes: Iterable[Node], pods: Iterable[Pod],
                   namespaces: Mapping[str, Mapping[str, str]] | None = None) -> ConstraintState:
        """Every bound, unfinished pod (terminating ones included: they still hold their node's
        ports and count for affinity, as in the scheduler's NodeInfo) on a known node."""
        node_list = list(nodes)
        names = {n.name for n in node_list}
        placed = [(p, p.node_name) for p in pods
                  if p.node_name is not None and p.node_name in names and not p.finished]
        return cls(node_list, namespaces, placed)

    # ---- changes ----------------------------------------------------------------------------

    def add(self, pod: Pod, node_name: str) -> None:
        """``pod`` now runs on ``node_name`` (a pod already present moves)."""
        if pod.key in self._placed:
            old, where = self._placed[pod.key]
            self.remove(old, where)
        node = self.nodes[node_name]
        entry = (pod, node_name)
        self._placed[pod.key] = entry
        self._by_namespace.setdefault(pod.namespace, {})[pod.key] = entry
        if pod.anti_affinity_terms:
            self._with_anti[pod.key] = entry
            self._existing.update(pod, node, 1)
        if pod.host_ports:
            usage = self._ports.get(node_name)
            if usage is None:
                usage = self._ports[node_name] = PortUsage()
            usage.add(pod)
        for counts in self._affinity.values():
            counts.update(pod, node, 1)
        for spread in self._spread.values():
            spread.update(pod, node, 1)

    def remove(self, pod: Pod, node_name: str) -> None:
        """``pod`` leaves ``node_name``; a pod not present there is ignored."""
        entry = self._placed.get(pod.key)
        if entry is None or entry[1] != node_name:
            return
        pod = entry[0]
        del self._placed[pod.key]
        del self._by_namespace[pod.namespace][pod.key]
        node = self.nodes[node_name]
        if self._with_anti.pop(pod.key, None) is not None:
            self._existing.update(pod, node, -1)
        if pod.host_ports:
            self._ports[node_name].remove(pod)
        for counts in self._affinity.values():
            counts.update(pod, node, -1)
        for spread in self._spread.values():
            spread.update(pod, node, -1)

    def present(self) -> Iterable[tuple[Pod, str]]:
        return self._placed.values()

    # ---- questions --------------------------------------------------------------------------

    def _shape(self, pod: Pod) -> tuple[tuple[object, ...], tuple[object, ...]]:
        entry = self._keys.get(id(pod))
        if entry is None or entry[0] is not pod:
            if len(self._keys) > 4096:
                self._keys.clear()
            entry = self._keys[id(pod)] = (pod, _affinity_key(pod), _spread_key(pod))
        return entry[1], entry[2]

    def _affinity_counts(self, pod: Pod, key: tuple[object, ...]) -> AffinityCounts:
        counts = self._affinity.get(key)
        if counts is not None:
            self._affinity.move_to_end(key)
            return counts
        counts = AffinityCounts(pod, self.namespaces, existing=False)
        nodes = self.nodes
        for other, where in self._placed.values():
            counts.update(other, nodes[where], 1)
        self._affinity[key] = counts
        if len(self._affinity) > KEEP:
            self._affinity.popitem(last=False)
        return counts

    def _spread_counts(self, pod: Pod, key: tuple[object, ...]) -> SpreadCounts:
        spread = self._spread.get(key)
        if spread is not None:
            self._spread.move_to_end(key)
            return spread
        spread = SpreadCounts(pod, self.nodes.values())
        nodes = self.nodes
        for other, where in self._by_namespace.get(pod.namespace, {}).values():
            spread.update(other, nodes[where], 1)
        self._spread[key] = spread
        if len(self._spread) > KEEP:
            self._spread.popitem(last=False)
        return spread

    def reason(self, pod: Pod, node_name: str) -> str | None:
        """None when ``pod`` passes NodePorts, PodTopologySpread and InterPodAffinity on
        ``node_name`` given the pods now present, else the first failing plugin's reason."""
        if pod.host_ports:
            usage = self._ports.get(node_name)
            if usage is not None:
                reason = usage.reason(pod)
                if reason is not None:
                    return reason
        if not (self._with_anti or pod.spread_constraints or pod.affinity_terms
                or pod.anti_affinity_terms):
            return None
        node = self.nodes[node_name]
        akey, skey = self._shape(pod)
        if pod.spread_constraints:
            reason = self._spread_counts(pod, skey).reason(node, pod)
            if reason is not None:
                return reason
        if pod.affinity_terms or pod.anti_affinity_terms:
            reason = self._affinity_counts(pod, akey).reason(node, pod)
            if reason is not None:
                return reason
        if self._with_anti:
            return self._existing.reason(pod, node)
        return None

    def fits(self, pod: Pod, node_name: str) -> bool:
        return self.reason(pod, node_name) is None

    def constrains(self, pod: Pod) -> bool:
        """Can these filters reject ``pod`` anywhere now? False lets a caller keep its
        resource-only fast paths: the pod carries no host port, spread or pod (anti-)affinity
        term, and no present pod's required anti-affinity term matches it."""
        if constrained(pod):
            return True
        return bool(self._with_anti) and self._existing.active(pod)

    def relevant(self, incoming: Pod, other: Pod) -> bool:
        """Can ``other`` joining or leaving any node change a filter's answer for
        ``incoming``? (Conservative: any term or selector match counts.)"""
        return self.relevant_own(incoming, other) or self.relevant_existing(incoming, other)

    def relevant_existing(self, incoming: Pod, other: Pod) -> bool:
        """Does one of ``other``'s required anti-affinity terms match ``incoming``?"""
        if other.anti_affinity_terms:
            ns = namespace_labels(self.namespaces, incoming.namespace)
            for t in other.anti_affinity_terms:
                if term_matches(t, incoming.namespace, incoming.labels, ns):
                    return True
        return False

    def needed_by(self, incoming: Pod, other: Pod) -> bool:
        """Can ``other`` leaving its node make ``incoming`` fail where it passed? Only a
        required pod affinity term (it may lose its match) or a spread constraint counting
        ``other`` (the lowest domain's count may drop) reads a pod as wanted; host ports and
        anti-affinity only gain room when pods leave."""
        if incoming.spread_constraints and other.namespace == incoming.namespace:
            for c in incoming.spread_constraints:
                if topology_spread.counts_pod(c, other.labels):
                    return True
        if incoming.affinity_terms:
            ns = namespace_labels(self.namespaces, other.namespace)
            return any(term_matches(t, other.namespace, other.labels, ns)
                       for t in incoming.affinity_terms)
        return False

    def relevant_own(self, incoming: Pod, other: Pod) -> bool:
        """Can ``other`` change ``incoming``'s own constraints (host ports, spread, pod
        (anti-)affinity terms)? Reads ``incoming``'s labels not at all."""
        if incoming.host_ports and other.host_ports:
            wanted = {(hp.protocol, hp.port) for hp in incoming.host_ports}
            if any((hp.protocol, hp.port) in wanted for hp in other.host_ports):
                return True
        if self.needed_by(incoming, other):  # spread and affinity
            return True
        if incoming.anti_affinity_terms:
            ns = namespace_labels(self.namespaces, other.namespace)
            return any(term_matches(t, other.namespace, other.labels, ns)
                       for t in incoming.anti_affinity_terms)
        return False


def check(pod: Pod, node: Node, nodes: Iterable[Node], placed: Iterable[tuple[Pod, Node]],
          namespaces: Mapping[str, Mapping[str, str]] | None = None) -> str | None:
    """One-shot form of ``ConstraintState.reason`` over explicit pods (no state kept)."""
    placed = list(placed)
    on_node = [p for p, where in placed if where.name == node.name]
    return (node_ports.check(pod, on_node)
            or topology_spread.check(pod, node, nodes, placed)
            or interpod_affinity.check(pod, node, placed, namespaces))
