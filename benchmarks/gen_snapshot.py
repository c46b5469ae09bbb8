"""Deterministic synthetic cluster snapshots for the wapctl benchmarks.

The output is one kubectl-style ``List`` (what ``kubectl get nodes,pods,priorityclasses,pdb,
workloads -A -o json|yaml`` prints): sorted keys, 4-space JSON indent, items grouped by kind
and sorted by namespace/name as the API server lists them. The cluster is nearly full (every
node 95-99 % requested on cpu and memory), so the one pending preemptor -- a gang of
``--gang-size`` pods in ``ml-prod/llm-pretrain`` whose ``minCount`` is the gang size -- can only
be placed by preempting. Everything comes from one seeded ``random.Random``: the same parameters
give byte-identical files.

    python benchmarks/gen_snapshot.py --nodes 2000 --pods-per-node 15 --gang-size 256 \\
        --gang-share 0.3 --podgroup-share 0.5 --priorities 5 --format json -o snap.json

``--pods-per-node`` counts every bound pod on a node, including its one kube-proxy DaemonSet
pod (system-node-critical, never a victim).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

# Bump when the generated objects change, so cached files in benchmarks/out/ are rebuilt.
GENERATOR_VERSION = 3

PREEMPTOR_NAMESPACE = "ml-prod"
PREEMPTOR_WORKLOAD = "llm-pretrain"
PREEMPTOR_GROUP = "workers"
PREEMPTOR_CLASS = "training-critical"
PREEMPTOR_PRIORITY = 1_000_000

BASE_TIME = datetime(2026, 1, 15, 12, 0, 0, tzinfo=timezone.utc)
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
NAMESPACES = (
    "ads",
    "analytics",
    "data-eng",
    "infra",
    "ml-platform",
    "ml-research",
    "nlp",
    "payments",
    "recs",
    "search",
    "speech",
    "vision",
)
TIER_NAMES = ("best-effort", "batch", "standard", "production", "business-critical")
APP_WORDS = (
    "api",
    "cache",
    "crawler",
    "etl",
    "feature",
    "gateway",
    "indexer",
    "ingest",
    "ranker",
    "scorer",
    "search",
    "stream",
    "trainer",
    "worker",
    "embed",
    "router",
    "batch",
    "eval",
)
GPU_PER_NODE = 8
DEFAULT_TOLERATIONS = [
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
    {
        "effect": "NoExecute",
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "tolerationSeconds": 300,
    },
]
GPU_TAINT = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}
GPU_TOLERATION = {"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}


@dataclass(frozen=True)
class Params:
    """Everything that decides the generated snapshot (and its cache file name)."""

    nodes: int = 2000
    pods_per_node: int = 15
    gang_size: int = 256
    gang_share: float = 0.3  # share of bound pods that belong to gang pod groups
    podgroup_share: float = 0.5  # share of gang groups with disruptionMode PodGroup
    priorities: int = 5  # number of ordinary PriorityClasses (tiers)
    basic_share: float = 0.1  # share of bound pods in basic-policy pod groups
    gpu_share: float = 0.25  # share of nodes with 8 GPUs (tainted nvidia.com/gpu)
    pdb_share: float = 0.25  # share of Deployments covered by a PodDisruptionBudget
    gang_gpu: int = 0  # nvidia.com/gpu requested by each preemptor pod
    seed: int = 1
    realistic: bool = False  # objects as a real API server serves them (see enrich_node/pod)
    # Share of bound (non-DaemonSet) pods given a required inter-pod constraint: half a
    # hostname anti-affinity to their own app, half a DoNotSchedule zone spread of their app.
    # Drawn from a stream of its own, so the rest of the cluster is identical to the share-0
    # snapshot. ``constrained_gang`` also gives the preemptor gang a zone spread (maxSkew 1).
    constrained_share: float = 0.0
    constrained_gang: bool = False

    def tag(self) -> str:
        """A file-name-safe summary of the parameters."""
        return (
            f"n{self.nodes}-ppn{self.pods_per_node}-g{self.gang_size}-gs{self.gang_share:g}"
            f"-pg{self.podgroup_share:g}-pr{self.priorities}-b{self.basic_share:g}"
            f"-gpu{self.gpu_share:g}-pdb{self.pdb_share:g}-gg{self.gang_gpu}-s{self.seed}"
            + (f"-c{self.constrained_share:g}" if self.constrained_share else "")
            + ("-cg" if self.constrained_gang else "")
            + f"-v{GENERATOR_VERSION}"
            + ("-real" if self.realistic else "")
        )

    @property
    def preemptor(self) -> str:
        """The ``--workload`` argument that selects the preemptor gang."""
        return f"{PREEMPTOR_NAMESPACE}/{PREEMPTOR_WORKLOAD}"


# ---- small formatting helpers --------------------------------------------------------------


def ts(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_q(milli: int) -> str:
    return str(milli // 1000) if milli % 1000 == 0 else f"{milli}m"


def mem_q(mib: int) -> str:
    return f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"


def floor_to(value: float, step: int) -> int:
    return max(step, int(value) // step * step)


class Ids:
    """Deterministic uids, suffixes and resource versions from the one RNG."""

    ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet of k8s generateName suffixes

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rv = 1_000_000
        self.used: set[tuple[str, str]] = set()

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def suffix(self, n: int = 5) -> str:
        return "".join(self.rng.choice(self.ALNUM) for _ in range(n))

    def name(self, namespace: str, prefix: str) -> str:
        """``prefix`` + a random suffix, unique in the namespace (as the API server ensures)."""
        while True:
            name = prefix + self.suffix()
            if (namespace, name) not in self.used:
                self.used.add((namespace, name))
                return name

    def resource_version(self) -> str:
        self.rv += self.rng.randint(1, 97)
        return str(self.rv)


# ---- the layout: which pod lives where, in which owner, with what requests -----------------


@dataclass
class NodeInfo:
    index: int
    name: str
    zone: str
    gpu: bool
    cores: int
    alloc_mcpu: int
    alloc_mib: int
    capacity_ki: int
    alloc_ki: int
    created: datetime
    used_mcpu: int = 0
    used_mib: int = 0
    used_gpu: int = 0


@dataclass
class Owner:
    """A Deployment, a gang Workload (Job/JobSet) or a basic Workload and its pod shape."""

    kind: str  # deployment | gang | basic
    namespace: str
    name: str
    tier: int  # index into the tier classes
    preempt_tier: int | None  # Workload preemptionPriorityClassName tier, if set
    mcpu: int  # fixed shape for workload pods (0: filled per node for deployments)
    mib: int
    disruption_mode: str = "Pod"
    pods: list[int] | None = None  # slot node indices
    has_driver: bool = False
    hash: str = ""
    uid: str = ""
    created: datetime = BASE_TIME


@dataclass
class PodInfo:
    namespace: str
    name: str
    owner: Owner | None  # None: the kube-proxy DaemonSet pod
    node: int
    group: str | None  # pod group name
    index: int
    mcpu: int = 0
    mib: int = 0
    gpu: int = 0


@dataclass
class Layout:
    params: Params
    tiers: list[tuple[str, int]]
    default_tier: int
    nodes: list[NodeInfo]
    owners: list[Owner]
    pods: list[PodInfo]
    preemptor_mcpu: int
    preemptor_mib: int
    daemon_uid: str


def plan_layout(p: Params, rng: random.Random, ids: Ids) -> Layout:
    """Decide every node, owner and bound pod before writing any object."""
    if p.nodes < 1 or p.pods_per_node < 2 or p.gang_size < 1 or p.priorities < 1:
        raise SystemExit("need --nodes >= 1, --pods-per-node >= 2, --gang-size >= 1")
    per_node = p.pods_per_node
    # Bigger nodes for denser clusters, so an average pod stays ~2 cores / 8Gi.
    cores = 32 * max(1, math.ceil(per_node / 20))
    gpu_every = round(1 / p.gpu_share) if p.gpu_share > 0 else 0

    tiers = [
        (TIER_NAMES[i] if i < len(TIER_NAMES) else f"tier-{i}", 1000 * (i + 1))
        for i in range(p.priorities)
    ]
    nodes: list[NodeInfo] = []
    for i in range(p.nodes):
        gpu = bool(gpu_every) and i % gpu_every == gpu_every - 1
        capacity_ki = cores * 4 * 1024 * 1024 - rng.randint(150_000, 600_000)
        alloc_ki = capacity_ki - int(cores * 4 * 1024 * 1024 * 0.035)
        nodes.append(
            NodeInfo(
                index=i,
                name=f"{'gpu-a100' if gpu else f'cpu-c{cores}'}-{i:05d}",
                zone=ZONES[i % len(ZONES)],
                gpu=gpu,
                cores=cores,
                alloc_mcpu=cores * 1000 - 150,
                alloc_mib=alloc_ki // 1024,
                capacity_ki=capacity_ki,
                alloc_ki=alloc_ki,
                created=BASE_TIME
                - timedelta(days=rng.randint(20, 400), seconds=rng.randint(0, 86399)),
            )
        )
    avg_mcpu = nodes[0].alloc_mcpu * 0.95 / per_node
    avg_mib = nodes[0].alloc_mib * 0.95 / per_node

    # Slots for non-daemon pods, shuffled, then carved into owners in order.
    slots = [n for n in range(p.nodes) for _ in range(per_node - 1)]
    rng.shuffle(slots)
    total = p.nodes * per_node
    owners: list[Owner] = []
    pos = 0

    def take(n: int) -> list[int]:
        nonlocal pos
        chunk = slots[pos : pos + n]
        pos += len(chunk)
        return chunk

    def workload_tiers() -> tuple[int, int | None]:
        tier = rng.randrange(p.priorities)
        # Some Workloads are harder to preempt than to schedule (the KEP rule allows >=).
        higher = tier + 1 if tier + 1 < p.priorities and rng.random() < 0.3 else None
        return tier, higher

    gang_pods = min(len(slots), round(p.gang_share * total))
    counter = 0
    while pos < gang_pods:
        size = min(rng.choice((4, 8, 8, 16, 16, 32, 64)), gang_pods - pos)
        has_driver = size >= 8 and rng.random() < 0.3
        tier, higher = workload_tiers()
        scale = rng.choice((0.3, 0.5, 0.9))
        counter += 1
        owners.append(
            Owner(
                kind="gang",
                namespace=rng.choice(NAMESPACES),
                name=f"{rng.choice(('train', 'finetune', 'sim', 'eval'))}-"
                f"{rng.choice(APP_WORDS)}-{counter:05d}",
                tier=tier,
                preempt_tier=higher,
                mcpu=floor_to(avg_mcpu * scale, 50),
                mib=floor_to(avg_mib * scale, 64),
                disruption_mode="PodGroup" if rng.random() < p.podgroup_share else "Pod",
                pods=take(size + (1 if has_driver else 0)),
                has_driver=has_driver,
            )
        )
    basic_end = min(len(slots), pos + round(p.basic_share * total))
    while pos < basic_end:
        size = min(rng.randint(2, 20), basic_end - pos)
        tier, higher = workload_tiers()
        scale = rng.choice((0.3, 0.5, 0.9))
        counter += 1
        owners.append(
            Owner(
                kind="basic",
                namespace=rng.choice(NAMESPACES),
                name=f"serve-{rng.choice(APP_WORDS)}-{counter:05d}",
                tier=tier,
                preempt_tier=higher,
                mcpu=floor_to(avg_mcpu * scale, 50),
                mib=floor_to(avg_mib * scale, 64),
                pods=take(size),
            )
        )
    while pos < len(slots):
        size = rng.randint(2, 30)
        counter += 1
        owners.append(
            Owner(
                kind="deployment",
                namespace=rng.choice(NAMESPACES),
                name=f"{rng.choice(APP_WORDS)}-{rng.choice(APP_WORDS)}-{counter:05d}",
                tier=rng.randrange(p.priorities),
                preempt_tier=None,
                mcpu=0,
                mib=0,
                pods=take(size),
                hash=ids.suffix(10),
            )
        )
    for o in owners:
        o.uid = ids.uid()
        o.created = BASE_TIME - timedelta(seconds=rng.randint(3600, 60 * 86400))

    # Pods: fixed-shape workload pods first, then deployments fill each node to 95-99 %.
    pods: list[PodInfo] = []
    per_node_fill: dict[int, list[PodInfo]] = {}
    for node in nodes:
        daemon = PodInfo(
            "kube-system", ids.name("kube-system", "kube-proxy-"), None, node.index, None, 0
        )
        daemon.mcpu, daemon.mib = 100, 128
        node.used_mcpu, node.used_mib = daemon.mcpu, daemon.mib
        pods.append(daemon)
    for o in owners:
        assert o.pods is not None
        for i, n in enumerate(o.pods):
            if o.kind == "deployment":
                pod = PodInfo(
                    o.namespace, ids.name(o.namespace, f"{o.name}-{o.hash}-"), o, n, None, i
                )
                per_node_fill.setdefault(n, []).append(pod)
            else:
                group = "workers"
                if o.kind == "gang" and o.has_driver and i == 0:
                    group = "driver"
                elif o.kind == "basic":
                    group = "replicas"
                idx = i - 1 if o.has_driver else i
                name = (
                    ids.name(o.namespace, f"{o.name}-driver-")
                    if group == "driver"
                    else ids.name(o.namespace, f"{o.name}-{group}-{idx}-")
                )
                pod = PodInfo(o.namespace, name, o, n, group, idx)
                pod.mcpu, pod.mib = o.mcpu, o.mib
                nodes[n].used_mcpu += pod.mcpu
                nodes[n].used_mib += pod.mib
            pods.append(pod)
    for node in nodes:
        fill = per_node_fill.get(node.index, [])
        target_cpu = int(node.alloc_mcpu * rng.uniform(0.95, 0.99))
        target_mib = int(node.alloc_mib * rng.uniform(0.95, 0.99))
        if fill:
            weights = [rng.uniform(0.5, 1.5) for _ in fill]
            wsum = sum(weights)
            left_cpu = max(0, target_cpu - node.used_mcpu)
            left_mib = max(0, target_mib - node.used_mib)
            for pod, w in zip(fill, weights, strict=True):
                pod.mcpu = max(10, int(left_cpu * w / wsum) // 10 * 10)
                pod.mib = max(16, int(left_mib * w / wsum))
                node.used_mcpu += pod.mcpu
                node.used_mib += pod.mib
                if node.gpu and node.used_gpu < GPU_PER_NODE and rng.random() < 0.6:
                    pod.gpu = min(rng.choice((1, 1, 2, 4)), GPU_PER_NODE - node.used_gpu)
                    node.used_gpu += pod.gpu
        assert node.used_mcpu <= node.alloc_mcpu and node.used_mib <= node.alloc_mib, node

    # The preemptor pod must not fit anywhere now: ask for more than any node has free.
    preemptor_mcpu = max(4000, math.ceil(nodes[0].alloc_mcpu * 0.06 / 1000) * 1000)
    preemptor_mib = preemptor_mcpu // 1000 * 4096
    pods.sort(key=lambda q: (q.namespace, q.name))
    return Layout(
        params=p,
        tiers=tiers,
        default_tier=min(2, p.priorities - 1),
        nodes=nodes,
        owners=owners,
        pods=pods,
        preemptor_mcpu=preemptor_mcpu,
        preemptor_mib=preemptor_mib,
        daemon_uid=ids.uid(),
    )


# ---- objects as kubectl prints them --------------------------------------------------------


def priority_class_objects(lay: Layout, ids: Ids) -> list[dict[str, Any]]:
    classes = [
        (
            name,
            value,
            i == lay.default_tier,
            "Never" if i == 0 else "PreemptLowerPriority",
            f"Tier {i} workloads.",
        )
        for i, (name, value) in enumerate(lay.tiers)
    ]
    classes += [
        (
            PREEMPTOR_CLASS,
            PREEMPTOR_PRIORITY,
            False,
            "PreemptLowerPriority",
            "Large training gangs that may preempt everything below them.",
        ),
        (
            "system-cluster-critical",
            2_000_000_000,
            False,
            "PreemptLowerPriority",
            (
                "Used for system critical pods that must run in the cluster, but can be moved to "
                "another node if necessary."
            ),
        ),
        (
            "system-node-critical",
            2_000_001_000,
            False,
            "PreemptLowerPriority",
            "Used for system critical pods that must not be moved from their current node.",
        ),
    ]
    out = []
    for name, value, default, policy, description in sorted(classes):
        obj: dict[str, Any] = {
            "apiVersion": "scheduling.k8s.io/v1",
            "description": description,
            "kind": "PriorityClass",
            "metadata": {
                "creationTimestamp": ts(BASE_TIME - timedelta(days=500)),
                "generation": 1,
                "name": name,
                "resourceVersion": ids.resource_version(),
                "uid": ids.uid(),
            },
            "preemptionPolicy": policy,
            "value": value,
        }
        if default:
            obj["globalDefault"] = True
        out.append(obj)
    return out


def node_object(n: NodeInfo, ids: Ids, pods_cap: int) -> dict[str, Any]:
    resources = {
        "cpu": str(n.cores),
        "ephemeral-storage": "101430960Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{n.capacity_ki}Ki",
        "pods": str(pods_cap),
    }
    allocatable = dict(resources, cpu=cpu_q(n.alloc_mcpu), memory=f"{n.alloc_ki}Ki")
    allocatable["ephemeral-storage"] = "93478772582"
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "p4d.24xlarge"
        if n.gpu
        else f"m6i.{n.cores // 4}xlarge",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": n.zone,
        "wapctl.example/pool": "gpu" if n.gpu else "general",
    }
    spec: dict[str, Any] = {"providerID": f"aws:///{n.zone}/i-0{ids.suffix(16)}"}
    if n.gpu:
        labels["nvidia.com/gpu.present"] = "true"
        resources["nvidia.com/gpu"] = allocatable["nvidia.com/gpu"] = str(GPU_PER_NODE)
        spec["taints"] = [GPU_TAINT]
    ip = f"10.{n.index // 65536 % 256}.{n.index // 256 % 256}.{n.index % 256}"
    created = ts(n.created)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": created,
            "labels": labels,
            "name": n.name,
            "resourceVersion": ids.resource_version(),
            "uid": ids.uid(),
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": ip, "type": "InternalIP"},
                {"address": n.name, "type": "Hostname"},
            ],
            "allocatable": allocatable,
            "capacity": resources,
            "conditions": [
                {
                    "lastHeartbeatTime": ts(BASE_TIME - timedelta(seconds=40)),
                    "lastTransitionTime": created,
                    "message": "kubelet is posting ready status",
                    "reason": "KubeletReady",
                    "status": "True",
                    "type": "Ready",
                }
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "6.1.132-147.221.amzn2023.x86_64",
                "kubeProxyVersion": "v1.35.0",
                "kubeletVersion": "v1.35.0",
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2023.7.20250512",
            },
        },
    }


def workload_objects(lay: Layout, ids: Ids) -> list[dict[str, Any]]:
    """The cluster's gang and basic Workloads plus the preemptor's, sorted by namespace/name."""
    items = []
    for o in lay.owners:
        if o.kind == "deployment":
            continue
        assert o.pods is not None
        if o.kind == "gang":
            workers = len(o.pods) - (1 if o.has_driver else 0)
            groups = [
                {
                    "disruptionMode": o.disruption_mode,
                    "name": "workers",
                    "policy": {"gang": {"minCount": workers}},
                }
            ]
            if o.has_driver:
                groups.insert(
                    0, {"disruptionMode": "Pod", "name": "driver", "policy": {"basic": {}}}
                )
            controller = {"apiGroup": "jobset.x-k8s.io", "kind": "JobSet", "name": o.name}
        else:
            groups = [{"disruptionMode": "Pod", "name": "replicas", "policy": {"basic": {}}}]
            controller = {"apiGroup": "apps", "kind": "StatefulSet", "name": o.name}
        spec: dict[str, Any] = {
            "controllerRef": controller,
            "podGroups": groups,
            "priorityClassName": lay.tiers[o.tier][0],
        }
        if o.preempt_tier is not None:
            spec["preemptionPriorityClassName"] = lay.tiers[o.preempt_tier][0]
        items.append(_workload(o.namespace, o.name, o.created, spec, ids))
    preemptor_spec = {
        "controllerRef": {
            "apiGroup": "jobset.x-k8s.io",
            "kind": "JobSet",
            "name": PREEMPTOR_WORKLOAD,
        },
        "podGroups": [
            {
                "disruptionMode": "PodGroup",
                "name": PREEMPTOR_GROUP,
                "policy": {"gang": {"minCount": lay.params.gang_size}},
            }
        ],
        "priorityClassName": PREEMPTOR_CLASS,
    }
    items.append(
        _workload(
            PREEMPTOR_NAMESPACE,
            PREEMPTOR_WORKLOAD,
            BASE_TIME - timedelta(seconds=180),
            preemptor_spec,
            ids,
        )
    )
    items.sort(key=lambda w: (w["metadata"]["namespace"], w["metadata"]["name"]))
    return items


def _workload(ns: str, name: str, created: datetime, spec: dict, ids: Ids) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha1",
        "kind": "Workload",
        "metadata": {
            "creationTimestamp": ts(created),
            "generation": 1,
            "name": name,
            "namespace": ns,
            "resourceVersion": ids.resource_version(),
            "uid": ids.uid(),
        },
        "spec": spec,
    }


def pdb_objects(lay: Layout, rng: random.Random, ids: Ids) -> list[dict[str, Any]]:
    items = []
    for o in lay.owners:
        if o.kind != "deployment" or rng.random() >= lay.params.pdb_share:
            continue
        assert o.pods is not None
        replicas = len(o.pods)
        allowed = rng.choice((0, 1, 1, 2))
        allowed = min(allowed, replicas)
        items.append(
            {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {
                    "creationTimestamp": ts(o.created),
                    "generation": 1,
                    "name": f"{o.name}-pdb",
                    "namespace": o.namespace,
                    "resourceVersion": ids.resource_version(),
                    "uid": ids.uid(),
                },
                "spec": {
                    "maxUnavailable": allowed,
                    "selector": {"matchLabels": {"app.kubernetes.io/name": o.name}},
                },
                "status": {
                    "conditions": [
                        {
                            "lastTransitionTime": ts(o.created),
                            "message": "",
                            "observedGeneration": 1,
                            "reason": "SufficientPods" if allowed else "InsufficientPods",
                            "status": "True" if allowed else "False",
                            "type": "DisruptionAllowed",
                        }
                    ],
                    "currentHealthy": replicas,
                    "desiredHealthy": replicas - allowed,
                    "disruptionsAllowed": allowed,
                    "expectedPods": replicas,
                    "observedGeneration": 1,
                },
            }
        )
    items.sort(key=lambda d: (d["metadata"]["namespace"], d["metadata"]["name"]))
    return items


def _container(
    name: str, image: str, mcpu: int, mib: int, gpu: int, port: int, env: list[dict[str, Any]]
) -> dict[str, Any]:
    requests = {"cpu": cpu_q(mcpu), "memory": mem_q(mib)}
    if gpu:
        requests["nvidia.com/gpu"] = str(gpu)
    return {
        "env": env,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "ports": [
            {
                "containerPort": port,
                "name": "http" if port == 8080 else "metrics",
                "protocol": "TCP",
            }
        ],
        "resources": {"requests": requests},
    }


def pod_object(pod: PodInfo, lay: Layout, rng: random.Random, ids: Ids) -> dict[str, Any]:
    node = lay.nodes[pod.node]
    o = pod.owner
    env: list[dict[str, Any]] = [
        {"name": "LOG_LEVEL", "value": "info"},
    ]
    annotations = {"prometheus.io/port": "9090", "prometheus.io/scrape": "true"}
    spec: dict[str, Any] = {
        "dnsPolicy": "ClusterFirst",
        "nodeName": node.name,
        "preemptionPolicy": "PreemptLowerPriority",
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
    }
    if o is None:  # kube-proxy DaemonSet pod
        name, value = "system-node-critical", 2_000_001_000
        labels = {
            "controller-revision-hash": "6d4f8b7c9",
            "k8s-app": "kube-proxy",
            "pod-template-generation": "3",
        }
        owner_ref = {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "name": "kube-proxy",
            "uid": lay.daemon_uid,
        }
        image = "registry.k8s.io/kube-proxy:v1.35.0"
        containers = [_container("kube-proxy", image, pod.mcpu, pod.mib, 0, 10249, env[:1])]
        spec["serviceAccountName"] = "kube-proxy"
        spec["tolerations"] = [{"operator": "Exists"}]
        created = node.created + timedelta(seconds=30)
        generate = "kube-proxy-"
    else:
        tier = lay.tiers[o.tier]
        name, value = tier
        team = o.namespace
        app = o.name.rsplit("-", 1)[0]
        image = f"registry.example.com/{team}/{app}:v1.{o.tier}.{len(o.pods or [])}"
        labels = {"app.kubernetes.io/name": o.name}
        if o.kind == "deployment":
            labels["pod-template-hash"] = o.hash
            owner_ref = {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": f"{o.name}-{o.hash}",
                "uid": o.uid,
            }
            generate = f"{o.name}-{o.hash}-"
        else:
            spec["workloadRef"] = {"name": o.name, "podGroup": pod.group}
            job = f"{o.name}-{pod.group}"
            if o.kind == "gang" and pod.group == "driver":
                labels["jobset.sigs.k8s.io/jobset-name"] = o.name
                owner_ref = {"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": o.uid}
            elif o.kind == "gang":
                labels["batch.kubernetes.io/job-completion-index"] = str(pod.index)
                labels["jobset.sigs.k8s.io/jobset-name"] = o.name
                owner_ref = {"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": o.uid}
                annotations["batch.kubernetes.io/job-completion-index"] = str(pod.index)
                spec["restartPolicy"] = "Never"
                env.append({"name": "WORLD_SIZE", "value": str(len(o.pods or []))})
            else:
                owner_ref = {
                    "apiVersion": "apps/v1",
                    "kind": "StatefulSet",
                    "name": o.name,
                    "uid": o.uid,
                }
            generate = f"{job}-"
        owner_ref.update(blockOwnerDeletion=True, controller=True)
        containers = [_container("main", image, pod.mcpu, pod.mib, pod.gpu, 8080, env)]
        if node.gpu:
            spec["tolerations"] = [GPU_TOLERATION]
        created = o.created + timedelta(seconds=rng.randint(0, 3600))
    spec["containers"] = containers
    spec["priority"] = value
    spec["priorityClassName"] = name
    started = created + timedelta(seconds=rng.randint(1, 20))
    ip = f"100.{64 + pod.node // 65536 % 64}.{pod.node // 256 % 256}.{rng.randint(2, 254)}"
    node_ip = f"10.{node.index // 65536 % 256}.{node.index // 256 % 256}.{node.index % 256}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": annotations,
            "creationTimestamp": ts(created),
            "generateName": generate,
            "labels": labels,
            "name": pod.name,
            "namespace": pod.namespace,
            "ownerReferences": [owner_ref],
            "resourceVersion": ids.resource_version(),
            "uid": ids.uid(),
        },
        "spec": spec,
        "status": {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": ts(started),
                    "status": "True",
                    "type": "Ready",
                },
            ],
            "hostIP": node_ip,
            "phase": "Running",
            "podIP": ip,
            "qosClass": "Burstable",
            "startTime": ts(started),
        },
    }


def preemptor_pods(lay: Layout, ids: Ids) -> list[dict[str, Any]]:
    p = lay.params
    uid = ids.uid()
    created = ts(BASE_TIME - timedelta(seconds=120))
    job = f"{PREEMPTOR_WORKLOAD}-{PREEMPTOR_GROUP}"
    width = max(4, len(str(p.gang_size - 1)))
    message = (
        f"0/{p.nodes} nodes are available: {p.nodes} Insufficient cpu, {p.nodes} Insufficient "
        "memory. preemption: not eligible due to a terminating pod on the nominated node."
    )
    out = []
    for i in range(p.gang_size):
        env = [
            {"name": "WORLD_SIZE", "value": str(p.gang_size)},
            {
                "name": "RANK",
                "valueFrom": {
                    "fieldRef": {
                        "apiVersion": "v1",
                        "fieldPath": (
                            "metadata.annotations['batch.kubernetes.io/job-completion-index']"
                        ),
                    }
                },
            },
        ]
        container = _container(
            "trainer",
            "registry.example.com/ml-prod/llm-pretrain:v3.2.0",
            lay.preemptor_mcpu,
            lay.preemptor_mib,
            p.gang_gpu,
            8080,
            env,
        )
        tolerations = list(DEFAULT_TOLERATIONS)
        if p.gang_gpu:
            tolerations.append(GPU_TOLERATION)
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "annotations": {"batch.kubernetes.io/job-completion-index": str(i)},
                    "creationTimestamp": created,
                    "generateName": f"{job}-{i}-",
                    "labels": {
                        "batch.kubernetes.io/job-completion-index": str(i),
                        "batch.kubernetes.io/job-name": job,
                        "jobset.sigs.k8s.io/jobset-name": PREEMPTOR_WORKLOAD,
                    },
                    "name": f"{job}-{i:0{width}d}",
                    "namespace": PREEMPTOR_NAMESPACE,
                    "ownerReferences": [
                        {
                            "apiVersion": "batch/v1",
                            "blockOwnerDeletion": True,
                            "controller": True,
                            "kind": "Job",
                            "name": job,
                            "uid": uid,
                        }
                    ],
                    "resourceVersion": ids.resource_version(),
                    "uid": ids.uid(),
                },
                "spec": {
                    "containers": [container],
                    "dnsPolicy": "ClusterFirst",
                    "enableServiceLinks": True,
                    "preemptionPolicy": "PreemptLowerPriority",
                    "priority": PREEMPTOR_PRIORITY,
                    "priorityClassName": PREEMPTOR_CLASS,
                    "restartPolicy": "Never",
                    "schedulerName": "default-scheduler",
                    "securityContext": {},
                    "serviceAccountName": "default",
                    "terminationGracePeriodSeconds": 30,
                    "tolerations": tolerations,
                    "workloadRef": {"name": PREEMPTOR_WORKLOAD, "podGroup": PREEMPTOR_GROUP},
                },
                "status": {
                    "conditions": [
                        {
                            "lastProbeTime": None,
                            "lastTransitionTime": created,
                            "message": message,
                            "reason": "Unschedulable",
                            "status": "False",
                            "type": "PodScheduled",
                        }
                    ],
                    "phase": "Pending",
                    "qosClass": "Burstable",
                },
            }
        )
    return out


ZONE_KEY = "topology.kubernetes.io/zone"
HOST_KEY = "kubernetes.io/hostname"


def constrain(obj: dict[str, Any], rng: random.Random) -> None:
    """Give one bound pod a hostname anti-affinity or a zone spread, both on its own app."""
    selector = {"matchLabels": {"app.kubernetes.io/name":
                                obj["metadata"]["labels"]["app.kubernetes.io/name"]}}
    if rng.random() < 0.5:
        obj["spec"]["affinity"] = {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": selector, "topologyKey": HOST_KEY}]}}
    else:
        obj["spec"]["topologySpreadConstraints"] = [
            {"labelSelector": selector, "maxSkew": 2, "topologyKey": ZONE_KEY,
             "whenUnsatisfiable": "DoNotSchedule"}]


def constrain_preemptor(obj: dict[str, Any]) -> None:
    obj["spec"]["topologySpreadConstraints"] = [
        {"labelSelector": {"matchLabels": {"jobset.sigs.k8s.io/jobset-name": PREEMPTOR_WORKLOAD}},
         "maxSkew": 1, "topologyKey": ZONE_KEY, "whenUnsatisfiable": "DoNotSchedule"}]


def generate(p: Params, stats: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Every object of the snapshot, in the order ``kubectl get nodes,pods,... -A`` lists them."""
    rng = random.Random(p.seed)
    ids = Ids(rng)
    lay = plan_layout(p, rng, ids)
    pods_cap = max(110, p.pods_per_node + 10)
    counts: dict[str, int] = {}
    if stats is not None:
        fits_now = sum(
            1
            for n in lay.nodes
            if n.alloc_mcpu - n.used_mcpu >= lay.preemptor_mcpu
            and n.alloc_mib - n.used_mib >= lay.preemptor_mib
        )
        stats.update(
            preemptor=p.preemptor,
            preemptor_request={
                "cpu": cpu_q(lay.preemptor_mcpu),
                "memory": mem_q(lay.preemptor_mib),
            },
            nodes_where_preemptor_pod_fits_now=fits_now,
            cpu_requested_share=round(
                sum(n.used_mcpu for n in lay.nodes) / sum(n.alloc_mcpu for n in lay.nodes), 4
            ),
            counts=counts,
        )

    def counted(kind: str, items: Iterator[dict[str, Any]] | list[dict[str, Any]]):
        for obj in items:
            counts[kind] = counts.get(kind, 0) + 1
            yield obj

    real = random.Random(f"{p.seed}/realistic") if p.realistic else None
    node_objects = (node_object(n, ids, pods_cap) for n in lay.nodes)
    if real is not None:
        node_objects = (enrich_node(o, real) for o in node_objects)
    yield from counted("Node", node_objects)
    # Pods of all namespaces sorted by namespace/name; the preemptor's namespace slots in.
    # The preemptor draws from its own stream, so the rest of the cluster is the same object
    # for object whatever the gang size (the gang sweep changes only the gang).
    preemptors = preemptor_pods(lay, Ids(random.Random(f"{p.seed}/preemptor")))
    crng = random.Random(f"{p.seed}/constraints")
    if p.constrained_gang:
        for obj in preemptors:
            constrain_preemptor(obj)
    bound = iter(lay.pods)
    pending = iter(preemptors)
    nxt_pod = next(bound, None)
    nxt_pre = next(pending, None)
    pod_count = 0
    while nxt_pod is not None or nxt_pre is not None:
        take_pre = nxt_pre is not None and (
            nxt_pod is None
            or (PREEMPTOR_NAMESPACE, nxt_pre["metadata"]["name"])
            < (nxt_pod.namespace, nxt_pod.name)
        )
        if take_pre:
            obj = nxt_pre
            nxt_pre = next(pending, None)
        else:
            obj = pod_object(nxt_pod, lay, rng, ids)
            if (p.constrained_share and nxt_pod.owner is not None
                    and crng.random() < p.constrained_share):
                constrain(obj, crng)
            nxt_pod = next(bound, None)
        pod_count += 1
        yield obj if real is None else enrich_pod(obj, real)
    counts["Pod"] = pod_count
    yield from counted("PriorityClass", priority_class_objects(lay, ids))
    yield from counted("PodDisruptionBudget", pdb_objects(lay, rng, ids))
    yield from counted("Workload", workload_objects(lay, ids))
    if stats is not None:
        stats["pending_preemptor_pods"] = len(preemptors)
        stats["bound_pods"] = len(lay.pods)


