"""The reference oracle (tests/reference_plan.py) stays independent of the engine, and its own
static filters and label selectors (tests/reference_filters.py) say what upstream says.

Issue 25, point 4: the oracle imports nothing from ``wapctl.fit``, ``wapctl.preemption*`` or
``wapctl.preemptor``; only the model's plain data classes. The hand-worked cases below are the
subtle corners of upstream's rules, each with the upstream function it follows; the last test
compares the oracle's filters with the engine's on random inputs (the engine may be imported
here, in a test, but never by the oracle).
"""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest
from builders import gang, member, node, pod, req, snapshot, taint, term, toleration
from reference_filters import (
    label_selector_as_selector,
    label_selector_selects,
    node_affinity_passes,
    node_unschedulable_passes,
    static_filters_pass,
    taint_toleration_passes,
    toleration_tolerates,
)
from reference_plan import RefUnit, resolve, violating_pods

from wapctl.fit import check_static, label_selector_matches
from wapctl.model import LabelSelector, PodDisruptionBudget
from wapctl.preemptor import pending_preemptors

TESTS = Path(__file__).parent
ORACLE = ("reference_plan", "reference_filters")
ALLOWED_WAPCTL = {"wapctl.model"}


def _imports(module: str) -> set[str]:
    """Every module a test-tree module imports, anywhere in it (function bodies included)."""
    tree = ast.parse((TESTS / f"{module}.py").read_text(), filename=f"{module}.py")
    found: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            found.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                raise AssertionError(f"{module}.py: relative import")
            found.add(n.module or "")
            found.update(f"{n.module}.{a.name}" for a in n.names)
    return found


def test_the_oracle_imports_nothing_from_the_engine():
    """reference_plan and every test-tree module it pulls in import only ``wapctl.model`` of
    wapctl: no ``wapctl.fit``, ``wapctl.preemption*``, ``wapctl.preemptor`` (nor anything else
    that could carry the engine's answers)."""
    seen, todo = set(), list(ORACLE)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for name in _imports(module):
            top = name.split(".")[0]
            if (TESTS / f"{top}.py").exists():
                todo.append(top)
            elif top == "wapctl":
                base = ".".join(name.split(".")[:2])
                assert base in ALLOWED_WAPCTL or name == "wapctl", (module, name)
                assert not base.startswith(("wapctl.fit", "wapctl.preemption",
                                            "wapctl.preemptor")), (module, name)
    assert set(ORACLE) <= seen


def test_the_import_check_sees_a_forbidden_import(tmp_path, monkeypatch):
    """The check above would fail on an engine import, even one inside a function."""
    (tmp_path / "reference_plan.py").write_text(
        "def f():\n    from wapctl.preemptor import Preemptor\n")
    (tmp_path / "reference_filters.py").write_text("from wapctl.model import Pod\n")
    monkeypatch.setattr(sys.modules[__name__], "TESTS", tmp_path)
    with pytest.raises(AssertionError):
        test_the_oracle_imports_nothing_from_the_engine()


# ---- taints and tolerations (toleration.go ToleratesTaint, taint_toleration.go Filter) --------


def test_a_prefer_no_schedule_taint_does_not_filter():
    """TaintToleration's Filter only looks at NoSchedule and NoExecute taints."""
    bare = pod("p")
    assert taint_toleration_passes(bare, node("n", taints=[taint("k", "v", "PreferNoSchedule")]))
    assert not taint_toleration_passes(bare, node("n", taints=[taint("k", "v", "NoSchedule")]))
    assert not taint_toleration_passes(bare, node("n", taints=[taint("k", "v", "NoExecute")]))


def test_an_empty_key_exists_toleration_tolerates_everything():
    """Empty key and empty effect with Exists: every key, value and effect; an effect set
    narrows it to that effect."""
    everything = toleration("", "Exists")
    for effect in ("NoSchedule", "NoExecute", "PreferNoSchedule"):
        assert toleration_tolerates(everything, taint("any/key", "any-value", effect))
    only = toleration("", "Exists", effect="NoExecute")
    assert toleration_tolerates(only, taint("k", "v", "NoExecute"))
    assert not toleration_tolerates(only, taint("k", "v", "NoSchedule"))
    assert taint_toleration_passes(pod("p", tolerations=[everything]), node("n", taints=[
        taint("a", "1"), taint("b", "", "NoExecute")]))


