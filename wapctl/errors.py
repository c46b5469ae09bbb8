"""The error family and the exit codes (SPEC.md §5).

Expected rejections of *input* are exceptions of this family; the CLI's one error boundary maps
each to its exit code and prints one line, never a traceback. Scheduling outcomes (a preemptor
that does not fit) are values, not exceptions.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import field as _field
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # cycles, rule violations, risky change
    INPUT = 2  # usage or input error
    UNSCHEDULABLE = 3  # preemptor unschedulable even with preemption
    CLUSTER = 4  # cluster or API error
    INTERNAL = 70  # a bug in wapctl (EX_SOFTWARE): one line, WAPCTL_TRACEBACK=1 shows where
    INTERRUPTED = 130  # Ctrl-C
    CLOSED_PIPE = 141  # stdout's reader went away (128 + SIGPIPE: a shell's code for kubectl then)


@dataclass(frozen=True, slots=True)
class Source:
    """Where an object came from: a file (or ``<stdin>``, or a cluster URL), a 1-based document
    number within it, the 0-based item index when the document was a ``List``, and the 1-based
    ``line`` where the object starts in the file when the reader knows it (YAML: the parser's
    mark; JSON: found on demand, see ``wapctl.ingest.json_reader``).

    ``line`` is not part of equality or hashing: the same object read by a reader that knows
    lines and by one that does not (a cluster, stdin) is the same source."""

    file: str
    document: int | None = None
    item: int | None = None
    line: int | None = _field(default=None, compare=False)

    def located_line(self) -> int | None:
        """``line``, or the line a registered finder works out for this source (JSON readers
        register one per file and only pay for it when an error is reported)."""
        if self.line is not None:
            return self.line
        finder = _LINE_FINDERS.get(self.file)
        if finder is None or self.document is None:
            return None
        try:
            return finder(self)
        except Exception:  # a file changed or vanished since: no line rather than a new error
            return None

    def describe(self, field: str | None = None, *, line: bool = True) -> str:
        """``file:line, document N, item I, field F`` (the parts that are known);
        ``line=False`` leaves the line out."""
        where = self.located_line() if line else None
        parts = [self.file if where is None else f"{self.file}:{where}"]
        if self.document is not None:
            parts.append(f"document {self.document}")
        if self.item is not None:
            parts.append(f"item {self.item}")
        text = ", ".join(parts)
        if field:
            text += f", field {field}"
        return text


# file name -> function giving the 1-based line of a Source in it (registered by readers that
# do not keep lines while reading; see Source.located_line)
_LINE_FINDERS: dict[str, Callable[[Source], int | None]] = {}


def register_line_finder(file: str, finder: Callable[[Source], int | None] | None) -> None:
    """Let ``Source.located_line`` ask ``finder`` for lines in ``file`` (None forgets it)."""
    if finder is None:
        _LINE_FINDERS.pop(file, None)
    else:
        _LINE_FINDERS[file] = finder


class WapctlError(Exception):
    """Base of every error the CLI reports as one clean line."""

    exit_code: ExitCode = ExitCode.INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(WapctlError):
    """The command line itself is wrong (unknown --pod, conflicting options)."""

    exit_code = ExitCode.INPUT


class InputError(WapctlError):
    """A snapshot or change file is malformed or contradicts itself.

    The message names the file, the document and the field where that applies.
    """

    exit_code = ExitCode.INPUT

    def __init__(
        self,
        message: str,
        source: Source | None = None,
        field: str | None = None,
        obj: str | None = None,
    ):
        self.source = source
        self.field = field
        self.reason = message
        self.object = obj  # "Pod prod/web-1": the object the error is about, when known
        where = source.describe(field) if source is not None else None
        if obj is not None:
            text = f"{obj} ({where}): {message}" if where else f"{obj}: {message}"
        else:
            text = f"{where}: {message}" if where else message
        super().__init__(text)

    def about(self, obj: str) -> InputError:
        """The same error, naming the object it is about (kept if already named)."""
        if self.object is not None:
            return self
        return InputError(self.reason, self.source, self.field, obj)


def cannot_read(exc: OSError | ValueError, path: str) -> InputError:
    """``FILE: cannot read: <the system's reason>``: a file that is there but cannot be read."""
    return InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", Source(path))


def did_you_mean(name: str, candidates: Iterable[str], prefix: str = "", limit: int = 3,
                 first: Iterable[str] = ()) -> str:
    """`` (did you mean a, b?)`` for the candidates closest to ``name`` (difflib ratio >= 0.75),
    each shown with ``prefix`` (compare bare names, show ``ns/name``), after the ``first``
    options (shown as they are), or ``""``."""
    close = difflib.get_close_matches(name, list(candidates), n=limit, cutoff=0.75)
    options = [*first, *(prefix + c for c in close)]
    return f" (did you mean {', '.join(options)}?)" if options else ""


class NothingPending(WapctlError):
    """There is no pending pod or pod group to plan for: not a failure (exit 0)."""

    exit_code = ExitCode.OK


class ClusterError(WapctlError):
    """The cluster could not be read: unreachable, TLS, 401/403, timeout, missing API group."""

    exit_code = ExitCode.CLUSTER
