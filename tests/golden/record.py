#!/usr/bin/env python3
"""Record wapctl's outputs over every bundled fixture, and compare two recordings.

    python tests/golden/record.py record OUTDIR [--python PATH] [--jobs 2]
    python tests/golden/record.py compare DIR_A DIR_B   # differing files; exit 1 if any
    python tests/golden/record.py list                  # the invocations, one a line

A standalone script, not a pytest test (see README.md next to it)."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = (".yaml", ".yml", ".json")
EVENTS = "tests/data/k8s-1.36/events"
SNAP = "fixtures/exports/k8s-1.36/kubectl/get-all-wapctl-kinds.yaml"
MODELS = ("1.36", "upstream", "kep-5710")  # each also runs without --model (wapctl's pick)
OUT = ("table", "wide", "json", "yaml", "name", "html")  # plan, simulate, audit
OUT_VALIDATE = ("table", "wide", "json", "yaml", "name")
OUT_EVENTS = ("table", "json", "yaml")  # explain, history
OUT_CYCLES = ("table", "wide", "json", "yaml", "name", "sarif", "dot", "mermaid", "html")
MAX_PODS, MAX_GROUPS = 2, 2  # plan targets found per snapshot, first in sorted order
Args = tuple[str, ...]
PLAN_TARGETS: dict[str, list[Args]] = {  # targets and options the tests and docs use
    "fixtures/plan/tie-break.yaml": [("--pod", "default/urgent"),
                                     ("--pod", "default/urgent", "--samples", "5")],
    "fixtures/plan/gang-multi-node.yaml": [("--workload", "ml/train/workers"),
                                           ("--workload", "ml/train")],
    "fixtures/api-versions/v1alpha2.yaml": [("--workload", "ml/inference")],
    SNAP: [("--pod", "prod/web-7c9d8b5f4-pend7"), ("-n", "prod", "--pod", "web-7c9d8b5f4-pend7"),
           ("--workload", "ml/finetune"), ("-l", "app=web"), ("-n", "ml")],
}
SINGLES: list[Args] = [  # run once each (table); several are usage errors on purpose
    ("plan", SNAP, "--workload", "ml/fintune"), ("plan", SNAP, "--workload", "train-llm"),
    ("plan", SNAP, "--pod", "prod/web-7c9d8b5f4-pend"), ("plan", SNAP, "--pod", "ml/x", "-n", "x"),
    ("plan", "fixtures/plan/podgroup-whole.yaml", "--model", "upstream",
     "--feature-gates", "PodGroupPreemptionPolicy=true"),
    ("audit", "fixtures/cycles/audit/cluster.yaml", "--delete", "PriorityClass/train-protect"),
    ("explain", "pod/default/low-1", f"{EVENTS}/A-single-pod/2-preempted", "-o", "wide"),
    ("history", f"{EVENTS}/A-single-pod/2-preempted", "-o", "name"),
    *[("simulate", f"fixtures/simulate/{f}.yaml", *a) for f in ("cascade", "ping-pong")
      for a in (("--no-requeue",), ("--no-requeue", "-o", "json"), ("--max-steps", "3"))],
]
AUDIT, MANIFESTS = "fixtures/cycles/audit", "fixtures/manifests"
AUDITS: list[Args] = [  # snapshot, then the change
    (f"{AUDIT}/cluster.yaml", "--change", f"{AUDIT}/raise-medium.yaml"),
    (f"{AUDIT}/cluster.yaml", "--change", f"{AUDIT}/raise-train.yaml"),
    (f"{AUDIT}/cluster.yaml", "-c", f"{AUDIT}/raise-medium.yaml",
     "-c", f"{AUDIT}/raise-train.yaml"),
    (f"{AUDIT}/cluster.yaml", "--delete", "PodDisruptionBudget/ml/training",
     "--change", f"{AUDIT}/raise-train.yaml"),
    (f"{AUDIT}/cluster.yaml", "--delete", "PriorityClass/legacy"),
    *[(f"{MANIFESTS}/cluster.yaml", "--change", f"{MANIFESTS}/{f}.yaml")
      for f in ("recreate-medium", "chart-cycle", "chart-fixed", "new-training")],
    (f"{MANIFESTS}/cluster.yaml", "--delete", "PriorityClass/medium"),
    (SNAP, "--change", "fixtures/exports/change-raise-low.yaml"),
]
COMMANDS = ("plan", "validate", "snapshot", "check-cycles", "audit", "simulate", "explain",
            "history", "version")


def rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def files(*folders: str, pattern: str = "*") -> list[str]:
    return sorted(rel(p) for f in folders for p in (ROOT / f).glob(pattern)
                  if p.suffix in SUFFIXES and not p.name.endswith(".expected.json"))


def load(paths: Args) -> list[dict[str, Any]]:
    """The objects of files or flat directories, List items flattened (PodList items: Pod)."""
    out: list[dict[str, Any]] = []
    for path in (ROOT / p for p in paths):
        for f in sorted(path.iterdir()) if path.is_dir() else [path]:
            if f.suffix not in SUFFIXES:
                continue
            text = f.read_text(encoding="utf-8")
            try:
                docs = [json.loads(text)] if f.suffix == ".json" else list(yaml.safe_load_all(text))
            except (ValueError, yaml.YAMLError):
                continue
            for doc in (d for d in docs if isinstance(d, dict)):
                if isinstance(doc.get("items"), list):
                    kind = str(doc.get("kind", ""))[:-4]
                    out += [{"kind": kind, **i} for i in doc["items"] if isinstance(i, dict)]
                else:
                    out.append(doc)
    return out


def key(o: dict[str, Any]) -> str:
    meta = o.get("metadata") or {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def targets(objects: list[dict[str, Any]]) -> list[Args]:
    """Plan targets: pending pods (one per pod group) and pending pod groups, sorted, capped."""
    workload_of = {}  # PodGroup NS/NAME -> its Workload's name (v1alpha2 and later)
    for o in objects:
        if o.get("kind") == "PodGroup":
            ref = (o.get("spec") or {}).get("workloadRef") \
                or (o.get("spec") or {}).get("podGroupTemplateRef") or {}
            workload_of[key(o)] = str(ref.get("workload", ref).get("workloadName"))
    pods: dict[str, str] = {}  # pending pod NS/NAME -> its group NS/WORKLOAD/GROUP, or ""
    for o in objects:
        spec, meta = o.get("spec") or {}, o.get("metadata") or {}
        if (o.get("kind") != "Pod" or spec.get("nodeName") or meta.get("deletionTimestamp")
                or spec.get("schedulingGates")
                or (o.get("status") or {}).get("phase") in ("Succeeded", "Failed")):
            continue
        ns, group = key(o).split("/")[0], ""
        if isinstance(spec.get("workloadRef"), dict):  # v1alpha1
            group = f"{ns}/{spec['workloadRef'].get('name')}/{spec['workloadRef'].get('podGroup')}"
        elif (pg := f"{ns}/{(spec.get('schedulingGroup') or {}).get('podGroupName')}") \
                in workload_of:
            group = f"{ns}/{workload_of[pg]}/{pg.split('/')[1]}"
        pods[key(o)] = group
    one_each: dict[str, str] = {}
    for pod, group in sorted(pods.items()):
        one_each.setdefault(group or pod, pod)
    found: list[Args] = [("--pod", p) for p in sorted(one_each.values())[:MAX_PODS]]
    return found + [("--workload", g) for g in sorted({g for g in pods.values() if g})[:MAX_GROUPS]]


def snapshots() -> list[Args]:
    """Every snapshot: the fixture files, the raw API lists together, the recorded stages."""
    lists = "fixtures/exports/k8s-1.36/lists"
    raw = tuple(f"{lists}/{k}.json" for k in ("nodes", "pods", "priorityclasses",
                                               "poddisruptionbudgets", "workloads", "podgroups"))
    stages = sorted(rel(p) for p in (ROOT / EVENTS).glob("*/*-*") if p.is_dir())
    return ([(f,) for f in files("fixtures", pattern="**/*") if "/admission/" not in f
             and "/rbac/" not in f] + [raw] + [(s,) for s in stages])


def matrix(cmd: str, inputs: Args, formats: Args, model_formats: Args) -> list[Args]:
    """Every format under wapctl's own model choice, ``model_formats`` under each --model."""
    return ([(cmd, *inputs, "-o", o) for o in formats]
            + [(cmd, *inputs, "--model", m, "-o", o) for m in MODELS for o in model_formats])


