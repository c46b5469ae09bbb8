"""What the CLI reads from kubeconfig files itself: the context's namespace (the default for a
bare ``--pod NAME``, as kubectl uses it) and the context names (for "did you mean").

Files as kubectl finds them: ``--kubeconfig``, else every file of ``$KUBECONFIG`` (merged:
the first file that sets ``current-context`` wins, the first definition of a context wins),
else ``~/.kube/config``. A missing or unreadable file gives nothing, never an error: reading the
cluster itself is ``wapctl.live``'s job and reports its own errors.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml


def kubeconfig_files(kubeconfig: str | None) -> list[Path]:
    if kubeconfig:
        return [Path(kubeconfig).expanduser()]
    env = os.environ.get("KUBECONFIG")
    if env:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return [Path.home() / ".kube" / "config"]


def _read(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > 16 * 1024 * 1024:
            return {}
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def contexts(kubeconfig: str | None) -> tuple[str | None, dict[str, str | None]]:
    """(current context, {context name: its namespace or None}), merged as kubectl does."""
    current: str | None = None
    found: dict[str, str | None] = {}
    for path in kubeconfig_files(kubeconfig):
        data = _read(path)
        cur = data.get("current-context")
        if current is None and isinstance(cur, str) and cur:
            current = cur
        for item in data.get("contexts") or []:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            ctx = item.get("context")
            ns = ctx.get("namespace") if isinstance(ctx, dict) else None
            found.setdefault(item["name"], ns if isinstance(ns, str) and ns else None)
    return current, found


def context_namespace(kubeconfig: str | None, context: str | None) -> str | None:
    """The namespace of ``context`` (default: the current context), if the kubeconfig sets one."""
    current, found = contexts(kubeconfig)
    return found.get(context or current or "")
