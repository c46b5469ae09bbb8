"""Reading real exports: every command against the bare decode of the same file.

The realistic presets are ``gen_snapshot.py --realistic`` snapshots (objects as an API server
serves them: managedFields, kubelet statuses, volumes, default tolerations, node images):

    real-2k   2,000 nodes / 30,256 pods, gang 256     JSON ~720 MB, YAML ~316 MB
    real-5k   5,000 nodes / 151k pods, gang 1,024     JSON ~3.6 GB, YAML ~1.5 GB
    real-10k  10,000 nodes / 301k pods, gang 1,024    JSON ~7 GB (generated in ~6 minutes)

For each file it runs, as fresh subprocesses with the default limits: the *floor* (the fastest
decode of the same file with the same library and no schema: ``msgspec.json.decode`` for JSON,
rapidyaml's tree for YAML, which the fast YAML path uses; ``--pyyaml-floor`` adds PyYAML's
``CSafeLoader``, the exact path) and wapctl's ``validate``,
``plan -o json``, ``check-cycles -o json``, ``audit -o json`` twice (``audit``: a change
adding one PriorityClass nothing names, so one graph and no plan; ``audit-moves``: the tier
class ``batch`` raised above ``production``, which moves Workloads and pod groups, adds
cycles, builds both graphs and plans both sides) and ``simulate -o json --max-steps 20``.
Each figure is the median of ``--repeat`` runs: CPU seconds (user + sys of the child: the
steady figure on a shared machine), wall seconds, peak RSS, and CPU as a multiple of the
floor. ``--baseline-python`` instead runs every command with two interpreters (two
checkouts' venvs) alternately and prints both medians and their ratio. A sha256 of every
command's stdout is printed: equal digests across code versions mean byte-identical output.

    python benchmarks/bench_reader.py --preset real-2k --format json --repeat 3
    python benchmarks/bench_reader.py --preset real-2k --format json \\
        --python /tmp/venv-main/bin/python --pythonpath /tmp/base   # "before": another checkout
    python benchmarks/bench_reader.py --preset real-2k --format json --repeat 3 \\
        --baseline-python /tmp/base/.venv/bin/python   # before vs now, run by run (A/B)

``--format yaml --stream`` reads the same objects as a stream of documents, one object each
(as ``helm template`` and ``kustomize build`` write manifests), not a List; ``--head 64``
only its first 64 MiB of documents (a partial export: a warning for each pod whose class or
pod group the rest held, each naming its object's line); ``--anchor`` adds a document with
an anchor, which only PyYAML reads.

Files are written to ``--out`` (default /tmp/wapctl-bench, several GB for real-5k: check
``df -h`` first) and reused while the generator version matches. ``--timeout`` bounds each run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_snapshot as gen  # noqa: E402  (benchmarks/ is not a package)

PRESETS = {
    "real-2k": gen.Params(nodes=2000, pods_per_node=15, gang_size=256, realistic=True),
    "real-5k": gen.Params(nodes=5000, pods_per_node=30, gang_size=1024, realistic=True),
    "real-10k": gen.Params(nodes=10000, pods_per_node=30, gang_size=1024, realistic=True),
}
FLOOR = {
    "json": (
        "import gc, sys, msgspec; gc.disable(); msgspec.json.decode(open(sys.argv[1], 'rb').read())"
    ),
    # the library of the fast YAML path: rapidyaml's tree, its nodes reserved (wapctl does that)
    "yaml": (
        "import gc, sys, ryml; gc.disable(); d = open(sys.argv[1], 'rb').read(); "
        "t = ryml.Tree(); t.reserve(d.count(b'\\n') * 9 // 8 + 64); ryml.parse_in_arena(d, t)"
    ),
    # what the exact YAML path costs (PyYAML's C loader): --pyyaml-floor, ~64 s and 10 GB on
    # the 2k export
    "pyyaml": (
        "import gc, sys, yaml; gc.disable(); "
        "yaml.load(open(sys.argv[1], 'rb'), Loader=yaml.CSafeLoader)"
    ),
}
FLOOR_LABEL = {"json": "msgspec", "yaml": "rapidyaml", "pyyaml": "PyYAML C"}
# audit's change: a class nothing names yet (nothing a graph or a plan reads changes: one graph,
# no plan) ...
CHANGE = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: bench-audit-new}
value: 7
preemptionPolicy: PreemptLowerPriority
"""
# ... and a change that moves members: the generator's tier class ``batch`` (2000) above
# ``production`` (4000): the Workloads and pod groups naming it move, cycles appear, both
# graphs are built and the preemptors are planned on both sides (audit-moves)
CHANGE_MOVES = """\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch}
value: 4500
preemptionPolicy: PreemptLowerPriority
description: Tier 1 workloads.
"""


