"""Label-selector and affinity-term matching as the scheduler's filters read them.

Unlike PDB selectors (``fit.label_selector_matches``: None or empty matches nothing), a pod
affinity term or spread constraint follows ``metav1.LabelSelectorAsSelector``: a missing
selector is ``labels.Nothing()`` and an empty one is ``labels.Everything()``.
"""

from __future__ import annotations

from collections.abc import Mapping

from wapctl.fit import requirement_matches
from wapctl.model import LabelSelector, PodAffinityTerm

# The API server sets this label on every Namespace (immutable since 1.21), so a namespace
# without a Namespace object in the snapshot still has it.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"

_LABEL_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """``LabelSelectorAsSelector(selector).Matches(labels)``: None matches nothing, empty
    matches everything, requirements are ANDed."""
    if selector is None:
        return False
    for key, value in selector.match_labels.items():
        if labels.get(key) != value:
            return False
    for req in selector.match_expressions:
        if req.operator not in _LABEL_OPERATORS or requirement_matches(req, labels) is not True:
            return False
    return True


def selector_empty(selector: LabelSelector | None) -> bool:
    """``labels.Selector.Empty()``: true for an empty (match-everything) selector only."""
    return selector is not None and not selector.match_labels and not selector.match_expressions


def namespace_labels(namespaces: Mapping[str, Mapping[str, str]], name: str) -> Mapping[str, str]:
    """The labels of Namespace ``name``; without its object, only the name label."""
    labels = namespaces.get(name)
    return labels if labels is not None else {NAMESPACE_NAME_LABEL: name}


def term_matches(
    term: PodAffinityTerm, namespace: str, labels: Mapping[str, str], ns_labels: Mapping[str, str]
) -> bool:
    """``fwk.AffinityTerm.Matches``: the pod's namespace is listed or selected by the term's
    namespaceSelector (against the labels of the pod's namespace, ``ns_labels``), and the term's
    selector matches the pod's labels.

    Upstream's PreFilter first merges the incoming pod's namespaceSelector into its namespace
    list by listing the Namespaces it selects (``mergeAffinityTermNamespacesIfNotEmpty``); that
    is the same as selecting each candidate pod's own namespace here, since every pod's namespace
    exists."""
    if namespace not in term.namespaces:
        sel = term.namespace_selector
        if sel is None or not selector_matches(sel, ns_labels):
            return False
    return selector_matches(term.selector, labels)
