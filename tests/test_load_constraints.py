"""Loading inter-pod constraints (pod affinity, spread, host ports, Namespaces) and the
warnings for what wapctl reads but does not evaluate."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.errors import InputError, Source
from wapctl.model import HostPort, LabelSelector, LoadWarning, SelectorRequirement, Snapshot

REQ = "requiredDuringSchedulingIgnoredDuringExecution"


def _pod(name: str, ns: str = "prod", labels: dict[str, str] | None = None,
         node: str | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"containers": [{"name": "c"}], **spec}
    if node:
        body["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": labels or {}},
            "spec": body, "status": {"phase": "Running" if node else "Pending"}}


def _build(*docs: dict[str, Any]) -> Snapshot:
    return ingest.build_snapshot([ingest.Document(Source("snap.yaml", i + 1), d)
                                for i, d in enumerate(docs)])


def test_affinity_terms_resolve_namespaces_and_label_keys() -> None:
    """matchLabelKeys / mismatchLabelKeys become In / NotIn on the pod's own values (keys the
    pod lacks are skipped); no namespaces and no namespaceSelector means the pod's own."""
    p = _pod("web-1", labels={"app": "web", "ver": "v2"}, affinity={
        "podAffinity": {REQ: [{"labelSelector": {"matchLabels": {"app": "db"}},
                               "topologyKey": "zone", "matchLabelKeys": ["ver", "absent"]}]},
        "podAntiAffinity": {REQ: [{"labelSelector": {"matchLabels": {"app": "web"}},
                                   "topologyKey": "kubernetes.io/hostname",
                                   "mismatchLabelKeys": ["ver"],
                                   "namespaces": ["dev"],
                                   "namespaceSelector": {"matchLabels": {"team": "a"}}}]},
    })
    pod = _build(p).pods["prod/web-1"]
    (a,) = pod.affinity_terms
    assert a.topology_key == "zone"
    assert a.namespaces == frozenset({"prod"})
    assert a.namespace_selector is None
    assert a.selector == LabelSelector({"app": "db"}, (SelectorRequirement("ver", "In", ("v2",)),))
    (anti,) = pod.anti_affinity_terms
    assert anti.namespaces == frozenset({"dev"})
    assert anti.namespace_selector == LabelSelector({"team": "a"}, ())
    assert anti.selector == LabelSelector({"app": "web"},
                                          (SelectorRequirement("ver", "NotIn", ("v2",)),))


def test_term_without_label_selector_stays_empty_handed() -> None:
    """A nil labelSelector matches nothing; matchLabelKeys do not turn it into a selector."""
    p = _pod("p", labels={"ver": "v1"}, affinity={"podAntiAffinity": {REQ: [
        {"topologyKey": "zone", "matchLabelKeys": ["ver"]}]}})
    assert _build(p).pods["prod/p"].anti_affinity_terms[0].selector is None


def test_spread_keeps_do_not_schedule_with_defaults() -> None:
    """ScheduleAnyway constraints are dropped (scoring only); DoNotSchedule ones get
    minDomains 1, Honor / Ignore policies, and matchLabelKeys merged into matchLabels."""
    p = _pod("p", labels={"app": "web", "pod-template-hash": "abc"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
         "labelSelector": {"matchLabels": {"app": "web"}}},
        {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}},
         "matchLabelKeys": ["pod-template-hash"]},
        {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
         "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3,
         "nodeAffinityPolicy": "Ignore", "nodeTaintsPolicy": "Honor"},
    ])
    first, second = _build(p).pods["prod/p"].spread_constraints
    assert (first.max_skew, first.min_domains, first.node_affinity_policy,
            first.node_taints_policy) == (2, 1, "Honor", "Ignore")
    assert first.selector == LabelSelector({"app": "web", "pod-template-hash": "abc"}, ())
    assert (second.min_domains, second.node_affinity_policy, second.node_taints_policy,
            second.selector) == (3, "Ignore", "Honor", None)


def test_spread_without_label_selector_stays_empty_handed() -> None:
    """A DoNotSchedule spread constraint with matchLabelKeys but no labelSelector loads (the
    pod has the listed label) and keeps no selector: a nil selector matches nothing, and
    upstream merges the pod's values into it only when it exists (the scheduler's merge into
    labels.Nothing() stays Nothing), so the keys do not make it count the pod's siblings."""
    p = _pod("p", labels={"ver": "v1"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "matchLabelKeys": ["ver"]}])
    (c,) = _build(p).pods["prod/p"].spread_constraints
    assert (c.topology_key, c.max_skew, c.selector) == ("zone", 1, None)


