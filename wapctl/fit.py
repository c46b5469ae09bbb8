"""Fit predicates and incremental per-node accounting.

Shaped after kube-scheduler's Filter plugins: one small pure predicate per concern, each returning
``None`` (fits) or a short reason string (the plugin's ``ErrReason``). Predicates that do not depend
on what is running on the node ("static": node name, unschedulable, taints, node selector, required
node affinity) are separated from the resource check, so the planner evaluates them once per
(pod shape, node) and caches the answer: the pods of a gang usually share one shape.

``NodeState`` is our ``NodeInfo``: requested totals and a pod count, with ``add`` / ``remove`` in
O(resources). ``ClusterState`` holds one per node, built once from a snapshot; the victim search
is then "remove, check, add back" on it, never a rebuild. ``Accounting`` keeps that per-node
state across plans (a queue replay updates it pod by pod); a plan's view reads its node states
(``ClusterState.over``) instead of summing every pod again, and copies a node's state the
first time it writes to it (upstream copies ``NodeInfo`` for a preemption attempt the same
way): a plan writes only its copies and drops them, so a plan, finished or failed half-way,
leaves the ``Accounting`` as it found it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from operator import itemgetter

from wapctl.model import (
    NOMINATED,
    RUNNING,
    TERMINATING,
    LabelSelector,
    Node,
    NodeSelectorTerm,
    Pod,
    SelectorRequirement,
    Snapshot,
    Taint,
    Toleration,
)

# ---- reason constants (kube-scheduler wording) --------------------------------------------

REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_NODE_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_TOO_MANY_PODS = "Too many pods"

TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, value="", effect="NoSchedule")

# Taint effects the TaintToleration filter enforces (PreferNoSchedule only affects scoring).
FILTERED_TAINT_EFFECTS = frozenset({"NoSchedule", "NoExecute"})

# The resource name that counts pods; never taken from a pod's requests.
PODS = "pods"


def reason_insufficient(resource: str) -> str:
    return f"Insufficient {resource}"


def reason_untolerated_taint(taint: Taint) -> str:
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


Reason = str | None
RequestItems = tuple[tuple[str, int], ...]


# ---- tolerations ------------------------------------------------------------------------------


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``v1.Toleration.ToleratesTaint``: empty effect matches every effect, empty key every key;
    Exists ignores the value, Equal (or empty operator) compares it; other operators never match."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def tolerated(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


# ---- selector requirements --------------------------------------------------------------------


def _parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64): optional sign, decimal digits only."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    if not -(2**63) <= value < 2**63:
        return None
    return value


def requirement_matches(req: SelectorRequirement, labels: Mapping[str, str]) -> bool | None:
    """One node-selector requirement against a label set; ``None`` when the requirement itself is
    invalid (upstream then treats its whole term as not matching)."""
    op, values = req.operator, req.values
    present = req.key in labels
    if op == "In":
        if not values:
            return None
        return present and labels[req.key] in values
    if op == "NotIn":
        if not values:
            return None
        return not present or labels[req.key] not in values
    if op == "Exists":
        return None if values else present
    if op == "DoesNotExist":
        return None if values else not present
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            return None
        bound = _parse_int(values[0])
        if bound is None:
            return None
        if not present:
            return False
        actual = _parse_int(labels[req.key])
        if actual is None:
            return False
        return actual > bound if op == "Gt" else actual < bound
    return None


def field_requirement_matches(req: SelectorRequirement, node: Node) -> bool | None:
    """``matchFields``, as the scheduler's nodeaffinity helper (k8s.io/component-helpers/
    scheduling/corev1/nodeaffinity, ``nodeSelectorRequirementsAsFieldSelector`` and
    ``extractNodeFields``): In / NotIn with one value, else a parse error and the term matches
    nothing (None); the node's only field is ``metadata.name``, any other key reads as absent
    (``""``). The API server rejects other keys and value counts at validation, and so does the
    loader; this keeps the scheduler's runtime reading for terms built in code."""
    if len(req.values) != 1 or req.operator not in ("In", "NotIn"):
        return None
    actual = node.name if req.key == "metadata.name" else ""
    equal = actual == req.values[0]
    return equal if req.operator == "In" else not equal


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """A term's requirements are ANDed; an empty term matches nothing (as upstream)."""
    if not term.match_expressions and not term.match_fields:
        return False
    for req in term.match_expressions:
        if requirement_matches(req, node.labels) is not True:
            return False
    for req in term.match_fields:
        if field_requirement_matches(req, node) is not True:
            return False
    return True