def test_equal_compares_values_and_an_empty_operator_is_equal():
    assert toleration_tolerates(toleration("k", "Equal", "v"), taint("k", "v"))
    assert not toleration_tolerates(toleration("k", "Equal", "v"), taint("k", "w"))
    assert toleration_tolerates(toleration("k", "", "v"), taint("k", "v"))
    assert not toleration_tolerates(toleration("k", "Equal", ""), taint("k", "v"))


def test_lt_and_gt_tolerations_match_nothing_with_the_gate_off():
    """Rule 5 of ToleratesTaint: with TaintTolerationComparisonOperators off (alpha, the
    default) an Lt / Gt toleration does not match, whatever the numbers."""
    assert not toleration_tolerates(toleration("sla", "Gt", "1"), taint("sla", "5"))
    assert not toleration_tolerates(toleration("sla", "Lt", "9"), taint("sla", "5"))


def test_a_cordoned_node_takes_only_pods_tolerating_its_taint():
    """NodeUnschedulable: the pod must tolerate {node.kubernetes.io/unschedulable, NoSchedule}."""
    cordoned = node("n", unschedulable=True)
    key = "node.kubernetes.io/unschedulable"
    assert not node_unschedulable_passes(pod("p"), cordoned)
    assert node_unschedulable_passes(pod("p", tolerations=[toleration(key, "Exists")]), cordoned)
    assert node_unschedulable_passes(
        pod("p", tolerations=[toleration(key, "Exists", effect="NoSchedule")]), cordoned)
    assert not node_unschedulable_passes(
        pod("p", tolerations=[toleration(key, "Exists", effect="NoExecute")]), cordoned)
    assert not node_unschedulable_passes(
        pod("p", tolerations=[toleration(key, "Equal", "true")]), cordoned)  # value is ""
    assert node_unschedulable_passes(pod("p"), node("n"))


# ---- node affinity (component-helpers nodeaffinity.go, apimachinery labels/selector.go) -------


def _affinity(*terms):
    return pod("p", affinity=list(terms))


def test_not_in_and_does_not_exist_match_a_missing_label():
    """Requirement.Matches: NotIn and DoesNotExist match a node without the key; In, Exists,
    Gt, Lt do not."""
    bare = node("n")
    assert node_affinity_passes(_affinity(term(req("zone", "NotIn", "a"))), bare)
    assert node_affinity_passes(_affinity(term(req("zone", "DoesNotExist"))), bare)
    for r in (req("zone", "In", "a"), req("zone", "Exists"), req("cores", "Gt", "1"),
              req("cores", "Lt", "100")):
        assert not node_affinity_passes(_affinity(term(r)), bare)


def test_gt_and_lt_compare_int64_and_fail_on_anything_else():
    n = node("n", labels={"cores": "8", "odd": "8.0"})
    assert node_affinity_passes(_affinity(term(req("cores", "Gt", "4"))), n)
    assert not node_affinity_passes(_affinity(term(req("cores", "Gt", "8"))), n)
    assert node_affinity_passes(_affinity(term(req("cores", "Lt", "+9"))), n)  # ParseInt: sign ok
    assert not node_affinity_passes(_affinity(term(req("odd", "Gt", "4"))), n)  # not an integer
    assert not node_affinity_passes(_affinity(term(req("cores", "Gt", "4", "5"))), n)  # 2 values
    assert not node_affinity_passes(_affinity(term(req("cores", "Gt", "1_0"))), n)  # base 10


