"""How long the priority graph and its cycle search take on a big snapshot.

Builds model objects directly (no YAML: this measures graph.py, not the loader):
``--pods`` pods spread over Workloads of ``--pods-per-workload`` pods each plus standalone pods,
priorities drawn from ``--classes`` PriorityClass values; ``--violators`` Workloads get a
preemption class below their scheduling class, so cycles exist. Deterministic (seeded).

    /work/venv/bin/python benchmarks/check_cycles_scale.py --pods 150000
"""

from __future__ import annotations

import argparse
import random
import resource
import time

from wapctl import graph
from wapctl.model import NEVER, PREEMPT_LOWER, Pod, PodGroup, Snapshot, Workload


def make(pods: int, per_workload: int, classes: int, violators: int, seed: int) -> Snapshot:
    rng = random.Random(seed)
    values = sorted(rng.sample(range(1_000_000), classes))
    groups: dict[str, PodGroup] = {}
    workloads: dict[str, Workload] = {}
    all_pods: dict[str, Pod] = {}
    n_workloads = pods // 2 // per_workload  # half the pods in workloads, half standalone
    for w in range(n_workloads):
        ns = f"ns-{w % 50}"
        name = f"job-{w}"
        sched = rng.choice(values)
        preempt = (
            rng.choice([v for v in values if v < sched] or [sched])
            if w < violators
            else (rng.choice([v for v in values if v >= sched]))
        )
        policy = NEVER if w % 97 == 0 else PREEMPT_LOWER
        key = f"{ns}/{name}/main"
        groups[key] = PodGroup(
            ns, name, "main", key, "Gang", per_workload, "PodGroup", sched, preempt, policy
        )
        workloads[f"{ns}/{name}"] = Workload(
            ns, name, f"{ns}/{name}", "scheduling.k8s.io/v1alpha1", ("main",)
        )
        for i in range(per_workload):
            pk = f"{ns}/{name}-{i}"
            all_pods[pk] = Pod(
                ns,
                f"{name}-{i}",
                pk,
                {"cpu": 1000},
                sched,
                preempt,
                policy,
                node_name=f"node-{i}",
                phase="Running",
                group_key=key,
            )
    for i in range(pods - len(all_pods)):
        ns = f"ns-{i % 50}"
        v = rng.choice(values)
        pk = f"{ns}/web-{i}"
        all_pods[pk] = Pod(
            ns, f"web-{i}", pk, {"cpu": 100}, v, v, node_name=f"node-{i % 5000}", phase="Running"
        )
    return Snapshot(
        nodes={},
        pods=dict(sorted(all_pods.items())),
        priority_classes={},
        pdbs=(),
        workloads=dict(sorted(workloads.items())),
        pod_groups=dict(sorted(groups.items())),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", type=int, default=150_000)
    ap.add_argument("--pods-per-workload", type=int, default=8)
    ap.add_argument("--classes", type=int, default=40)
    ap.add_argument("--violators", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    snap = make(args.pods, args.pods_per_workload, args.classes, args.violators, args.seed)
    t0 = time.perf_counter()
    built = graph.build_graph(snap)
    t1 = time.perf_counter()
    search = graph.find_cycles(built)
    t2 = time.perf_counter()
    violations = graph.find_violations(snap, built)
    t3 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{len(snap.pods)} pods, {len(snap.pod_groups)} pod groups, "
        f"{len(built.vertices)} profiles, "
        f"{built.edge_count} edges: build {t1 - t0:.3f} s, cycles {t2 - t1:.3f} s "
        f"({search.count}{'' if search.complete else '+'} found), violations {t3 - t2:.3f} s "
        f"({len(violations)}); peak RSS {rss:.0f} MiB"
    )


if __name__ == "__main__":
    main()