def label_selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """metav1.LabelSelector semantics for PDBs: None or empty matches nothing; an invalid
    requirement makes the selector match nothing."""
    if selector is None or selector.empty:
        return False
    for key, value in selector.match_labels.items():
        if labels.get(key) != value:
            return False
    for req in selector.match_expressions:
        if req.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
        if requirement_matches(req, labels) is not True:
            return False
    return True


# ---- static predicates (one per filter plugin) ------------------------------------------------


def check_node_unschedulable(pod: Pod, node: Node) -> Reason:
    """NodeUnschedulable: a cordoned node only takes pods tolerating its unschedulable taint."""
    if node.unschedulable and not tolerated(pod.tolerations, _UNSCHEDULABLE_TAINT):
        return REASON_UNSCHEDULABLE
    return None


def check_node_name(pod: Pod, node: Node) -> Reason:
    """NodeName: a pod with ``spec.nodeName`` preset only fits that node."""
    if pod.node_name is not None and pod.node_name != node.name:
        return REASON_NODE_NAME
    return None


def check_taints(pod: Pod, node: Node) -> Reason:
    """TaintToleration: every NoSchedule / NoExecute taint must be tolerated."""
    for taint in node.taints:
        if taint.effect in FILTERED_TAINT_EFFECTS and not tolerated(pod.tolerations, taint):
            return reason_untolerated_taint(taint)
    return None


def check_node_selector(pod: Pod, node: Node) -> Reason:
    """NodeAffinity (nodeSelector part): every label must be present with that exact value."""
    labels = node.labels
    for key, value in pod.node_selector.items():
        if labels.get(key) != value:
            return REASON_NODE_AFFINITY
    return None


def check_node_affinity(pod: Pod, node: Node) -> Reason:
    """NodeAffinity (required part): terms are ORed; an empty term list matches nothing."""
    terms = pod.required_affinity
    if terms is None:
        return None
    if any(term_matches(term, node) for term in terms):
        return None
    return REASON_NODE_AFFINITY


StaticPredicate = Callable[[Pod, Node], Reason]

# In kube-scheduler's default Filter order.
STATIC_PREDICATES: tuple[StaticPredicate, ...] = (
    check_node_unschedulable,
    check_node_name,
    check_taints,
    check_node_selector,
    check_node_affinity,
)


def check_static(pod: Pod, node: Node) -> Reason:
    """The first failing occupancy-independent predicate, or None."""
    for predicate in STATIC_PREDICATES:
        reason = predicate(pod, node)
        if reason is not None:
            return reason
    return None


# ---- resources --------------------------------------------------------------------------------


def request_items(requests: Mapping[str, int]) -> RequestItems:
    """The resources a pod asks for, sorted; zero requests and ``pods`` are dropped because
    NodeResourcesFit only checks what the pod requests (and counts pods separately)."""
    return tuple(sorted((name, amount) for name, amount in requests.items()
                        if amount > 0 and name != PODS))


def check_resources(
    items: RequestItems,
    allocatable: Mapping[str, int],
    requested: Mapping[str, int],
    pod_count: int,
) -> Reason:
    """NodeResourcesFit: one more pod within ``pods``; requested + pod <= allocatable for every
    requested resource (a resource the node lacks is 0)."""
    if pod_count + 1 > allocatable.get(PODS, 0):
        return REASON_TOO_MANY_PODS
    for name, amount in items:
        if requested.get(name, 0) + amount > allocatable.get(name, 0):
            return reason_insufficient(name)
    return None


