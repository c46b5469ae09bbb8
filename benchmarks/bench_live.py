"""Time listing a large cluster through ``wapctl.live.fetch_documents`` against the fake API
server of the test suite.

The server runs in its own process (as a real API server would), serving a generated cluster of
2,000 nodes and ~30k pods (``gen_snapshot.py``'s 2k preset: realistic pods with containers,
owners, tolerations, affinity; ``--synthetic`` uses the tests' smaller pods instead). The client
lists it page by page (``limit``/``continue``, page size 500 by default) exactly as ``wapctl
snapshot`` / ``wapctl plan --kubeconfig`` do. One untimed warm-up run checks the object count;
then the median of ``--runs`` timed runs is printed (wall clock, and the client's CPU time,
which other load on a shared machine disturbs less), with min/max, bytes and requests.

    /work/venv/bin/python benchmarks/bench_live.py                 # 2,000 nodes / 30k pods
    /work/venv/bin/python benchmarks/bench_live.py --page-size 100 --runs 5
    /work/venv/bin/python benchmarks/bench_live.py --synthetic --pods 30000 --nodes 2000
    /work/venv/bin/python benchmarks/bench_live.py --gzip          # server gzips large pages
    /work/venv/bin/python benchmarks/bench_live.py --cli           # also time `wapctl snapshot`
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for extra in (str(HERE), str(REPO / "tests"), str(REPO)):
    if extra not in sys.path:
        sys.path.insert(0, extra)

TOKEN = "bench-token"


def _objects(args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.synthetic:
        from fake_apiserver import synthetic_cluster

        return synthetic_cluster(args.nodes, args.pods)
    import gen_snapshot as gen

    per_node = max(1, round(args.pods / args.nodes))
    return list(gen.generate(gen.Params(nodes=args.nodes, pods_per_node=per_node,
                                        gang_size=args.gang_size)))


def _serve(args: argparse.Namespace, conn: Any, stop: Any) -> None:
    """Child process: build the cluster, serve it, report (port, counts, bytes), wait."""
    for extra in (str(HERE), str(REPO / "tests"), str(REPO)):
        if extra not in sys.path:
            sys.path.insert(0, extra)
    from fake_apiserver import FakeApiServer

    objects = _objects(args)
    # The fake server does not convert between versions: serve the ones the objects use.
    versions = sorted({str(o["apiVersion"]).split("/")[1] for o in objects
                       if o.get("kind") in ("Workload", "PodGroup")}) or ["v1alpha1"]
    fake = FakeApiServer(token=TOKEN, workload_versions=versions)
    counts: dict[str, int] = {}
    skipped = 0
    served = []
    for obj in objects:
        try:
            fake.resource_for(obj)
        except ValueError:
            skipped += 1
            continue
        served.append(obj)
        counts[obj["kind"]] = counts.get(obj["kind"], 0) + 1
    fake.add(served)
    if args.gzip:
        fake.gzip_min_bytes = 128 * 1024
    size = sum(len(encoded) for items in fake._items.values() for _, encoded in items)
    fake.start()
    conn.send({"port": fake.port, "counts": counts, "skipped": skipped, "bytes": size})
    stop.wait()
    conn.send({"requests": len(fake.requests), "methods": sorted(fake.methods())})
    fake.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=30000, help="bound pods (approximately)")
    parser.add_argument("--gang-size", type=int, default=256)
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--synthetic", action="store_true",
                        help="the tests' small synthetic pods instead of gen_snapshot.py's")
    parser.add_argument("--gzip", action="store_true",
                        help="the server gzips pages above 128 KiB, as a real API server does")
    parser.add_argument("--cli", action="store_true",
                        help="also time one `wapctl snapshot -o FILE.json` subprocess")
    args = parser.parse_args(argv)

    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    stop = ctx.Event()
    server = ctx.Process(target=_serve, args=(args, child, stop), daemon=True)
    t0 = time.perf_counter()
    server.start()
    info = parent.recv()
    setup = time.perf_counter() - t0
    total = sum(info["counts"].values())
    print(f"server: {total} objects {info['counts']} ({info['bytes'] / 1e6:.1f} MB of JSON "
          f"items, {info['skipped']} objects of unserved kinds skipped), built in {setup:.1f}s")

    from wapctl import live

    with tempfile.TemporaryDirectory() as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        kubeconfig.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "bench",
            "clusters": [{"name": "bench",
                          "cluster": {"server": f"http://127.0.0.1:{info['port']}"}}],
            "users": [{"name": "bench", "user": {"token": TOKEN}}],
            "contexts": [{"name": "bench", "context": {"cluster": "bench", "user": "bench"}}],
        }))

        def fetch() -> int:
            docs = live.fetch_documents(kubeconfig=str(kubeconfig), context=None,
                                        request_timeout=60, page_size=args.page_size,
                                        progress=False)
            return len(docs)

        got = fetch()  # warm-up: imports, connection, page cache
        if got != total:
            raise SystemExit(f"listed {got} objects, the server holds {total}")
        times, cpu = [], []
        for _ in range(args.runs):
            start, start_cpu = time.perf_counter(), time.process_time()
            fetch()
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        med = statistics.median(times)
        pods = info["counts"].get("Pod", 0)
        print(f"fetch_documents, page size {args.page_size}: median {med:.2f}s wall over "
              f"{args.runs} runs (min {min(times):.2f}s, max {max(times):.2f}s), client CPU "
              f"median {statistics.median(cpu):.2f}s; {total} objects, {pods} pods, "
              f"{total / med:,.0f} objects/s, {info['bytes'] / 1e6 / med:.0f} MB/s")

        if args.cli:
            out = Path(tmp) / "snap.json"
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "from wapctl.cli import main; main()",
                            "snapshot", "--kubeconfig", str(kubeconfig), "--page-size",
                            str(args.page_size), "-o", str(out)], check=True, cwd=REPO)
            took = time.perf_counter() - start
            print(f"wapctl snapshot -o snap.json (one run, whole process): {took:.2f}s, "
                  f"{out.stat().st_size / 1e6:.1f} MB written")

    stop.set()
    final = parent.recv()
    server.join(timeout=10)
    print(f"server saw {final['requests']} requests, methods {final['methods']}")
    command = " ".join([Path(sys.executable).name, *sys.argv])
    print(f"python {sys.version.split()[0]}; command: {command}")


if __name__ == "__main__":
    main()