def test_spread_match_label_keys_keep_the_selector_s_match_expressions() -> None:
    """matchLabelKeys add the pod's own values to the labelSelector's matchLabels; the user
    relies on the matchExpressions they wrote still applying (upstream ANDs the keys into the
    whole selector). Hand-worked: labels app=web, ver=v2; selector matchLabels app=web and
    tier In [front, edge]; matchLabelKeys [ver] -> matchLabels {app: web, ver: v2}, and the
    expression kept as written."""
    p = _pod("p", labels={"app": "web", "ver": "v2"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"},
                           "matchExpressions": [{"key": "tier", "operator": "In",
                                                 "values": ["front", "edge"]}]},
         "matchLabelKeys": ["ver"]},
    ])
    (c,) = _build(p).pods["prod/p"].spread_constraints
    assert c.selector == LabelSelector(
        {"app": "web", "ver": "v2"},
        (SelectorRequirement("tier", "In", ("front", "edge")),),
    )


def test_host_ports_of_containers_and_sidecars() -> None:
    """hostPort > 0 only; "" hostIP is 0.0.0.0 and the protocol defaults to TCP; restartable
    init containers count, plain init containers do not."""
    p = _pod("p", containers=[{"name": "c", "ports": [
        {"containerPort": 80, "hostPort": 8080},
        {"containerPort": 81},
        {"containerPort": 53, "hostPort": 53, "protocol": "UDP", "hostIP": "10.0.0.1"}]}],
        initContainers=[
            {"name": "side", "restartPolicy": "Always", "ports": [{"containerPort": 9,
                                                                   "hostPort": 9000}]},
            {"name": "init", "ports": [{"containerPort": 7, "hostPort": 7000}]}])
    assert _build(p).pods["prod/p"].host_ports == (
        HostPort(9000, "TCP", "0.0.0.0"), HostPort(8080, "TCP", "0.0.0.0"),
        HostPort(53, "UDP", "10.0.0.1"))


def test_namespace_objects_give_labels() -> None:
    """Namespace labels are read, with kubernetes.io/metadata.name always present."""
    ns = {"apiVersion": "v1", "kind": "Namespace",
          "metadata": {"name": "prod", "labels": {"team": "a"}}}
    snap = _build(ns, _pod("p"))
    assert snap.namespaces == {"prod": {"team": "a", "kubernetes.io/metadata.name": "prod"}}
    assert "Namespace" not in snap.ignored_kinds


@pytest.mark.parametrize(("spec", "field"), [
    ({"affinity": []}, "spec.affinity"),  # empty, so only the pod-affinity reader refuses it
    ({"affinity": 0}, "spec.affinity"),
    ({"affinity": {"podAntiAffinity": {REQ: [{"labelSelector": {}}]}}},
     f"spec.affinity.podAntiAffinity.{REQ}[0].topologyKey"),
    ({"affinity": {"podAffinity": {REQ: [{"topologyKey": "z", "matchLabelKeys": ["a"],
                                          "mismatchLabelKeys": ["a"]}]}}},
     f"spec.affinity.podAffinity.{REQ}[0].mismatchLabelKeys"),
    ({"topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "z",
                                     "whenUnsatisfiable": "DoNotSchedule"}]},
     "spec.topologySpreadConstraints[0].maxSkew"),
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z"}]},
     "spec.topologySpreadConstraints[0].whenUnsatisfiable"),
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "minDomains": 2,
                                     "whenUnsatisfiable": "ScheduleAnyway"}]},
     "spec.topologySpreadConstraints[0].minDomains"),
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z",
                                     "whenUnsatisfiable": "DoNotSchedule",
                                     "nodeTaintsPolicy": "Sometimes"}]},
     "spec.topologySpreadConstraints[0].nodeTaintsPolicy"),
    ({"containers": [{"name": "c", "ports": [{"hostPort": 70000}]}]},
     "spec.containers[0].ports[0].hostPort"),
    ({"containers": [{"name": "c", "ports": [{"hostPort": 80, "protocol": "HTTP"}]}]},
     "spec.containers[0].ports[0].protocol"),
])
def test_bad_constraints_name_the_field(spec: dict[str, Any], field: str) -> None:
    """Each malformed constraint is an input error naming its field."""
    with pytest.raises(InputError) as err:
        _build(_pod("p", **spec))
    assert err.value.field == field


