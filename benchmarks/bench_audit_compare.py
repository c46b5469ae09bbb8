"""What `wapctl audit` spends after reading: the two priority graphs and the before/after
comparison (cells, edge changes, lost protection, cycles, violations, plans), in-process.

The snapshot is read once and built as ``audit.audit`` does (one ``BuildCache`` for both
sides: the two builds are timed ``--repeat`` times, each time with a new cache); then each step
is timed ``--repeat`` times, CPU time (user+sys of this process), median and min. Reading is
left out: ``bench_reader.py`` measures the commands end to end.

    .venv/bin/python benchmarks/bench_audit_compare.py SNAPSHOT --change CHANGE [--repeat 5]

``--extra-pending N`` makes N running standalone pods (chosen at random, seeded) pending on
both sides, one million above their priority: a queue of N + 1 preemptors for plan_changes.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from msgspec.structs import replace as struct_replace

from wapctl import audit, ingest
from wapctl import graph as g
from wapctl.model import Snapshot


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    runs, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        runs.append(time.process_time() - start)
    return statistics.median(runs), min(runs), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("snapshot")
    ap.add_argument("--change", required=True, action="append")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-plans", type=int, default=audit.DEFAULT_MAX_PLANS)
    ap.add_argument("--extra-pending", type=int, default=0)
    args = ap.parse_args()

    base = ingest.read_documents([args.snapshot], max_input_size=8 << 30)
    change = ingest.read_documents(args.change)
    documents, _ = audit.apply_change(base, change)
    n = args.repeat
    budget = g.DEFAULT_COUNT_LIMIT
    rows: list[tuple[str, float, float]] = []
    firsts, seconds = [], []
    for _ in range(n):  # a new cache each time: the second build starts from the first one's
        before = after = None  # the previous run's snapshots are freed here, not in a build
        cache = ingest.BuildCache()
        start = time.process_time()
        before = ingest.build_snapshot(base, reuse=cache)
        middle = time.process_time()
        after = ingest.build_snapshot(documents, reuse=cache)
        firsts.append(middle - start)
        seconds.append(time.process_time() - middle)
        del cache
    rows.append(("build_snapshot before (BuildCache)", statistics.median(firsts), min(firsts)))
    rows.append(("build_snapshot after (same cache)", statistics.median(seconds), min(seconds)))
    del base, documents
    if args.extra_pending:
        before, after = _extra_pending(before, after, args.extra_pending)

    def step(name: str, fn: Callable[[], Any]) -> Any:
        median, best, result = timed(fn, n)
        rows.append((name, median, best))
        return result

    gb = step("build_graph before", lambda: g.build_graph(before))
    ga = step("build_graph after", lambda: g.build_graph(after))
    cells = step("cells", lambda: audit.cells(gb, ga, g.DEFAULT_SAMPLE))
    added, removed = step("edge_changes", lambda: audit.edge_changes(cells))
    lost = step("lost_protection", lambda: audit.lost_protection(added))
    cb = step("find_cycles before", lambda: g.find_cycles(gb, limit=budget, count_limit=budget))
    ca = step("find_cycles after", lambda: g.find_cycles(ga, limit=budget, count_limit=budget))
    step("diff_cycles", lambda: audit.diff_cycles(gb, cb, ga, ca))
    step("find_violations x2", lambda: (g.find_violations(before, gb),
                                        g.find_violations(after, ga)))
    step("plan_changes", lambda: audit.plan_changes(before, after, max_plans=args.max_plans))

    print(f"{args.snapshot}: {len(before.pods)} pods, members {len(gb.memberships)} -> "
          f"{len(ga.memberships)}, {len(cells)} cells, edges +{len(added)} -{len(removed)}, "
          f"lost protection {len(lost)}, cycles {cb.count} -> {ca.count}")
    print(f"CPU seconds over {n} runs | step | median | min")
    for name, median, best in rows:
        print(f"| {name} | {median:.3f} | {best:.3f} |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MB (reading the snapshot included)")


def _extra_pending(before: Snapshot, after: Snapshot, n: int) -> tuple[Snapshot, Snapshot]:
    """Both snapshots with the same n running standalone pods pending (priority + 10**6)."""
    keys = random.Random(1).sample(
        sorted(k for k, p in before.pods.items() if p.node_name and p.group_key is None), n)

    def unbind(snap: Snapshot) -> Snapshot:
        pods = dict(snap.pods)
        for k in keys:
            p = pods[k]
            pods[k] = struct_replace(p, node_name=None, phase="Pending",
                                     priority=p.priority + 10**6)
        return replace(snap, pods=pods)

    return unbind(before), unbind(after)


if __name__ == "__main__":
    main()
