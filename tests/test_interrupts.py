"""Interrupts and output files (issue 8 §4): Ctrl-C during a long load or plan exits 130 with
one line and no traceback; output written with ``-o FILE`` goes through a temporary file, so an
interrupted or failed write leaves no half file and an existing file intact."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl import ingest
from wapctl.cli import app
from wapctl.commands import common
from wapctl.commands import snapshot as snapshot_cmd
from wapctl.errors import UsageError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
PLAN = FIXTURES / "plan" / "gang-multi-node.yaml"
AUDIT = FIXTURES / "cycles" / "audit"

# ---- a real process, a real SIGINT ---------------------------------------------------------

# The child announces on stderr when it is past its imports (a Ctrl-C during interpreter start
# and imports is Python's, before any wapctl code runs), then runs the real entry point.
READY = "wapctl-test: ready"
CHILD_LOAD = (
    "import sys\n"
    "from wapctl.cli import main\n"
    f"sys.stderr.write({READY!r} + '\\n'); sys.stderr.flush()\n"
    "main()\n"
)
# Here the plan itself runs until interrupted: the real plan, again and again.
CHILD_PLAN = (
    "import sys\n"
    "import wapctl.preemption as preemption\n"
    "real = preemption.plan\n"
    "def plan_forever(snapshot, preemptor, **kwargs):\n"
    f"    sys.stderr.write({READY!r} + '\\n'); sys.stderr.flush()\n"
    "    while True:\n"
    "        real(snapshot, preemptor, **kwargs)\n"
    "preemption.plan = plan_forever\n"
    "from wapctl.cli import main\n"
    "main()\n"
)


@pytest.fixture(scope="session")
def big_snapshot(tmp_path_factory) -> Path:
    """A generated 600-node / 9,000-pod YAML snapshot (~16 MB): each command runs 0.8-1.3 s
    past the imports (the 8 MB snapshot this was ran as little as 0.3 s on a machine with
    wapctl's bytecode compiled, past an interrupt sent 0.3 s in), so an interrupt 0.05 s into
    the run lands inside the loader."""
    spec = importlib.util.spec_from_file_location("gen_snapshot",
                                                  ROOT / "benchmarks" / "gen_snapshot.py")
    gen = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules.setdefault("gen_snapshot", gen)  # its dataclasses look their module up
    spec.loader.exec_module(gen)
    path = tmp_path_factory.mktemp("big") / "snap.yaml"
    gen.write_snapshot(gen.Params(nodes=600, pods_per_node=15, gang_size=32), {"yaml": path})
    return path


def _sigint_as_a_terminal_gives_it() -> None:
    """In the child, before Python starts: SIGINT at its default disposition, as a shell in a
    terminal starts a command. A job started in the background (``cmd &``, ``nohup``) inherits
    SIGINT *ignored*, and Python then keeps it ignored -- no KeyboardInterrupt, whatever wapctl
    does -- so without this the tests below would test how they were launched."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(code: str, args: list[str], after: float) -> tuple[int, str, str, float]:
    """Run ``python -c code args``, send SIGINT ``after`` seconds past the READY line; return
    (exit code, stdout, stderr after READY, seconds from SIGINT to exit)."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("WAPCTL_TRACEBACK", None)
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_sigint_as_a_terminal_gives_it)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert READY + "\n" == line, line + proc.stderr.read()
        time.sleep(after)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        return proc.returncode, out, err, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(
    "command",
    [["plan"], ["validate"], ["check-cycles"], ["simulate"],
     ["audit", "--change", str(AUDIT / "raise-medium.yaml")]],
    ids=["plan", "validate", "check-cycles", "simulate", "audit"],
)
def test_ctrl_c_during_a_long_load_exits_130_with_one_line(big_snapshot, command):
    """SIGINT while the loader parses a big snapshot: exit 130, nothing on stdout, exactly
    "interrupted" on stderr, no traceback, promptly."""
    code, out, err, took = interrupt(CHILD_LOAD, [*command[:1], str(big_snapshot),
                                                  *command[1:], "-o", "json"], after=0.05)
    assert (130, "", "interrupted\n") == (code, out, err)
    assert took < 5


def test_ctrl_c_during_the_plan_exits_130_with_one_line():
    """SIGINT while the plan algorithm runs (the real plan, repeated until interrupted):
    exit 130, stdout empty, stderr the one line."""
    code, out, err, took = interrupt(CHILD_PLAN, ["plan", str(PLAN)], after=0.3)
    assert (130, "", "interrupted\n") == (code, out, err)
    assert took < 5


def test_python_sigint_handler_is_never_replaced():
    """After importing every wapctl module (and the kubernetes client the live path uses),
    SIGINT still has Python's own handler, which raises KeyboardInterrupt."""
    code = (
        "import signal, pkgutil, importlib, wapctl\n"
        "for m in pkgutil.walk_packages(wapctl.__path__, 'wapctl.'):\n"
        "    importlib.import_module(m.name)\n"
        "import kubernetes.client, kubernetes.config, rich.progress, rich.live\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, preexec_fn=_sigint_as_a_terminal_gives_it)
    assert ("True\n", "") == (out.stdout, out.stderr)


# ---- KeyboardInterrupt from anywhere reaches the one boundary ------------------------------


def _raise_interrupt(*args, **kwargs):
    raise KeyboardInterrupt


SNAP = str(PLAN)
CYCLES = str(FIXTURES / "cycles" / "kep-ab.yaml")
SIM = str(FIXTURES / "simulate" / "ping-pong.yaml")
CLUSTER = str(AUDIT / "cluster.yaml")
CHANGE = str(AUDIT / "raise-medium.yaml")


@pytest.mark.parametrize(
    ("target", "args"),
    [
        ("wapctl.ingest.read_documents", ["plan", SNAP]),
        ("wapctl.ingest.build_snapshot", ["plan", SNAP]),
        # inside the loader's YAML loop (per document)
        ("wapctl.ingest.duplicate_keys.UniqueKeyLoader.construct_document", ["plan", SNAP]),
        ("wapctl.ingest.decode.json.loads", ["validate", str(FIXTURES / "plan")]),
        # the fast JSON path
        ("wapctl.ingest.json_reader.read_json", ["validate", str(FIXTURES / "plan")]),
        ("wapctl.preemptor.select_preemptor", ["plan", SNAP]),
        ("wapctl.preemption.plan", ["plan", SNAP, "-o", "json"]),
        ("wapctl.render.plan.render_plan", ["plan", SNAP]),
        ("rich.console.Console.print", ["plan", SNAP]),  # inside Rich, while printing
        ("wapctl.commands.common.dump_json",
         ["plan", SNAP, "--workload", "ml/train/workers", "-o", "json"]),
        ("wapctl.commands.common.dump_yaml", ["check-cycles", CYCLES, "-o", "yaml"]),
        ("wapctl.graph.check", ["check-cycles", CYCLES]),
        ("wapctl.render.cycles.render_table", ["check-cycles", CYCLES]),
        ("wapctl.simulate.simulate", ["simulate", SIM]),
        ("wapctl.render.simulate.render_simulation", ["simulate", SIM]),
        ("wapctl.audit.audit", ["audit", CLUSTER, "--change", CHANGE]),
        ("wapctl.render.audit.render_table", ["audit", CLUSTER, "--change", CHANGE]),
        ("wapctl.commands.validate.render_validation", ["validate", SNAP]),
    ],
    ids=lambda v: v if isinstance(v, str) else v[0],
)
def test_keyboard_interrupt_anywhere_in_a_command_exits_130(monkeypatch, target, args):
    """A KeyboardInterrupt raised in the loader, the core, a renderer or Rich reaches @boundary:
    exit 130, stderr exactly "interrupted", no traceback."""
    monkeypatch.setattr(target, _raise_interrupt)
    result = CliRunner().invoke(app, args, catch_exceptions=False)
    assert (130, "interrupted\n") == (result.exit_code, result.stderr)
    assert "Traceback" not in result.output


def test_keyboard_interrupt_inside_typer_parsing_exits_130_without_traceback(monkeypatch):
    """Ctrl-C while Typer itself parses the command line (before the command, so before
    @boundary) still exits 130 without a traceback: Typer maps it to exit 130 (silently)."""
    import typer.core

    monkeypatch.setattr(typer.core.TyperGroup, "parse_args", _raise_interrupt)
    result = CliRunner().invoke(app, ["plan", SNAP], catch_exceptions=False)
    assert 130 == result.exit_code
    assert "Traceback" not in result.output


# ---- -o FILE goes through a temporary file -----------------------------------------------


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_write_atomically_writes_and_replaces_whole_files(tmp_path):
    """A write creates the file, a second replaces it whole; no temporary file is left."""
    target = tmp_path / "out.yaml"
    common.write_atomically(str(target), "first\n")
    common.write_atomically(str(target), "second\n")
    assert ("second\n", ["out.yaml"]) == (target.read_text(), _listing(tmp_path))


class _HalfWriter:
    """A file whose write puts half the text on disk, then is interrupted."""

    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def write(self, text):
        self.fh.write(text[: len(text) // 2])
        self.fh.flush()
        raise KeyboardInterrupt


@pytest.mark.parametrize("existing", [None, "old complete file\n"], ids=["new", "existing"])
@pytest.mark.parametrize("where", ["mid-write", "at-rename"])
def test_interrupted_write_leaves_no_half_file(tmp_path, monkeypatch, existing, where):
    """Ctrl-C in the middle of writing or just before the rename: the interrupt propagates, the
    target is absent or still the old file, and no temporary file is left."""
    target = tmp_path / "out.yaml"
    if existing is not None:
        target.write_text(existing)
    if where == "mid-write":
        real_fdopen = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda *a, **k: _HalfWriter(real_fdopen(*a, **k)))
    else:
        monkeypatch.setattr(os, "replace", _raise_interrupt)
    with pytest.raises(KeyboardInterrupt):
        common.write_atomically(str(target), "x" * 100_000)
    monkeypatch.undo()
    expected = ["out.yaml"] if existing is not None else []
    assert expected == _listing(tmp_path)
    if existing is not None:
        assert existing == target.read_text()


def test_failed_write_is_a_usage_error_naming_the_file(tmp_path):
    """-o into a missing folder, or onto a directory: a UsageError naming the path (exit 2),
    not an internal error; nothing is left behind."""
    missing = tmp_path / "no" / "such" / "out.yaml"
    folder = tmp_path / "adir"
    folder.mkdir()
    messages = []
    for path in (missing, folder):
        with pytest.raises(UsageError) as caught:
            common.write_atomically(str(path), "text\n")
        messages.append(str(caught.value))
    assert [f"cannot write {missing}: No such file or directory",
            f"cannot write {folder}: Is a directory"] == messages
    assert ["adir"] == _listing(tmp_path)
    assert [] == _listing(folder)


@pytest.fixture
def offline_snapshot(monkeypatch):
    """`wapctl snapshot` reading a fixture file instead of a live cluster."""
    documents = ingest.read_documents([SNAP])
    monkeypatch.setattr(snapshot_cmd, "read_documents", lambda opts, progress=False: documents)
    return documents


def test_snapshot_o_file_writes_what_stdout_would_show(tmp_path, offline_snapshot):
    """snapshot -o FILE writes exactly the text it prints without -o; nothing else is left."""
    out = tmp_path / "snap.yaml"
    to_file = CliRunner().invoke(app, ["snapshot", "--output-file", str(out)],
                                 catch_exceptions=False)
    to_stdout = CliRunner().invoke(app, ["snapshot"], catch_exceptions=False)
    assert (0, 0) == (to_file.exit_code, to_stdout.exit_code)
    assert to_stdout.stdout == out.read_text()
    assert ["snap.yaml"] == _listing(tmp_path)


@pytest.mark.parametrize("existing", [False, True], ids=["no-file", "existing-file"])
@pytest.mark.parametrize("where", ["render", "write", "rename"])
def test_interrupted_snapshot_leaves_no_half_file(tmp_path, monkeypatch, offline_snapshot,
                                                  existing, where):
    """Ctrl-C while the snapshot is rendered, written or renamed into place: exit 130 with one
    line, the old file (if any) intact and no temporary file left."""
    out = tmp_path / "snap.yaml"
    if existing:
        out.write_text("old\n")
    if where == "render":
        monkeypatch.setattr(snapshot_cmd, "render", _raise_interrupt)
    elif where == "write":
        real_fdopen = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda *a, **k: _HalfWriter(real_fdopen(*a, **k)))
    else:
        monkeypatch.setattr(os, "replace", _raise_interrupt)
    result = CliRunner().invoke(app, ["snapshot", "--output-file", str(out)],
                                catch_exceptions=False)
    monkeypatch.undo()
    assert (130, "interrupted\n") == (result.exit_code, result.stderr)
    assert (["snap.yaml"] if existing else []) == _listing(tmp_path)
    if existing:
        assert "old\n" == out.read_text()


def test_snapshot_into_a_missing_folder_exits_2_with_one_line(tmp_path, offline_snapshot):
    """snapshot -o into a folder that does not exist: exit 2, one line naming the file."""
    out = tmp_path / "missing" / "snap.yaml"
    result = CliRunner().invoke(app, ["snapshot", "--output-file", str(out)],
                                catch_exceptions=False)
    assert (2, f"error: cannot write {out}: No such file or directory\n") == (
        result.exit_code, result.stderr)