# ---- pod shapes -------------------------------------------------------------------------------


# Everything the static predicates read from a pod (``static_key``)
StaticKey = tuple[object, ...]


def static_key(pod: Pod) -> StaticKey:
    """Everything the static predicates read from a pod: equal keys give equal answers."""
    return (
        pod.node_name,
        tuple(sorted(pod.node_selector.items())),
        pod.required_affinity,
        pod.tolerations,
    )


def shape_key(pod: Pod) -> tuple[StaticKey, RequestItems]:
    """Static key plus requests: pods with equal shapes are interchangeable for fitting."""
    return (static_key(pod), request_items(pod.requests))


class StaticFitCache:
    """Static predicate answers per (pod static key, node name), computed at most once.

    ``passing`` also keeps, per static key, the indices of the nodes that pass, and ``rejected``
    how many nodes each reason rejects: a cache used with either must always be given the same
    node list (one cache per ``ClusterState`` or ``Accounting``), which holds because nodes
    never change under either.
    """

    __slots__ = ("_answers", "_passing", "_rejected")

    def __init__(self) -> None:
        self._answers: dict[tuple[StaticKey, str], Reason] = {}
        self._passing: dict[StaticKey, tuple[tuple[int, ...], frozenset[int]]] = {}
        self._rejected: dict[StaticKey, dict[str, int]] = {}

    def reason(self, pod: Pod, node: Node, key: StaticKey | None = None) -> Reason:
        k = (static_key(pod) if key is None else key, node.name)
        try:
            return self._answers[k]
        except KeyError:
            answer = self._answers[k] = check_static(pod, node)
            return answer

    def passing(self, pod: Pod, nodes: Sequence[NodeState],
                key: StaticKey | None = None) -> tuple[tuple[int, ...], frozenset[int]]:
        """The indices (ascending, and as a set) of ``nodes`` passing every static predicate."""
        skey = static_key(pod) if key is None else key
        found = self._passing.get(skey)
        if found is None:
            ok = tuple(i for i, ns in enumerate(nodes) if self.reason(pod, ns.node, skey) is None)
            found = self._passing[skey] = (ok, frozenset(ok))
        return found

    def rejected(self, pod: Pod, nodes: Sequence[NodeState],
                 key: StaticKey | None = None) -> Mapping[str, int]:
        """How many of ``nodes`` each static predicate's reason rejects (same node list as
        ``passing``). The cache's own mapping: read it, never change it."""
        skey = static_key(pod) if key is None else key
        found = self._rejected.get(skey)
        if found is None:
            found = self._rejected[skey] = {}
            for ns in nodes:
                reason = self.reason(pod, ns.node, skey)
                if reason is not None:
                    found[reason] = found.get(reason, 0) + 1
        return found


# ---- incremental accounting -------------------------------------------------------------------


