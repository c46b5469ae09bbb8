"""InterPodAffinity, required terms (wapctl.filters.interpod_affinity)."""

from __future__ import annotations

import pytest

from tests.builders import node, pod, req
from tests.constraint_builders import HOSTNAME, ZONE, aff, constrained, sel
from wapctl.filters import interpod_affinity as ipa
from wapctl.filters.interpod_affinity import (
    REASON_AFFINITY,
    REASON_ANTI_AFFINITY,
    REASON_EXISTING_ANTI_AFFINITY,
)
from wapctl.filters.selectors import NAMESPACE_NAME_LABEL

# ---- upstream TestRequiredAffinitySingleNode ---------------------------------------------
# Rows of TestRequiredAffinitySingleNode, pkg/scheduler/framework/plugins/interpodaffinity/
# filtering_test.go (kubernetes/kubernetes 072825f9a367e9ca0f73f91830945f1b7f46e0d9). One node
# "node1" {region: r1, zone: z11}; ``existing`` defaults to upstream's ``pod``
# (service=securityscan on node1). Upstream's "" namespace is "default" here.

NODE1 = node("node1", labels={"region": "r1", "zone": "z11"})
SCAN = {"service": "securityscan"}
S1 = {"security": "S1"}


def _in(key, *values):
    return sel(None, req(key, "In", *values))


def _not_in(key, *values):
    return sel(None, req(key, "NotIn", *values))


def _exists(key):
    return sel(None, req(key, "Exists"))


def _existing(labels=SCAN, anti=()):
    return constrained(pod("existing", node="node1", labels=labels), anti=anti)


ROWS = [
    ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
     "operator that matches the existing pod",
     constrained(pod("p", labels=S1), affinity=[aff("region", _in("service", "securityscan",
                                                                    "value2"))]),
     [_existing()], None),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
     "not in operator in labelSelector that matches the existing pod",
     constrained(pod("p", labels=S1), affinity=[aff("region", _not_in("service", "securityscan3",
                                                                        "value3"))]),
     [_existing()], None),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
     constrained(pod("p", labels=S1), affinity=[
         aff("", _in("service", "securityscan", "value2"), namespaces=["DiffNameSpace"])]),
     [constrained(pod("existing", ns="ns", node="node1", labels=SCAN))], REASON_AFFINITY),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
     constrained(pod("p", labels=SCAN), affinity=[aff("", _in("service", "antivirusscan",
                                                              "value2"))]),
     [_existing()], REASON_AFFINITY),
    ("satisfies the PodAffinity with different label Operators in multiple "
     "RequiredDuringSchedulingIgnoredDuringExecution ",
     constrained(pod("p", labels=S1), affinity=[
         aff("region", sel(None, req("service", "Exists"), req("wrongkey", "DoesNotExist"))),
         aff("region", sel(None, req("service", "In", "securityscan"),
                           req("service", "NotIn", "WrongValue")))]),
     [_existing()], None),
    ("The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
     "schedule onto the node because one of the matchExpression item don't match.",
     constrained(pod("p", labels=S1), affinity=[
         aff("region", sel(None, req("service", "Exists"), req("wrongkey", "DoesNotExist"))),
         aff("region", sel(None, req("service", "In", "securityscan2"),
                           req("service", "NotIn", "WrongValue")))]),
     [_existing()], REASON_AFFINITY),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod",
     constrained(pod("p", labels=S1),
                 affinity=[aff("region", _in("service", "securityscan", "value2"))],
                 anti=[aff("node", _in("service", "antivirusscan", "value2"))]),
     [_existing()], None),
    ("satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
     "existing pod",
     constrained(pod("p", labels=S1),
                 affinity=[aff("region", _in("service", "securityscan", "value2"))],
                 anti=[aff("node", _in("service", "antivirusscan", "value2"))]),
     [_existing(anti=[aff("node", _in("service", "antivirusscan", "value2"))])], None),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     constrained(pod("p", labels=S1),
                 affinity=[aff("region", _in("service", "securityscan", "value2"))],
                 anti=[aff("zone", _in("service", "securityscan", "value2"))]),
     [_existing()], REASON_ANTI_AFFINITY),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry "
     "with the existing pod",
     constrained(pod("p", labels=SCAN),
                 affinity=[aff("region", _in("service", "securityscan", "value2"))],
                 anti=[aff("node", _in("service", "antivirusscan", "value2"))]),
     [_existing(anti=[aff("zone", _in("service", "securityscan", "value2"))])],
     REASON_EXISTING_ANTI_AFFINITY),
    # Upstream's existing pod sits on "node2", a node the snapshot lacks: it counts nowhere.
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels",
     constrained(pod("p", labels=SCAN),
                 affinity=[aff("region", _not_in("service", "securityscan", "value2"))]),
     [], REASON_AFFINITY),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
     "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
     pod("p", labels=SCAN),
     [_existing(anti=[aff("zone", _in("service", "securityscan", "value2"))])],
     REASON_EXISTING_ANTI_AFFINITY),
    ("verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
     "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
     pod("p", labels=SCAN),
     [_existing(anti=[aff("zone", _not_in("service", "securityscan", "value2"))])], None),
    ("satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
     "symmetry with incoming pod",
     constrained(pod("p", labels=SCAN),
                 anti=[aff("region", _exists("service")), aff("region", _exists("security"))]),
     [_existing(labels=S1, anti=[aff("zone", _exists("security"))])], REASON_ANTI_AFFINITY),
    ("PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
     "other on AffinityTerms",
     constrained(pod("p", labels=SCAN),
                 anti=[aff("zone", _exists("service")), aff("zone", _exists("security"))]),
     [_existing(labels=S1, anti=[aff("zone", _exists("security"))])], REASON_ANTI_AFFINITY),
    ("PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
     "other on AffinityTerms",
     constrained(pod("p", labels=S1), anti=[aff("zone", _exists("security"))]),
     [_existing(labels=SCAN, anti=[aff("zone", _exists("service")),
                                   aff("zone", _exists("security"))])],
     REASON_EXISTING_ANTI_AFFINITY),
    ("PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
     "other on AffinityTerms",
     constrained(pod("p", labels={"abc": "", "xyz": ""}),
                 anti=[aff("zone", _exists("abc")), aff("zone", _exists("def"))]),
     [_existing(labels={"def": "", "xyz": ""},
                anti=[aff("zone", _exists("abc")), aff("zone", _exists("def"))])],
     REASON_ANTI_AFFINITY),
    ("PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
     "other on AffinityTerms",
     constrained(pod("p", labels={"def": "", "xyz": ""}),
                 anti=[aff("zone", _exists("abc")), aff("zone", _exists("def"))]),
     [_existing(labels={"abc": "", "xyz": ""},
                anti=[aff("zone", _exists("abc")), aff("zone", _exists("def"))])],
     REASON_ANTI_AFFINITY),
]