def _codes(snap: Snapshot) -> list[tuple[str, str, str | None]]:
    """The warnings as (code, object, field), in Snapshot.warnings order (by code first)."""
    return [(w.code, w.object, w.field) for w in snap.warnings]


def test_warnings_for_what_is_not_evaluated() -> None:
    """A pending pod's PVC / ephemeral volumes, resource claims, preferred terms, ScheduleAnyway
    spread and another scheduler each give one warning naming the field."""
    p = _pod("p", schedulerName="volcano",
             volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "x"}},
                      {"name": "e", "emptyDir": {}},
                      {"name": "f", "ephemeral": {"volumeClaimTemplate": {}}}],
             resourceClaims=[{"name": "gpu"}],
             affinity={"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                 {"weight": 1, "podAffinityTerm": {"topologyKey": "z"}}]}},
             topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "z",
                                         "whenUnsatisfiable": "ScheduleAnyway"}])
    assert _codes(_build(p)) == [
        ("OtherScheduler", "Pod prod/p", "spec.schedulerName"),
        ("ResourceClaimNotModelled", "Pod prod/p", "spec.resourceClaims"),
        ("ScoringOnlyTerms", "Pod prod/p",
         "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution"),
        ("ScoringOnlyTerms", "Pod prod/p",
         "spec.topologySpreadConstraints[0].whenUnsatisfiable"),
        ("VolumeNotModelled", "Pod prod/p", "spec.volumes[0].persistentVolumeClaim"),
        ("VolumeNotModelled", "Pod prod/p", "spec.volumes[2].ephemeral"),
    ]


def test_other_scheduler_warning_says_what_is_modelled() -> None:
    """The OtherScheduler warning, whole: which scheduler places the pod and that wapctl
    models kube-scheduler's default profile."""
    p = _pod("p", schedulerName="volcano")
    assert _build(p).warnings == (LoadWarning(
        code="OtherScheduler", object="Pod prod/p", field="spec.schedulerName",
        message="placed by scheduler 'volcano', not default-scheduler; wapctl models "
                "kube-scheduler's default profile",
        source="snap.yaml, document 1"),)


def test_running_pods_volumes_are_not_warned() -> None:
    """A running pod's volumes only matter through a pending pod's volumes (warned there)."""
    p = _pod("p", node="n1", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "x"}}])
    assert _build(p).warnings == ()


@pytest.mark.parametrize("phase", ["Succeeded", "Failed"])
def test_finished_pods_without_a_node_are_not_warned(phase: str) -> None:
    """A finished pod (phase Succeeded or Failed) is never scheduled again, even with no
    nodeName, and holds nothing anywhere: what wapctl would not evaluate were it pending (its
    PVC volume, its resource claims) is not warned about, so the warnings a user reads name
    only pods that still wait for a node."""
    p = _pod("p", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "x"}}],
             resourceClaims=[{"name": "gpu"}])
    p["status"]["phase"] = phase
    snap = _build(p)
    assert not snap.pods["prod/p"].pending
    assert snap.warnings == ()


