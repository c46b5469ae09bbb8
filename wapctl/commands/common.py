"""What every command shares: snapshot-source options, output formats, the error boundary.

This is CLI layer: it may touch Typer, the console, files and the environment. The core never
imports it.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec
import typer
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from wapctl.errors import ClusterError, ExitCode, UsageError, WapctlError, did_you_mean

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(str, Enum):
    """kubectl's output forms: ``table`` and ``wide`` for people, ``json`` / ``yaml`` for
    machines, ``name`` for ``xargs -L1 kubectl`` (one object a line as kubectl arguments:
    ``-n NAMESPACE kind/NAME``, or ``kind/NAME`` when cluster-scoped; ``wapctl.render.names``)."""

    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    name = "name"

    @property
    def human(self) -> bool:
        return self in (OutputFormat.table, OutputFormat.wide)


class StoryFormat(str, Enum):
    """What ``explain`` and ``history`` print: a story for people (``table``) or the document
    (``json`` / ``yaml``); they have no wider table and no object list for ``xargs``."""

    table = "table"
    json = "json"
    yaml = "yaml"


class ReportFormat(str, Enum):
    """``OutputFormat`` plus ``html`` (a self-contained page), for the reports that draw one:
    plan, simulate, audit (check-cycles has its own list)."""

    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    name = "name"
    html = "html"

    @property
    def human(self) -> bool:
        return self in (ReportFormat.table, ReportFormat.wide)


class ColorMode(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str | float) -> float:
    """kubectl's ``--request-timeout``: a plain number of seconds or a Go duration such as
    ``30s``, ``1m30s``, ``500ms``, ``2h``; ``0`` means no timeout. Plain numbers pass as they
    are (``wapctl.live`` rejects NaN, infinities and out-of-range values with its own line)."""
    if isinstance(text, (int, float)):
        return float(text)
    raw = text.strip()
    try:
        value = float(raw)
    except ValueError:
        pos, value = 0, 0.0
        for m in _DURATION.finditer(raw):
            if m.start() != pos:
                break
            value += float(m.group(1)) * _UNIT_SECONDS[m.group(2)]
            pos = m.end()
        if pos != len(raw) or not raw:
            raise typer.BadParameter(
                f"{text!r} is not a duration: give seconds (30) or a duration (30s, 1m, 500ms)"
            ) from None
    return value  # the range (0 to MAX_REQUEST_TIMEOUT) is checked where it is used


# ---- option types shared by the commands -------------------------------------------------

SnapshotPaths = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="FILE|DIR|-",
        help="Snapshot files or directories (*.yaml, *.yml, *.json), or - for stdin. "
        "Omit them to read the live cluster of --kubeconfig / --context.",
        show_default=False,
    ),
]
KubeconfigOpt = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        metavar="FILE",
        help="Read a live cluster through this kubeconfig (default: $KUBECONFIG, "
        "~/.kube/config, then in-cluster config).",
        show_default=False,
    ),
]
ContextOpt = Annotated[
    str | None,
    typer.Option("--context", metavar="NAME", help="kubeconfig context to use.",
                 show_default=False)
]
NamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        metavar="NAMESPACE",
        help="Only consider preemptors in this namespace (victims stay cluster-wide).",
        show_default=False,
    ),
]
# explain's -n names the namespace of the pod it explains (kubectl's meaning), not a filter
TargetNamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        metavar="NAMESPACE",
        help="The namespace of the pod to explain when it is named without one (default: "
             "the namespace of the --kubeconfig / --context context when one is given, else "
             "default).",
        show_default=False,
    ),
]
RequestTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--request-timeout",
        parser=parse_duration,
        metavar="DURATION",
        show_default=False,
        help="Deadline for reading the cluster, for the whole command: every API request and "
        "every retry (429/5xx with Retry-After, a broken connection) must finish within it; "
        "seconds or a duration such as 30s or 1m, 0 for none (default 30s).",
    ),
]
PageSizeOpt = Annotated[
    int,
    typer.Option("--page-size", min=1, metavar="N",
                 help="Objects per page when listing a cluster."),
]
MaxInputSizeOpt = Annotated[
    str | None,
    typer.Option(
        "--max-input-size",
        metavar="SIZE",
        help="Largest snapshot input accepted, e.g. 512Mi or 2Gi (default 256Mi; 8Gi for a "
        "YAML or JSON text input of 1Mi or more).",
        show_default=False,
    ),
]
OutputOpt = Annotated[
    OutputFormat,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help="One of: table (or wide, the same), json, yaml, name (one object a line as "
        "kubectl arguments, '-n NAMESPACE kind/NAME' or 'kind/NAME', for "
        "'xargs -L1 kubectl ...').",
    ),
]
StoryOutputOpt = Annotated[
    StoryFormat,
    typer.Option("--output", "-o", metavar="FORMAT", help="One of: table, json, yaml."),
]
ReportOutputOpt = Annotated[
    ReportFormat,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help="One of: table, wide (more columns), json, yaml, name (one '-n NAMESPACE kind/NAME' "
        "or, cluster-scoped, 'kind/NAME' per line, for xargs -L1), html (one self-contained "
        "page with pictures).",
    ),
]
# audit's and simulate's: a wide table would have no more columns than the table
SummaryOutputOpt = Annotated[
    ReportFormat,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help="One of: table (or wide, the same), json, yaml, name (one '-n NAMESPACE "
        "kind/NAME' or, cluster-scoped, 'kind/NAME' per line, for xargs -L1), html (one "
        "self-contained page with pictures).",
    ),
]
ModelOpt = Annotated[
    str | None,
    typer.Option(
        "--model",
        metavar="1.36|upstream|kep-5710",
        help="Scheduler behaviour to predict: 1.36 (released kube-scheduler), upstream (newest "
        "upstream code; see 'wapctl version'), kep-5710 (the KEP design, a what-if). Default: "
        "the cluster's server version, else kep-5710 when the input uses KEP-only fields, "
        "else 1.36.",
        show_default=False,
    ),
]
FeatureGatesOpt = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        metavar="NAME=BOOL,...",
        help="kube-scheduler feature gates, comma-separated, as the --model knows them, e.g. "
        "PodGroupPreemptionPolicy=true with --model upstream (a gate the model does not know, "
        "or one workload-aware preemption needs turned off, is an error).",
        show_default=False,
    ),
]
NoColorOpt = Annotated[
    bool, typer.Option("--no-color", help="Same as --color never (NO_COLOR works too).")
]
ColorOpt = Annotated[
    ColorMode,
    typer.Option(
        "--color",
        metavar="WHEN",
        help="Colour: auto (on a terminal, unless NO_COLOR is set), always, or never.",
    ),
]
AllNamespacesOpt = Annotated[
    bool,
    typer.Option(
        "--all-namespaces",
        "-A",
        help="Every namespace (the default unless -n is given; kept for kubectl habits).",
    ),
]
SelectorOpt = Annotated[
    str | None,
    typer.Option(
        "--selector",
        "-l",
        metavar="SELECTOR",
        help="Only preemptors whose pods match this label selector (app=web, tier!=db, "
        "env in (a,b), !legacy).",
        show_default=False,
    ),
]


def resolve_namespace(namespace: str | None, all_namespaces: bool) -> str | None:
    """-n NAME or -A (every namespace, the default); both at once is a usage error."""
    if namespace is not None and all_namespaces:
        raise UsageError("give -n/--namespace or -A/--all-namespaces, not both")
    return namespace


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
        from wapctl import ingest

        return ingest.parse_size(self.max_input_size) if self.max_input_size else None


def read_documents(opts: SnapshotOptions, *, progress: bool = False) -> list[Any]:
    """The documents of the snapshot: from files, or listed from the live cluster."""
    if opts.paths and (opts.kubeconfig or opts.context):
        raise UsageError("give snapshot files or --kubeconfig/--context, not both")
    if not opts.live:
        from wapctl import ingest

        return ingest.read_documents(list(opts.paths), max_input_size=opts.input_limit)
    from wapctl import live

    try:
        return live.fetch_documents(
            kubeconfig=opts.kubeconfig,
            context=opts.context,
            request_timeout=opts.request_timeout,
            page_size=opts.page_size,
            progress=progress and sys.stderr.isatty(),
            notify=stderr_note,
        )
    except ClusterError as exc:
        if opts.context and "no context named" in exc.message:
            from wapctl.commands.kubecontext import contexts

            hint = did_you_mean(opts.context, contexts(opts.kubeconfig)[1])
            if hint:
                raise ClusterError(exc.message + hint) from None
        raise


def stderr_note(text: str) -> None:
    """A line the live reader reports as it goes (a retried request, a restarted list), on
    stderr: nothing it does is silent."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def load_snapshot(opts: SnapshotOptions, *, progress: bool = False) -> Any:
    """Read and build the snapshot (``wapctl.model.Snapshot``). Neither the documents nor the
    snapshot are ever freed (``gcpause.keep_until_exit``): a command reads one snapshot and
    ends."""
    from wapctl import ingest
    from wapctl.gcpause import keep_until_exit

    documents = read_documents(opts, progress=progress)
    snapshot = ingest.build_snapshot(documents)
    keep_until_exit((documents, snapshot))
    return snapshot