def invocations() -> list[Args]:
    runs: list[Args] = [("--version",), ("version",), ("--help",)]
    runs += [(c, "--help") for c in COMMANDS]
    for snap in snapshots():
        # the recordings under k8s-1.36/ are one cluster in many shapes: fewer formats
        minor = snap[0].startswith("fixtures/exports/k8s-1.36/") and snap[0] != SNAP
        rich = snap[0] == SNAP or snap[0].startswith("fixtures/api-versions/")
        runs += [("validate", *snap, "-o", o)
                 for o in (OUT_VALIDATE if rich else ("table", "json"))]
        objects = load(snap)
        found = targets(objects)
        if not any(o.get("kind") == "Pod" for o in objects):
            continue
        if (minor and len(snap) == 1) or not found:  # nothing pending, or the same cluster
            runs += [("plan", *snap, "-o", o) for o in ("table", "json")]
            continue
        full = [(), *PLAN_TARGETS.get(snap[0], [])]
        for target in full:
            runs += matrix("plan", (*snap, *target), OUT, ("json", "wide"))
        for target in found if len(found) > 1 else []:  # a lone one is the default's
            if target not in full:
                runs += matrix("plan", (*snap, *target), ("table", "json"), ("json",))
    for f in files("fixtures", pattern="**/*"):
        every = f.startswith(("fixtures/cycles/", MANIFESTS)) or f == SNAP
        runs += [("check-cycles", f, "-o", o) for o in (OUT_CYCLES if every else ("json",))]
        runs += [("check-cycles", f, "--format", "github")] if every else []
    runs += [("check-cycles", f, "--model", m, "-o", "json")
             for f in files("fixtures/cycles", pattern="**/*") for m in MODELS]
    for f in files(MANIFESTS):
        cluster = ("--cluster", f"{MANIFESTS}/cluster.yaml")
        if not f.endswith("/cluster.yaml"):
            runs += [("check-cycles", f, *cluster, "-o", o) for o in ("table", "json", "sarif")]
            runs.append(("check-cycles", f, *cluster, "--format", "github"))
    for f in files("fixtures/simulate"):
        runs += matrix("simulate", (f,), OUT, ("json",))
    runs += [("simulate", f, "-o", "json")
             for f in files("fixtures/plan", "fixtures/cycles", "fixtures/api-versions")]
    for audit in AUDITS:
        runs += matrix("audit", audit, OUT, ("json",))
    for stage in sorted((ROOT / EVENTS).glob("*/[23]-*")):
        before = ("--before", rel(stage.parent / "1-before"))
        pods = sorted({f"pod/{key(o)}" for s in (stage, stage.parent / "1-before")
                       for o in load((rel(s),)) if o.get("kind") == "Pod"})
        for i, pod in enumerate(pods):
            runs += [("explain", pod, rel(stage), *before, "-o", o)
                     for o in (OUT_EVENTS if i == 0 else ("table", "json"))]
            runs += [("explain", pod, rel(stage), "-o", "json")] if i == 0 else []
        runs += [("history", rel(stage), *extra, "-o", o)
                 for extra in ((), before) for o in OUT_EVENTS]
    return list(dict.fromkeys(runs + SINGLES))


