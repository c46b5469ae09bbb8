"""`wapctl check-cycles`: preemption cycles and priority-rule violations, before they happen."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from wapctl import graph
from wapctl.commands import common
from wapctl.errors import ExitCode, UsageError
from wapctl.render import cycles as render


class TextFormat(str, Enum):
    text = "text"
    github = "github"


FormatOpt = Annotated[
    TextFormat,
    typer.Option(
        "--format",
        help="github: print GitHub Actions ::error annotations naming each offending object's "
        "file, instead of the table.",
    ),
]
MaxCyclesOpt = Annotated[
    int,
    typer.Option("--max-cycles", min=1, help="List at most this many cycles (shortest first)."),
]


@common.boundary
def check_cycles(
    paths: common.SnapshotPaths = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            help="Only report cycles with a member in this namespace and its violations "
            "(priorities stay cluster-wide).",
            show_default=False,
        ),
    ] = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    output: common.OutputOpt = common.OutputFormat.table,
    text_format: FormatOpt = TextFormat.text,
    max_cycles: MaxCyclesOpt = graph.DEFAULT_CYCLE_LIMIT,
    no_color: common.NoColorOpt = False,
) -> None:
    """Find preemption cycles and priority-rule violations before they happen.

    Builds the "who can preempt whom" graph of the snapshot's priority profiles and reports
    every preemption cycle (bounded, shortest first) and every Workload or pod whose preemption
    priority is below its scheduling priority (KEP-5710's rule), on a cycle or not.

    Exit 0 when there are none, 1 when there are cycles or violations, 2 on bad input,
    4 when the cluster cannot be read.
    """
    if text_format is TextFormat.github and output is not common.OutputFormat.table:
        raise UsageError("--format github replaces the table; do not combine it with -o json|yaml")
    opts = common.SnapshotOptions(
        paths=tuple(paths or ()),
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        request_timeout=request_timeout,
        page_size=page_size,
        max_input_size=max_input_size,
    )
    snapshot = common.load_snapshot(opts, progress=True)
    report = graph.check(snapshot, namespace=namespace, limit=max_cycles)
    if text_format is TextFormat.github:
        sys.stdout.write("".join(line + "\n" for line in render.github_lines(report)))
        sys.stdout.flush()
    else:
        common.emit(
            render.report_to_dict(report, snapshot.warnings),
            output,
            no_color,
            lambda console: render.render_table(report, console),
        )
    raise typer.Exit(int(ExitCode.OK if report.clean else ExitCode.FINDINGS))