def named_preemptor(snapshot: Any, *, pod: str | None, workload: str | None,
                    namespace: str | None, selector: Any = None) -> Any:
    """``preemptor.select_preemptor``; giving both names is this CLI's usage error."""
    from wapctl.preemptor import select_preemptor

    if pod is not None and workload is not None:
        raise UsageError("give either --pod or --workload, not both")
    return select_preemptor(snapshot, pod=pod, workload=workload, namespace=namespace,
                            selector=selector)


def behaviour_model(snapshot: Any, name: str | None, gates: str | None) -> Any:
    """The behaviour model for --model / --feature-gates (``wapctl.models.BehaviourModel``)."""
    from wapctl import models

    if name is not None and name not in models.MODEL_NAMES:
        raise UsageError(f"--model {name!r}: expected one of {', '.join(models.MODEL_NAMES)}")
    try:
        parsed = models.parse_feature_gates(gates)
        chosen = models.select_model(snapshot, name, parsed)
    except models.ModelError as exc:
        raise UsageError(f"--feature-gates: {exc}" if gates and "gate" in str(exc)
                         else str(exc)) from None
    if name is not None:
        chosen = chosen.chosen("--model " + name)
    return chosen


# ---- output -------------------------------------------------------------------------------


# Lines written to a pipe or file are as long as they need to be (as kubectl's are).
PIPE_WIDTH = 10_000