# ---- the realistic preset: objects as a real API server serves them -------------------------
# Shapes follow /work/shared/k8s-1.36/lists/{nodes,pods}.json (a Kubernetes 1.36.2 server):
# managedFields of every writer, the kubelet's status (conditions, containerStatuses, podIPs,
# hostIPs), the service-account volume and its mounts, the default not-ready/unreachable
# tolerations the admission plugin adds, node images and daemon endpoints. None of it changes
# what wapctl computes; it is the bulk a reader must get through.


def _fields(obj: Any) -> dict[str, Any]:
    """A FieldsV1 tree naming every field of ``obj`` (lists of mappings keyed by name/type)."""
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        if obj:
            out["."] = {}
        for k, v in obj.items():
            out[f"f:{k}"] = _fields(v)
    elif isinstance(obj, list) and obj and isinstance(obj[0], dict):
        for item in obj:
            key = {k: item[k] for k in ("name", "type", "key") if k in item} or {"i": 0}
            out["k:" + json.dumps(key, separators=(",", ":"))] = _fields(item)
    return out


def _managed(manager: str, when: str, fields: dict[str, Any], sub: str | None = None) -> dict:
    entry = {
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
        "manager": manager,
        "operation": "Update",
        "time": when,
    }
    if sub:
        entry["subresource"] = sub
    return entry