def test_gated_pod_and_workload_constraints_are_warned() -> None:
    """A gated pod and a PodGroup with schedulingConstraints are each named."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
          "metadata": {"name": "train", "namespace": "prod"},
          "spec": {"podGroupTemplates": [{
              "name": "g", "schedulingPolicy": {"gang": {"minCount": 1}},
              "schedulingConstraints": {"topology": [{"key": "z"}]}}]}}
    pg = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup",
          "metadata": {"name": "train-g", "namespace": "prod"},
          "spec": {"podGroupTemplateRef": {"workload": {"workloadName": "train",
                                                        "podGroupTemplateName": "g"}},
                   "schedulingConstraints": {"topology": [{"key": "z"}]}}}
    gated = _pod("g", schedulingGates=[{"name": "wait"}])
    assert _codes(_build(wl, pg, gated)) == [
        ("SchedulingGated", "Pod prod/g", "spec.schedulingGates"),
        ("WorkloadConstraintsNotModelled", "PodGroup prod/train-g", "spec.schedulingConstraints"),
        ("WorkloadConstraintsNotModelled", "Workload prod/train",
         "spec.podGroupTemplates[0].schedulingConstraints"),
    ]


def test_workload_template_constraints_warning_whole_line() -> None:
    """The WorkloadConstraintsNotModelled warning of a Workload's podGroupTemplate, whole: the
    Workload, the template's field and where the Workload was read (its document of
    snap.yaml, the second here), so a user of Snapshot.warnings can find the object."""
    wl = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "Workload",
          "metadata": {"name": "train", "namespace": "prod"},
          "spec": {"podGroupTemplates": [{
              "name": "g", "schedulingPolicy": {"gang": {"minCount": 1}},
              "schedulingConstraints": {"topology": [{"key": "z"}]}}]}}
    assert _build(_pod("p", node="n1"), wl).warnings == (LoadWarning(
        code="WorkloadConstraintsNotModelled", object="Workload prod/train",
        field="spec.podGroupTemplates[0].schedulingConstraints",
        message="topology-aware workload scheduling constraints are not evaluated",
        source="snap.yaml, document 2"),)


def test_namespace_selector_without_namespace_objects_is_warned() -> None:
    """A namespaceSelector met namespaces with no Namespace object: one warning on that pod."""
    p = _pod("p", affinity={"podAntiAffinity": {REQ: [
        {"topologyKey": "z", "labelSelector": {}, "namespaceSelector": {"matchLabels":
                                                                        {"team": "a"}}}]}})
    ((code, obj, field),) = _codes(_build(p, _pod("q", ns="dev")))
    assert (code, obj, field) == ("NamespaceLabelsUnknown", "Pod prod/p",
                                  "spec.affinity.podAntiAffinity")
    assert "dev, prod" in _build(p, _pod("q", ns="dev")).warnings[0].message


def test_validate_counts_the_warnings_per_code(tmp_path) -> None:
    """`validate` lists each not-evaluated field (JSON) and counts them per code (table)."""
    p = _pod("p", schedulerName="volcano", resourceClaims=[{"name": "gpu"}],
             volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "x"}},
                      {"name": "e", "persistentVolumeClaim": {"claimName": "y"}}])
    path = tmp_path / "snap.yaml"
    path.write_text(yaml.safe_dump(p))
    doc = json.loads(CliRunner().invoke(app, ["validate", str(path), "-o", "json"]).stdout)
    assert [w["code"] for w in doc["warnings"]] == [
        "OtherScheduler", "ResourceClaimNotModelled", "VolumeNotModelled", "VolumeNotModelled"]
    table = CliRunner().invoke(app, ["validate", str(path), "--no-color"]).stdout
    assert ("Warnings: 4 (OtherScheduler 1, ResourceClaimNotModelled 1, VolumeNotModelled 2)"
            in " ".join(table.split()))


def test_host_ports_after_a_skipped_container_are_still_read() -> None:
    """A container with no ports (or ports without hostPort) and a plain init container are
    skipped, not the end of the list: the sidecar and container after them still give their
    host ports. Hand-worked: init [plain 7000, sidecar 9000], containers [no ports,
    containerPort 81 only, hostPort 8080] -> 9000 then 8080."""
    p = _pod("p", containers=[
        {"name": "bare"},
        {"name": "plain", "ports": [{"containerPort": 81}]},
        {"name": "web", "ports": [{"containerPort": 80, "hostPort": 8080}]}],
        initContainers=[
            {"name": "init", "ports": [{"containerPort": 7, "hostPort": 7000}]},
            {"name": "side", "restartPolicy": "Always",
             "ports": [{"containerPort": 9, "hostPort": 9000}]}])
    assert _build(p).pods["prod/p"].host_ports == (
        HostPort(9000, "TCP", "0.0.0.0"), HostPort(8080, "TCP", "0.0.0.0"))


def test_host_port_of_a_later_container_without_init_containers() -> None:
    """No initContainers: a first container without host ports does not hide the second's."""
    p = _pod("p", containers=[{"name": "a", "ports": [{"containerPort": 80}]},
                              {"name": "b", "ports": [{"containerPort": 53, "hostPort": 53,
                                                       "protocol": "UDP"}]}])
    assert _build(p).pods["prod/p"].host_ports == (HostPort(53, "UDP", "0.0.0.0"),)


def test_namespace_selector_warning_whole_line() -> None:
    """The NamespaceLabelsUnknown warning, whole: which namespaces lack a Namespace object and
    which label is all that is known of them."""
    p = _pod("p", affinity={"podAffinity": {REQ: [
        {"topologyKey": "z", "labelSelector": {},
         "namespaceSelector": {"matchLabels": {"team": "a"}}}]}})
    assert _build(p, _pod("q", ns="dev")).warnings == (LoadWarning(
        code="NamespaceLabelsUnknown", object="Pod prod/p", field="spec.affinity.podAffinity",
        message="namespaceSelector evaluated without Namespace objects for dev, prod (only "
                "their kubernetes.io/metadata.name label is known)",
        source="snap.yaml, document 1"),)