class CopyableConsole(Console):
    """A console whose tables never break a name: a cell that must not wrap (``no_wrap``) is
    shown whole, and a cell that may wrap (``overflow="fold"``) wraps at its spaces, never
    inside a word — a path or an object name stays one piece to copy. A table that cannot fit
    the terminal so is printed at its own width and the terminal wraps the lines."""

    def on_broken_pipe(self) -> None:
        """Rich's own answer (stdout to /dev/null, exit 1: the code for findings) becomes the
        error it is, for the CLI's boundary (``exit_code_for``: 141)."""
        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "stdout closed")

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if len(objects) == 1 and isinstance(objects[0], Table) and "width" not in kwargs:
            table = objects[0]
            layout = self.column_widths(table)
            if layout is not None:
                needed, widths = layout
                saved_columns = [column.width for column in table.columns]
                saved = self._width
                if widths is not None:  # Rich would shrink a column below its longest word
                    for column, width in zip(table.columns, widths, strict=True):
                        column.width = width
                if needed > self.width:  # Rich clamps print(width=) to the console's: widen it
                    self.width = needed
                try:
                    super().print(*objects, **kwargs)
                finally:
                    self._width = saved
                    for column, old in zip(table.columns, saved_columns, strict=True):
                        column.width = old
                return
        super().print(*objects, **kwargs)

    def table_width(self, table: Table) -> int:
        """The narrowest width that shows every ``no_wrap`` column whole and every other column
        at its longest word. Rich's own minimum lets a no_wrap cell shrink to an ellipsis."""
        layout = self.column_widths(table)
        return layout[0] if layout is not None else Measurement.get(
            self, self.options, table).maximum

    def column_widths(self, table: Table) -> tuple[int, list[int] | None] | None:
        """(the width the table is printed at, each column's content width or None where Rich's
        own layout keeps every word whole); None for a Rich without these internals."""
        options = self.options.update(max_width=PIPE_WIDTH)  # measure unclamped
        try:
            ranges = [table._measure_column(self, options, column) for column in table.columns]
            padding = [table._get_padding_width(column._index) for column in table.columns]
            extra = table._extra_width
        except AttributeError:  # another Rich: its own layout
            return None
        shrinks = [column.width is None and not column.no_wrap for column in table.columns]
        floor = [r.minimum if shrink else r.maximum for r, shrink in zip(ranges, shrinks,
                                                                         strict=True)]
        target = max(self.width, extra + sum(floor))
        widths = [r.maximum for r in ranges]
        if extra + sum(widths) <= target:
            return target, None
        excess = extra + sum(widths) - target
        while excess > 0:  # the widest column that may still shrink gives one cell at a time
            i = max((j for j, w in enumerate(widths) if shrinks[j] and w > floor[j]),
                    key=lambda j: widths[j])
            widths[i] -= 1
            excess -= 1
        return target, [w - p for w, p in zip(widths, padding, strict=True)]


def make_console(
    no_color: bool = False, *, stderr: bool = False, color: ColorMode | str = ColorMode.auto
) -> Console:
    """The console for people: colour per --color (auto: a terminal without NO_COLOR);
    terminal width on a terminal, unbounded lines in a pipe."""
    stream = sys.stderr if stderr else sys.stdout
    mode = ColorMode.never if no_color else ColorMode(color)
    if mode is ColorMode.auto and os.environ.get("NO_COLOR"):
        mode = ColorMode.never  # https://no-color.org: and no bold or dim either
    tty = stream.isatty()
    kwargs: dict[str, Any] = {"stderr": stderr, "highlight": False, "soft_wrap": False}
    if mode is ColorMode.never:
        kwargs["no_color"] = True
        kwargs["color_system"] = None
    elif mode is ColorMode.always:
        kwargs["force_terminal"] = True
        kwargs["no_color"] = False  # an explicit --color always beats NO_COLOR
    if not tty:
        kwargs["width"] = PIPE_WIDTH
    console = CopyableConsole(**kwargs)
    if mode is ColorMode.always and console.color_system is None:  # TERM=dumb or unset
        console = CopyableConsole(**kwargs, color_system="standard")
    return console


