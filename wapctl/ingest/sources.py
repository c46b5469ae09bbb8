"""Where snapshot bytes come from: files, directories and stdin, measured before they are read.

``read_documents`` takes paths (a directory: every ``*.yaml``, ``*.yml`` and ``*.json``
directly inside, sorted by name; ``-``: stdin), applies the size limits of
``wapctl.ingest.limits`` (files by ``stat`` and 4 KiB of their head, stdin read with a cap),
memory-maps big files instead of copying them, and hands each input's bytes to
``wapctl.ingest.decode``.
"""

from __future__ import annotations

import mmap
import os
import stat
import sys
from typing import Any, BinaryIO

from wapctl.errors import InputError, Source, cannot_read
from wapctl.gcpause import gc_paused
from wapctl.ingest import limits
from wapctl.ingest.decode import Document, Documents, parse_into
from wapctl.ingest.limits import byte_count, human

_SUFFIXES = (".yaml", ".yml", ".json")
_STDIN = "<stdin>"


# ---- reading files -------------------------------------------------------------------------


def read_documents(
    paths: list[str], *, max_input_size: int | None = None, stdin: BinaryIO | None = None
) -> Documents:
    """Every object in ``paths`` in input order (a directory's files sorted by name).

    ``max_input_size`` is the size limit for every input; by default it is ``MAX_INPUT_SIZE``,
    or ``MAX_FAST_INPUT_SIZE`` for an input of at least ``FAST_FROM`` bytes that starts like
    JSON (what the fast reader takes, in memory bounded by the objects kept)."""
    out = Documents()
    with gc_paused():
        for path in paths:
            _read_path(path, max_input_size, stdin, out)
    return out


def _default_limit(explicit: int | None, head: bytes, size: int) -> int:
    """The limit for an input of ``size`` bytes (at least) that starts with ``head``."""
    if explicit is not None:
        return explicit
    if size < limits.FAST_FROM:
        return limits.MAX_INPUT_SIZE
    if b"\x00" in head:  # not text: refused by its size before it is read
        return limits.MAX_INPUT_SIZE
    # JSON and YAML both have a fast reader (json_reader, yaml_reader); what it hands
    # over to the safe readers is capped at MAX_INPUT_SIZE by _slow_path_bytes
    return max(limits.MAX_INPUT_SIZE, limits.MAX_FAST_INPUT_SIZE)


_HEAD = 4096
MAP_FROM = 64 << 20  # files this big are memory-mapped instead of read


def _read_path(
    path: str, explicit: int | None, stdin: BinaryIO | None, out: list[Document]
) -> None:
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        if explicit is not None:
            limit = explicit
            data = _read_capped(stream, limit + 1)
        else:  # the first MiB tells which default applies
            data = _read_capped(stream, limits.FAST_FROM)
            limit = _default_limit(None, data, len(data))
            if len(data) == limits.FAST_FROM:
                data += _read_capped(stream, limit + 1 - len(data))
        if len(data) > limit:
            raise InputError(_too_large(limit), Source(_STDIN))
        parse_into(_STDIN, data, False, out, explicit)
        return
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError("no such file or directory", Source(path)) from None
    except OSError as exc:
        raise cannot_read(exc, path) from None
    if stat.S_ISDIR(st.st_mode):
        for name in _directory_files(path):
            _read_file(name, explicit, out)
    else:
        _read_file(path, explicit, out, st)


def _directory_files(path: str) -> list[str]:
    try:
        names = sorted(os.listdir(path))
    except OSError as exc:
        raise InputError(f"cannot list directory: {exc.strerror or exc}", Source(path)) from None
    files = [
        os.path.join(path, n)
        for n in names
        if n.lower().endswith(_SUFFIXES) and os.path.isfile(os.path.join(path, n))
    ]
    if not files:
        raise InputError("directory has no *.yaml, *.yml or *.json files", Source(path))
    return files


_CHUNK = 1 << 20


def _read_capped(stream: BinaryIO, cap: int, first: int = _CHUNK) -> bytes:
    """At most ``cap`` bytes, in chunks, so a small input never costs a ``cap``-sized buffer."""
    chunks = []
    total = 0
    want = min(cap, max(first, 1))
    while total < cap:
        chunk = stream.read(want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = min(cap - total, max(_CHUNK, total))
    return b"".join(chunks) if len(chunks) != 1 else chunks[0]


def _too_large(limit: int) -> str:
    return f"input is larger than the {human(limit)} limit (raise it with --max-input-size)"


def _read_file(
    path: str, explicit: int | None, out: list[Document], st: os.stat_result | None = None
) -> None:
    data: Any = None
    try:
        if st is None:
            st = os.stat(path)
        regular = stat.S_ISREG(st.st_mode)
        with open(path, "rb") as fh:
            head = fh.read(_HEAD) if regular and explicit is None else b""
            limit = _default_limit(explicit, head, st.st_size if regular else limits.FAST_FROM)
            if regular and st.st_size > limit:
                raise InputError(
                    f"file is {byte_count(st.st_size)}, larger than the {human(limit)} limit "
                    "(raise it with --max-input-size)",
                    Source(path),
                )
            if regular and st.st_size >= MAP_FROM:
                # a big export is mapped, not copied: the decoder reads the page cache directly
                # (copy-on-write: the YAML parser works in place, the JSON reader brackets each
                # slice of List items in place, on private copies of the pages they change; the
                # file itself is never written)
                data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
            else:
                # read(n) allocates n bytes up front: ask for what stat promised, capped
                if head:  # back to the start; a pipe (<(kubectl ...), /dev/stdin) was not read
                    fh.seek(0)
                expected = st.st_size if regular else 0
                data = _read_capped(fh, limit + 1, expected + 1)
    except InputError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: mmap of a file emptied meanwhile
        raise cannot_read(exc, path) from None
    try:
        if len(data) > limit:
            raise InputError(_too_large(limit), Source(path))
        parse_into(path, data, path.lower().endswith(".json"), out, explicit)
    finally:
        if type(data) is mmap.mmap:
            data.close()
