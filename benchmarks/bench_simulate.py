"""Steps per second of `wapctl simulate` on a large synthetic snapshot.

The snapshot comes from ``gen_snapshot.py`` (2,000 nodes, 30k bound pods, one pending gang,
nearly full); this script adds ``--extra-pending`` pending pods so the queue has many
preemptors: copies of randomly chosen bound pods (same requests, constraints and namespace),
standalone, with a priority drawn from the snapshot's priority values, created one second
apart. Everything is seeded: the same arguments replay the same steps.

    /work/venv/bin/python benchmarks/bench_simulate.py --extra-pending 500 --max-steps 1000

It prints wall-clock and CPU time of the replay (on a shared machine CPU time is the steadier
figure) and a digest of the SimulationReport JSON: equal digests across code versions mean
identical results. ``--rebuild`` replays on the rebuild-every-plan path (``_incremental=False``).

The first run generates the snapshot into ``benchmarks/out/`` (about 20 s).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

from msgspec.structs import replace as struct_replace

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "out" / "bench-simulate-n2000-ppn15-g256-s1.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshot", type=Path, default=DEFAULT,
                    help="snapshot file (generated with the defaults if missing)")
    ap.add_argument("--extra-pending", type=int, default=500)
    ap.add_argument("--max-steps", type=int, default=1000)
    ap.add_argument("--no-requeue", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rebuild", action="store_true",
                    help="rebuild the cluster accounting for every plan (the reference path)")
    args = ap.parse_args()

    if not args.snapshot.exists():
        args.snapshot.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_snapshot.py"), "--nodes", "2000",
                        "--pods-per-node", "15", "--gang-size", "256", "--format", "json",
                        "-o", str(args.snapshot)], check=True)

    from wapctl import ingest
    from wapctl.preemptor import pending_preemptors
    from wapctl.render.simulate import simulation_to_dict
    from wapctl.simulate import simulate

    t0 = time.perf_counter()
    snap = ingest.build_snapshot(ingest.read_documents([str(args.snapshot)]))
    t_load = time.perf_counter() - t0

    rng = random.Random(args.seed)
    bound = [p for p in snap.pods.values() if p.bound and not p.terminating]
    values = sorted({p.priority for p in snap.pods.values()})
    latest = max((t for p in snap.pods.values() for t in (p.creation_time, p.start_time)
                  if t is not None), default=0.0)
    pods = dict(snap.pods)
    for i in range(args.extra_pending):
        src = rng.choice(bound)
        prio = rng.choice(values)
        name = f"bench-pending-{i:05d}"
        pods[f"{src.namespace}/{name}"] = struct_replace(
            src, name=name, key=f"{src.namespace}/{name}", node_name=None, phase="Pending",
            nominated_node=None, start_time=None, creation_time=latest + 1 + i, group_key=None,
            priority=prio, preemption_priority=prio, priority_class_name=None)
    snap = replace(snap, pods=dict(sorted(pods.items())))
    queue = len(pending_preemptors(snap))

    t0, c0 = time.perf_counter(), time.process_time()
    options = {"_incremental": False} if args.rebuild else {}
    result = simulate(snap, max_steps=args.max_steps, requeue=not args.no_requeue, **options)
    t_sim, c_sim = time.perf_counter() - t0, time.process_time() - c0
    # identical results across code versions give identical digests
    report = json.dumps(simulation_to_dict(result), sort_keys=True).encode()

    actions = Counter(s.action for s in result.steps)
    outcome = ("converged" if result.converged else "step limit" if result.hit_step_limit
               else f"cycle ({result.cycle.kind})" if result.cycle else "?")
    n = len(result.steps)
    print(f"snapshot: {args.snapshot.name}: {len(snap.nodes)} nodes, {len(snap.pods)} pods, "
          f"{queue} pending preemptors (load {t_load:.1f} s)")
    print(f"simulate: {n} steps in {t_sim:.1f} s = {n / t_sim:.1f} steps/s "
          f"({1000 * t_sim / max(n, 1):.1f} ms/step); outcome: {outcome}")
    print(f"cpu: {c_sim:.1f} s = {n / max(c_sim, 1e-9):.1f} steps/s of CPU time "
          f"({1000 * c_sim / max(n, 1):.1f} ms/step)")
    print("actions: " + ", ".join(f"{a} {c}" for a, c in sorted(actions.items())))
    f = result.final
    print(f"final: {f.bound} bound, {f.pending} pending, {f.terminating} terminating, "
          f"{len(f.preemptors)} preemptors left")
    print(f"report sha256: {hashlib.sha256(report).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
