"""The fenced blocks of README.md and docs/*.md, what each claims, and the tool's answer.

Used by tests/test_docs_examples.py (which checks every block) and tests/docs_sync.py (which
rewrites output blocks from the tool). What a block is, is said by an HTML comment on the line
just before its opening fence (invisible on GitHub, visible in the source):

- ``<!-- output of: CMD -->`` — the block is what ``CMD`` prints, run from the repository root;
  ``<!-- output of, in the CI workspace: CMD -->`` — run in the workspace of
  tests/test_ci_docs.py (``deploy/chart.yaml`` = fixtures/manifests/chart-cycle.yaml,
  ``snapshots/prod.yaml`` = fixtures/manifests/cluster.yaml). Compared line by line, trailing
  spaces and trailing blank lines aside.
- ``<!-- abridged output of: CMD -->`` — a JSON document with parts left out: every key shown
  is in the real document with the value shown, a list shows some of the real items in order,
  and a string ending in ``...`` is the start of the real one.
- ``<!-- run in the CI workspace -->`` — a shell block whose commands run in that workspace.
- ``<!-- not run: REASON -->`` — a block that cannot run here (a live cluster, an install, a
  placeholder, a benchmark); the reason is for the reader.

A fence with the ``ci`` info string (````` ```sh ci `````) is run by tests/test_ci_docs.py. An
unmarked ``sh`` block is run from the repository root: each line (a ``# comment`` after it
aside) must be a ``wapctl`` or ``kubectl-wap`` command. Any other unmarked block is an error: a
block must say what it is.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ENV = {"NO_COLOR": "1", "COLUMNS": "100", "LINES": "40", "TERM": "dumb"}

FENCE = re.compile(r"^(\s*)```(.*)$")
MARKER = re.compile(r"^\s*<!-- (output of|output of, in the CI workspace|abridged output of"
                    r"|run in the CI workspace|not run)(?::\s*(.*?))?\s*-->\s*$")


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    info: str  # the fence's info string: "sh", "sh ci", "json", ""
    body: list[str]  # the lines between the fences, the fence's indentation removed
    marker: str | None  # "output of", ..., "not run"; None without one
    argument: str | None  # the command, or the reason

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text().splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent = len(m.group(1))
        j = i + 1
        while not re.match(r"^\s*```\s*$", lines[j]):
            j += 1
        mark = MARKER.match(lines[i - 1]) if i else None
        out.append(Block(path, i + 1, m.group(2).strip(), [ln[indent:] for ln in lines[i + 1:j]],
                         mark.group(1) if mark else None, mark.group(2) if mark else None))
        i = j + 1
    return out


def all_blocks() -> list[Block]:
    return [b for path in DOCS for b in blocks(path)]


def command_lines(block: Block) -> list[str]:
    """The commands of a shell block, one a line, ``# comments`` after them removed."""
    lines = (line.split(" #", 1)[0].strip() for line in block.body)
    return [line for line in lines if line and not line.startswith("#")]


def run(command: str, cwd: Path = ROOT, stdin: str | None = None) -> tuple[int, str]:
    """``command`` (``wapctl ...``, ``kubectl-wap ...`` or ``kubectl wap ...``) in-process,
    from ``cwd``: its exit code and what a terminal would show (stdout and stderr
    interleaved), with no colour and lines as long as needed."""
    from typer.testing import CliRunner

    from wapctl.cli import app, normalize_argv

    tokens = shlex.split(command)
    if tokens[:2] == ["kubectl", "wap"]:
        prog, args = "kubectl wap", tokens[2:]
    elif tokens[0] in ("wapctl", "kubectl-wap"):
        prog, args = ("wapctl" if tokens[0] == "wapctl" else "kubectl wap"), tokens[1:]
    else:
        raise AssertionError(f"not a wapctl command: {command}")
    commands = {c.name for c in app.registered_commands if c.name}
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner(env=ENV).invoke(app, normalize_argv(args, commands), input=stdin,
                                           prog_name=prog)
    finally:
        os.chdir(here)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def normal(text: str | list[str]) -> list[str]:
    """Lines without trailing spaces, without trailing blank lines."""
    lines = [ln.rstrip() for ln in (text.splitlines() if isinstance(text, str) else text)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def abridged_in(shown: Any, real: Any, path: str = "$") -> list[str]:
    """Where the abridged JSON ``shown`` says something ``real`` does not (module docstring)."""
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return [f"{path}: an object is shown, the tool prints {real!r}"]
        return [e for k, v in shown.items()
                for e in ([f"{path}.{k}: not printed by the tool"] if k not in real
                          else abridged_in(v, real[k], f"{path}.{k}"))]
    if isinstance(shown, list):
        if not isinstance(real, list):
            return [f"{path}: a list is shown, the tool prints {real!r}"]
        rest = iter(enumerate(real))
        for n, item in enumerate(shown):
            if not any(not abridged_in(item, r) for _, r in rest):
                return [f"{path}[{n}]: {item!r} is not among the tool's items (in order)"]
        return []
    if isinstance(shown, str) and shown.endswith("...") and isinstance(real, str):
        ok = real.startswith(shown[:-3].rstrip())
    else:
        ok = shown == real and type(shown) is type(real)
    return [] if ok else [f"{path}: shown {shown!r}, the tool prints {real!r}"]
