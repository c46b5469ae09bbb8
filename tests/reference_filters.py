"""The reference oracle's own static node filters and label-selector matching.

Written for tests/reference_plan.py from upstream Kubernetes' source, not from ``wapctl.fit``,
so the oracle does not share the engine's possible mistakes there (issue 25, point 4). Each
function names the upstream file and function it follows; paths are in kubernetes/kubernetes.
Only the model's plain data classes are read (``wapctl.model``).

Not modelled, as upstream's API validation rejects such objects before the scheduler sees them:
the syntax of label keys and values (``validateLabelKey`` / ``validateLabelValue`` in
``NewRequirement``). Everything else an invalid requirement can carry (an unknown operator, a
wrong number of values, a non-integer Gt/Lt bound) is handled as upstream's runtime does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from wapctl.model import (
    LabelSelector,
    Node,
    NodeSelectorTerm,
    Pod,
    SelectorRequirement,
    Taint,
    Toleration,
)

# ---- strconv.ParseInt(s, 10, 64) --------------------------------------------------------------

_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")


def parse_int64(text: str) -> int | None:
    """Go's ``strconv.ParseInt(text, 10, 64)``: an optional sign and ASCII decimal digits (no
    underscores, no spaces: base 10, not 0), within int64; None where Go returns an error."""
    if not _DECIMAL.match(text):
        return None
    value = int(text)
    return value if -(2**63) <= value <= 2**63 - 1 else None


# ---- tolerations ------------------------------------------------------------------------------


def toleration_tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``(*Toleration).ToleratesTaint`` (staging/src/k8s.io/api/core/v1/toleration.go).

    A non-empty effect must equal the taint's; a non-empty key must equal the taint's; then by
    operator: "" or Equal compare the values, Exists matches any value, any other operator
    matches nothing. That includes Lt / Gt: their numeric comparison only runs with
    ``enableComparisonOperators`` (the alpha feature gate TaintTolerationComparisonOperators,
    off by default; rule 5 of the function's comment: "If enableComparisonOperators is false
    and the toleration uses 'Lt' or 'Gt' operators, the toleration does not match")."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def tolerations_tolerate(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """``TolerationsTolerateTaint`` (pkg/apis/core/v1/helper/helpers.go): any one will do."""
    return any(toleration_tolerates(t, taint) for t in tolerations)


def taint_toleration_passes(pod: Pod, node: Node) -> bool:
    """The TaintToleration Filter (pkg/scheduler/framework/plugins/tainttoleration/
    taint_toleration.go ``Filter``): ``FindMatchingUntoleratedTaint`` over the node's taints
    with the predicate ``Effect == NoSchedule || Effect == NoExecute``. A PreferNoSchedule
    taint never rejects a node (it only lowers the node's score)."""
    return all(tolerations_tolerate(pod.tolerations, t) for t in node.taints
               if t.effect in ("NoSchedule", "NoExecute"))


# ---- NodeUnschedulable, NodeName --------------------------------------------------------------


def node_unschedulable_passes(pod: Pod, node: Node) -> bool:
    """The NodeUnschedulable Filter (pkg/scheduler/framework/plugins/nodeunschedulable/
    node_unschedulable.go ``Filter``): a node with ``spec.unschedulable`` rejects the pod unless
    its tolerations tolerate ``{key: node.kubernetes.io/unschedulable, effect: NoSchedule}``
    (value empty)."""
    if not node.unschedulable:
        return True
    cordon = Taint(key="node.kubernetes.io/unschedulable", value="", effect="NoSchedule")
    return tolerations_tolerate(pod.tolerations, cordon)


def node_name_passes(pod: Pod, node: Node) -> bool:
    """The NodeName Filter (pkg/scheduler/framework/plugins/nodename/node_name.go ``Fits``):
    ``len(pod.Spec.NodeName) == 0 || pod.Spec.NodeName == node.Name``."""
    return not pod.node_name or pod.node_name == node.name


# ---- labels.Requirement -----------------------------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """A valid ``labels.Requirement`` (staging/src/k8s.io/apimachinery/pkg/labels/selector.go);
    ``op`` is a ``selection.Operator`` spelling: in, notin, =, exists, !, gt, lt."""

    key: str
    op: str
    values: tuple[str, ...]

    def matches(self, labels: Mapping[str, str]) -> bool:
        """``(*Requirement).Matches``: In / = need the key present with one of the values;
        NotIn matches a missing key or a value not listed; Exists / DoesNotExist test presence;
        Gt / Lt need the key present and its value an int64 beyond the bound."""
        present = self.key in labels
        if self.op in ("in", "="):
            return present and labels[self.key] in self.values
        if self.op == "notin":
            return not present or labels[self.key] not in self.values
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op in ("gt", "lt"):
            if not present:
                return False
            actual = parse_int64(labels[self.key])
            bound = parse_int64(self.values[0]) if len(self.values) == 1 else None
            if actual is None or bound is None:
                return False
            return actual > bound if self.op == "gt" else actual < bound
        return False


def new_requirement(key: str, op: str, values: Sequence[str]) -> Requirement | None:
    """``labels.NewRequirement``'s operator and value-count rules (None: it returns an error):
    In / NotIn need at least one value, = exactly one, Exists / DoesNotExist none, Gt / Lt
    exactly one that parses as an int64."""
    values = tuple(values)
    if op in ("in", "notin"):
        ok = len(values) > 0
    elif op == "=":
        ok = len(values) == 1
    elif op in ("exists", "!"):
        ok = not values
    elif op in ("gt", "lt"):
        ok = len(values) == 1 and parse_int64(values[0]) is not None
    else:
        ok = False
    return Requirement(key, op, values) if ok else None


# ---- metav1.LabelSelector ---------------------------------------------------------------------

_LABEL_SELECTOR_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


@dataclass(frozen=True)
class Selector:
    """A ``labels.Selector``: ``requirements`` None is ``labels.Nothing()`` (matches no label
    set, and is not ``Empty()``); an empty tuple is ``labels.Everything()`` (matches every label
    set, and is ``Empty()``); otherwise the requirements are ANDed (``internalSelector``)."""

    requirements: tuple[Requirement, ...] | None

    def empty(self) -> bool:
        """``Selector.Empty()``: true for ``Everything()`` only (``nothingSelector.Empty``
        returns false)."""
        return self.requirements is not None and not self.requirements

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.requirements is None:
            return False
        return all(r.matches(labels) for r in self.requirements)


def label_selector_as_selector(selector: LabelSelector | None) -> Selector | None:
    """``metav1.LabelSelectorAsSelector`` (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/
    helpers.go): a nil selector is ``labels.Nothing()``, one with no matchLabels and no
    matchExpressions is ``labels.Everything()``; else matchLabels become ``=`` requirements and
    matchExpressions In / NotIn / Exists / DoesNotExist requirements. None where upstream
    returns an error (another operator, or a requirement ``NewRequirement`` rejects)."""
    if selector is None:
        return Selector(None)
    if len(selector.match_labels) + len(selector.match_expressions) == 0:
        return Selector(())
    reqs: list[Requirement] = []
    for key, value in selector.match_labels.items():
        r = new_requirement(key, "=", (value,))
        if r is None:
            return None
        reqs.append(r)
    for expr in selector.match_expressions:
        op = _LABEL_SELECTOR_OPS.get(expr.operator)
        r = new_requirement(expr.key, op, expr.values) if op is not None else None
        if r is None:
            return None
        reqs.append(r)
    return Selector(tuple(reqs))


def label_selector_selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """Whether a label selector selects a label set, with the apimachinery semantics above: an
    invalid selector selects nothing (as the scheduler's PDB check: "This object has an invalid
    selector, it does not match the pod"), nil selects nothing, empty selects everything.
    (The scheduler's PDB filters then skip an ``Empty()`` selector on top of this: see
    tests/reference_plan.py ``violating_pods``.)"""
    parsed = label_selector_as_selector(selector)
    return parsed is not None and parsed.matches(labels)


# ---- NodeAffinity: nodeSelector and required node affinity ------------------------------------

_NODE_SELECTOR_OPS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!",
                      "Gt": "gt", "Lt": "lt"}


def _expressions_selector(exprs: Sequence[SelectorRequirement]) -> Selector | None:
    """``nodeSelectorRequirementsAsSelector`` (staging/src/k8s.io/component-helpers/scheduling/
    corev1/nodeaffinity/nodeaffinity.go): each requirement through ``NewRequirement``; an
    unknown operator or a rejected requirement is a parse error (None)."""
    reqs: list[Requirement] = []
    for expr in exprs:
        op = _NODE_SELECTOR_OPS.get(expr.operator)
        r = new_requirement(expr.key, op, expr.values) if op is not None else None
        if r is None:
            return None
        reqs.append(r)
    return Selector(tuple(reqs))


def _fields_match(reqs: Sequence[SelectorRequirement], node: Node) -> bool | None:
    """``nodeSelectorRequirementsAsFieldSelector`` (same file) against ``extractNodeFields``:
    In / NotIn with exactly one value each (``OneTermEqualSelector`` /
    ``OneTermNotEqualSelector``, ANDed), anything else a parse error (None). The node's field set
    is ``{"metadata.name": name}``; a field it lacks reads as "" (``fields.Set.Get``)."""
    fields = {"metadata.name": node.name} if node.name else {}
    ok = True
    for r in reqs:
        if r.operator not in ("In", "NotIn") or len(r.values) != 1:
            return None
        equal = fields.get(r.key, "") == r.values[0]
        ok = ok and (equal if r.operator == "In" else not equal)
    return ok


def node_selector_term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """One required term (``newNodeSelectorTerm`` and ``nodeSelectorTerm.match``, same file): an
    empty term (no expressions, no fields) is dropped by ``NewLazyErrorNodeSelector`` and so
    matches nothing; a term with a parse error matches nothing; else its expressions must match
    the node's labels and its fields the node's fields (skipped when the node has no fields,
    i.e. an empty name)."""
    if not term.match_expressions and not term.match_fields:
        return False
    if term.match_expressions:
        selector = _expressions_selector(term.match_expressions)
        if selector is None:
            return False
    else:
        selector = None
    if term.match_fields:
        fields_ok = _fields_match(term.match_fields, node)
        if fields_ok is None:
            return False
    else:
        fields_ok = True
    if selector is not None and not selector.matches(node.labels):
        return False
    return bool(fields_ok) or not node.name


def node_affinity_passes(pod: Pod, node: Node) -> bool:
    """The NodeAffinity Filter's required part, ``RequiredNodeAffinity.Match`` (nodeaffinity.go,
    built by ``GetRequiredNodeAffinity``): a non-empty ``nodeSelector`` is
    ``labels.SelectorFromSet`` (every key present with that value); a set
    ``requiredDuringSchedulingIgnoredDuringExecution`` needs one of its terms to match (ORed;
    with no terms, or only empty ones, nothing matches). No required affinity: no constraint."""
    for key, value in pod.node_selector.items():
        if key not in node.labels or node.labels[key] != value:
            return False
    terms = pod.required_affinity
    if terms is None:
        return True
    return any(node_selector_term_matches(t, node) for t in terms)


# ---- every static filter ----------------------------------------------------------------------


def static_filters_pass(pod: Pod, node: Node) -> bool:
    """The default Filter plugins whose answer depends only on the pod and the node, not on the
    pods running there (pkg/scheduler/apis/config/v1/default_plugins.go): NodeUnschedulable,
    NodeName, TaintToleration, NodeAffinity. (NodePorts, InterPodAffinity and
    PodTopologySpread read the running pods; the clusters the oracle is run on have none of
    their inputs. NodeResourcesFit is the oracle's ``fits_on``.)"""
    return (node_unschedulable_passes(pod, node) and node_name_passes(pod, node)
            and taint_toleration_passes(pod, node) and node_affinity_passes(pod, node))