_IMAGES = [
    (f"registry.example.com/{team}/{app}", 180_000_000 + 7_919_000 * i)
    for i, (team, app) in enumerate(
        (t, a) for t in NAMESPACES[:8] for a in ("api", "worker", "trainer", "batch")
    )
]


def enrich_node(obj: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    meta, status = obj["metadata"], obj["status"]
    created = meta["creationTimestamp"]
    beat = ts(BASE_TIME - timedelta(seconds=rng.randint(5, 60)))
    meta["annotations"].update(
        {
            "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": meta["name"]}),
            "alpha.kubernetes.io/provided-node-ip": status["addresses"][0]["address"],
        }
    )
    conditions = [
        {
            "lastHeartbeatTime": beat,
            "lastTransitionTime": created,
            "message": f"kubelet has {m}",
            "reason": r,
            "status": "False",
            "type": t,
        }
        for t, r, m in (
            ("MemoryPressure", "KubeletHasSufficientMemory", "sufficient memory available"),
            ("DiskPressure", "KubeletHasNoDiskPressure", "no disk pressure"),
            ("PIDPressure", "KubeletHasSufficientPID", "sufficient PID available"),
        )
    ]
    ready = dict(status["conditions"][0], lastHeartbeatTime=beat)
    status["conditions"] = [*conditions, ready]
    status["addresses"].append(
        {"address": f"ip-{meta['name']}.ec2.internal", "type": "InternalDNS"}
    )
    status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": 10250}}
    status["nodeInfo"].update(
        bootID=ids_like(rng), machineID=rng.randbytes(16).hex(), systemUUID=ids_like(rng)
    )
    images = rng.sample(_IMAGES, 16)
    status["images"] = [
        {
            "names": [f"{name}@sha256:{rng.randbytes(32).hex()}", f"{name}:v1.{i}"],
            "sizeBytes": size,
        }
        for i, (name, size) in enumerate(images)
    ]
    status["volumesInUse"] = []
    meta["managedFields"] = [
        _managed(
            "kubelet",
            created,
            _fields({"metadata": {"annotations": meta["annotations"], "labels": meta["labels"]}}),
        ),
        _managed("kube-controller-manager", created, _fields({"spec": obj["spec"]})),
        _managed("kubelet", beat, _fields({"status": status}), "status"),
    ]
    return obj


