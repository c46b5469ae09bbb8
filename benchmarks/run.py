"""Time ``wapctl plan`` against the bare cost of reading the same snapshot.

Every figure is a fresh subprocess (interpreter start-up is in both sides), repeated and
interleaved (reader, plan, reader, plan, ...) after one untimed warm-up run that fills the page
cache and checks that the plan works. Medians are the headline; min/max show the noise (the
machine is shared). Snapshots come from ``gen_snapshot.py`` and are cached in
``benchmarks/out/``.

    python benchmarks/run.py --preset 2k              # 2,000 nodes / 30k pods / 256-pod gang
    python benchmarks/run.py --preset 5k              # 5,000 nodes / 150k pods / 1,024-pod gang
    python benchmarks/run.py --sweep pods             # growth with cluster size, gang fixed
    python benchmarks/run.py --sweep gang             # growth with gang size, cluster fixed
    python benchmarks/run.py --preset 2k --profile    # pyinstrument profile of one plan

Run it with the project's interpreter (``/work/venv/bin/python benchmarks/run.py``): the plan
subprocesses use ``sys.executable``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import gc
import hashlib
import io
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE))

import gen_snapshot as gen  # noqa: E402  (benchmarks/ is not a package)

JSON_LOAD = 'import json, sys; json.load(open(sys.argv[1], "rb"))'
YAML_LOAD = 'import sys, yaml; yaml.load(open(sys.argv[1], "rb"), Loader=yaml.CSafeLoader)'
YAML_LOAD_NOGC = "import gc; gc.disable(); " + YAML_LOAD
JSON_LOAD_NOGC = 'import gc, json, sys; gc.disable(); json.load(open(sys.argv[1], "rb"))'
PLAN = "from wapctl.cli import main; main()"
DEFAULT_MAX_INPUT = 256 * 1024 * 1024  # wapctl's default --max-input-size (256Mi)

PRESETS: dict[str, gen.Params] = {
    "2k": gen.Params(nodes=2000, pods_per_node=15, gang_size=256),
    "5k": gen.Params(nodes=5000, pods_per_node=30, gang_size=1024),
    # The 2k cluster with 20% of its pods carrying a hostname anti-affinity or a zone spread:
    # the inter-pod filters' cost (issue 13: within 2x of 2k); -gang: the gang spreads too.
    "2k-constrained": gen.Params(nodes=2000, pods_per_node=15, gang_size=256,
                                 constrained_share=0.2),
    "2k-constrained-gang": gen.Params(nodes=2000, pods_per_node=15, gang_size=256,
                                      constrained_share=0.2, constrained_gang=True),
}
PRESET_FORMATS = {"2k": ("json", "yaml"), "5k": ("json",), "2k-constrained": ("json",),
                  "2k-constrained-gang": ("json",)}
SWEEP_PODS = (5_000, 10_000, 20_000, 40_000, 80_000)  # bound pods, 15 per node, gang 256
SWEEP_GANG = (16, 32, 64, 128, 256, 512, 1024)  # at 2,000 nodes / 30k pods


# ---- running and timing one command ---------------------------------------------------------


@dataclasses.dataclass
class Sample:
    wall: float
    cpu: float  # user + sys of the child
    rss_mb: float  # peak resident set of the child
    rc: int
    digest: str  # sha256 of stdout


def run_timed(cmd: Sequence[str], stdout_path: Path) -> Sample:
    """Run ``cmd`` with stdout to a file; wall clock, rusage and an output digest."""
    err_path = Path(f"{stdout_path}.stderr")
    with open(stdout_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    digest = hashlib.sha256(stdout_path.read_bytes()).hexdigest()
    return Sample(
        wall=wall,
        cpu=usage.ru_utime + usage.ru_stime,
        rss_mb=usage.ru_maxrss / 1024,
        rc=proc.returncode,
        digest=digest,
    )


@dataclasses.dataclass
class Series:
    """Repeated timings of one command."""

    label: str
    cmd: list[str]
    samples: list[Sample] = dataclasses.field(default_factory=list)

    @property
    def walls(self) -> list[float]:
        return [s.wall for s in self.samples]

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu_median(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def rss(self) -> float:
        return max(s.rss_mb for s in self.samples)

    def fmt(self) -> str:
        return f"{self.median:.2f} [{min(self.walls):.2f}–{max(self.walls):.2f}]"

    @property
    def deterministic(self) -> bool:
        return len({s.digest for s in self.samples}) == 1


def plan_command(path: Path, preemptor: str) -> list[str]:
    cmd = [sys.executable, "-c", PLAN, "plan", rel(path), "-o", "json", "--workload", preemptor]
    if path.stat().st_size > DEFAULT_MAX_INPUT:
        cmd += ["--max-input-size", "4Gi"]
    return cmd


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def show_cmd(cmd: Sequence[str]) -> str:
    """A copy-pasteable command line, with ``python`` for the interpreter."""
    return shlex.join(["python", *cmd[1:]])


def plan_available() -> str | None:
    """None when ``wapctl plan`` can be imported; else why not (the warm-up run checks more)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import wapctl.cli, wapctl.commands.plan"],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["importing wapctl.cli failed"])[-1]
    return None


