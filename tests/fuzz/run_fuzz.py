"""The long fuzz run (issue 8 §2): mutate the fixtures for a while and report every crash.

    python tests/fuzz/run_fuzz.py --seconds 600            # core path, and the CLI now and then
    python tests/fuzz/run_fuzz.py --seconds 60 --seed 7 --cli-every 5 --out /tmp/fuzz

Inputs come from the mutations in ``tests/fuzzing.py`` (the same ones ``tests/test_fuzz.py``
draws through hypothesis), driven here by a seeded ``random.Random`` because it is an order of
magnitude faster per input. Every input runs the core path (load, snapshot, preemptors, plan
and its document, the cycle check, a short simulate, an audit against the fixture); every
``--cli-every``-th also runs one wapctl command through Typer's CliRunner. A crash is any
exception that is not a ``WapctlError``, a run longer than ``--timeout`` seconds (a hang), a
CLI exit code outside 0-3 or a traceback in its output. Each distinct crash (exception type and
innermost wapctl frame) is saved once under ``--out`` with its input, and counted.

The address space is capped (``--memory``, default 4 GiB) so a blow-up shows as a MemoryError
instead of taking the machine down. Exit status: 0 no crash, 1 crashes found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

import fuzzing  # noqa: E402


class Hang(BaseException):
    """One input ran longer than the per-input timeout (BaseException: nothing may catch it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


def _where(exc: BaseException) -> str:
    """The innermost frame in wapctl (else the innermost at all): where the bug is."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}wapctl{os.sep}" in f.filename]
    f = (ours or frames or [None])[-1]
    if f is None:
        return "?"
    return f"{Path(f.filename).name}:{f.lineno} ({f.name})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="how long to run")
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    ap.add_argument("--cli-every", type=int, default=10,
                    help="run a CLI command on every N-th input (0: never)")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per input before a hang")
    ap.add_argument("--max-mutations", type=int, default=4)
    ap.add_argument("--memory", type=str, default="4Gi", help="address-space cap")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "wapctl-fuzz")
    a = ap.parse_args(argv)

    from typer.testing import CliRunner

    from wapctl.cli import app
    from wapctl.load import parse_size

    cap = parse_size(a.memory)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    a.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    chooser = fuzzing.RandomChooser(rng)
    corpus = fuzzing.load_corpus()
    bases = {name: fuzzing.base_documents(objs) for name, objs in corpus}
    runner = CliRunner()
    outcomes: Counter[str] = Counter()
    crashes: dict[str, int] = {}
    tried = cli_runs = 0
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="run-", dir=a.out))
    print(f"seed {a.seed}, {len(corpus)} fixtures, {a.seconds:.0f}s, out {a.out}", flush=True)
    next_report = started + 30
    while time.monotonic() - started < a.seconds:
        name, objects = chooser.choice(corpus)
        mutated = fuzzing.mutate(chooser, objects, a.max_mutations)
        fmt, data = fuzzing.serialise(chooser, mutated)
        tried += 1
        run_cli = a.cli_every > 0 and tried % a.cli_every == 0
        args: list[str] = []
        problem: str | None = None
        key = None
        signal.alarm(a.timeout)
        try:
            outcomes[fuzzing.exercise_core(data, bases[name])] += 1
            if run_cli:
                cli_runs += 1
                suffix = ".json" if fmt.startswith("json") else ".yaml"
                snap = work / f"snap{suffix}"
                snap.write_bytes(data)
                change = work / "change.yaml"
                change.write_bytes(data if rng.random() < 0.5 else b"kind: Node\n")
                args = fuzzing.cli_args(chooser, str(snap), str(change))
                result = runner.invoke(app, args, catch_exceptions=False)
                problem = fuzzing.check_cli_result(result.exit_code, result.output)
                if problem:
                    key = f"cli {args[0]}: {problem}: {result.output.strip()[-200:]}"
        except Hang:
            key = f"hang > {a.timeout}s"
            problem = key
        except BaseException as exc:  # every crash is recorded, then the run goes on
            if isinstance(exc, KeyboardInterrupt):
                raise
            key = f"{type(exc).__name__} at {_where(exc)}"
            problem = "".join(traceback.format_exception(exc))
        finally:
            signal.alarm(0)
        if key is not None:
            outcomes["CRASH"] += 1
            first = key not in crashes
            crashes[key] = crashes.get(key, 0) + 1
            if first:
                n = len(crashes)
                base = a.out / f"crash-{a.seed}-{n}"
                base.with_suffix(".input").write_bytes(data)
                base.with_suffix(".txt").write_text(
                    f"{key}\nfixture {name}, format {fmt}, cli {args}\n\n{problem}\n",
                    encoding="utf-8")
                print(f"NEW CRASH {n}: {key}  (fixture {name}, {fmt}; {base}.input)", flush=True)
        if time.monotonic() >= next_report:
            next_report += 30
            print(f"  {time.monotonic() - started:5.0f}s  {tried} inputs, {cli_runs} CLI runs, "
                  f"{len(crashes)} distinct crashes", flush=True)
    elapsed = time.monotonic() - started
    summary = {
        "seed": a.seed,
        "seconds": round(elapsed, 1),
        "inputs": tried,
        "cli_runs": cli_runs,
        "outcomes": dict(sorted(outcomes.items())),
        "distinct_crashes": len(crashes),
        "crashes": crashes,
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