def ids_like(rng: random.Random) -> str:
    return str(uuid.UUID(bytes=rng.randbytes(16), version=4))


def enrich_pod(obj: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    meta, spec, status = obj["metadata"], obj["spec"], obj.get("status") or {}
    obj["status"] = status
    created = meta["creationTimestamp"]
    bound = bool(spec.get("nodeName"))
    token = f"kube-api-access-{rng.randbytes(3).hex()[:5]}"
    spec["volumes"] = [
        {
            "name": token,
            "projected": {
                "defaultMode": 420,
                "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {
                        "configMap": {
                            "items": [{"key": "ca.crt", "path": "ca.crt"}],
                            "name": "kube-root-ca.crt",
                        }
                    },
                    {
                        "downwardAPI": {
                            "items": [
                                {
                                    "fieldRef": {
                                        "apiVersion": "v1",
                                        "fieldPath": "metadata.namespace",
                                    },
                                    "path": "namespace",
                                }
                            ]
                        }
                    },
                ],
            },
        },
    ]
    for c in spec["containers"]:
        c.update(
            terminationMessagePath="/dev/termination-log",
            terminationMessagePolicy="File",
            volumeMounts=[
                {
                    "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                    "name": token,
                    "readOnly": True,
                },
            ],
        )
    spec.update(enableServiceLinks=True, securityContext={})
    spec["tolerations"] = [
        *spec.get("tolerations", []),
        *(t for t in DEFAULT_TOLERATIONS if t not in spec.get("tolerations", [])),
    ]
    meta["annotations"] = dict(
        meta.get("annotations") or {},
        **{
            "kubectl.kubernetes.io/restartedAt": created,
            "cluster-autoscaler.kubernetes.io/safe-to-evict": "true",
        },
    )
    meta["generation"] = 1
    when = status.get("startTime", created)
    if bound:
        ip = status.get("podIP", "100.64.0.1")
        status["podIPs"] = [{"ip": ip}]
        status["hostIPs"] = [{"ip": status.get("hostIP", "10.0.0.1")}]
        status["conditions"] = [
            {
                "lastProbeTime": None,
                "lastTransitionTime": when,
                "observedGeneration": 1,
                "status": "True",
                "type": t,
            }
            for t in (
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            )
        ]
        status["containerStatuses"] = [
            {
                "allocatedResources": c["resources"].get("requests", {}),
                "containerID": f"containerd://{rng.randbytes(32).hex()}",
                "image": c["image"],
                "imageID": f"{c['image'].split(':')[0]}@sha256:{rng.randbytes(32).hex()}",
                "lastState": {},
                "name": c["name"],
                "ready": True,
                "resources": c["resources"],
                "restartCount": 0,
                "started": True,
                "state": {"running": {"startedAt": when}},
                "user": {"linux": {"gid": 0, "supplementalGroups": [0], "uid": 0}},
                "volumeMounts": [dict(m, recursiveReadOnly="Disabled") for m in c["volumeMounts"]],
            }
            for c in spec["containers"]
        ]
        status["observedGeneration"] = 1
    meta["managedFields"] = [
        _managed(
            "kube-controller-manager",
            created,
            _fields(
                {
                    "metadata": {
                        "generateName": 1,
                        "labels": meta.get("labels", {}),
                        "ownerReferences": meta.get("ownerReferences", []),
                    },
                    "spec": spec,
                }
            ),
        ),
        _managed(
            "kube-scheduler",
            created,
            _fields(
                {
                    "status": {
                        "conditions": [
                            {
                                "type": "PodScheduled",
                                "lastProbeTime": 1,
                                "lastTransitionTime": 1,
                                "status": 1,
                            }
                        ]
                    }
                }
            ),
            "status",
        ),
    ]
    if bound:
        meta["managedFields"].append(
            _managed(
                "kubelet",
                when,
                _fields({"status": {k: v for k, v in status.items() if k != "containerStatuses"}}),
                "status",
            )
        )
    return obj