class NodeState:
    """One node's allocatable, requested totals and pod count (upstream NodeInfo).

    With ``tracked`` set, only those resources are summed: a fit check only reads the resources
    the pod requests, so a planner tracks exactly its preemptor's and skips the rest.
    """

    __slots__ = ("allocatable", "max_pods", "name", "node", "pod_count", "requested", "tracked")

    def __init__(self, node: Node, tracked: tuple[str, ...] | None = None) -> None:
        self.node = node
        self.name = node.name
        self.allocatable = node.allocatable
        self.max_pods = node.allocatable.get(PODS, 0)
        self.tracked = tracked
        self.requested: dict[str, int] = dict.fromkeys(tracked, 0) if tracked else {}
        self.pod_count = 0

    def copy(self) -> NodeState:
        """Another state of the same node with the same totals, changed independently."""
        other = NodeState.__new__(NodeState)
        other.node, other.name, other.allocatable = self.node, self.name, self.allocatable
        other.max_pods, other.tracked, other.pod_count = self.max_pods, self.tracked, self.pod_count
        other.requested = dict(self.requested)
        return other

    def add(self, pod: Pod) -> None:
        self.add_requests(pod.requests)

    def remove(self, pod: Pod) -> None:
        self.remove_requests(pod.requests)

    def add_requests(self, requests: Mapping[str, int], pods: int = 1) -> None:
        req = self.requested
        if self.tracked is None:
            for name, amount in requests.items():
                if name != PODS:
                    req[name] = req.get(name, 0) + amount
        else:
            for name in self.tracked:
                amount = requests.get(name, 0)
                if amount:
                    req[name] += amount
        self.pod_count += pods

    def remove_requests(self, requests: Mapping[str, int], pods: int = 1) -> None:
        req = self.requested
        if self.tracked is None:
            for name, amount in requests.items():
                if name != PODS:
                    req[name] = req.get(name, 0) - amount
        else:
            for name in self.tracked:
                amount = requests.get(name, 0)
                if amount:
                    req[name] -= amount
        self.pod_count -= pods

    def take(self, items: RequestItems) -> None:
        """One more pod with these request items (``add_requests`` for the engine's hot path,
        which holds request items, not a mapping)."""
        req = self.requested
        for name, amount in items:
            req[name] = req.get(name, 0) + amount
        self.pod_count += 1

    def give_back(self, items: RequestItems) -> None:
        """Undo ``take(items)``."""
        req = self.requested
        for name, amount in items:
            req[name] -= amount
        self.pod_count -= 1

    def check(self, items: RequestItems) -> Reason:
        """Resource fit of one more pod with these request items."""
        return check_resources(items, self.allocatable, self.requested, self.pod_count)

    def fits(self, items: RequestItems) -> bool:
        """``check(items) is None`` without building a reason: the preemption engine's hot
        path asks only yes or no (tests/test_fit.py checks the two agree)."""
        if self.pod_count >= self.max_pods:
            return False
        req, alloc = self.requested, self.allocatable
        for name, amount in items:
            if req.get(name, 0) + amount > alloc.get(name, 0):
                return False
        return True

    def copies(self, items: RequestItems, limit: int) -> int:
        """How many more pods with these request items fit, capped at ``limit``."""
        n = min(self.max_pods - self.pod_count, limit)
        if n <= 0:
            return 0
        req, alloc = self.requested, self.allocatable
        for name, amount in items:
            k = (alloc.get(name, 0) - req.get(name, 0)) // amount
            if k < n:
                if k <= 0:
                    return 0
                n = k
        return n


def fits(pod: Pod, state: NodeState) -> Reason:
    """Every predicate for one pod on one node, static ones first."""
    return check_static(pod, state.node) or state.check(request_items(pod.requests))


