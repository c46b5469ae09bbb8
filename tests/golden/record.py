#!/usr/bin/env python3
"""Record wapctl's outputs over every bundled fixture, and compare two recordings.

    python tests/golden/record.py record OUTDIR [--python PATH] [--jobs 2]
    python tests/golden/record.py compare DIR_A DIR_B
    python tests/golden/record.py list            # the invocations, one a line

Not a pytest test (see README.md next to this file)."""

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
EVENTS = "tests/data/k8s-1.36/events"
MODELS = ("", "1.36", "upstream", "kep-5710")  # "": the model wapctl picks itself
OUT = ("table", "wide", "json", "yaml", "name", "html")  # plan, simulate, audit
OUT_TEXT = ("table", "wide", "json", "yaml", "name")  # explain, history
MODEL_OUT = ("json", "wide")  # the formats each explicit --model is recorded in
OUT_CYCLES = ("table", "wide", "json", "yaml", "name", "sarif", "dot", "mermaid", "html")
CYCLES_SOME = ("table", "json")  # for fixtures not written for check-cycles
MAX_PODS, MAX_GROUPS = 2, 2  # plan targets found per snapshot, first in sorted order
SNAP = "fixtures/exports/k8s-1.36/kubectl/get-all-wapctl-kinds.yaml"
PLAN_EXTRA: dict[str, list[tuple[str, ...]]] = {  # targets and options the tests and docs use
    "fixtures/plan/tie-break.yaml": [("--pod", "default/urgent"),
                                     ("--pod", "default/urgent", "--samples", "5")],
    "fixtures/plan/podgroup-whole.yaml": [
        ("--feature-gates", "PodGroupPreemptionPolicy=true")],
    "fixtures/api-versions/v1alpha2.yaml": [("--workload", "ml/inference")],
    "fixtures/plan/gang-multi-node.yaml": [("--workload", "ml/train/workers"),
                                           ("--workload", "ml/train")],
    SNAP: [("--pod", "prod/web-7c9d8b5f4-pend7"), ("-n", "prod", "--pod", "web-7c9d8b5f4-pend7"),
           ("--workload", "ml/finetune"), ("-l", "app=web"), ("-n", "ml")],
}
PLAN_ERRORS = [("--workload", "ml/fintune"), ("--workload", "train-llm"),  # did you mean ...?
               ("--pod", "prod/web-7c9d8b5f4-pend"), ("--pod", "ml/finetune-0-q0x", "-n", "x")]
CHANGES = "fixtures/cycles/audit/raise-medium.yaml", "fixtures/cycles/audit/raise-train.yaml"
AUDITS: list[tuple[str, ...]] = [  # (snapshot, change/delete args...)
    ("fixtures/cycles/audit/cluster.yaml", "--change", CHANGES[0]),
    ("fixtures/cycles/audit/cluster.yaml", "--change", CHANGES[1]),
    ("fixtures/cycles/audit/cluster.yaml", "--change", CHANGES[0], "--change", CHANGES[1]),
    ("fixtures/cycles/audit/cluster.yaml", "--delete", "PodDisruptionBudget/ml/training",
     "--change", CHANGES[1]),
    ("fixtures/cycles/audit/cluster.yaml", "--delete", "PriorityClass/legacy"),
    ("fixtures/cycles/audit/cluster.yaml", "--delete", "PriorityClass/train-protect"),
    ("fixtures/manifests/cluster.yaml", "--change", "fixtures/manifests/recreate-medium.yaml"),
    ("fixtures/manifests/cluster.yaml", "--change", "fixtures/manifests/chart-cycle.yaml"),
    ("fixtures/manifests/cluster.yaml", "--change", "fixtures/manifests/chart-fixed.yaml"),
    ("fixtures/manifests/cluster.yaml", "--change", "fixtures/manifests/new-training.yaml"),
    ("fixtures/manifests/cluster.yaml", "--delete", "PriorityClass/medium"),
    ("fixtures/exports/k8s-1.36/kubectl/get-all-wapctl-kinds.yaml",
     "--change", "fixtures/exports/change-raise-low.yaml"),
]
COMMANDS = ("plan", "validate", "snapshot", "check-cycles", "audit", "simulate", "explain",
            "history", "version")


def rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def files(folder: str, pattern: str = "*") -> list[str]:
    return sorted(rel(p) for p in (ROOT / folder).glob(pattern)
                  if p.is_file() and p.suffix in (".yaml", ".yml", ".json")
                  and not p.name.endswith(".expected.json"))


def load(paths: tuple[str, ...]) -> list[dict[str, Any]]:
    """The objects of a snapshot (files or flat directories), List items flattened; raw API
    lists' items take their kind from the list's (PodList -> Pod)."""
    out: list[dict[str, Any]] = []
    for p in paths:
        path = ROOT / p
        for f in sorted(path.iterdir()) if path.is_dir() else [path]:
            if f.suffix not in (".yaml", ".yml", ".json"):
                continue
            text = f.read_text(encoding="utf-8")
            try:
                docs = [json.loads(text)] if f.suffix == ".json" else list(yaml.safe_load_all(text))
            except (ValueError, yaml.YAMLError):
                continue
            for doc in docs:
                if not isinstance(doc, dict):
                    continue
                if isinstance(doc.get("items"), list):
                    kind = str(doc.get("kind", ""))[:-4]
                    out += [{"kind": kind, **i} for i in doc["items"] if isinstance(i, dict)]
                else:
                    out.append(doc)
    return out


def targets(objects: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Plan targets: pending pods (one per pod group) and pending pod groups, sorted, capped."""
    def ns_name(o: dict[str, Any]) -> tuple[str, str]:
        meta = o.get("metadata") or {}
        return str(meta.get("namespace") or "default"), str(meta.get("name"))

    groups = {}  # (ns, PodGroup name) -> workload name, for v1alpha2 and later
    for o in objects:
        if o.get("kind") == "PodGroup":
            spec = o.get("spec") or {}
            ref = spec.get("workloadRef") or spec.get("podGroupTemplateRef") or {}
            ref = ref.get("workload", ref)
            groups[ns_name(o)] = str(ref.get("workloadName"))
    pods: dict[str, str] = {}  # pod key -> its group key ("" for none)
    for o in objects:
        spec, meta = o.get("spec") or {}, o.get("metadata") or {}
        if (o.get("kind") != "Pod" or spec.get("nodeName") or meta.get("deletionTimestamp")
                or spec.get("schedulingGates")
                or (o.get("status") or {}).get("phase") in ("Succeeded", "Failed")):
            continue
        ns, name = ns_name(o)
        group = ""
        if spec.get("workloadRef"):  # v1alpha1
            ref = spec["workloadRef"]
            group = f"{ns}/{ref.get('name')}/{ref.get('podGroup')}"
        elif (spec.get("schedulingGroup") or {}).get("podGroupName"):
            pg = spec["schedulingGroup"]["podGroupName"]
            if (ns, pg) in groups:
                group = f"{ns}/{groups[ns, pg]}/{pg}"
        pods[f"{ns}/{name}"] = group
    one_each: dict[str, str] = {}
    for key, group in sorted(pods.items()):
        one_each.setdefault(group or key, key)
    pending = sorted({g for g in pods.values() if g})
    return ([("--pod", p) for p in sorted(one_each.values())[:MAX_PODS]]
            + [("--workload", w) for w in pending[:MAX_GROUPS]])


def snapshots() -> list[tuple[str, ...]]:
    """Every snapshot-like input (one or more paths): fixture files and the recorded stages."""
    singles = [f for f in files("fixtures", "**/*")
               if "/admission/" not in f and "/rbac/" not in f]
    lists = "fixtures/exports/k8s-1.36/lists"
    raw = tuple(f"{lists}/{k}.json" for k in ("nodes", "pods", "priorityclasses",
                                               "poddisruptionbudgets", "workloads", "podgroups"))
    stages = sorted(rel(p) for p in (ROOT / EVENTS).glob("*/*-*") if p.is_dir())
    return [(f,) for f in singles] + [raw] + [(s,) for s in stages]


def matrix(cmd: str, inputs: tuple[str, ...], formats: tuple[str, ...],
           model_formats: tuple[str, ...] = MODEL_OUT) -> list[tuple[str, ...]]:
    """Every format with the default model, then ``model_formats`` under each explicit model."""
    return ([(cmd, *inputs, "-o", o) for o in formats]
            + [(cmd, *inputs, "--model", m, "-o", o) for m in MODELS[1:] for o in model_formats])


def invocations() -> list[tuple[str, ...]]:
    runs: list[tuple[str, ...]] = [("--version",), ("version",), ("--help",)]
    runs += [(c, "--help") for c in COMMANDS]
    for snap in snapshots():
        # the recordings under k8s-1.36/ are one cluster in many shapes: fewer formats
        minor = len(snap) == 1 and snap[0].startswith("fixtures/exports/k8s-1.36/") \
            and snap[0] != SNAP
        rich = snap[0] == SNAP or snap[0].startswith("fixtures/api-versions/")
        runs += [("validate", *snap, "-o", o) for o in (OUT_TEXT if rich else ("table", "json"))]
        objects = load(snap)
        found = targets(objects)
        if not any(o.get("kind") == "Pod" for o in objects):
            continue
        if minor or not found:  # nothing pending, or one more shape of the same cluster
            runs += [("plan", *snap, "-o", o) for o in ("table", "json")]
            continue
        full = [(), *PLAN_EXTRA.get(snap[0], [])]  # every format, json and wide per model
        for target in full:
            runs += matrix("plan", (*snap, *target), OUT)
        for target in found:
            if target not in full:
                runs += matrix("plan", (*snap, *target), ("table", "json"), ("json",))
    runs += [("plan", SNAP, *target) for target in PLAN_ERRORS]
    for f in files("fixtures", "**/*"):
        full = f.startswith(("fixtures/cycles/", "fixtures/manifests/")) or f in (
            SNAP, "fixtures/exports/kubectl-no-system-classes.yaml")
        runs += [("check-cycles", f, "-o", o) for o in (OUT_CYCLES if full else CYCLES_SOME)]
        runs += [("check-cycles", f, "--format", "github")] if full else []
    for f in files("fixtures/cycles", "**/*"):
        runs += [("check-cycles", f, "--model", m, "-o", "json") for m in MODELS[1:]]
    cluster = ("--cluster", "fixtures/manifests/cluster.yaml")
    for f in files("fixtures/manifests"):
        if not f.endswith("/cluster.yaml"):
            runs += [("check-cycles", f, *cluster, "-o", o) for o in OUT_CYCLES]
            runs += [("check-cycles", f, *cluster, "--format", "github"),
                     ("check-cycles", f, *cluster, "-n", "ml", "-o", "json")]
    for f in files("fixtures/simulate"):
        runs += matrix("simulate", (f,), OUT)
        runs += [("simulate", f, "--no-requeue", "-o", o) for o in ("table", "json")]
        runs.append(("simulate", f, "--max-steps", "3", "-o", "json"))
    for f in files("fixtures/plan") + files("fixtures/cycles") + files("fixtures/api-versions"):
        runs += [("simulate", f, "-o", o) for o in ("table", "json")]
    for audit in AUDITS:
        runs += matrix("audit", audit, OUT)
    for stage in sorted((ROOT / EVENTS).glob("*/[23]-*")):
        before = ("--before", rel(stage.parent / "1-before"))
        pods = sorted({f"pod/{ns}/{n}" for s in (stage, stage.parent / "1-before")
                       for ns, n in ((o["metadata"].get("namespace", "default"),
                                      o["metadata"]["name"]) for o in load((rel(s),))
                                     if o.get("kind") == "Pod")})
        for i, pod in enumerate(pods):
            formats = OUT_TEXT if i == 0 else ("table", "wide", "json")
            runs += [("explain", pod, rel(stage), *before, "-o", o) for o in formats]
            runs += [("explain", pod, rel(stage), "-o", "json")] if i == 0 else []
        for extra in ((), before):
            runs += [("history", rel(stage), *extra, "-o", o) for o in OUT_TEXT]
    return list(dict.fromkeys(runs))


def slug(args: tuple[str, ...]) -> str:
    """A stable, filesystem-safe name: the readable args, then a hash of the exact args."""
    text = " ".join(args).replace("fixtures/", "").replace(EVENTS + "/", "")
    digest = hashlib.sha1("\0".join(args).encode()).hexdigest()[:10]
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", text).strip("_")[:150] + "." + digest


def run_one(python: str, args: tuple[str, ...], env: dict[str, str]) -> tuple[bytes, bytes, str]:
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
           if not k.startswith(("WAPCTL_", "KUBE", "FORCE_COLOR", "CLICOLOR"))}
    env |= {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb",
            "KUBECONFIG": "/nonexistent/wapctl-golden-kubeconfig"}
    runs = invocations()
    slugs = [slug(a) for a in runs]
    assert len(set(slugs)) == len(slugs), "slug collision"
    (outdir / "INDEX.tsv").write_text("".join(f"{s}\t{json.dumps(list(a))}\n"
                                              for s, a in zip(slugs, runs, strict=True)), encoding="utf-8")
    start = time.monotonic()
    codes: dict[tuple[str, ...], str] = {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_one, python, a, env): (s, a) for s, a in zip(slugs, runs, strict=True)}
        for n, fut in enumerate(cf.as_completed(futures), 1):
            s, a = futures[fut]
            out, err, rc = fut.result()
            (outdir / f"{s}.out").write_bytes(out)
            (outdir / f"{s}.err").write_bytes(err)
            (outdir / f"{s}.rc").write_text(rc + "\n", encoding="utf-8")
            codes[a] = rc
            if n % 200 == 0:
                print(f"  {n}/{len(runs)} ({time.monotonic() - start:.0f}s)", flush=True)
    wall = time.monotonic() - start
    per_cmd = Counter(next((x for x in a if not x.startswith("-")), a[0]) for a in runs)
    bad = [(a, rc) for a, rc in codes.items() if rc != "0"]
    print(f"{len(runs)} invocations in {wall:.1f}s with {jobs} jobs; {len(bad)} non-zero rc")
    print("per command: " + ", ".join(f"{c} {n}" for c, n in sorted(per_cmd.items())))
    rcs = Counter(f"{a[0]}:{rc}" for a, rc in bad)
    print("non-zero rc by command:exit: " + ", ".join(f"{k} {n}" for k, n in sorted(rcs.items())))
    return 0


def compare(a: Path, b: Path) -> int:
    names_a = {p.name for p in a.iterdir() if p.is_file()}
    names_b = {p.name for p in b.iterdir() if p.is_file()}
    differ = sorted(n for n in names_a & names_b
                    if (a / n).read_bytes() != (b / n).read_bytes())
    for n in sorted(names_a - names_b):
        print(f"only in {a}: {n}")
    for n in sorted(names_b - names_a):
        print(f"only in {b}: {n}")
    for n in differ:
        print(f"differs: {n}")
    total = len(names_a - names_b) + len(names_b - names_a) + len(differ)
    print(f"{len(names_a | names_b)} files compared, {total} differences")
    return 1 if total else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run every invocation, write OUTDIR/<slug>.out/.err/.rc")
    rec.add_argument("outdir", type=Path)
    rec.add_argument("--python", default=sys.executable, help="interpreter with wapctl")
    rec.add_argument("--jobs", type=int, default=2)
    cmp_ = sub.add_parser("compare", help="list files that differ; exit 1 if any")
    cmp_.add_argument("dir_a", type=Path)
    cmp_.add_argument("dir_b", type=Path)
    sub.add_parser("list", help="print the invocations")
    ns = parser.parse_args(argv)
    if ns.command == "record":
        return record(ns.outdir, ns.python, max(1, ns.jobs))
    if ns.command == "compare":
        return compare(ns.dir_a, ns.dir_b)
    for args in invocations():
        print(f"{slug(args)}\t{' '.join(args)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