# ---- snapshots ------------------------------------------------------------------------------


def snapshot(params: gen.Params, formats: Sequence[str], *, quiet: bool = False) -> dict[str, Any]:
    """The cached snapshot files for ``params`` (generated on first use) and their stats."""
    OUT.mkdir(exist_ok=True)
    base = OUT / f"snap-{params.tag()}"
    meta_path = Path(f"{base}.meta.json")
    paths = {fmt: Path(f"{base}.{fmt}") for fmt in ("json", "yaml")}
    meta: dict[str, Any] = {}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
    missing = {f: paths[f] for f in set(formats) | {"json"} if not paths[f].exists()}
    if missing or not meta:
        if not meta:
            missing = {f: paths[f] for f in set(formats) | {"json"}}
        if not quiet:
            print(f"generating {', '.join(rel(p) for p in missing.values())} ...", file=sys.stderr)
        stats = gen.write_snapshot(params, missing)
        meta = {**meta, **stats} if meta else stats
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    meta["paths"] = {f: p for f, p in paths.items() if p.exists()}
    return meta


# ---- one benchmark case --------------------------------------------------------------------


@dataclasses.dataclass
class CaseResult:
    name: str
    params: gen.Params
    meta: dict[str, Any]
    fmt: str
    readers: list[Series]
    plan: Series | None
    plan_doc: dict[str, Any] | None
    note: str = ""


class CaseFailed(Exception):
    """A command of one case failed in its warm-up run; the other cases still run."""


def sources_digest() -> str:
    """A digest of wapctl's sources: tells a changed program from a nondeterministic one."""
    h = hashlib.sha256()
    for path in sorted((REPO / "wapctl").rglob("*.py")):
        h.update(str(path).encode())
        with contextlib.suppress(OSError):
            h.update(path.read_bytes())
    return h.hexdigest()


def measure(
    name: str,
    params: gen.Params,
    fmt: str,
    repeat: int,
    *,
    with_plan: bool,
    gc_baseline: bool = False,
) -> CaseResult:
    meta = snapshot(params, (fmt,))
    path: Path = meta["paths"][fmt]
    json_path: Path = meta["paths"]["json"]
    readers = []
    if fmt == "yaml":
        readers.append(
            Series("yaml.load(CSafeLoader)", [sys.executable, "-c", YAML_LOAD, rel(path)])
        )
    readers.append(Series("json.load", [sys.executable, "-c", JSON_LOAD, rel(json_path)]))
    if gc_baseline and fmt == "yaml":
        readers.append(
            Series(
                "yaml.load(CSafeLoader), gc off", [sys.executable, "-c", YAML_LOAD_NOGC, rel(path)]
            )
        )
    if gc_baseline and fmt == "json":
        readers.append(
            Series("json.load, gc off", [sys.executable, "-c", JSON_LOAD_NOGC, rel(json_path)])
        )
    plan = Series("wapctl plan", plan_command(path, params.preemptor)) if with_plan else None
    series = [*readers, *([plan] if plan else [])]
    tag = f"{params.tag()}.{fmt}"
    outputs = {id(s): OUT / f"stdout-{tag}-{i}.txt" for i, s in enumerate(series)}
    print(f"[{name} {fmt}] warm-up ...", file=sys.stderr)
    note = ""
    src_before = sources_digest()
    warm_digest = ""
    for s in series:  # untimed warm-up: page cache, and fail early if the plan cannot run
        warm = run_timed(s.cmd, outputs[id(s)])
        if warm.rc not in (0, 3):
            err = Path(f"{outputs[id(s)]}.stderr").read_text(errors="replace")
            raise CaseFailed(f"`{show_cmd(s.cmd)}` exited {warm.rc}: {err.strip()[-1500:]}")
        if s is plan:
            warm_digest = warm.digest
    for i in range(repeat):
        for s in series:
            s.samples.append(run_timed(s.cmd, outputs[id(s)]))
        print(
            f"[{name} {fmt}] run {i + 1}/{repeat}: "
            + ", ".join(f"{s.label} {s.samples[-1].wall:.2f}s" for s in series),
            file=sys.stderr,
        )
    plan_doc = None
    if plan:
        try:
            plan_doc = json.loads(outputs[id(plan)].read_text())
        except ValueError:
            note = "plan output is not JSON"
        if not plan.deterministic or plan.samples[0].digest != warm_digest:
            if sources_digest() != src_before:
                note = "wapctl's sources changed during this case (others are committing); "
                note += "plan outputs differed, the timings mix two versions"
            else:
                note = "plan output differed between runs of the same code: NONDETERMINISTIC"
    return CaseResult(name, params, meta, fmt, readers, plan, plan_doc, note)


