"""`wapctl validate`: load and check a snapshot, print what it holds."""

from __future__ import annotations

import typer

from wapctl.commands import common
from wapctl.render.validate import render_validation, validation_to_dict


@common.boundary
def validate(
    paths: common.SnapshotPaths = None,
    kubeconfig: common.KubeconfigOpt = None,
    context: common.ContextOpt = None,
    request_timeout: common.RequestTimeoutOpt = 30.0,
    page_size: common.PageSizeOpt = 500,
    max_input_size: common.MaxInputSizeOpt = None,
    output: common.OutputOpt = common.OutputFormat.table,
    color: common.ColorOpt = common.ColorMode.auto,
    no_color: common.NoColorOpt = False,
) -> None:
    """Load and check a snapshot; print the objects per kind and the Workload API shapes.

    Exit 0 when the snapshot is valid, 2 with one message naming file, document and field when
    it is not, 4 when the cluster cannot be read.
    """
    opts = common.SnapshotOptions(
        paths=tuple(paths or ()),
        kubeconfig=kubeconfig,
        context=context,
        request_timeout=request_timeout,
        page_size=page_size,
        max_input_size=max_input_size,
    )
    from wapctl.render.names import snapshot_names

    snapshot = common.load_snapshot(opts, progress=True)
    doc = validation_to_dict(snapshot)
    common.emit(doc, output, no_color, lambda console: render_validation(doc, console),
                color=color, names=lambda: snapshot_names(snapshot))
    raise typer.Exit(0)
