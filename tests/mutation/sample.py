"""Draw a fresh, seeded random sample of today's mutants, run it, and print the kill-rate table.

    .venv/bin/python tests/mutation/sample.py draw --seed 2027 --size 150 > /tmp/sample.txt
    .venv/bin/python tests/mutation/sample.py draw --seed 7 --size 100 \
        --only wapctl.preemption,wapctl.fit > /tmp/engine.txt  # the engine alone
    nice -n 19 .venv/bin/python tests/mutation/sample.py run /tmp/sample.txt
    .venv/bin/python tests/mutation/sample.py table /tmp/sample.txt \\
        --decided tests/mutation/decided.txt

`draw` makes mutmut write every mutant of the configured set (`[tool.mutmut]` in pyproject.toml)
under mutants/, lists their names and draws `--size` of them uniformly, without replacement, with
`random.Random(seed)`: a simple random sample of the whole mutated set, so its kill rate estimates
the set's. `run` hands the names to `mutmut run` (two workers; cheapest tests first) after
dropping mutmut's test stats, so they are made afresh for today's code and tests. `table`
reads mutmut's verdicts and prints, per module, the killed, survived and other counts; the
mutants decided by hand (a file of lines `NAME  equivalent|unreachable|killed-outside  reason`)
move out of "survived" — equivalent and unreachable ones leave the denominator, those killed by
tests outside mutmut's selection (the differential suites) count as killed. The rate's interval
is Wilson's 95 % score interval.

A name is mutmut's (`wapctl.fit.x_check_static__mutmut_12`); `mutmut show NAME` prints its diff.
Names belong to the code they were drawn from: an edit to a function renumbers its mutants.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "mutants"
STATUS = {  # mutmut's exit codes (mutmut/stats.py status_by_exit_code), grouped
    0: "survived", 1: "killed", 3: "killed", 5: "no tests", 33: "no tests", 34: "skipped",
    36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout",
    37: "type check", -11: "segfault", -9: "segfault", None: "not run",
}
DECISIONS = ("equivalent", "unreachable", "killed-outside")


def generate() -> None:
    """Have mutmut write every mutant of the configured set (it skips unchanged files)."""
    code = (
        "from pathlib import Path\n"
        "from os import makedirs\n"
        "import mutmut.__main__ as m\n"
        "m.set_mutant_under_test('mutant_generation')\n"
        "makedirs(Path('mutants'), exist_ok=True)\n"
        "m.copy_src_dir(); m.copy_also_copy_files(); m.setup_source_paths()\n"
        "m.create_mutants(2)\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


def verdicts() -> dict[str, int | None]:
    """Every mutant's name and mutmut's exit code for it (None: not run yet)."""
    out: dict[str, int | None] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        out.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return out


def module_of(name: str) -> str:
    """`wapctl.preemption.units.xǁ_UnitIndexǁbelow__mutmut_3` -> `wapctl.preemption.units`."""
    return name.split(".x", 1)[0]


def draw(seed: int, size: int | None, only: tuple[str, ...] = ()) -> list[str]:
    """A simple random sample of `size` of today's mutants, in name order; with `only`, of
    the mutants of the modules named (a module and the modules under it: `wapctl.preemption`,
    `wapctl.fit`). `size` None: every one of them (a sweep, to find a module's survivors in
    bulk; its rate is that module's, not an estimate of the whole set's)."""
    generate()
    names = sorted(n for n in verdicts()
                   if not only or any(module_of(n) == m or module_of(n).startswith(m + ".")
                                      for m in only))
    if size is None:
        return names
    if size > len(names):
        raise SystemExit(f"error: {size} asked, {len(names)} mutants")
    return sorted(random.Random(seed).sample(names, size))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, mid - half), min(1.0, mid + half))


def read_decided(path: Path | None) -> dict[str, str]:
    """NAME -> decision, from lines `NAME  DECISION  reason` ('#' starts a comment)."""
    out: dict[str, str] = {}
    if path is None:
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("#", 1)[0].split(None, 2)
        if not parts:
            continue
        if len(parts) < 2 or parts[1] not in DECISIONS:
            raise SystemExit(f"error: {path}: {line!r}: want NAME {'|'.join(DECISIONS)} REASON")
        out[parts[0]] = parts[1]
    return out


def table(names: list[str], decided: dict[str, str]) -> str:
    """The Markdown table: per module and overall."""
    codes = verdicts()
    rows: dict[str, Counter[str]] = {}
    for name in names:
        status = STATUS.get(codes.get(name, None), "suspicious") if name in codes else "missing"
        # decided by hand: a survivor, one no selected test reaches, or a timeout that is only
        # slower (mutmut counts a timeout as killed)
        if status in ("survived", "no tests", "timeout") and name in decided:
            status = decided[name]
        rows.setdefault(module_of(name), Counter())[status] += 1
    cols = ["killed", "timeout", "killed-outside", "survived", "no tests",
            "equivalent", "unreachable", "not run", "missing"]
    seen = set().union(*rows.values()) if rows else set()
    cols[5:5] = sorted(seen - set(cols))  # suspicious, segfault, skipped, type check: shown
    lines = ["| module | sampled | " + " | ".join(cols) + " | kill rate (95 % interval) |",
             "|---" * (len(cols) + 3) + "|"]
    total: Counter[str] = Counter()
    for module in sorted(rows):
        total.update(rows[module])
        lines.append(_row(f"`{module}`", rows[module], cols))
    lines.append(_row("**all**", total, cols))
    return "\n".join(lines)


def _row(label: str, c: Counter[str], cols: list[str]) -> str:
    killed = c["killed"] + c["timeout"] + c["killed-outside"] + c["type check"]
    # a mutant neither killed nor decided by hand counts against the rate; one not run yet
    # (or no longer there) is left out until it is
    counted = sum(c.values()) - c["equivalent"] - c["unreachable"] - c["not run"] - c["missing"]
    low, high = wilson(killed, counted)
    rate = (f"{100 * killed / counted:.1f} % ({killed}/{counted}; {100 * low:.1f}-{100 * high:.1f})"
            if counted else "-")
    cells = " | ".join(str(c[k]) for k in cols)
    return f"| {label} | {sum(c.values())} | {cells} | {rate} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="print a seeded random sample of mutant names")
    d.add_argument("--seed", type=int, default=0)
    size = d.add_mutually_exclusive_group(required=True)
    size.add_argument("--size", type=int)
    size.add_argument("--all", action="store_true",
                      help="every mutant (of the --only modules): a sweep, not a sample")
    d.add_argument("--only", default="", help="comma-separated modules to draw from "
                   "(default: the whole mutated set)")
    r = sub.add_parser("run", help="run the sample's mutants with mutmut")
    r.add_argument("sample", type=Path)
    r.add_argument("--max-children", type=int, default=2)
    t = sub.add_parser("table", help="print the sample's kill-rate table")
    t.add_argument("sample", type=Path)
    t.add_argument("--decided", type=Path)
    t.add_argument("--survivors", action="store_true", help="list the survivors after the table")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.cmd == "draw":
        only = tuple(filter(None, args.only.split(",")))
        print("\n".join(draw(args.seed, None if args.all else args.size, only)))
        return
    names = args.sample.read_text(encoding="utf-8").split()
    if args.cmd == "run":
        # mutmut's stats (which tests reach which function) are only added to for new tests:
        # after the code changed, a test reaching a new or renamed function is missed and its
        # mutants are wrongly reported as surviving. Stats made afresh are right.
        (MUTANTS / "mutmut-stats.json").unlink(missing_ok=True)
        mutmut = Path(sys.executable).with_name("mutmut")
        cmd = [str(mutmut), "run", "--max-children", str(args.max_children), *names]
        raise SystemExit(subprocess.run(cmd, check=False).returncode)
    decided = read_decided(args.decided)
    print(table(names, decided))
    if args.survivors:
        codes = verdicts()
        for name in names:
            if STATUS.get(codes.get(name)) in ("survived", "no tests") and name not in decided:
                print(f"survived: {name}")


if __name__ == "__main__":
    main()