class ClusterState:
    """Per-node accounting for a whole snapshot, as one preemptor sees it.

    Bound, non-finished pods count on their node; terminating pods hold their resources until
    ``release_terminating``. Pending pods nominated to a node reserve room there when their
    priority is >= ``reserve_priority`` (upstream adds such nominated pods before filtering) —
    except the preemptor's own pods, named in ``exclude``. ``tracked`` limits the summed
    resources (see ``NodeState``); pod counts are always kept. ``bound`` / ``terminating`` /
    ``reserved`` list the (pod, node index) pairs counted, each sorted by pod key.

    Built from a snapshot, or over an ``Accounting`` (``over``, tracking every resource): then
    ``nodes`` starts as the accounting's own node states and a node's state is copied the
    first time the view writes to it (``own``); either way the view is its plan's own, to
    change and drop. Every write goes through ``own(i)``; ``nodes[i]`` is for reading.
    """

    __slots__ = ("_anti_affinity", "_names", "_shared", "bound", "index", "nodes", "released",
                 "reserved", "terminating", "tracked")

    def __init__(
        self,
        snapshot: Snapshot,
        *,
        reserve_priority: int | None = None,
        exclude: Collection[str] = (),
        tracked: Collection[str] | None = None,
    ) -> None:
        self.tracked = None if tracked is None else tuple(sorted(set(tracked) - {PODS}))
        self.nodes: list[NodeState] = [NodeState(n, self.tracked)
                                       for _, n in sorted(snapshot.nodes.items())]
        self.index: dict[str, int] = {s.name: i for i, s in enumerate(self.nodes)}
        self.bound: list[tuple[Pod, int]] = []  # running (not terminating) pods, by pod key
        self.terminating: list[tuple[Pod, int]] = []  # sorted by pod key
        self.reserved: list[tuple[Pod, int]] = []
        self.released = False
        self._shared: bytearray | None = None  # every node state is this view's
        self._anti_affinity: list[tuple[Pod, int]] | None = None
        self._names: list[str] | None = None
        exclude = frozenset(exclude)
        index, nodes, tracked = self.index, self.nodes, self.tracked
        for key, pod in snapshot.pods.items():  # (the snapshot's order: sorted below)
            where = pod.state
            if where == RUNNING or where == TERMINATING:
                name = pod.node_name
                reserved = False
            elif (where == NOMINATED and reserve_priority is not None
                    and pod.priority >= reserve_priority and key not in exclude):
                name = pod.nominated_node
                reserved = True
            else:
                continue
            i = index.get(name)  # type: ignore[arg-type]  # (set in both states)
            if i is None:
                continue  # a node the snapshot does not have: holds nothing here
            state = nodes[i]
            if tracked is None:
                state.add_requests(pod.requests)
            else:  # inlined NodeState.add_requests: this loop runs once per pod
                requests, req = pod.requests, state.requested
                for r in tracked:
                    amount = requests.get(r)
                    if amount:
                        req[r] += amount
                state.pod_count += 1
            if reserved:
                self.reserved.append((pod, i))
            elif where == TERMINATING:
                self.terminating.append((pod, i))
            else:
                self.bound.append((pod, i))
        self.terminating.sort(key=lambda t: t[0].key)
        self.bound.sort(key=lambda t: t[0].key)
        self.reserved.sort(key=lambda t: t[0].key)  # as ``over`` lists them

    @classmethod
    def over(
        cls,
        accounting: Accounting,
        *,
        reserve_priority: int | None = None,
        exclude: Collection[str] = (),
    ) -> ClusterState:
        """The same view as ``ClusterState(snapshot, ...)`` for the snapshot ``accounting``
        describes, without a rebuild: the accounting's node states, each copied when the plan
        first writes to it (``own``), with this preemptor's reservations added; O(nodes) for
        the list and O(nominated + terminating pods). The lists of running pods are the
        accounting's own (read only); nothing the plan does reaches the accounting. The view
        reads the nodes it has not written to from the accounting: update the accounting
        between plans, not while a view is in use."""
        self = cls.__new__(cls)
        self.tracked = None
        self.nodes = list(accounting.nodes)
        self._shared = bytearray(b"\x01") * len(self.nodes)
        self.index = accounting.index
        self.bound = accounting.bound_pods()
        self._anti_affinity = accounting.anti_affinity_pods()
        self._names = accounting.node_names
        self.terminating = [accounting.terminating[k] for k in sorted(accounting.terminating)]
        self.released = False
        self.reserved = []
        if reserve_priority is not None:
            exclude = frozenset(exclude)
            nominated, own = accounting.nominated, self.own
            for key in sorted(nominated):
                pod, i = nominated[key]
                if pod.priority >= reserve_priority and key not in exclude:
                    own(i).add_requests(pod.requests)
                    self.reserved.append((pod, i))
        return self

    def bound_with_anti_affinity(self) -> list[tuple[Pod, int]]:
        """The ``bound`` pods that carry required anti-affinity terms, in the same order (kept
        by the accounting a view is copied from, else found once): only these can reject a
        preemptor without constraints of its own. Read it, never change it."""
        if self._anti_affinity is None:
            self._anti_affinity = [t for t in self.bound if t[0].anti_affinity_terms]
        return self._anti_affinity

    def own(self, i: int) -> NodeState:
        """Node ``i``'s state, to write to: the view's own (copied from the accounting's the
        first time)."""
        shared = self._shared
        if shared is not None and shared[i]:
            shared[i] = 0
            node = self.nodes[i] = self.nodes[i].copy()
            return node
        return self.nodes[i]

    def release_terminating(self) -> None:
        """Treat already-triggered preemptions as free space."""
        if not self.released:
            for pod, i in self.terminating:
                self.own(i).remove(pod)
            self.released = True

    def hold_terminating(self) -> None:
        """Undo ``release_terminating``: terminating pods hold their resources again."""
        if self.released:
            for pod, i in self.terminating:
                self.own(i).add(pod)
            self.released = False

    def node_names(self) -> Sequence[str]:
        """The node names by index (made once; a view from an accounting shares its list). Read
        it, never change it."""
        if self._names is None:
            self._names = [s.name for s in self.nodes]
        return self._names