@pytest.mark.parametrize(("name", "incoming", "existing", "want"), ROWS,
                         ids=[r[0][:60] for r in ROWS])
def test_upstream_required_affinity_single_node(name, incoming, existing, want) -> None:
    """The Filter status of each upstream row, as its reason string."""
    assert ipa.check(incoming, NODE1, [(p, NODE1) for p in existing]) == want


# ---- hand-worked --------------------------------------------------------------------------

A = node("a", labels={HOSTNAME: "a", ZONE: "z1"})
B = node("b", labels={HOSTNAME: "b", ZONE: "z1"})
C = node("c", labels={HOSTNAME: "c", ZONE: "z2"})
WEB = sel({"app": "web"})


def test_first_pod_of_a_series_may_schedule_anywhere_with_the_keys() -> None:
    """No pod matches the affinity term anywhere, the pod matches its own term: every node
    with the topology key passes (satisfyPodAffinity's special case); a node without the key
    still fails."""
    p = constrained(pod("web-0", labels={"app": "web"}), affinity=[aff(ZONE, WEB)])
    no_zone = node("d", labels={HOSTNAME: "d"})
    assert ipa.check(p, A, []) is None
    assert ipa.check(p, no_zone, []) == REASON_AFFINITY


def test_second_pod_of_a_series_follows_the_first() -> None:
    """Once web-0 runs in z1, web-1 (same zone affinity) fits z1 nodes only."""
    first = pod("web-0", node="a", labels={"app": "web"})
    p = constrained(pod("web-1", labels={"app": "web"}), affinity=[aff(ZONE, WEB)])
    placed = [(first, A)]
    assert [ipa.check(p, n, placed) for n in (A, B, C)] == [None, None, REASON_AFFINITY]