def slug(args: Args) -> str:
    """A stable, filesystem-safe name: the readable args, then a hash of the exact args."""
    text = " ".join(args).replace("fixtures/", "").replace(EVENTS + "/", "")
    digest = hashlib.sha1("\0".join(args).encode()).hexdigest()[:10]
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", text).strip("_")[:150] + "." + digest


def run_one(python: str, args: Args, env: dict[str, str]) -> tuple[bytes, bytes, str]:
    try:
        proc = subprocess.run([python, "-m", "wapctl", *args], cwd=ROOT, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    except subprocess.TimeoutExpired as exc:
        return exc.stdout or b"", exc.stderr or b"", "timeout"
    return proc.stdout, proc.stderr, str(proc.returncode)


def record(outdir: Path, python: str, jobs: int) -> int:
    if outdir.exists() and any(outdir.iterdir()):
        sys.exit(f"record: {outdir} is not empty")
    outdir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WAPCTL_", "KUBE", "FORCE_COLOR", "CLICOLOR", "COLUMNS", "LINES"))}
    env |= {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb",
            "KUBECONFIG": "/nonexistent/wapctl-golden-kubeconfig"}  # never a live cluster
    work = [(slug(a), a) for a in invocations()]
    assert len({s for s, _ in work}) == len(work), "slug collision"
    (outdir / "INDEX.tsv").write_text("".join(f"{s}\t{json.dumps(list(a))}\n" for s, a in work),
                                      encoding="utf-8")
    start, codes = time.monotonic(), {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, python, a, env): (s, a) for s, a in work}
        for n, fut in enumerate(cf.as_completed(futures), 1):
            (s, a), (out, err, rc) = futures[fut], fut.result()
            (outdir / f"{s}.out").write_bytes(out)
            (outdir / f"{s}.err").write_bytes(err)
            (outdir / f"{s}.rc").write_text(rc + "\n", encoding="utf-8")
            codes[a] = rc
            if n % 250 == 0:
                print(f"  {n}/{len(work)} ({time.monotonic() - start:.0f}s)", flush=True)
    per_cmd = Counter(next((x for x in a if not x.startswith("-")), a[0]) for _, a in work)
    bad = Counter(f"{a[0]}:{rc}" for a, rc in codes.items() if rc != "0")
    print(f"{len(work)} invocations in {time.monotonic() - start:.1f}s with {jobs} jobs; "
          f"{sum(bad.values())} non-zero rc")
    print("per command: " + ", ".join(f"{c} {n}" for c, n in sorted(per_cmd.items())))
    print("non-zero rc (command:rc): " + ", ".join(f"{k} {n}" for k, n in sorted(bad.items())))
    return 0


