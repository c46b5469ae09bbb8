"""The cluster just before a recorded preemption, rebuilt from the documents read.

After the scheduler preempted, its victims are terminating (``deletionTimestamp`` and a
``DisruptionTarget`` condition) and, once gone, are no longer listed; its preemptor may be
nominated or bound. The replay undoes what the preemption did: a victim still terminating is
put back as running; a victim gone is taken from the ``--before`` documents (a snapshot taken
earlier) when they hold the same pod (same UID); the preemptor's pods are pending again
(``spec.nodeName``, ``status.nominatedNodeName`` cleared). What can be done neither way is
named in ``Replay.missing``. Only the objects changed are copied; nothing here prints.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from wapctl.events import ObjectRef
from wapctl.ingest import Document, Documents


@dataclass
class Replay:
    documents: Documents
    restored: list[str] = field(default_factory=list)  # victims put back from terminating
    from_before: list[str] = field(default_factory=list)  # victims taken from --before
    missing: list[str] = field(default_factory=list)  # victims in neither
    unbound: list[str] = field(default_factory=list)  # preemptor pods made pending again
    missing_preemptor: list[str] = field(default_factory=list)


def _pod_key(obj: dict[str, Any]) -> tuple[str, str] | None:
    if obj.get("kind") != "Pod" or type(obj.get("metadata")) is not dict:
        return None
    meta = obj["metadata"]
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}", meta.get("uid") or ""


def _running_again(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of a terminating victim as it was before the preemption."""
    out = copy.deepcopy(obj)
    meta = out["metadata"]
    meta.pop("deletionTimestamp", None)
    meta.pop("deletionGracePeriodSeconds", None)
    status = out.get("status")
    if type(status) is dict and type(status.get("conditions")) is list:
        status["conditions"] = [c for c in status["conditions"]
                                if not (type(c) is dict and c.get("type") == "DisruptionTarget")]
    return out


def _pending_again(obj: dict[str, Any]) -> dict[str, Any]:
    """A copy of a preemptor pod as the scheduler saw it when it preempted: not nominated,
    not bound."""
    out = copy.deepcopy(obj)
    if type(out.get("spec")) is dict:
        out["spec"].pop("nodeName", None)
    status = out.get("status")
    if type(status) is dict:
        status.pop("nominatedNodeName", None)
        status["phase"] = "Pending"
    return out


def _terminating(obj: dict[str, Any]) -> bool:
    return obj["metadata"].get("deletionTimestamp") is not None


def build_replay(current: Sequence[Document], before: Sequence[Document],
                 victims: Iterable[ObjectRef], preemptor_pods: Iterable[str]) -> Replay:
    """The documents of the cluster just before the preemption that took ``victims`` for the
    preemptor whose pods are ``preemptor_pods`` (``namespace/name``)."""
    wanted = {v.key: v.uid or "" for v in victims}
    movers = set(preemptor_pods)
    out = Documents()
    out.server_version = getattr(current, "server_version", None)
    replay = Replay(out)
    found: set[str] = set()
    for doc in current:
        ident = _pod_key(doc.obj)
        if ident is None:
            out.append(doc)
            continue
        key, uid = ident
        if key in wanted and (not wanted[key] or uid == wanted[key]):
            found.add(key)
            if _terminating(doc.obj):
                replay.restored.append(key)
                doc = Document(doc.source, _running_again(doc.obj))
        elif key in wanted:
            continue  # a pod re-created under the victim's name: not the victim
        elif key in movers:
            obj = doc.obj
            spec, status = obj.get("spec") or {}, obj.get("status") or {}
            if spec.get("nodeName") or status.get("nominatedNodeName"):
                replay.unbound.append(key)
                doc = Document(doc.source, _pending_again(obj))
            found.add(key)
        out.append(doc)
    _from_before(before, wanted, movers, found, replay)
    return replay


def _from_before(before: Sequence[Document], wanted: dict[str, str], movers: set[str],
                 found: set[str], replay: Replay) -> None:
    for doc in before:
        ident = _pod_key(doc.obj)
        if ident is None:
            continue
        key, uid = ident
        if key in found:
            continue
        if key in wanted and (not wanted[key] or uid == wanted[key]):
            replay.documents.append(Document(doc.source, _running_again(doc.obj)))
            replay.from_before.append(key)
            found.add(key)
        elif key in movers:
            replay.documents.append(Document(doc.source, _pending_again(doc.obj)))
            found.add(key)
    replay.missing = sorted(k for k in wanted if k not in found)
    replay.missing_preemptor = sorted(k for k in movers if k not in found)
    replay.restored.sort()
    replay.from_before.sort()
    replay.unbound.sort()
