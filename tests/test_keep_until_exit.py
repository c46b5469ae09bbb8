"""gcpause.keep_until_exit: what a command hands it is never freed, not even by a full
collection (the process ends soon; the OS takes the memory back without the per-object cost).
commands.common.load_snapshot hands it the documents and the snapshot once it is built."""

from __future__ import annotations

import gc
import weakref

from wapctl.gcpause import keep_until_exit


class _Marker:
    pass


def test_kept_objects_survive_dropping_every_reference_and_collections(monkeypatch) -> None:
    from wapctl import gcpause

    monkeypatch.setattr(gcpause, "_KEEP_UNTIL_EXIT", True)  # as the console script sets it
    marker = _Marker()
    alive = weakref.ref(marker)
    keep_until_exit({"documents": [marker]})
    del marker
    gc.collect()
    assert alive() is not None
    # without it, the same object goes with its last reference
    other = _Marker()
    gone = weakref.ref(other)
    del other
    assert gone() is None


def test_load_snapshot_keeps_the_documents_and_the_snapshot(monkeypatch, tmp_path) -> None:
    from wapctl import gcpause
    from wapctl.commands import common

    kept: list[object] = []
    monkeypatch.setattr(gcpause, "keep_until_exit", kept.append)
    path = tmp_path / "s.yaml"
    path.write_text("kind: PriorityClass\napiVersion: scheduling.k8s.io/v1\n"
                    "metadata: {name: low}\nvalue: 1\n", encoding="utf-8")
    snapshot = common.load_snapshot(common.SnapshotOptions(paths=(str(path),)))
    assert list(snapshot.priority_classes) == ["low"]
    ((documents, kept_snapshot),) = kept  # type: ignore[misc]
    assert [d.obj["metadata"]["name"] for d in documents] == ["low"]
    assert kept_snapshot is snapshot


def test_nothing_is_kept_unless_the_console_script_asked(monkeypatch) -> None:
    """Commands run in-process (tests, an embedding program) free their snapshots as usual:
    only ``wapctl.cli.main``, a process that ends with its command, turns keeping on."""
    from wapctl import gcpause

    monkeypatch.setattr(gcpause, "_KEEP_UNTIL_EXIT", False)
    marker = _Marker()
    alive = weakref.ref(marker)
    keep_until_exit({"documents": [marker]})
    del marker
    gc.collect()
    assert alive() is None


def test_the_console_script_turns_keeping_on(monkeypatch) -> None:
    import sys

    from wapctl import cli, gcpause

    monkeypatch.setattr(gcpause, "_KEEP_UNTIL_EXIT", False)
    monkeypatch.setattr(sys, "argv", ["wapctl", "version"])
    try:
        cli.main()
    except SystemExit:
        pass
    assert gcpause._KEEP_UNTIL_EXIT