# ---- writers -------------------------------------------------------------------------------

_JSON_HEAD = '{\n    "apiVersion": "v1",\n    "items": [\n'
_JSON_TAIL = (
    '\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n'
)
_YAML_HEAD = "apiVersion: v1\nitems:\n"
_YAML_TAIL = 'kind: List\nmetadata:\n  resourceVersion: ""\n'


class _NoAliasDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """kubectl never prints anchors/aliases; shared dicts must be written out each time."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def write_snapshot(p: Params, outputs: dict[str, Path]) -> dict[str, Any]:
    """Write the snapshot in each requested format ("json", "yaml") in one pass; return stats."""
    stats: dict[str, Any] = {"params": asdict(p), "generator_version": GENERATOR_VERSION}
    started = time.perf_counter()
    handles = {}
    tmp = {fmt: path.with_name(path.name + ".tmp") for fmt, path in outputs.items()}
    try:
        for fmt, path in tmp.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            handles[fmt] = open(path, "w", encoding="utf-8")
        json_out, yaml_out = handles.get("json"), handles.get("yaml")
        if json_out:
            json_out.write(_JSON_HEAD)
        if yaml_out:
            yaml_out.write(_YAML_HEAD)
        dumper = _NoAliasDumper
        batch: list[dict[str, Any]] = []
        first = True
        compact = 0
        for obj in generate(p, stats):
            compact += len(json.dumps(obj, separators=(",", ":"), sort_keys=True))
            if json_out:
                text = json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=False)
                if not first:
                    json_out.write(",\n")
                json_out.write("        " + text.replace("\n", "\n        "))
            first = False
            if yaml_out:
                batch.append(obj)
                if len(batch) >= 500:
                    yaml_out.write(
                        yaml.dump(
                            batch,
                            Dumper=dumper,
                            sort_keys=True,
                            default_flow_style=False,
                            width=1000,
                        )
                    )
                    batch = []
        if yaml_out and batch:
            yaml_out.write(
                yaml.dump(
                    batch, Dumper=dumper, sort_keys=True, default_flow_style=False, width=1000
                )
            )
        if json_out:
            json_out.write(_JSON_TAIL)
        if yaml_out:
            yaml_out.write(_YAML_TAIL)
    finally:
        for h in handles.values():
            h.close()
    for fmt, path in outputs.items():
        tmp[fmt].replace(path)
        stats[f"{fmt}_bytes"] = path.stat().st_size
    total_items = sum(stats["counts"].values())
    stats["compact_json_bytes"] = compact
    stats["items"] = total_items
    stats["seconds"] = round(time.perf_counter() - started, 2)
    return stats


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=Params.nodes)
    ap.add_argument("--pods-per-node", type=int, default=Params.pods_per_node)
    ap.add_argument(
        "--gang-size",
        type=int,
        default=Params.gang_size,
        help="pods (= minCount) of the pending preemptor gang",
    )
    ap.add_argument(
        "--gang-share",
        type=float,
        default=Params.gang_share,
        help="share of bound pods in gang pod groups",
    )
    ap.add_argument(
        "--podgroup-share",
        type=float,
        default=Params.podgroup_share,
        help="share of gang groups with disruptionMode PodGroup",
    )
    ap.add_argument(
        "--priorities", type=int, default=Params.priorities, help="ordinary PriorityClasses (tiers)"
    )
    ap.add_argument("--basic-share", type=float, default=Params.basic_share)
    ap.add_argument("--gpu-share", type=float, default=Params.gpu_share)
    ap.add_argument("--pdb-share", type=float, default=Params.pdb_share)
    ap.add_argument("--gang-gpu", type=int, default=Params.gang_gpu)
    ap.add_argument("--seed", type=int, default=Params.seed)
    ap.add_argument(
        "--realistic",
        action="store_true",
        help="objects as an API server serves them: managedFields, statuses, volumes, ...",
    )
    ap.add_argument(
        "--constrained-share",
        type=float,
        default=Params.constrained_share,
        help="share of bound pods with a hostname anti-affinity or zone spread",
    )
    ap.add_argument("--constrained-gang", action="store_true",
                    help="give the preemptor gang a zone spread (maxSkew 1)")
    ap.add_argument("--format", choices=("json", "yaml"), default="json")
    ap.add_argument("-o", "--output", required=True, help="file to write")
    a = ap.parse_args(argv)
    p = Params(
        nodes=a.nodes,
        pods_per_node=a.pods_per_node,
        gang_size=a.gang_size,
        gang_share=a.gang_share,
        podgroup_share=a.podgroup_share,
        priorities=a.priorities,
        basic_share=a.basic_share,
        gpu_share=a.gpu_share,
        pdb_share=a.pdb_share,
        gang_gpu=a.gang_gpu,
        seed=a.seed,
        realistic=a.realistic,
        constrained_share=a.constrained_share,
        constrained_gang=a.constrained_gang,
    )
    stats = write_snapshot(p, {a.format: Path(a.output)})
    json.dump(stats, sys.stderr, indent=2)
    sys.stderr.write("\n")


if __name__ == "__main__":
    main()
