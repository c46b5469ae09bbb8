"""nodeAffinity ``matchFields``: what upstream accepts and how the scheduler reads it.

Upstream, at kubernetes/kubernetes:
- API validation, pkg/apis/core/validation/validation.go ``validateNodeFieldSelectorRequirement``
  (commit a7264f95ffc8b56377da16e83461aa59467ebb3e): operator In or NotIn with exactly one value
  ("must be only one value when `operator` is 'In' or 'NotIn' for node field selector"), and the
  key must be in ``nodeFieldSelectorValidators``, whose only entry is ``metadata.name`` ("not a
  valid field selector key"). Such a pod is never created, so the loader rejects it too.
- Scheduler runtime, staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/
  nodeaffinity.go (commit 1ca8f84eede93fa9b3577a07025ca90582b2ac46):
  ``nodeSelectorRequirementsAsFieldSelector`` turns In/NotIn into
  ``fields.OneTermEqualSelector`` / ``OneTermNotEqualSelector`` against ``extractNodeFields``
  (a ``fields.Set`` holding only ``metadata.name``); a missing key reads as "" (``Set.Get``).
  Any other operator or value count is a parse error, and a term with parse errors matches
  nothing (``nodeSelectorTerm.match``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from builders import node

from tests.test_load import F, assert_names, error_of, pod
from tests.test_load import node as node_doc
from wapctl.fit import field_requirement_matches, term_matches
from wapctl.model import NodeSelectorTerm, SelectorRequirement

AFFINITY = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _pod_with_fields(*requirements: dict[str, Any]) -> dict[str, Any]:
    return pod("p", affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": list(requirements)}]}}})


@pytest.mark.parametrize(("requirement", "field", "reason"), [
    ({"key": "spec.unschedulable", "operator": "In", "values": ["true"]}, "key",
     "only metadata.name can be matched, not 'spec.unschedulable'"),
    ({"key": "metadata.name", "operator": "In", "values": ["a", "b"]}, "values",
     "exactly one value"),
    ({"key": "metadata.name", "operator": "NotIn", "values": ["a", "b"]}, "values",
     "exactly one value"),
    ({"key": "metadata.name", "operator": "Exists"}, "operator", "unknown value"),
])
def test_loader_rejects_what_api_validation_rejects(tmp_path: Path, requirement: dict[str, Any],
                                                     field: str, reason: str) -> None:
    """validateNodeFieldSelectorRequirement: an unknown key, an operator other than In/NotIn,
    or not exactly one value is a validation error upstream, so an InputError here."""
    err = error_of(tmp_path, node_doc("a"), _pod_with_fields(requirement))
    assert reason in err.reason
    assert_names(err, F, 2, f"{AFFINITY}.nodeSelectorTerms[0].matchFields[0].{field}")


def test_metadata_name_in_and_not_in() -> None:
    """The accepted form: metadata.name In [a] matches node a only; NotIn [a] the others."""
    a, b = node("a"), node("b")
    is_a = SelectorRequirement("metadata.name", "In", ("a",))
    not_a = SelectorRequirement("metadata.name", "NotIn", ("a",))
    assert (True, False) == (field_requirement_matches(is_a, a), field_requirement_matches(is_a, b))
    assert (False, True) == (field_requirement_matches(not_a, a),
                             field_requirement_matches(not_a, b))


def test_unknown_key_reads_as_absent_field_at_runtime() -> None:
    """A term built in code with another key: the scheduler's fields.Set has no such key, so
    Get returns "": In ["x"] never matches, NotIn ["x"] always does, In [""] matches."""
    n = node("a")
    assert field_requirement_matches(SelectorRequirement("spec.x", "In", ("x",)), n) is False
    assert field_requirement_matches(SelectorRequirement("spec.x", "NotIn", ("x",)), n) is True
    assert field_requirement_matches(SelectorRequirement("spec.x", "In", ("",)), n) is True


def test_parse_error_makes_the_term_match_nothing() -> None:
    """Two values (or Exists) is a parse error: no verdict, and the term fails even on the
    named node, as nodeSelectorTerm.match returns false with parseErrs."""
    n = node("a")
    two = SelectorRequirement("metadata.name", "In", ("a", "b"))
    exists = SelectorRequirement("metadata.name", "Exists")
    assert field_requirement_matches(two, n) is None
    assert field_requirement_matches(exists, n) is None
    assert not term_matches(NodeSelectorTerm(match_fields=(two,)), n)
    assert term_matches(NodeSelectorTerm(match_fields=(SelectorRequirement(
        "metadata.name", "In", ("a",)),)), n)