def compare(a: Path, b: Path) -> int:
    names_a = {p.name for p in a.iterdir() if p.is_file()}
    names_b = {p.name for p in b.iterdir() if p.is_file()}
    lines = [f"only in {a}: {n}" for n in sorted(names_a - names_b)]
    lines += [f"only in {b}: {n}" for n in sorted(names_b - names_a)]
    lines += [f"differs: {n}" for n in sorted(names_a & names_b)
              if (a / n).read_bytes() != (b / n).read_bytes()]
    print("\n".join([*lines, f"{len(names_a | names_b)} files, {len(lines)} differences"]))
    return 1 if lines else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run every invocation: OUTDIR/<slug>.out, .err, .rc")
    rec.add_argument("outdir", type=Path)
    rec.add_argument("--python", default=sys.executable, help="the interpreter with wapctl")
    rec.add_argument("--jobs", type=int, default=2)
    cmp_ = sub.add_parser("compare", help="print the files that differ; exit 1 if any")
    cmp_.add_argument("dir_a", type=Path)
    cmp_.add_argument("dir_b", type=Path)
    sub.add_parser("list", help="print each invocation's slug and arguments")
    ns = parser.parse_args(argv)
    if ns.command == "record":
        return record(ns.outdir, ns.python, max(1, ns.jobs))
    if ns.command == "compare":
        return compare(ns.dir_a, ns.dir_b)
    print("\n".join(f"{slug(a)}\t{' '.join(a)}" for a in invocations()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
