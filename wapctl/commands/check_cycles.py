"""`wapctl check-cycles`: preemption cycles and priority-rule violations, before they happen."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated, Any

import typer

from wapctl import graph
from wapctl.commands import common
from wapctl.errors import ExitCode, UsageError
from wapctl.render import cycles as render


class TextFormat(str, Enum):
    text = "text"
    github = "github"


class CheckOutput(str, Enum):
    """common.OutputFormat plus the formats only check-cycles prints (kept here so the shared
    option stays the shared one)."""

    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    name = "name"
    sarif = "sarif"
    dot = "dot"
    mermaid = "mermaid"
    html = "html"


FormatOpt = Annotated[
    TextFormat,
    typer.Option(
        "--format", metavar="text|github",
        help="github: print GitHub Actions ::error annotations naming each offending object's "
        "file and line, instead of the table.",
    ),
]
OutputOpt = Annotated[
    CheckOutput,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT",
        help="table (or wide) for people; json or yaml for machines; sarif (2.1.0) for code "
        "scanning; "
        "dot or mermaid: the priority graph as a picture; html: one self-contained page with "
        "the graph drawn and every finding; name: one offending object a line.",
    ),
]
MaxCyclesOpt = Annotated[
    int,
    typer.Option("--max-cycles", metavar="N", min=1,
                 help="List at most this many cycles (shortest first)."),
]
ClusterOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--cluster",
        metavar="FILE|DIR|-",
        help="A snapshot of the cluster the manifests will be applied to (file, directory or "
        "-; repeatable): its classes and running workloads take part, the manifests' objects "
        "replace its objects of the same kind and name, and only what the manifests take "
        "part in is reported. --kubeconfig/--context with manifests read it live instead.",
        show_default=False,
    ),
]


@common.boundary
def check_cycles(
    paths: common.SnapshotPaths = None,
    cluster: ClusterOpt = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n", metavar="NAMESPACE",
            help="Only report cycles with a member in this namespace and its violations "
            "(priorities stay cluster-wide).",
            show_default=False,
        ),
    ] = None,
    all_namespaces: common.AllNamespacesOpt = False,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    output: OutputOpt = CheckOutput.table,
    text_format: FormatOpt = TextFormat.text,
    max_cycles: MaxCyclesOpt = graph.DEFAULT_CYCLE_LIMIT,
    model: common.ModelOpt = None,
    feature_gates: common.FeatureGatesOpt = None,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Find preemption cycles and priority-rule violations before they happen.

    Builds the "who can preempt whom" graph of the priority profiles of the Workloads, pods
    and controllers' pod templates (Deployment, Job, CronJob, JobSet, LeaderWorkerSet, ...)
    and reports every preemption cycle (bounded, shortest first), every Workload or pod whose
    preemption priority is below its scheduling priority (KEP-5710's rule), pod templates that
    name a missing PriorityClass, running pods whose priority drifted from their class, and
    Kueue priorities that diverge from the pods' classes.

    Exit 0 when there are none, 1 when there are findings, 2 on bad input, 4 when the cluster
    cannot be read.
    """
    namespace = common.resolve_namespace(namespace, all_namespaces)
    if text_format is TextFormat.github and output not in (CheckOutput.table, CheckOutput.wide):
        raise UsageError(
            "--format github replaces the table; do not combine it with -o "
            f"{output.value}"
            if output in (CheckOutput.sarif, CheckOutput.dot, CheckOutput.mermaid,
                          CheckOutput.html)
            else "--format github replaces the table; do not combine it with -o json|yaml"
        )
    opts = common.SnapshotOptions(
        paths=tuple(paths or ()),
        kubeconfig=kubeconfig,
        context=context,
        namespace=namespace,
        request_timeout=request_timeout,
        page_size=page_size,
        max_input_size=max_input_size,
    )
    documents, scope = _documents(opts, list(cluster or ()))
    from wapctl import drift, ingest

    snapshot = ingest.build_snapshot(documents)
    from wapctl.gcpause import keep_until_exit
    from wapctl.models import as_seen_by

    keep_until_exit((documents, snapshot))  # the process ends with the command: never freed

    behaviour = common.behaviour_model(snapshot, model, feature_gates)
    report = graph.check(
        as_seen_by(snapshot, behaviour),
        namespace=namespace,
        limit=max_cycles,
        findings=drift.find(documents, snapshot),
        scope=scope,
    )
    _print(report, output, text_format, no_color, color, snapshot.warnings, behaviour)
    raise typer.Exit(int(ExitCode.OK if report.clean else ExitCode.FINDINGS))