def plan_summary(doc: dict[str, Any] | None) -> str:
    if not doc:
        return "—"
    summary = doc.get("summary", {})
    return (
        f"{doc.get('status')}: {len(doc.get('placements', []))} placed, "
        f"{summary.get('victimPods', '?')} victim pods / {summary.get('victimUnits', '?')} units "
        f"on {summary.get('nodesTouched', '?')} nodes"
    )


# ---- reports --------------------------------------------------------------------------------


def machine_facts() -> list[str]:
    cpu = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "wapctl"],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
    ).stdout.strip()
    yaml_c = "unknown"
    with contextlib.suppress(ImportError):
        import yaml

        yaml_c = f"PyYAML {yaml.__version__}, libyaml {'yes' if yaml.__with_libyaml__ else 'NO'}"
    return [
        (
            f"- Machine: nproc {affinity} ({os.cpu_count()} CPUs), {cpu}, "
            f"{platform.system()} {platform.release()}"
        ),
        f"- Python {platform.python_version()} ({platform.python_implementation()}), {yaml_c}",
        f"- wapctl commit {commit or '?'}{' + uncommitted changes in wapctl/' if dirty else ''}",
    ]


def header(argv: Sequence[str], repeat: str, load_before: tuple[float, ...]) -> list[str]:
    load_after = os.getloadavg()
    return [
        (
            f"Command: `{shlex.join(['python', 'benchmarks/run.py', *argv])}` "
            f"({dt.datetime.now().strftime('%Y-%m-%d %H:%M')})"
        ),
        "",
        *machine_facts(),
        (
            f"- Load average (1 min) {load_before[0]:.2f} at start, {load_after[0]:.2f} at end "
            "(the machine is shared with other jobs: medians are the figure to read)"
        ),
        (
            f"- Each figure: wall-clock seconds, median of {repeat} runs [min–max], each a "
            "fresh subprocess (interpreter start-up included on both sides), after one untimed "
            "warm-up run; CPU = user+sys seconds of the process"
        ),
    ]


def mb(n: int) -> str:
    return f"{n / 1e6:.0f} MB"