def test_pod_not_matching_its_own_term_needs_a_match() -> None:
    """The special case needs the pod to match its own terms: a db pod with affinity to web
    pods fails everywhere when no web pod runs."""
    p = constrained(pod("db", labels={"app": "db"}), affinity=[aff(ZONE, WEB)])
    assert ipa.check(p, A, []) == REASON_AFFINITY


def test_anti_affinity_by_zone_blocks_the_whole_zone() -> None:
    """A web pod on a (zone z1) blocks b (z1) for a pod with zone anti-affinity to web; c (z2)
    is free; with the web pod removed, b is free again."""
    web = pod("web", node="a", labels={"app": "web"})
    p = constrained(pod("p"), anti=[aff(ZONE, WEB)])
    counts = ipa.AffinityCounts(p, {})
    counts.update(web, A, 1)
    assert [counts.reason(n) for n in (A, B, C)] == [REASON_ANTI_AFFINITY] * 2 + [None]
    counts.update(web, A, -1)
    assert counts.reason(B) is None
    assert counts.anti == {}


def test_namespace_selector_selects_by_namespace_labels() -> None:
    """A term with namespaceSelector team=a sees the web pod in namespace "prod" (team=a) but
    not the one in "dev" (team=b); an empty namespaceSelector sees both."""
    namespaces = {"prod": {"team": "a", NAMESPACE_NAME_LABEL: "prod"},
                  "dev": {"team": "b", NAMESPACE_NAME_LABEL: "dev"}}
    prod_web = pod("w1", ns="prod", node="a", labels={"app": "web"})
    dev_web = pod("w2", ns="dev", node="c", labels={"app": "web"})
    placed = [(prod_web, A), (dev_web, C)]
    team_a = constrained(pod("p"), anti=[aff(HOSTNAME, WEB, ns_selector=sel({"team": "a"}))])
    assert ipa.check(team_a, A, placed, namespaces) == REASON_ANTI_AFFINITY
    assert ipa.check(team_a, C, placed, namespaces) is None
    everyone = constrained(pod("p"), anti=[aff(HOSTNAME, WEB, ns_selector=sel())])
    assert ipa.check(everyone, C, placed, namespaces) == REASON_ANTI_AFFINITY


def test_namespace_without_object_has_its_name_label() -> None:
    """Without Namespace objects a namespaceSelector on kubernetes.io/metadata.name still
    works: the API server sets that label on every namespace."""
    web = pod("w", ns="prod", node="a", labels={"app": "web"})
    p = constrained(pod("p"), anti=[aff(HOSTNAME, WEB,
                                        ns_selector=sel({NAMESPACE_NAME_LABEL: "prod"}))])
    assert ipa.check(p, A, [(web, A)], {}) == REASON_ANTI_AFFINITY


def test_existing_anti_affinity_namespace_selector_reads_incoming_namespace() -> None:
    """An existing pod's term with namespaceSelector team=a rejects an incoming pod from a
    team=a namespace on its host, not one from a team=b namespace."""
    namespaces = {"prod": {"team": "a"}, "dev": {"team": "b"}}
    guard = constrained(pod("guard", ns="ops", node="a"),
                        anti=[aff(HOSTNAME, sel(), ns_selector=sel({"team": "a"}))])
    assert ipa.check(pod("p", ns="prod"), A, [(guard, A)], namespaces) == \
        REASON_EXISTING_ANTI_AFFINITY
    assert ipa.check(pod("p", ns="dev"), A, [(guard, A)], namespaces) is None


def test_term_without_selector_matches_nothing() -> None:
    """A term with no labelSelector is labels.Nothing(): anti-affinity never blocks, affinity
    never finds a match (and the pod cannot match it itself)."""
    web = pod("web", node="a", labels={"app": "web"})
    assert ipa.check(constrained(pod("p"), anti=[aff(HOSTNAME, None)]), A, [(web, A)]) is None
    assert ipa.check(constrained(pod("p"), affinity=[aff(HOSTNAME, None)]), A, [(web, A)]) == \
        REASON_AFFINITY


def test_unresolvable_only_for_affinity() -> None:
    """Pod affinity failures are UnschedulableAndUnresolvable; anti-affinity ones are not."""
    assert REASON_AFFINITY in ipa.UNRESOLVABLE
    assert REASON_ANTI_AFFINITY not in ipa.UNRESOLVABLE
    assert REASON_EXISTING_ANTI_AFFINITY not in ipa.UNRESOLVABLE