def test_resource_claim_warning_whole_line() -> None:
    """The ResourceClaimNotModelled warning of a pending pod, whole."""
    p = _pod("p", resourceClaims=[{"name": "gpu", "resourceClaimName": "gpu-claim"}])
    assert _build(p).warnings == (LoadWarning(
        code="ResourceClaimNotModelled", object="Pod prod/p", field="spec.resourceClaims",
        message="dynamic resource claims (DRA) are not evaluated: a node may lack the devices",
        source="snap.yaml, document 1"),)


def test_scheduling_gated_warning_whole_line() -> None:
    """A pending pod with spec.schedulingGates: the user relies on being told, in one whole
    warning, that the scheduler will not try it and that wapctl leaves it out of the queue
    (so a plan without it is no sign it fits): code SchedulingGated, object Pod prod/g, field
    spec.schedulingGates, its document of snap.yaml. Nothing else in it is warned."""
    g = _pod("g", schedulingGates=[{"name": "kueue.x-k8s.io/admission"}])
    assert _build(g).warnings == (LoadWarning(
        code="SchedulingGated", object="Pod prod/g", field="spec.schedulingGates",
        message="gated: the scheduler does not try it until its gates are removed; wapctl "
                "leaves it out of the queue",
        source="snap.yaml, document 1"),)


def test_schedule_anyway_warning_whole_line() -> None:
    """The ScoringOnlyTerms warning of a pending pod's ScheduleAnyway spread constraint,
    whole (the second constraint: its index is named)."""
    p = _pod("p", topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}])
    assert _build(p).warnings == (LoadWarning(
        code="ScoringOnlyTerms", object="Pod prod/p",
        field="spec.topologySpreadConstraints[1].whenUnsatisfiable",
        message="ScheduleAnyway constraints only score nodes; wapctl does not score",
        source="snap.yaml, document 1"),)


def test_volume_not_modelled_warning_whole_line() -> None:
    """The VolumeNotModelled warning of a pending pod's PVC, whole: a user relies on it naming
    what is not evaluated and which scheduler plugins could still reject nodes for the volume
    (so a plan that places the pod is no proof the volume can follow)."""
    p = _pod("p", volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": "x"}}])
    assert _build(p).warnings == (LoadWarning(
        code="VolumeNotModelled", object="Pod prod/p",
        field="spec.volumes[0].persistentVolumeClaim",
        message="volume topology, binding and attach limits are not evaluated "
                "(VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions)",
        source="snap.yaml, document 1"),)


@pytest.mark.parametrize("kind", ["nodeAffinity", "podAffinity", "podAntiAffinity"])
def test_preferred_terms_of_each_affinity_kind_are_named(kind: str) -> None:
    """Preferred node affinity, pod affinity and pod anti-affinity terms all only score: a
    pending pod with any one of them gets the ScoringOnlyTerms warning naming that field
    (spreading a Deployment's replicas with preferred anti-affinity is the common case)."""
    term = ({"weight": 1, "preference": {"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]}]}}
            if kind == "nodeAffinity"
            else {"weight": 100, "podAffinityTerm": {
                "labelSelector": {"matchLabels": {"app": "web"}},
                "topologyKey": "kubernetes.io/hostname"}})
    p = _pod("p", affinity={kind: {"preferredDuringSchedulingIgnoredDuringExecution": [term]}})
    assert _codes(_build(p)) == [
        ("ScoringOnlyTerms", "Pod prod/p",
         f"spec.affinity.{kind}.preferredDuringSchedulingIgnoredDuringExecution")]


def test_preferred_terms_warning_whole_line() -> None:
    """The ScoringOnlyTerms warning of a pending pod's preferred node affinity, whole: a user
    relies on being told these terms only pick among feasible nodes, never decide a fit, and
    that wapctl does not score."""
    p = _pod("p", affinity={"nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "preference": {"matchExpressions": [
                {"key": "zone", "operator": "In", "values": ["a"]}]}}]}})
    assert _build(p).warnings == (LoadWarning(
        code="ScoringOnlyTerms", object="Pod prod/p",
        field="spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution",
        message="preferred terms only score nodes (which feasible node is picked), "
                "never whether one fits; wapctl does not score",
        source="snap.yaml, document 1"),)