def preset_table(results: list[CaseResult]) -> list[str]:
    lines = [
        (
            "| case | plan input | reader | reader s | `wapctl plan` s | **plan / reader** "
            "| reader CPU s | plan CPU s | CPU ratio | plan peak RSS | plan result |"
        ),
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        counts = r.meta["counts"]
        case = (
            f"{r.name}: {counts['Node']:,} nodes, {counts['Pod']:,} pods, "
            f"gang {r.params.gang_size:,}"
        )
        for reader in r.readers:
            src = "yaml" if reader.label.startswith("yaml") else "json"
            plan = r.plan
            lines.append(
                f"| {case} | {r.fmt.upper()} {mb(r.meta[f'{r.fmt}_bytes'])} "
                f"| {reader.label} ({src.upper()} {mb(r.meta[f'{src}_bytes'])}) | {reader.fmt()} "
                + (
                    f"| {plan.fmt()} | **{plan.median / reader.median:.2f}x** "
                    f"| {reader.cpu_median:.2f} | {plan.cpu_median:.2f} "
                    f"| {plan.cpu_median / reader.cpu_median:.2f}x "
                    f"| {plan.rss:,.0f} MB | {plan_summary(r.plan_doc)} |"
                    if plan
                    else f"| — | — | {reader.cpu_median:.2f} | — | — | — | plan not run |"
                )
            )
    return lines


def sweep_table(kind: str, results: list[CaseResult]) -> list[str]:
    """One row per size. The slope column is (plan CPU - first row's) / (size - first row's):
    the cost of one more pod (gang pod) with the fixed start-up cost taken out; it stays flat
    when growth is linear."""
    first, unit = ("gang", "gang pod") if kind == "gang" else ("bound pods", "pod")
    lines = [
        (
            f"| {first} | nodes | pods | JSON | json.load s | `wapctl plan` s | plan / json.load "
            f"| json.load CPU s | plan CPU s | CPU ratio | plan CPU µs / pod "
            f"| slope: plan CPU µs / extra {unit} | victims |"
        ),
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    first_row: tuple[int, float] | None = None
    for r in results:
        counts = r.meta["counts"]
        pods = counts["Pod"]
        reader = next(x for x in r.readers if x.label == "json.load")
        lead = r.params.gang_size if kind == "gang" else r.meta["bound_pods"]
        p = r.plan
        if p is None:
            cells = "— | — | — | — | — | — | — | —"
        else:
            victims = (r.plan_doc or {}).get("summary", {}).get("victimPods", "?")
            x = r.params.gang_size if kind == "gang" else pods
            slope = "—"
            if first_row is None:
                first_row = (x, p.cpu_median)
            elif x != first_row[0]:
                slope = f"{(p.cpu_median - first_row[1]) / (x - first_row[0]) * 1e6:,.0f}"
            cells = (
                f"{p.fmt()} | {p.median / reader.median:.2f}x | {reader.cpu_median:.2f} "
                f"| {p.cpu_median:.2f} | {p.cpu_median / reader.cpu_median:.2f}x "
                f"| {p.cpu_median / pods * 1e6:.0f} | {slope} | {victims}"
            )
        lines.append(
            f"| {lead:,} | {counts['Node']:,} | {pods:,} | {mb(r.meta['json_bytes'])} "
            f"| {reader.fmt()} | {cells} |"
        )
    return lines


def commands_block(results: list[CaseResult]) -> list[str]:
    """The timed command lines, with the snapshot file as FILE, then the files."""
    lines = ["", "Commands timed (from the repository root; FILE is each snapshot below):", ""]
    templates: list[str] = []
    files: list[str] = []
    for r in results:
        for s in [*r.readers, *([r.plan] if r.plan else [])]:
            text = show_cmd(s.cmd)
            for path in r.meta["paths"].values():
                if rel(path) in text:
                    text = text.replace(rel(path), "FILE")
                    if rel(path) not in files:
                        files.append(rel(path))
            if text not in templates:
                templates.append(text)
    lines += ["```", *templates, "```", "", *[f"- `{f}`" for f in files]]
    return lines


# ---- profile --------------------------------------------------------------------------------


def profile(params: gen.Params, fmt: str, interval: float) -> list[str]:
    """Run one plan in this process under pyinstrument; write HTML/text; return the hot spots."""
    from pyinstrument import Profiler

    meta = snapshot(params, (fmt,))
    path: Path = meta["paths"][fmt]
    argv = plan_command(path, params.preemptor)[3:]
    stem = OUT / f"profile-{params.tag()}.{fmt}"
    old_argv = sys.argv
    sys.argv = ["wapctl", *argv]
    sink = io.StringIO()
    profiler = Profiler(interval=interval)
    rc: Any = 0
    gc_log: list[tuple[int, float]] = []  # (generation, seconds) per collection
    gc_started = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        # Collections run inside whatever frame allocates, so the profile spreads them over
        # random functions; time them separately.
        if phase == "start":
            gc_started[0] = time.perf_counter()
        else:
            gc_log.append((info["generation"], time.perf_counter() - gc_started[0]))

    gc.callbacks.append(on_gc)
    profiler.start()
    try:
        with contextlib.redirect_stdout(sink):
            from wapctl.cli import main

            main()
    except SystemExit as exc:
        rc = exc.code
    finally:
        profiler.stop()
        gc.callbacks.remove(on_gc)
        sys.argv = old_argv
    Path(f"{stem}.plan.json").write_text(sink.getvalue())
    html = Path(f"{stem}.html")
    text = Path(f"{stem}.txt")
    html.write_text(profiler.output_html())
    text.write_text(profiler.output_text(unicode=True, color=False, show_all=False))
    session = profiler.last_session
    root = session.root_frame()
    total = session.duration
    own, incl = hot_spots(root)
    lines = [
        (
            f"Profile of `{shlex.join(['wapctl', *argv])}` in-process under pyinstrument "
            f"(interval {interval * 1000:g} ms): {total:.2f} s, exit {rc}. "
            f"Reports: `{rel(html)}`, `{rel(text)}`."
        ),
        "",
        gc_summary(gc_log, total),
        "",
        "Top functions by own time (time spent in the function itself, not its callees):",
        "",
        "| # | function | file | own s | share |",
        "|---:|---|---|---:|---:|",
    ]
    for i, ((file, func), t) in enumerate(own[:15], 1):
        lines.append(f"| {i} | `{func}` | `{file}` | {t:.2f} | {t / total:.1%} |")
    lines += [
        "",
        "wapctl functions by inclusive time (with callees; recursion counted once):",
        "",
        "| function | file | total s | share |",
        "|---|---|---:|---:|",
    ]
    for (file, func), t in [kv for kv in incl if "wapctl/" in kv[0][0]][:20]:
        lines.append(f"| `{func}` | `{file}` | {t:.2f} | {t / total:.1%} |")
    return lines


def gc_summary(log: list[tuple[int, float]], total: float) -> str:
    """One line: how long the cyclic garbage collector ran during the profiled plan."""
    spent = sum(d for _, d in log)
    per_gen = {}
    for gen_, d in log:
        n, t = per_gen.get(gen_, (0, 0.0))
        per_gen[gen_] = (n + 1, t + d)
    parts = ", ".join(f"gen {g}: {n} in {t:.2f} s" for g, (n, t) in sorted(per_gen.items()))
    longest = max((d for _, d in log), default=0.0)
    return (
        f"Garbage collector: {len(log)} collections, {spent:.2f} s ({spent / total:.1%} of the "
        f"run; longest {longest:.2f} s; {parts or 'none'}). Its time shows up in the tables "
        "below under whichever function happened to allocate when a collection started."
    )


def short_path(path: str | None) -> str:
    if not path:
        return "?"
    for marker in ("/site-packages/", "/lib/python"):
        if marker in path:
            return path.split(marker, 1)[1]
    with contextlib.suppress(ValueError):
        return str(Path(path).resolve().relative_to(REPO))
    return path


def hot_spots(root: Any) -> tuple[list[tuple[tuple[str, str], float]], ...]:
    """Own time and inclusive time per (file, function), largest first."""
    own: dict[tuple[str, str], float] = {}
    incl: dict[tuple[str, str], float] = {}
    if root is None:
        return [], []
    stack: list[tuple[Any, frozenset]] = [(root, frozenset())]
    while stack:
        frame, active = stack.pop()
        if frame.is_synthetic:
            continue
        func = frame.function
        cls = getattr(frame, "class_name", None)
        key = (short_path(frame.file_path), f"{cls}.{func}" if cls else func)
        own[key] = own.get(key, 0.0) + frame.total_self_time
        if key not in active:
            incl[key] = incl.get(key, 0.0) + frame.time
        child_active = active | {key}
        stack.extend((c, child_active) for c in frame.children)

    def order(d: dict[tuple[str, str], float]) -> list[tuple[tuple[str, str], float]]:
        return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))

    return order(own), order(incl)


