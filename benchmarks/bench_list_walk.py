"""Where reading a big JSON List goes: the fast reader's steps one by one, in one process.

``wapctl.ingest.json_reader`` reads a List export a slice of whole items at a time: an RE2 match
finds where the slice's last whole item ends and bounds every item's depth on the way (the
walk), msgspec decodes the slice against the typed schema (decode), and the structs become the
dicts the builders read (to dicts). This script times each step over the whole file, CPU time
(user+sys of this process), median of ``--repeat`` runs, on a private copy-on-write map of the
file as the reader maps it, and two reference points:

- ``RE2 alone``: the speed of RE2's DFA on the file's first 64 MiB for the string-aware pattern
  with no nesting at all (is the walk's cost its nesting's, or the DFA's per byte?);
- ``closer cut``: slices cut where a line closes an item as the first item is indented (one
  ``rfind`` per slice), each cut confirmed by msgspec's decode of the slice (a cut inside an
  item cannot decode as a JSON array), then the same decode and dicts: what the reader would
  cost without the walk -- and without its depth bound, which nothing here replaces.

    .venv/bin/python benchmarks/bench_list_walk.py FILE.json [--repeat 3]

It reads private names of ``json_reader`` (its patterns and decoder): a measurement of that
module's steps, not an API.
"""

from __future__ import annotations

import argparse
import mmap
import statistics
import time
from collections.abc import Callable
from typing import Any

from wapctl.ingest import json_reader as jr
from wapctl.ingest.limits import MAX_DEPTH

SAMPLE = 64 << 20


def _items_start(data: Any) -> int:
    """The byte after the ``[`` of the List's ``items`` (the exports this measures have it)."""
    key = data.find(b'"items"')
    return int(data.find(b"[", key)) + 1


def walk(data: Any) -> list[tuple[int, int]]:
    """The reader's walk: each slice's ``[start, end)`` (the end after a comma or the ``]``)."""
    run, last, _ = jr._list_patterns(MAX_DEPTH)
    pos, spans = _items_start(data), []
    while True:
        found = run.match(data, pos, min(pos + jr.SLICE, len(data)))
        end = found.end() if found is not None else pos
        if end == pos:
            end = last.match(data, pos).end()
        spans.append((pos, end))
        pos = end
        if data[end - 1 : end] == b"]":
            return spans


def decode(data: Any, spans: list[tuple[int, int]], dicts: bool) -> int:
    """Decode every slice as the reader does (bracketed in place); optionally into dicts."""
    count = 0
    for pos, end in spans:
        before, after = data[pos - 1], data[end - 1]
        data[pos - 1], data[end - 1] = 0x5B, 0x5D
        with memoryview(data) as view:
            structs = jr._ITEMS_DECODER.decode(view[pos - 1 : end])
        data[pos - 1], data[end - 1] = before, after
        count += len(list(map(jr._plain, structs)) if dicts else structs)
    return count


def closer_cut(data: Any) -> tuple[list[tuple[int, int]], int]:
    """Slices cut after the last line in each window that closes an item (``},`` indented as
    the first item's ``{``), each confirmed by a decode; the rest of the List is left out."""
    pos = _items_start(data)
    first = pos
    while data[first : first + 1] in (b" ", b"\t", b"\r", b"\n"):
        first += 1
    gap = bytes(data[pos:first])
    closer = gap[gap.rfind(b"\n") :] + b"},"
    spans: list[tuple[int, int]] = []
    count = 0
    while True:
        cut = data.rfind(closer, pos, min(pos + jr.SLICE, len(data)))
        if cut < 0:
            return spans, count
        end = cut + len(closer)
        count += decode(data, [(pos, end)], dicts=False)  # refuses a cut inside an item
        spans.append((pos, end))
        pos = end


def _cpu(step: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.process_time()
        result = step()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def _re2_speed(data: Any, pattern: bytes) -> float:
    compiled = jr._compile(pattern)
    start = time.perf_counter()
    compiled.match(data, 0, SAMPLE)
    return SAMPLE / (time.perf_counter() - start) / 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with open(args.file, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    size = len(data) / 1e6
    print(f"{args.file}: {size:,.0f} MB, medians of {args.repeat}, CPU s")
    t_walk, spans = _cpu(lambda: walk(data), args.repeat)
    print(f"walk (RE2, slice ends + depth): {t_walk:.2f} s ({size / 1e3 / t_walk:.2f} GB/s), "
          f"{len(spans)} slices")
    t_dec, items = _cpu(lambda: decode(data, spans, dicts=False), args.repeat)
    print(f"decode (msgspec, typed): {t_dec:.2f} s, {items:,} items")
    t_all, _ = _cpu(lambda: decode(data, spans, dicts=True), args.repeat)
    print(f"to dicts: {t_all - t_dec:.2f} s (decode and dicts {t_all:.2f} s)")
    flat = rb"(?:" + jr._FLAT + rb"|" + jr._STRING + rb"|[\[\]{}])*"
    speeds = [_re2_speed(data, flat) for _ in range(args.repeat)]
    print(f"RE2 alone, first {SAMPLE >> 20} MiB, string-aware, no nesting: "
          f"{statistics.median(speeds):.2f} GB/s")
    t_cut, (_, cut_items) = _cpu(lambda: closer_cut(data), args.repeat)
    print(f"walk + decode: {t_walk + t_dec:.2f} s; closer cut + decode: {t_cut:.2f} s "
          f"({cut_items:,} items: all but the last slice's)")


if __name__ == "__main__":
    main()