def _documents(
    opts: common.SnapshotOptions, cluster: list[str]
) -> tuple[list[Any], graph.Scope | None]:
    """The documents to check and, for manifests against a cluster, the scope."""
    live_cluster = bool(opts.paths) and bool(opts.kubeconfig or opts.context)
    if cluster and live_cluster:
        raise UsageError("give --cluster SNAPSHOT or --kubeconfig/--context, not both")
    if cluster and not opts.paths:
        raise UsageError("--cluster needs manifests to check against it (give files or -)")
    if not cluster and not live_cluster:
        return common.read_documents(opts, progress=True), None
    if "-" in cluster and "-" in opts.paths:
        raise UsageError("stdin (-) can hold the manifests or the cluster, not both")
    from wapctl import audit, ingest, live

    manifests = ingest.read_documents(list(opts.paths), max_input_size=opts.input_limit)
    if cluster:
        base = ingest.read_documents(cluster, max_input_size=opts.input_limit)
    else:
        base = live.fetch_documents(
            kubeconfig=opts.kubeconfig,
            context=opts.context,
            request_timeout=opts.request_timeout,
            page_size=opts.page_size,
            progress=sys.stderr.isatty(),
            notify=common.stderr_note,
        )
    documents, _ = audit.apply_change(base, manifests)
    classes = {
        d.obj["metadata"]["name"]
        for d in manifests
        if (ref := audit.object_ref(d.obj)) is not None and ref.kind == "PriorityClass"
    }
    return documents, graph.Scope(frozenset(d.source for d in manifests), frozenset(classes))


def _print(
    report: graph.CycleReport,
    output: CheckOutput,
    text_format: TextFormat,
    no_color: bool,
    color: common.ColorMode,
    warnings: Any,
    behaviour: Any,
) -> None:
    if text_format is TextFormat.github:
        from wapctl.render.warnings import warning_line, warnings_to_list

        notes = [render.annotation("warning", f"wapctl {w['code']}",
                                   warning_line(w).removeprefix("Warning: "), None)
                 for w in warnings_to_list(warnings)]
        text = "".join(line + "\n" for line in notes + render.github_lines(report))
    elif output is CheckOutput.sarif:
        from wapctl.render import sarif

        text = common.dump_json(sarif.sarif_log(report))
    elif output is CheckOutput.dot:
        from wapctl.render import picture

        text = picture.dot(report)
    elif output is CheckOutput.mermaid:
        from wapctl.render import picture

        text = picture.mermaid(report)
    else:
        from wapctl.render.names import cycle_names

        doc = render.report_to_dict(report, warnings)
        doc["model"] = behaviour.to_dict()
        common.emit(
            doc,
            common.ReportFormat(output.value),
            no_color,
            lambda console: render.render_table(report, console),
            color=color,
            names=lambda: cycle_names(doc),
            html=lambda: _html(doc, report),
        )
        return
    sys.stdout.write(text)
    sys.stdout.flush()


def _html(doc: dict[str, Any], report: graph.CycleReport) -> str:
    from wapctl.render.html.cycles import cycles_page
    from wapctl.render.html.extras import cycles_picture

    return cycles_page(doc, cycles_picture(report))
