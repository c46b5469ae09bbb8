"""Tables people can copy (issue 15), through the real console script: under a pseudo-terminal
80 columns wide and in a pipe, no Kubernetes name is ever broken or cut; in a pipe the lines
are as long as they need to be (as kubectl's are)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

from test_render_tables import CLUSTER, LONG_NODE, LONG_NS, LONG_PREEMPTOR, LONG_VICTIM

WAPCTL = str(Path(sys.executable).with_name("wapctl"))
NAMES = [f"ecommerce-frontend/{LONG_PREEMPTOR}", f"{LONG_NS}/{LONG_VICTIM}", LONG_NODE]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["TERM"] = "xterm"
    return env


def run_in_pty(args: list[str]) -> tuple[int, str]:
    """The console script with stdout on an 80-column pseudo-terminal; text without ANSI codes."""
    code, raw = _raw_pty(args, {})
    return code, ANSI.sub("", raw.replace("\r\n", "\n"))


def test_pty_at_80_columns_keeps_names_whole(tmp_path):
    """On an 80-column terminal: every name whole on one line (a table too wide is printed at
    its own width and the terminal wraps it), colours on, the verdict wrapped at words."""
    snap = tmp_path / "cluster.yaml"
    snap.write_text(CLUSTER)
    code, out = run_in_pty(["plan", str(snap), "-o", "wide"])
    assert 0 == code, out
    lines = out.splitlines()
    assert [] == [n for n in NAMES if not any(n in line for line in lines)]
    assert "…" not in out
    verdict = [line for line in lines if line.startswith("RequiresPreemption")]
    assert verdict and len(verdict[0]) <= 80  # prose wraps at the terminal's width


def test_pty_at_80_columns_keeps_folding_columns_words_whole():
    """Issue 26: check-cycles' violation table has wrapping (fold) columns; on an 80-column
    terminal Rich shrank the widest, the file:line, below its length and broke the path in two.
    Now a fold column wraps only at spaces: the path (given absolute, 80+ characters with its
    line) is on one line whole."""
    chart = Path(__file__).resolve().parent.parent / "fixtures" / "manifests" / "chart-cycle.yaml"
    code, out = run_in_pty(["check-cycles", str(chart)])
    assert 1 == code, out
    lines = out.splitlines()
    where = [line for line in lines if f"{chart}:" in line]
    assert where and re.search(rf"{re.escape(str(chart))}:\d+", where[0]), out
    assert "…" not in out


def test_pty_colours_by_default_and_no_color_env_turns_them_off(tmp_path):
    snap = tmp_path / "cluster.yaml"
    snap.write_text(CLUSTER)
    code, coloured = _raw_pty(["plan", str(snap)], {})
    code2, plain = _raw_pty(["plan", str(snap)], {"NO_COLOR": "1"})
    assert (0, 0, True, False) == (code, code2, "\x1b[" in coloured, "\x1b[" in plain)


def _raw_pty(args: list[str], extra: dict[str, str]) -> tuple[int, str]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
    proc = subprocess.Popen([WAPCTL, *args], stdout=slave, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env={**_env(), **extra})
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return proc.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def test_pipe_lines_are_as_long_as_needed(tmp_path):
    """In a pipe: the verdict is one line, names are whole, no colour codes."""
    snap = tmp_path / "cluster.yaml"
    snap.write_text(CLUSTER)
    proc = subprocess.run([WAPCTL, "plan", str(snap)], capture_output=True, text=True,
                          timeout=60, env={**_env(), "COLUMNS": "80"})
    assert 0 == proc.returncode
    lines = proc.stdout.splitlines()
    assert [] == [n for n in NAMES if not any(n in line for line in lines)]
    verdict = [line for line in lines if line.startswith("RequiresPreemption")]
    assert 1 == len(verdict) and verdict[0].endswith("PodDisruptionBudget violations.")
    assert "\x1b[" not in proc.stdout


def test_audit_table_explains_its_profile_notation():
    """A short legend where the notation is not obvious (issue 15): 1000/100 in audit tables."""
    cycles = Path(__file__).resolve().parent.parent / "fixtures" / "cycles"
    proc = subprocess.run([WAPCTL, "audit", str(cycles / "kep-ab.yaml"), "--change",
                           str(cycles / "kep-ab-fixed.yaml")], capture_output=True, text=True,
                          timeout=60, env=_env())
    assert 0 == proc.returncode
    assert "Profiles read SCHEDULING/PREEMPTION priority" in proc.stdout
