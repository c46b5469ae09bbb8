"""`wapctl plan`: which pods and gangs would be preempted to place a pending pod or pod group."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from wapctl.commands import common
from wapctl.errors import ExitCode


@common.boundary
def plan(
    paths: common.SnapshotPaths = None,
    pod: Annotated[
        str | None,
        typer.Option("--pod", help="The pending pod to plan for, NAMESPACE/NAME.",
                     show_default=False),
    ] = None,
    workload: Annotated[
        str | None,
        typer.Option(
            "--workload",
            help="The pending pod group to plan for: NAMESPACE/WORKLOAD, or "
            "NAMESPACE/WORKLOAD/GROUP.",
            show_default=False,
        ),
    ] = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: common.NamespaceOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    output: common.OutputOpt = common.OutputFormat.table,
    no_color: common.NoColorOpt = False,
) -> None:
    """Plan workload-aware preemption for a pending pod or pod group.

    With neither --pod nor --workload, plans for the highest-priority pending preemptor and
    says which. Exit 0 when the preemptor can be placed (possibly after preemption or after
    terminating pods are gone), 3 when it cannot be even with preemption, 2 on bad input,
    4 when the cluster cannot be read.
    """
    from wapctl.preemption import plan as make_plan
    from wapctl.preemptor import select_preemptor
    from wapctl.render.plan import plan_to_dict, render_plan

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
    preemptor = select_preemptor(snapshot, pod=pod, workload=workload, namespace=namespace)
    result = make_plan(snapshot, preemptor)
    doc = plan_to_dict(result, snapshot.warnings)
    note = None
    if not pod and not workload:
        who = f"{preemptor.namespace}/{preemptor.name}"
        if preemptor.pod_group:
            who += f"/{preemptor.pod_group}"
        note = f"Planning for the highest-priority pending preemptor: {preemptor.kind} {who}"
        if output is not common.OutputFormat.table:
            sys.stderr.write(note + "\n")
    common.emit(doc, output, no_color, lambda console: render_plan(doc, console, note=note))
    raise typer.Exit(int(ExitCode.UNSCHEDULABLE if result.status == "Unschedulable"
                         else ExitCode.OK))
