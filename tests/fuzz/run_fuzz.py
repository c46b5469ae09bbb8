"""The long fuzz run (issue 8 §2): mutate the fixtures for a while and report every crash.

    python tests/fuzz/run_fuzz.py --seconds 600            # core path, and the CLI now and then
    python tests/fuzz/run_fuzz.py --seconds 60 --seed 7 --cli-every 5 --out /tmp/fuzz
    python tests/fuzz/run_fuzz.py --seconds 300 --engine hypothesis

Inputs come from the mutations in ``tests/fuzzing.py`` (the same ones ``tests/test_fuzz.py``
draws through hypothesis), driven here by a seeded ``random.Random`` (fast) or, with
``--engine hypothesis``, by hypothesis draws (which favour boundary choices), without
shrinking. Every input runs the core path (load, snapshot, preemptors, plan and its document,
the cycle check, a short simulate, an audit against the fixture); one in ``--cli-every`` (on
average) also runs one wapctl command through Typer's CliRunner. A crash is any exception that
is not a ``WapctlError``, a run longer than ``--timeout`` seconds (a hang), a CLI exit code
outside 0-3 or a traceback in its output. Each distinct crash (exception type and innermost
wapctl frame) is saved once under ``--out`` with its input, and counted.

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
from collections.abc import Callable
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


class Fuzzer:
    """The run's state: counts, distinct crashes, where inputs are written."""

    def __init__(self, a: argparse.Namespace) -> None:
        from typer.testing import CliRunner

        from wapctl.cli import app

        self.a = a
        self.app = app
        self.runner = CliRunner()
        self.corpus = fuzzing.load_corpus()
        self.bases = {name: fuzzing.base_documents(objs) for name, objs in self.corpus}
        self.outcomes: Counter[str] = Counter()
        self.crashes: dict[str, int] = {}
        self.tried = self.cli_runs = 0
        self.work = Path(tempfile.mkdtemp(prefix="run-", dir=a.out))

    def one(self, chooser: fuzzing.Chooser) -> None:
        """Mutate, serialise and run one input; record what happened."""
        a = self.a
        name, objects = chooser.choice(self.corpus)
        mutated = fuzzing.mutate(chooser, objects, a.max_mutations)
        fmt, data = fuzzing.serialise(chooser, mutated)
        run_cli = a.cli_every > 0 and chooser.integer(1, a.cli_every) == 1
        args: list[str] = []
        problem: str | None = None
        key = outcome = None
        signal.alarm(a.timeout)
        try:
            outcome = fuzzing.exercise_core(data, self.bases[name])
            if run_cli:
                self.cli_runs += 1
                suffix = ".json" if fmt.startswith("json") else ".yaml"
                snap = self.work / f"snap{suffix}"
                snap.write_bytes(data)
                change = self.work / "change.yaml"
                change.write_bytes(data if chooser.integer(0, 1) else b"kind: Node\n")
                stdin = chooser.integer(0, 4) == 0  # the snapshot as - on standard input
                args = fuzzing.cli_args(chooser, "-" if stdin else str(snap), str(change))
                result = self.runner.invoke(self.app, args, input=data if stdin else None,
                                            catch_exceptions=False)
                problem = fuzzing.check_cli_result(result.exit_code, result.output)
                if problem:
                    key = f"cli {args[0]}: {problem}: {result.output.strip()[-200:]}"
        except Hang:
            key = f"hang > {a.timeout}s"
            problem = key
        except BaseException as exc:  # every crash is recorded, then the run goes on
            if isinstance(exc, KeyboardInterrupt) or _is_hypothesis_control(exc):
                raise
            key = f"{type(exc).__name__} at {_where(exc)}"
            problem = "".join(traceback.format_exception(exc))
        finally:
            signal.alarm(0)
        self.tried += 1  # counted once finished (hypothesis may abandon an input midway)
        if outcome is not None:
            self.outcomes[outcome] += 1
        if key is not None:
            self.outcomes["CRASH"] += 1
            first = key not in self.crashes
            self.crashes[key] = self.crashes.get(key, 0) + 1
            if first:
                n = len(self.crashes)
                base = a.out / f"crash-{a.engine}-{a.seed}-{n}"
                base.with_suffix(".input").write_bytes(data)
                base.with_suffix(".txt").write_text(
                    f"{key}\nfixture {name}, format {fmt}, cli {args}\n\n{problem}\n",
                    encoding="utf-8")
                print(f"NEW CRASH {n}: {key}  (fixture {name}, {fmt}; {base}.input)", flush=True)


def _is_hypothesis_control(exc: BaseException) -> bool:
    """Hypothesis stops a test with its own exceptions (data exhausted); let them through."""
    return type(exc).__module__.startswith("hypothesis")


def _run_random(fz: Fuzzer, until: float, progress: Callable[[], None]) -> None:
    chooser = fuzzing.RandomChooser(random.Random(fz.a.seed))
    while time.monotonic() < until:
        fz.one(chooser)
        progress()


def _run_hypothesis(fz: Fuzzer, until: float, progress: Callable[[], None]) -> None:
    """Hypothesis as the generator (its draws favour boundaries: first and last choices,
    small and extreme integers), in batches of 100 with fresh seeds until the time is up
    (the last batch may overrun it a little)."""
    import conftest  # noqa: F401  (registers the Hypothesis profiles, tests/conftest.py)
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    long = settings.get_profile("long")
    batch = 0
    while time.monotonic() < until:

        @hseed(fz.a.seed * 1000 + batch)
        @settings(long, max_examples=100, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(st.data())
        def one(data: Any) -> None:
            fz.one(fuzzing.HypothesisChooser(data))
            progress()

        one()
        batch += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="how long to run")
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100_000)
    ap.add_argument("--engine", choices=("random", "hypothesis"), default="random",
                    help="random.Random draws (fast) or hypothesis draws (boundary-biased)")
    ap.add_argument("--cli-every", type=int, default=10,
                    help="run a CLI command on every N-th input (0: never)")
    ap.add_argument("--timeout", type=int, default=20, help="seconds per input before a hang")
    ap.add_argument("--max-mutations", type=int, default=4)
    ap.add_argument("--memory", type=str, default="4Gi", help="address-space cap")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "wapctl-fuzz")
    a = ap.parse_args(argv)

    from wapctl.ingest import parse_size

    cap = parse_size(a.memory)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    a.out.mkdir(parents=True, exist_ok=True)
    fz = Fuzzer(a)
    started = time.monotonic()
    print(f"engine {a.engine}, seed {a.seed}, {len(fz.corpus)} fixtures, {a.seconds:.0f}s, "
          f"out {a.out}", flush=True)
    next_report = [started + 30]

    def progress() -> None:
        if time.monotonic() >= next_report[0]:
            next_report[0] += 30
            print(f"  {time.monotonic() - started:5.0f}s  {fz.tried} inputs, {fz.cli_runs} CLI "
                  f"runs, {len(fz.crashes)} distinct crashes", flush=True)

    run = _run_random if a.engine == "random" else _run_hypothesis
    run(fz, started + a.seconds, progress)
    elapsed = time.monotonic() - started
    summary = {
        "engine": a.engine,
        "seed": a.seed,
        "seconds": round(elapsed, 1),
        "inputs": fz.tried,
        "cli_runs": fz.cli_runs,
        "outcomes": dict(sorted(fz.outcomes.items())),
        "distinct_crashes": len(fz.crashes),
        "crashes": fz.crashes,
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))
    return 1 if fz.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
