"""A reader that goes away (``wapctl ... | head -1``) makes wapctl exit as kubectl does when
SIGPIPE kills it: 141 in a shell, nothing on stderr. Never 1, the code for findings.

Each command runs as a real process whose stdout is a pipe with its read end already closed,
so the first write fails whatever the output's size (a real ``head`` may leave before or after
a small output is written: this is its worst case, made certain).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAN = str(ROOT / "fixtures" / "plan" / "tie-break.yaml")
CLEAN = str(ROOT / "fixtures" / "cycles" / "kep-ab-fixed.yaml")
CYCLE = str(ROOT / "fixtures" / "cycles" / "kep-ab.yaml")
SIMULATE = str(ROOT / "fixtures" / "simulate" / "ping-pong.yaml")


def _wapctl(*args: str, stdout: int) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "wapctl", *args], stdout=stdout,
                          stderr=subprocess.PIPE, cwd=ROOT, timeout=120, check=False)


def _closed_pipe_run(*args: str) -> subprocess.CompletedProcess[bytes]:
    read, write = os.pipe()
    os.close(read)
    try:
        return _wapctl(*args, stdout=write)
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [
    ("plan", PLAN, "--pod", "default/urgent"),
    ("plan", PLAN, "--pod", "default/urgent", "-o", "json"),
    ("plan", PLAN, "--pod", "default/urgent", "-o", "name"),
    ("check-cycles", CLEAN),
    ("check-cycles", CYCLE, "-o", "json"),
    ("validate", PLAN),
    ("validate", PLAN, "-o", "json"),
    ("simulate", SIMULATE),
    ("simulate", SIMULATE, "-o", "json"),
    ("--help",),
    ("version",),
])
def test_a_closed_pipe_exits_141_silently(args: tuple[str, ...]) -> None:
    done = _closed_pipe_run(*args)
    assert 141 == done.returncode, done.stderr.decode()
    assert b"" == done.stderr


@pytest.mark.parametrize(("args", "code"), [
    (("check-cycles", CLEAN), 0),
    (("check-cycles", CYCLE), 1),
    (("plan", PLAN, "--pod", "default/urgent", "-o", "json"), 0),
])
def test_a_pipe_read_to_the_end_keeps_the_commands_code(args: tuple[str, ...],
                                                        code: int) -> None:
    done = _wapctl(*args, stdout=subprocess.PIPE)
    assert code == done.returncode, done.stderr.decode()
    assert done.stdout