# ---- main -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(
        description="Time wapctl plan against json.load / yaml.load of the same snapshot."
    )
    ap.add_argument(
        "--preset",
        action="append",
        choices=sorted(PRESETS),
        help="2k: 2,000 nodes / 30k pods / 256-pod gang; "
        "5k: 5,000 nodes / 150k pods / 1,024-pod gang; "
        "2k-constrained: 2k with 20%% of pods under anti-affinity or spread; "
        "2k-constrained-gang: and a zone spread on the gang (repeatable)",
    )
    ap.add_argument(
        "--sweep",
        action="append",
        choices=("pods", "gang"),
        help=f"pods: {', '.join(map(str, SWEEP_PODS))} bound pods (15 per node, "
        f"gang 256); gang: {', '.join(map(str, SWEEP_GANG))} at 2,000 nodes",
    )
    ap.add_argument(
        "--formats",
        help="inputs for presets, e.g. json or json,yaml (default: json,yaml for 2k, json for 5k)",
    )
    ap.add_argument("-n", "--repeat", type=int, default=5, help="timed runs per command")
    ap.add_argument(
        "--yaml-repeat",
        type=int,
        default=3,
        help="timed runs per command for YAML input (libyaml is slow)",
    )
    ap.add_argument("--seed", type=int, default=gen.Params.seed)
    ap.add_argument(
        "--profile",
        action="store_true",
        help="also profile one plan of the first preset (default 2k) in-process with pyinstrument",
    )
    ap.add_argument("--profile-only", action="store_true", help="only the profile, no timings")
    ap.add_argument("--interval", type=float, default=0.001, help="pyinstrument sampling (s)")
    ap.add_argument("--no-plan", action="store_true", help="only the json/yaml baselines")
    ap.add_argument("--save", metavar="NAME", help="also write benchmarks/out/NAME.md")
    a = ap.parse_args(argv)
    if not a.preset and not a.sweep and not a.profile_only:
        a.preset = ["2k"]
    if a.profile_only:
        a.profile = True
        a.preset = a.preset or ["2k"]

    with_plan = not a.no_plan
    if with_plan:
        why = plan_available()
        if why:
            print(
                f"wapctl plan is not available ({why}); timing the baselines only.", file=sys.stderr
            )
            with_plan = False
            a.profile = False
    load_before = os.getloadavg()
    report: list[str] = []
    results_all: list[CaseResult] = []
    failures: list[str] = []

    def attempt(
        results: list[CaseResult],
        name: str,
        params: gen.Params,
        fmt: str,
        n: int,
        gc_baseline: bool = False,
    ) -> None:
        try:
            results.append(
                measure(name, params, fmt, n, with_plan=with_plan, gc_baseline=gc_baseline)
            )
        except CaseFailed as exc:
            print(f"[{name} {fmt}] FAILED: {exc}", file=sys.stderr)
            failures.append(f"- {name} {fmt} FAILED: {exc}")

    def seeded(p: gen.Params) -> gen.Params:
        return dataclasses.replace(p, seed=a.seed)

    if a.preset and not a.profile_only:
        results = []
        for name in a.preset:
            formats = a.formats.split(",") if a.formats else PRESET_FORMATS[name]
            for fmt in formats:
                n = a.yaml_repeat if fmt == "yaml" else a.repeat
                attempt(results, name, seeded(PRESETS[name]), fmt, n, gc_baseline=True)
        report += ["", "### Presets", "", *preset_table(results)]
        results_all += results
    for kind in a.sweep or []:
        results = []
        if kind == "pods":
            cases = [
                (
                    f"{pods // 1000}k pods",
                    gen.Params(nodes=round(pods / 15), pods_per_node=15, gang_size=256),
                )
                for pods in SWEEP_PODS
            ]
        else:
            cases = [
                (f"gang {g}", dataclasses.replace(PRESETS["2k"], gang_size=g)) for g in SWEEP_GANG
            ]
        for name, params in cases:
            attempt(results, name, seeded(params), "json", a.repeat)
        title = "pods (gang 256, 15 pods per node)" if kind == "pods" else "gang (2,000 nodes)"
        report += ["", f"### Sweep: {title}", "", *sweep_table(kind, results)]
        results_all += results
    notes = [f"- {r.name} {r.fmt}: {r.note}" for r in results_all if r.note] + failures
    if results_all:
        report += commands_block(results_all)
    if notes:
        report += ["", "Notes:", *notes]
    if a.profile:
        name = a.preset[0] if a.preset else "2k"
        report += ["", "### Profile", "", *profile(seeded(PRESETS[name]), "json", a.interval)]
    repeat_text = str(a.repeat) + (
        f" ({a.yaml_repeat} for YAML input)" if any(r.fmt == "yaml" for r in results_all) else ""
    )
    text = "\n".join(["## wapctl benchmark", "", *header(argv, repeat_text, load_before), *report])
    print(text)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    OUT.mkdir(exist_ok=True)
    (OUT / f"results-{stamp}.md").write_text(text + "\n")
    if a.save:
        (OUT / f"{a.save}.md").write_text(text + "\n")
        raw = [
            {
                "name": r.name,
                "format": r.fmt,
                "params": dataclasses.asdict(r.params),
                "counts": r.meta["counts"],
                "series": {
                    s.label: [dataclasses.asdict(x) for x in s.samples]
                    for s in [*r.readers, *([r.plan] if r.plan else [])]
                },
                "plan_summary": (r.plan_doc or {}).get("summary"),
                "note": r.note,
            }
            for r in results_all
        ]
        (OUT / f"{a.save}.json").write_text(json.dumps(raw, indent=2) + "\n")


if __name__ == "__main__":
    main()
