"""`wapctl audit`: what a proposed PriorityClass / Workload change would do, before applying it."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from wapctl import audit as core
from wapctl import ingest
from wapctl.commands import common
from wapctl.errors import ExitCode, UsageError
from wapctl.render import audit as render

ChangeOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--change",
        "-c", metavar="FILE",
        help="Proposed manifests (files, directories or -): each object replaces the snapshot's "
        "object of the same kind, namespace and name, or is added. Repeatable.",
        show_default=False,
    ),
]
DeleteOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--delete", metavar="KIND/[NAMESPACE/]NAME",
        help="Remove an object: PriorityClass/NAME, Workload/NAMESPACE/NAME, "
        "PodGroup/NAMESPACE/NAME (also Pod, Node, PodDisruptionBudget). Repeatable.",
        show_default=False,
    ),
]
MaxPlansOpt = Annotated[
    int,
    typer.Option(
        "--max-plans", metavar="N",
        min=0,
        help="Plan at most this many pending preemptors (queue order) on each side.",
    ),
]


@common.boundary
def audit(
    paths: common.SnapshotPaths = None,
    change: ChangeOpt = None,
    delete: DeleteOpt = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n", metavar="NAMESPACE",
            help="Only plan preemptors of this namespace (the graph stays cluster-wide).",
            show_default=False,
        ),
    ] = None,
    all_namespaces: common.AllNamespacesOpt = False,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    max_plans: MaxPlansOpt = core.DEFAULT_MAX_PLANS,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    output: common.SummaryOutputOpt = common.ReportFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Show what a proposed priority change would do, before applying it.

    Applies proposed PriorityClass, Workload and PodGroup manifests (--change) and deletions
    (--delete) to the snapshot in memory and reports what changes: preemption edges (who can
    now preempt whom), lost protection, cycles and rule violations introduced or fixed, and
    the plans of pending preemptors that change.

    Exit 0 when the change introduces no preemption cycle, no rule violation and no dangling
    reference (an object still naming a deleted PriorityClass, Workload or PodGroup), 1 when
    it does, 2 on bad input (also a deletion the snapshot cannot load without: a v1alpha1
    Workload naming the deleted class), 4 when the cluster cannot be read.
    """
    namespace = common.resolve_namespace(namespace, all_namespaces)
    if not change and not delete:
        raise UsageError("nothing to audit: give --change FILE and/or --delete KIND/NAME")
    deletions = list(dict.fromkeys(core.parse_deletion(d) for d in delete or ()))
    opts = common.SnapshotOptions(
        paths=tuple(paths or ()),
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        request_timeout=request_timeout,
        page_size=page_size,
        max_input_size=max_input_size,
    )
    if "-" in (change or ()) and "-" in opts.paths:
        raise UsageError("stdin (-) can be the snapshot or a change file, not both")
    base = common.read_documents(opts, progress=True)
    proposed = (ingest.read_documents(list(change), max_input_size=opts.input_limit)
                if change else [])
    from wapctl import models

    if model is not None and model not in models.MODEL_NAMES:
        raise UsageError(f"--model {model!r}: expected one of {', '.join(models.MODEL_NAMES)}")
    report = core.audit(base, proposed, deletions, max_plans=max_plans, namespace=namespace,
                        model=model, feature_gates=models.parse_feature_gates(feature_gates))
    from wapctl.gcpause import keep_until_exit

    keep_until_exit((base, proposed, report))  # the process ends with the command: never freed
    from wapctl.render.names import audit_names

    doc = render.audit_to_dict(report)
    common.emit(
        doc,
        output,
        no_color,
        lambda console: render.render_table(report, console),
        color=color,
        names=lambda: audit_names(doc),
        html=lambda: _html(doc, report),
    )
    raise typer.Exit(int(ExitCode.FINDINGS if report.risky else ExitCode.OK))


def _html(doc: dict[str, Any], report: core.AuditReport) -> str:
    from wapctl.render.html.audit import audit_page
    from wapctl.render.html.extras import audit_picture

    return audit_page(doc, audit_picture(report))