def commands(path: Path, change: Path, moves: Path, workload: str) -> dict[str, list[str]]:
    p = str(path)
    return {
        "validate": ["validate", p],
        "plan": ["plan", p, "--workload", workload, "-o", "json"],
        "check-cycles": ["check-cycles", p, "-o", "json"],
        "audit": ["audit", p, "--change", str(change), "-o", "json"],
        "audit-moves": ["audit", p, "--change", str(moves), "-o", "json"],
        "simulate": ["simulate", p, "-o", "json", "--max-steps", "20"],
    }


# Every child runs here: ``python -c`` puts its working directory first on sys.path, so started
# from a checkout it would import that checkout's wapctl whatever interpreter runs it.
_NEUTRAL = "/"


def run(
    cmd: list[str], env: dict[str, str], timeout: float
) -> tuple[float, float, float, int, str]:
    """CPU seconds, wall seconds, peak RSS (MB), exit code, sha256 of stdout."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=_NEUTRAL)
    digest = hashlib.sha256()
    deadline = started + timeout
    assert proc.stdout is not None
    while chunk := proc.stdout.read(1 << 20):
        digest.update(chunk)
        if time.perf_counter() > deadline:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    rc = os.waitstatus_to_exitcode(status)
    if rc not in (0, 1, 3):
        sys.stderr.write(f"{' '.join(cmd[:6])}... exit {rc}: {err.decode()[-500:]}\n")
    return (
        usage.ru_utime + usage.ru_stime,
        wall,
        usage.ru_maxrss / 1024,
        rc,
        digest.hexdigest()[:16],
    )


def _compile_bytecode(python: str, env: dict[str, str]) -> str:
    """Compile the wapctl package the timed interpreter imports, as ``pip install`` does: with
    PYTHONDONTWRITEBYTECODE set (as in some shells and containers) and no ``__pycache__``,
    every run would otherwise compile wapctl's sources again (~0.3 s CPU per command) -- a
    cost no installed wapctl pays. Returns the package directory compiled."""
    where = subprocess.run(
        [python, "-c", "import os, wapctl; print(os.path.dirname(wapctl.__file__))"],
        env=env, capture_output=True, text=True, check=True, cwd=_NEUTRAL,
    ).stdout.strip()
    subprocess.run([python, "-m", "compileall", "-q", where], env=env, check=True)
    return where


_HASH = b"pod-template-hash: "
_RISKY_VALUE = "0734851389"  # --risky-value's default: its files keep their first names


def _risky_variant(path: Path, share: float, value: str) -> Path:
    """A copy of the YAML export at ``path`` where every ``round(1 / share)``-th
    pod-template-hash label reads ``value``, plain, as PyYAML's emitter writes a string YAML 1.1
    reads as one: ``0734851389`` (no octal number with an 8 or 9; a string to the fast path too)
    or ``4e10392`` (a short commit id: a number to JSON, so its items go to PyYAML) -- the input
    Python tooling makes, which the fast YAML path must not hand to PyYAML whole. Same objects
    otherwise; made once per share and value."""
    every = max(1, round(1 / share))
    tag = "" if value == _RISKY_VALUE else f"-{value}"
    out = path.with_name(f"{path.stem}-risky{every}{tag}{path.suffix}")
    if out.exists():
        return out
    n = 0
    with path.open("rb") as src, out.with_suffix(".tmp").open("wb") as dst:
        for line in src:
            at = line.find(_HASH)
            if at >= 0 and line[at + len(_HASH):].strip().isalnum():
                n += 1
                if n % every == 0:
                    line = line[: at + len(_HASH)] + value.encode() + b"\n"
            dst.write(line)
    out.with_suffix(".tmp").replace(out)
    print(f"{out.name}: {n // every} of {n} pod-template-hash labels written {value}")
    return out


def _stream_variant(path: Path) -> Path:
    """A copy of the YAML List export at ``path`` as a stream of documents, one object each
    (as ``helm template`` or ``kustomize build`` write manifests): every item's lines, out of
    the List, after a ``---``. Same objects; made once."""
    out = path.with_name(f"{path.stem}-stream{path.suffix}")
    if out.exists():
        return out
    n = 0
    with path.open("rb") as src, out.with_suffix(".tmp").open("wb") as dst:
        inside = False
        for line in src:
            if line.startswith(b"- "):
                inside = True
                n += 1
                dst.write(b"---\n" + line[2:])
            elif inside and line.startswith(b"  "):
                dst.write(line[2:])
            elif inside and not line.strip():
                dst.write(line)  # a blank line inside an item (a block scalar's)
            else:
                inside = False  # the List's own keys: not in the stream
    out.with_suffix(".tmp").replace(out)
    print(f"{out.name}: {n} documents")
    return out


def _head_variant(path: Path, mib: int) -> Path:
    """The first ``mib`` MiB of the stream at ``path``, cut before a document: a partial
    export, whose pods name PriorityClasses and pod groups the rest of the file held (a warning
    each, every one naming its object's line). Made once."""
    out = path.with_name(f"{path.stem}-head{mib}{path.suffix}")
    if out.exists():
        return out
    with path.open("rb") as src:
        text = src.read(mib << 20)
    cut = text.rfind(b"\n---\n")
    out.with_suffix(".tmp").write_bytes(text[: cut + 1])
    out.with_suffix(".tmp").replace(out)
    return out


_ANCHOR_DOC = (
    b'---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: wapctl-bench-anchor, namespace: x}\n'
    b'data: {a: &v "1", b: *v}\n'
)


def _anchor_variant(path: Path) -> Path:
    """The YAML at ``path`` with one more document holding an anchor and its alias (an
    ignored ConfigMap): only PyYAML reads anchors, so the whole input goes to it. Made once."""
    out = path.with_name(f"{path.stem}-anchor{path.suffix}")
    if not out.exists():
        text = path.read_bytes()
        out.with_suffix(".tmp").write_bytes(text + _ANCHOR_DOC)
        out.with_suffix(".tmp").replace(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="real-2k")
    ap.add_argument("--format", choices=("json", "yaml"), default="json")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated commands (default: all)")
    ap.add_argument("--no-floor", action="store_true")
    ap.add_argument("--pyyaml-floor", action="store_true", help="YAML: also PyYAML's C loader")
    ap.add_argument("--python", default=sys.executable, help="interpreter that runs wapctl")
    ap.add_argument("--pythonpath", default="", help="PYTHONPATH for it (another checkout)")
    ap.add_argument(
        "--max-input-size", default="", help="passed to every command (versions with 256Mi)"
    )
    ap.add_argument(
        "--baseline-python", default="",
        help="also run every command with this interpreter (another checkout's venv), "
        "interleaved run by run with --python: the A/B this VM's drifting speed needs",
    )
    ap.add_argument(
        "--risky-share", type=float, default=0.0,
        help="YAML: write this share of the pods' pod-template-hash labels as PyYAML's emitter "
        "leaves a string YAML 1.1 reads as one (--risky-value, plain)",
    )
    ap.add_argument(
        "--risky-value", default=_RISKY_VALUE,
        help="the label --risky-share writes: 0734851389 (both readers' string) or e.g. 4e10392 "
        "(YAML 1.1's string, JSON's number: read by PyYAML)",
    )
    ap.add_argument(
        "--stream", action="store_true",
        help="YAML: the export as a stream of documents, one object each (as helm and "
        "kustomize write manifests), not a List",
    )
    ap.add_argument(
        "--head", type=int, default=0, metavar="MIB",
        help="with --stream: only the documents of the stream's first MIB MiB (a partial "
        "export: many warnings, each naming its object's line)",
    )
    ap.add_argument(
        "--anchor", action="store_true",
        help="YAML: add a document holding an anchor, so PyYAML reads the whole input",
    )
    ap.add_argument("--out", type=Path, default=Path("/tmp/wapctl-bench"))
    ap.add_argument("--timeout", type=float, default=300.0)
    a = ap.parse_args()
    a.out = a.out.resolve()  # the children run in _NEUTRAL

    params = PRESETS[a.preset]
    path = a.out / f"{a.preset}-{params.tag()}.{a.format}"
    if not path.exists():
        print(f"generating {path} ...", flush=True)
        gen.write_snapshot(params, {a.format: path})
    if a.risky_share:
        if a.format != "yaml":
            ap.error("--risky-share needs --format yaml")
        path = _risky_variant(path, a.risky_share, a.risky_value)
    if a.stream:
        if a.format != "yaml":
            ap.error("--stream needs --format yaml")
        path = _stream_variant(path)
    if a.head:
        if not a.stream:
            ap.error("--head needs --stream")
        path = _head_variant(path, a.head)
    if a.anchor:
        if a.format != "yaml":
            ap.error("--anchor needs --format yaml")
        path = _anchor_variant(path)
    change = a.out / "bench-audit-change.yaml"
    change.write_text(CHANGE)
    moves = a.out / "bench-audit-moves.yaml"
    moves.write_text(CHANGE_MOVES)
    env = dict(os.environ)
    if a.pythonpath:
        env["PYTHONPATH"] = a.pythonpath
    size_mb = path.stat().st_size / 1e6
    compiled = _compile_bytecode(a.python, env)
    wapctl = [a.python, "-c", "from wapctl.cli import main; main()"]
    rows: list[tuple[str, list[str]]] = []
    if not a.no_floor:
        floors = [a.format] + (["pyyaml"] if a.format == "yaml" and a.pyyaml_floor else [])
        for floor_name in floors:
            rows.append(
                (
                    f"floor ({FLOOR_LABEL[floor_name]})",
                    [a.python, "-c", FLOOR[floor_name], str(path)],
                )
            )
    only = set(filter(None, a.only.split(",")))
    for name, args in commands(path, change, moves, params.preemptor).items():
        if not only or name in only:
            extra = ["--max-input-size", a.max_input_size] if a.max_input_size else []
            rows.append((name, [*wapctl, *args, *extra]))

    if a.baseline_python:
        _ab(rows, a, env, path, size_mb)
        return
    print(
        f"{path.name}: {size_mb:.0f} MB; median of {a.repeat}; python {a.python}"
        + (f" PYTHONPATH={a.pythonpath}" if a.pythonpath else "")
        + f"; bytecode compiled first: {compiled}"
    )
    print(f"| {'command':<18} | CPU s | wall s | peak RSS MB | x floor | exit | stdout sha256 |")
    print("|---|---:|---:|---:|---:|---:|---|")
    floor = None
    for label, cmd in rows:
        samples = [run(cmd, env, a.timeout) for _ in range(a.repeat)]
        cpu = statistics.median(s[0] for s in samples)
        wall = statistics.median(s[1] for s in samples)
        rss = max(s[2] for s in samples)
        digests = {s[4] for s in samples}
        if label.startswith("floor") and floor is None:
            floor = cpu
        ratio = f"{cpu / floor:.2f}" if floor else "-"
        print(
            f"| {label:<18} | {cpu:.2f} | {wall:.2f} | {rss:.0f} | {ratio} | "
            f"{samples[0][3]} | {','.join(sorted(digests))} |",
            flush=True,
        )
    print(json.dumps({"file": str(path), "bytes": path.stat().st_size}))


def _ab(rows: list[tuple[str, list[str]]], a: argparse.Namespace, env: dict[str, str],
        path: Path, size_mb: float) -> None:
    """Each command with the baseline interpreter and with --python, alternately, ``--repeat``
    rounds; medians of CPU seconds and the ratio (this VM's CPU speed drifts by 10-25 % over an
    hour, so only runs side by side compare)."""
    base_dir = _compile_bytecode(a.baseline_python, env)
    print(f"{path.name}: {size_mb:.0f} MB; A/B, {a.repeat} interleaved rounds; "
          f"baseline {a.baseline_python} ({base_dir}); new {a.python}")
    print(f"| {'command':<18} | baseline CPU s | new CPU s | new / baseline | baseline RSS MB "
          "| new RSS MB | same stdout |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, cmd in rows:
        if label.startswith("floor"):
            continue
        base_cmd = [a.baseline_python, *cmd[1:]]
        old, new = [], []
        for _ in range(a.repeat):
            old.append(run(base_cmd, env, a.timeout))
            new.append(run(cmd, env, a.timeout))
        b = statistics.median(s[0] for s in old)
        n = statistics.median(s[0] for s in new)
        same = {s[4] for s in old} == {s[4] for s in new} and len({s[4] for s in new}) == 1
        print(f"| {label:<18} | {b:.2f} | {n:.2f} | {n / b:.2f} | {max(s[2] for s in old):.0f} "
              f"| {max(s[2] for s in new):.0f} | {'yes' if same else 'NO'} "
              f"({new[0][4][:8]}) |", flush=True)


if __name__ == "__main__":
    main()