def test_terms_are_ored_an_invalid_or_empty_term_matches_nothing():
    """NewLazyErrorNodeSelector drops empty terms; a term with a parse error does not match,
    another term still can; no terms at all match no node; no required affinity, any node."""
    n = node("n", labels={"zone": "a"})
    good = term(req("zone", "In", "a"))
    assert not node_affinity_passes(_affinity(term()), n)
    assert not node_affinity_passes(_affinity(term(req("zone", "In"))), n)  # In needs values
    assert not node_affinity_passes(_affinity(term(req("zone", "Exists", "a"))), n)
    assert not node_affinity_passes(_affinity(term(req("zone", "Equal", "a"))), n)  # operator
    assert node_affinity_passes(_affinity(term(req("zone", "In")), good), n)
    assert not node_affinity_passes(pod("p", affinity=[]), n)
    assert node_affinity_passes(pod("p"), n)


def test_match_fields_read_the_node_name_only():
    n = node("n1")
    assert node_affinity_passes(_affinity(term(fields=[req("metadata.name", "In", "n1")])), n)
    assert not node_affinity_passes(_affinity(term(fields=[req("metadata.name", "In", "n2")])), n)
    assert node_affinity_passes(_affinity(term(fields=[req("metadata.name", "NotIn", "n2")])), n)
    assert node_affinity_passes(_affinity(term(fields=[req("spec.other", "NotIn", "x")])), n)
    assert not node_affinity_passes(
        _affinity(term(fields=[req("metadata.name", "In", "n1", "n2")])), n)  # one value only
    assert not node_affinity_passes(
        _affinity(term(fields=[req("metadata.name", "Exists")])), n)  # In / NotIn only


def test_node_selector_needs_every_label_with_its_value():
    n = node("n", labels={"zone": "a", "disk": "ssd"})
    assert node_affinity_passes(pod("p", selector={"zone": "a"}), n)
    assert not node_affinity_passes(pod("p", selector={"zone": "a", "gpu": "yes"}), n)
    assert not node_affinity_passes(pod("p", selector={"zone": ""}), node("n"))


# ---- label selectors and PDBs (meta/v1 helpers.go LabelSelectorAsSelector) --------------------


def test_a_nil_selector_selects_nothing_and_an_empty_one_everything():
    """LabelSelectorAsSelector: nil is labels.Nothing() (not Empty()), an empty selector
    labels.Everything() (Empty()); the policy/v1 PDB rule ("an empty selector selects every pod
    of the namespace, a null one none") is this reading."""
    nothing, everything = label_selector_as_selector(None), label_selector_as_selector(
        LabelSelector())
    assert nothing is not None and everything is not None
    assert not nothing.matches({"app": "web"}) and not nothing.matches({})
    assert not nothing.empty()
    assert everything.matches({"app": "web"}) and everything.matches({})
    assert everything.empty()


def test_label_selector_requirements():
    web = {"app": "web"}
    sel = label_selector_selects
    assert sel(LabelSelector(match_labels={"app": "web"}), web)
    assert not sel(LabelSelector(match_labels={"app": "web", "tier": "1"}), web)
    assert sel(LabelSelector(match_expressions=(req("tier", "NotIn", "1"),)), web)  # missing
    assert sel(LabelSelector(match_expressions=(req("tier", "DoesNotExist"),)), web)
    assert not sel(LabelSelector(match_expressions=(req("app", "NotIn", "web", "db"),)), web)
    assert sel(LabelSelector(match_expressions=(req("app", "In", "db", "web"),)), web)
    # invalid: an operator a label selector does not know, or a requirement NewRequirement
    # rejects; the scheduler skips such a PDB ("it does not match the pod")
    assert not sel(LabelSelector(match_expressions=(req("app", "Gt", "1"),)), {"app": "5"})
    assert not sel(LabelSelector(match_expressions=(req("app", "In"),)), web)
    assert not sel(LabelSelector(match_expressions=(req("app", "Exists", "web"),)), web)


def _pdb(name, selector, allowed=0, ns="default"):
    return PodDisruptionBudget(namespace=ns, name=name, selector=selector,
                               disruptions_allowed=allowed)