def same_placement(a: Pod, b: Pod) -> bool:
    """Whether two versions of a pod count alike in an ``Accounting``: the same key, and the
    same fields deciding where it counts (``Accounting._slot``), what it holds (requests) and
    whether it is an anti-affinity pod."""
    return (a.key == b.key and a.node_name == b.node_name and a.phase == b.phase
            and a.terminating == b.terminating and a.nominated_node == b.nominated_node
            and (a.requests is b.requests or a.requests == b.requests)
            and bool(a.anti_affinity_terms) == bool(b.anti_affinity_terms))


class Accounting:
    """What every preemptor's ``ClusterState`` of one snapshot shares, kept across plans.

    A queue replay changes a handful of pods per step; rebuilding a ``ClusterState`` from the
    whole snapshot for every plan costs O(pods). An ``Accounting`` is built once and told every
    pod change (``update``); ``ClusterState.over`` gives each plan a view of its node states
    that copies a node's state before the plan first changes it: the plan never writes here.

    It counts bound, non-finished pods on known nodes (all resources: a plan only reads the
    ones it asks for), separates the terminating ones, remembers nominated pending pods (each
    plan picks the ones that reserve room against it), and keeps one ``StaticFitCache`` for
    every plan (nodes never change under it). It also keeps the running pods with required
    anti-affinity terms (``anti_affinity_pods``), the only running pods a plan's filters look at
    for a preemptor without constraints. A planner may keep its own structures derived
    from the running pods in ``memo``, kept current by a listener (``listen``) that is told
    every running pod that leaves or joins.
    """

    __slots__ = ("_anti_keys", "_anti_list", "_bound_keys", "_bound_list", "_listeners", "bound",
                 "cache", "index", "memo", "node_map", "node_names", "nodes", "nominated",
                 "plans", "terminating")

    def __init__(self, snapshot: Snapshot) -> None:
        self.node_map = snapshot.nodes
        self.nodes: list[NodeState] = [NodeState(n) for _, n in sorted(snapshot.nodes.items())]
        self.index: dict[str, int] = {s.name: i for i, s in enumerate(self.nodes)}
        self.node_names: list[str] = [s.name for s in self.nodes]  # by index; never changed
        self.bound: dict[str, tuple[Pod, int]] = {}  # running (not terminating) pods
        self.terminating: dict[str, tuple[Pod, int]] = {}
        self.nominated: dict[str, tuple[Pod, int]] = {}  # pending, nominated to a known node
        self.cache = StaticFitCache()
        self.memo: dict[object, object] = {}
        self.plans = 0  # how many plans have read it (a planner's index pays from the second)
        self._listeners: list[Callable[[tuple[Pod, int] | None, tuple[Pod, int] | None],
                                       None]] = []
        # the running pods in pod-key order, and their keys (kept in step by ``_add``/``_remove``)
        self._bound_keys: list[str] = []
        self._bound_list: list[tuple[Pod, int]] = []
        self._build(snapshot.pods.values())
        keys = self._bound_keys = sorted(self.bound)
        # a snapshot's pods usually come sorted by key: then so do the running ones
        self._bound_list = (list(self.bound.values()) if keys == list(self.bound)
                            else [self.bound[k] for k in keys])
        # the running pods with required anti-affinity terms, also in pod-key order
        self._anti_list = [t for t in self._bound_list if t[0].anti_affinity_terms]
        self._anti_keys = [p.key for p, _ in self._anti_list]

    def _build(self, pods: Collection[Pod]) -> None:
        """``_add`` of every pod (no listeners yet, the sorted lists made after), the per-node
        totals summed node by node at the end."""
        slot, nodes, nominated = self._slot, self.nodes, self.nominated
        bound, terminating = self.bound, self.terminating
        held: list[list[Mapping[str, int]]] = [[] for _ in nodes]  # requests, per node
        added = 0
        for pod in pods:
            where, i = slot(pod)
            if where is None or i is None:
                continue
            where[pod.key] = (pod, i)
            added += 1
            if where is not nominated:
                held[i].append(pod.requests)
        for state, requests in zip(nodes, held, strict=True):  # summed node by node
            if requests:
                req = state.requested
                names = set().union(*requests)
                names.discard(PODS)
                for r in names:  # in C while every pod of the node requests r
                    try:
                        req[r] = sum(map(itemgetter(r), requests))
                    except KeyError:
                        req[r] = sum([one.get(r, 0) for one in requests])
                state.pod_count = len(requests)
        if (added != len(bound) + len(terminating) + len(nominated)
                or any(k in bound for k in terminating)
                or any(k in bound or k in terminating for k in nominated)):
            # a pod key given twice (in one slot, or in two): find it as _add would
            seen: set[str] = set()
            for pod in pods:
                if slot(pod)[0] is not None:
                    if pod.key in seen:
                        raise ValueError(f"pod {pod.key} is already accounted")
                    seen.add(pod.key)

    def derive(self, old: Snapshot, new: Snapshot) -> Accounting | None:
        """An accounting of ``new`` made from this one, which describes ``old`` (built from it,
        no ``update`` since): when ``new`` has the same nodes and the same pod keys, and every
        pod that is not the very object of ``old`` counts exactly as its old version
        (``same_placement``: e.g. a priority change), the per-node totals are copied and those
        pods swapped in, instead of summing every pod again. Costs O(nodes + pods compared by
        identity + pods changed x log pods). None when ``new`` differs otherwise (then build
        ``Accounting(new)``).

        The result is the accounting ``Accounting(new)`` builds (tests/test_audit_plans.py),
        with its own node states, pod lists and memo; it shares this one's node index and
        ``StaticFitCache`` (the static answers read the nodes only, and both have the same
        nodes in the same order), and the memo entries that say they hold for both
        (``portable``: they check what they read)."""
        if not self.matches(new) or len(new.pods) != len(old.pods):
            return None
        old_get = old.pods.get
        changed = [pod for key, pod in new.pods.items() if old_get(key) is not pod]
        for pod in changed:
            was = old_get(pod.key)
            if was is None or not same_placement(was, pod):
                return None
        acc = Accounting.__new__(Accounting)
        acc.node_map = new.nodes
        acc.nodes = [s.copy() for s in self.nodes]
        acc.index, acc.node_names, acc.cache = self.index, self.node_names, self.cache
        acc.bound, acc.terminating = dict(self.bound), dict(self.terminating)
        acc.nominated = dict(self.nominated)
        # what the planners keep that says it holds for a derived accounting too
        acc.memo = {k: v for k, v in self.memo.items() if getattr(v, "portable", False)}
        acc.plans = 0
        acc._listeners = []
        acc._bound_keys, acc._bound_list = list(self._bound_keys), list(self._bound_list)
        acc._anti_keys, acc._anti_list = list(self._anti_keys), list(self._anti_list)
        bound = acc.bound
        for pod in changed:
            key = pod.key
            for where in (bound, acc.terminating, acc.nominated):
                held = where.get(key)
                if held is not None:
                    break
            else:
                continue  # counted nowhere, before as now
            where[key] = entry = (pod, held[1])
            if where is bound:
                acc._bound_list[bisect_left(acc._bound_keys, key)] = entry
                if pod.anti_affinity_terms:
                    acc._anti_list[bisect_left(acc._anti_keys, key)] = entry
        return acc

    def matches(self, snapshot: Snapshot) -> bool:
        """Whether ``snapshot`` has the nodes this accounting was built for."""
        return snapshot.nodes is self.node_map or snapshot.nodes == self.node_map

    def update(self, old: Pod | None, new: Pod | None) -> None:
        """One pod changed from ``old`` to ``new`` (None: absent before / removed now)."""
        if old is not None:
            self._remove(old)
        if new is not None:
            self._add(new)

    def listen(self, listener: Callable[[tuple[Pod, int] | None, tuple[Pod, int] | None],
                                        None]) -> None:
        """Call ``listener(left, joined)`` for every running pod that leaves (``left``, as
        (pod, node index)) or joins (``joined``) from now on; one of them is None."""
        self._listeners.append(listener)

    def unlisten(self, listener: Callable[[tuple[Pod, int] | None, tuple[Pod, int] | None],
                                          None]) -> None:
        self._listeners.remove(listener)

    def bound_pods(self) -> list[tuple[Pod, int]]:
        """The running pods as (pod, node index), sorted by pod key (as ``ClusterState.bound``).
        The accounting's own list: read it, never change it."""
        return self._bound_list

    def anti_affinity_pods(self) -> list[tuple[Pod, int]]:
        """The running pods with required anti-affinity terms, as ``bound_pods`` orders them.
        The accounting's own list: read it, never change it."""
        return self._anti_list

    def _slot(self, pod: Pod) -> tuple[dict[str, tuple[Pod, int]] | None, int | None]:
        """Where ClusterState would put ``pod``: (the mapping, node index), or (None, None)."""
        where = pod.state  # (as ``ClusterState.__init__`` reads it)
        if where == RUNNING or where == TERMINATING:
            i = self.index.get(pod.node_name)  # type: ignore[arg-type]  # (set in both)
            if i is None:
                return None, None
            return (self.bound if where == RUNNING else self.terminating), i
        if where == NOMINATED:
            i = self.index.get(pod.nominated_node)  # type: ignore[arg-type]  # (set)
            return (None, None) if i is None else (self.nominated, i)
        return None, None

    def _add(self, pod: Pod) -> None:
        where, i = self._slot(pod)
        if where is None or i is None:
            return
        key = pod.key
        if key in self.bound or key in self.terminating or key in self.nominated:
            raise ValueError(f"pod {key} is already accounted")
        where[key] = (pod, i)
        if where is not self.nominated:
            self.nodes[i].add(pod)
        if where is self.bound:
            keys = self._bound_keys
            j = bisect_left(keys, key)
            keys.insert(j, key)
            self._bound_list.insert(j, (pod, i))
            if pod.anti_affinity_terms:
                j = bisect_left(self._anti_keys, key)
                self._anti_keys.insert(j, key)
                self._anti_list.insert(j, (pod, i))
            for listener in self._listeners:
                listener(None, (pod, i))

    def _remove(self, pod: Pod) -> None:
        where, i = self._slot(pod)
        if where is None or i is None:
            return
        key = pod.key
        held = where.get(key)
        if held is None or (held[0] is not pod and held[0] != pod):
            raise ValueError(f"pod {key} is not accounted as given")
        del where[key]
        if where is not self.nominated:
            self.nodes[i].remove(held[0])
        if where is self.bound:
            j = bisect_left(self._bound_keys, key)
            del self._bound_keys[j]
            del self._bound_list[j]
            if held[0].anti_affinity_terms:
                j = bisect_left(self._anti_keys, key)
                del self._anti_keys[j]
                del self._anti_list[j]
            for listener in self._listeners:
                listener(held, None)
