"""What every command shares: snapshot-source options, output formats, the error boundary.

This is CLI layer: it may touch Typer, the console, files and the environment. The core never
imports it.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from wapctl.errors import ExitCode, UsageError, WapctlError

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"


# ---- option types shared by the commands -------------------------------------------------

SnapshotPaths = Annotated[
    list[str] | None,
    typer.Argument(
        help="Snapshot files or directories (*.yaml, *.yml, *.json), or - for stdin. "
        "Omit them to read the live cluster of --kubeconfig / --context.",
        show_default=False,
    ),
]
KubeconfigOpt = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        help="Read a live cluster through this kubeconfig (default: $KUBECONFIG, "
        "~/.kube/config, then in-cluster config).",
        show_default=False,
    ),
]
ContextOpt = Annotated[
    str | None, typer.Option("--context", help="kubeconfig context to use.", show_default=False)
]
NamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        help="Only consider preemptors in this namespace (victims stay cluster-wide).",
        show_default=False,
    ),
]
RequestTimeoutOpt = Annotated[
    float, typer.Option("--request-timeout", help="Seconds to wait for each API request.")
]
PageSizeOpt = Annotated[
    int, typer.Option("--page-size", min=1, help="Objects per page when listing a cluster.")
]
MaxInputSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--max-input-size",
        help="Largest snapshot input accepted, e.g. 512Mi or 2Gi (default 256Mi; 8Gi for JSON).",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    OutputFormat,
    typer.Option("--output", "-o", help="table for people; json or yaml for machines."),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", help="No colour, even on a terminal (NO_COLOR works too).")
]


@dataclass(frozen=True)
class SnapshotOptions:
    """Where the cluster state comes from: files, or a live cluster."""

    paths: tuple[str, ...] = ()
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    request_timeout: float = 30.0
    page_size: int = 500
    max_input_size: str | None = None

    @property
    def live(self) -> bool:
        return not self.paths

    @property
    def input_limit(self) -> int | None:
        """--max-input-size in bytes; None keeps the loader's default."""
        from wapctl import load

        return load.parse_size(self.max_input_size) if self.max_input_size else None


def read_documents(opts: SnapshotOptions, *, progress: bool = False) -> list[Any]:
    """The documents of the snapshot: from files, or listed from the live cluster."""
    if opts.paths and (opts.kubeconfig or opts.context):
        raise UsageError("give snapshot files or --kubeconfig/--context, not both")
    if not opts.live:
        from wapctl import load

        return load.read_documents(list(opts.paths), max_input_size=opts.input_limit)
    from wapctl import live

    return live.fetch_documents(
        kubeconfig=opts.kubeconfig,
        context=opts.context,
        request_timeout=opts.request_timeout,
        page_size=opts.page_size,
        progress=progress and sys.stderr.isatty(),
    )


def load_snapshot(opts: SnapshotOptions, *, progress: bool = False) -> Any:
    """Read and build the snapshot (``wapctl.model.Snapshot``)."""
    from wapctl import load

    return load.build_snapshot(read_documents(opts, progress=progress))


# ---- output -------------------------------------------------------------------------------


def make_console(no_color: bool, *, stderr: bool = False) -> Console:
    """Rich turns colour off by itself when the stream is not a terminal and honours NO_COLOR."""
    return Console(stderr=stderr, no_color=no_color or None, highlight=False, soft_wrap=False)


def dump_json(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def dump_yaml(doc: Any) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)


def emit(
    doc: dict[str, Any],
    fmt: OutputFormat,
    no_color: bool,
    table: Callable[[Console], None],
) -> None:
    """Print a report: the machine document as JSON/YAML, or the Rich rendering for people
    (the document's ``warnings`` first, one yellow line each)."""
    if fmt is OutputFormat.json:
        sys.stdout.write(dump_json(doc))
    elif fmt is OutputFormat.yaml:
        sys.stdout.write(dump_yaml(doc))
    else:
        console = make_console(no_color)
        from wapctl.render.warnings import render_warnings

        render_warnings(doc.get("warnings") or [], console)
        table(console)
    sys.stdout.flush()


def write_atomically(path: str, text: str) -> None:
    """Write through a temporary file in the same folder, so an interrupted run leaves no half
    file and an existing file is only replaced by a complete one."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # no such folder, no permission: the user's -o, not a bug
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # disk full, FILE is a directory, ...
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


# ---- the one error boundary ----------------------------------------------------------------


def fail(message: str, code: int = ExitCode.INPUT) -> typer.Exit:
    """Print one clean error line on stderr and return the Exit to raise."""
    sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()
    return typer.Exit(int(code))


def boundary(fn: F) -> F:
    """Map the error family to exit codes with one line on stderr; Ctrl-C exits 130.

    Set WAPCTL_TRACEBACK=1 to see the traceback of an unexpected error.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except WapctlError as exc:
            raise fail(str(exc), exc.exit_code) from None
        except KeyboardInterrupt:
            sys.stderr.write("interrupted\n")
            raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
        except BrokenPipeError:
            raise typer.Exit(0) from None
        except Exception as exc:  # a bug: still one line, unless asked for the traceback
            if os.environ.get("WAPCTL_TRACEBACK"):
                raise
            raise fail(
                f"internal error: {type(exc).__name__}: {exc} (WAPCTL_TRACEBACK=1 shows where)",
                70,
            ) from None

    return wrapper  # type: ignore[return-value]