@pytest.mark.parametrize("empty_all", [False, True])
def test_pdb_nil_and_empty_selectors_in_the_violation_count(empty_all):
    """The scheduler skips a PDB whose selector is Empty() ("A PDB with a nil or empty selector
    matches nothing", filterPodsWithPDBViolation); the newest upstream rule counts an empty one
    against every pod of its namespace, unlabeled ones included. A nil one counts never."""
    victims = [pod("a", labels={"app": "web"}, node="n"), pod("b", node="n"),
               pod("c", ns="other", labels={"app": "web"}, node="n")]
    units = [RefUnit("Pod", v.key, 0, (v,), 2) for v in victims]
    snap = snapshot(nodes=[node("n")], pods=victims,
                    pdbs=[_pdb("nil", None), _pdb("empty", LabelSelector())])
    bad = violating_pods(snap, units, (empty_all, empty_all, False, False))
    assert bad == ({"default/a", "default/b"} if empty_all else set())
    only_nil = snapshot(nodes=[node("n")], pods=victims, pdbs=[_pdb("nil", None)])
    assert violating_pods(only_nil, units, (True, True, False, False)) == set()


# ---- the preemptor, as the oracle reads it (reference_plan.resolve) ----------------------------


def test_resolve_works_out_a_gangs_target_from_the_model():
    """A gang needs minCount minus its bound, running members (a terminating one does not
    count); priority and policy are the group's."""
    g = gang("train", min_count=4, prio=50)
    pods = [member(g, "t0", node="n"), member(g, "t1", node="n", terminating=True),
            member(g, "t2"), member(g, "t3"), member(g, "t4")]
    snap = snapshot(nodes=[node("n")], pods=pods, groups=[g])
    (asked,) = pending_preemptors(snap)
    ref = resolve(snap, asked)
    assert (ref.kind, ref.needed, ref.priority, ref.group_key) == ("PodGroup", 3, 50, g.key)
    assert [p.key for p in ref.pods] == ["default/t2", "default/t3", "default/t4"]


# ---- the oracle's filters against the engine's, on random inputs ------------------------------

_KEYS = ["a", "b", "node.kubernetes.io/unschedulable", ""]
_VALUES = ["", "1", "2", "x", "-3", "+4", "1_0", " 5", "99999999999999999999", "n1"]
_OPS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Equal", "Bogus"]
_EFFECTS = ["NoSchedule", "NoExecute", "PreferNoSchedule"]


def test_the_oracles_filters_agree_with_the_engines_on_random_inputs():
    """Independently written, the two must still agree (a disagreement is a bug in one of them:
    work out which from upstream, do not bend the oracle)."""
    rng = random.Random(25)

    def r():
        return req(rng.choice(["a", "b", "metadata.name"]), rng.choice(_OPS),
                   *rng.sample(_VALUES, rng.randint(0, 2)))

    for _ in range(4000):
        labels = {k: rng.choice(_VALUES) for k in "ab" if rng.random() < 0.6}
        n = node(rng.choice(["n1", "n2"]), labels=labels, unschedulable=rng.random() < 0.3,
                 taints=[taint(rng.choice(_KEYS[:3]), rng.choice(_VALUES), rng.choice(_EFFECTS))
                         for _ in range(rng.randint(0, 2))])
        tolerations = [toleration(rng.choice(_KEYS), rng.choice(["Equal", "Exists", "", "Gt"]),
                                  rng.choice(_VALUES), rng.choice(["", *_EFFECTS]))
                       for _ in range(rng.randint(0, 2))]
        terms = None if rng.random() < 0.4 else [
            term(*[r() for _ in range(rng.randint(0, 2))], fields=[r()] * rng.randint(0, 1))
            for _ in range(rng.randint(0, 2))]
        p = pod("p", tolerations=tolerations, affinity=terms,
                selector={k: rng.choice(_VALUES) for k in "ab" if rng.random() < 0.2})
        assert static_filters_pass(p, n) == (check_static(p, n) is None), (p, n)
        selector = LabelSelector(match_labels={k: rng.choice(_VALUES) for k in "ab"
                                               if rng.random() < 0.3},
                                 match_expressions=tuple(r() for _ in range(rng.randint(0, 2))))
        if not selector.empty:  # the engine's PDB matcher takes empty as "nothing" by design
            assert label_selector_selects(selector, labels) == label_selector_matches(
                selector, labels), (selector, labels)