def dump_json(doc: Any) -> str:
    """``json.dumps(doc, indent=2, ensure_ascii=False)`` and a newline, byte for byte.

    Python's json module indents in pure Python; without indentation it writes in C. So the
    document is written compactly by json (its own spelling of numbers and strings), then
    indented by msgspec's formatter, which copies every number and string as written
    (tests/test_dump_json.py): a 25 MB audit report in about half the time. A document the
    formatter cannot take (NaN or infinities, a lone surrogate) is indented by json itself."""
    try:
        compact = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        return msgspec.json.format(compact, indent=2) + "\n"
    except ValueError:  # so are msgspec's DecodeError and UnicodeEncodeError
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def dump_yaml(doc: Any) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)


def emit(
    doc: dict[str, Any],
    fmt: OutputFormat | ReportFormat | StoryFormat,
    no_color: bool,
    table: Callable[[Console], None],
    *,
    color: ColorMode | str = ColorMode.auto,
    names: Callable[[], list[str]] | None = None,
    wide: Callable[[Console], None] | None = None,
    html: Callable[[], str] | None = None,
) -> None:
    """Print a report: the machine document as JSON/YAML, ``names()`` one per line for
    ``-o name``, the page ``html()`` for ``-o html``, or the Rich rendering for people (``wide``
    for ``-o wide`` when the report has more columns to show), the document's ``warnings``
    first, one yellow line each."""
    if fmt.value == "html":
        if html is None:
            raise UsageError("-o html is not available for this report")
        sys.stdout.write(html())
        sys.stdout.flush()
        return
    fmt = OutputFormat(fmt.value)
    if fmt is OutputFormat.json:
        sys.stdout.write(dump_json(doc))
    elif fmt is OutputFormat.yaml:
        sys.stdout.write(dump_yaml(doc))
    elif fmt is OutputFormat.name:  # stdout stays names only: warnings go to stderr
        from wapctl.render.warnings import warning_line

        sys.stderr.write("".join(f"{warning_line(w)}\n" for w in doc.get("warnings") or []))
        sys.stdout.write("".join(f"{n}\n" for n in (names() if names is not None else [])))
    else:
        if fmt is OutputFormat.wide and wide is not None:
            table = wide
        console = make_console(no_color, color=color)
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


_interrupt_reported = False


def report_interrupt(*, unless_reported: bool = False) -> None:
    """The "interrupted" line; ``unless_reported``: only if this run has not written it yet
    (``cli.main`` after Typer, which turns a Ctrl-C outside the commands into exit 130)."""
    global _interrupt_reported
    if unless_reported and _interrupt_reported:
        return
    _interrupt_reported = True
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()


def exit_code_for(exc: BaseException) -> int:
    """The one mapping of exceptions to exit codes and their one line on stderr (SPEC.md §5).

    ``WapctlError`` -> its ``exit_code`` (``error: <message>``; a ``NothingPending`` is exit 0
    and a plain line), Ctrl-C -> 130, a closed pipe -> 141 (as kubectl, killed by SIGPIPE, in
    a shell; ``cli.main`` writes nothing more), anything else is a bug -> ``ExitCode.INTERNAL``
    (70). Re-raises the bug when WAPCTL_TRACEBACK=1."""
    if isinstance(exc, WapctlError):
        if exc.exit_code == ExitCode.OK:
            sys.stdout.write(f"{exc}\n")
            sys.stdout.flush()
            return 0
        fail(str(exc), exc.exit_code)
        return int(exc.exit_code)
    if isinstance(exc, KeyboardInterrupt):
        report_interrupt()
        return int(ExitCode.INTERRUPTED)
    if isinstance(exc, BrokenPipeError):
        return int(ExitCode.CLOSED_PIPE)
    if os.environ.get("WAPCTL_TRACEBACK"):
        raise exc
    fail(f"internal error: {type(exc).__name__}: {exc} (WAPCTL_TRACEBACK=1 shows where)",
         ExitCode.INTERNAL)
    return int(ExitCode.INTERNAL)


def boundary(fn: F) -> F:
    """Each command's body runs inside ``exit_code_for`` (so a command invoked through
    ``app`` directly, as tests do, exits as the console script does)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except (Exception, KeyboardInterrupt) as exc:
            raise typer.Exit(exit_code_for(exc)) from None

    return wrapper  # type: ignore[return-value]
