"""A big JSON List as users read it: in far less memory than the file, every byte checked.

A List export over a slice (4 MiB) is read a slice of whole items at a time and the pages read
are handed back to the kernel (wapctl.ingest.json_reader), so a 3.5 GB export plans in a
fraction of its size (issue 24). Its UTF-8 check goes along with the slices: run once over the
whole file at the end, it made every page resident again (peak RSS back to the file's size:
892 MB for the 722 MB realistic 2k export, 3.9 GB for the 3.5 GB 5k one).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import wapctl
from wapctl.cli import app
from wapctl.ingest import json_reader, sources, utf8

# a child process that validates a file and prints its exit code and its own peak RSS in bytes:
# VmHWM, the high water mark of its own memory (ru_maxrss would not do: Linux keeps it across
# exec, so a child of a big test process starts at its parent's size)
_PEAK = """
import sys
from wapctl.cli import main
sys.argv = ["wapctl", "validate", sys.argv[1]]
code = 0
try:
    main()
except SystemExit as stop:
    code = stop.code
with open("/proc/self/status") as status:
    peak = next(line for line in status if line.startswith("VmHWM:"))
print(code, int(peak.split()[1]) * 1024, file=sys.stderr)
"""


# a pod naming a PriorityClass the export left out: a MissingPriorityClass warning
_WARNED_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"},
               "spec": {"priorityClassName": "gone", "priority": 5, "containers": [{"name": "c"}]}}
# a pod whose cpu request is no quantity: an error naming its file:line
_BAD_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bad", "namespace": "d"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "x"}}}]}}


def _list_text(items: int, pad: str, *extra: dict[str, object]) -> str:
    """A List of ConfigMaps, each with an annotation and a value that no builder reads."""
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        *({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": f"c{i}", "namespace": "d", "annotations": {"note": pad}},
           "data": {"k": pad}}
          for i in range(items)), *extra]}, indent=1)


def _peak_rss(path: Path, code: int = 0) -> tuple[int, str]:
    """The peak RSS of a validate of ``path``, which must exit with ``code``, and its stderr."""
    root = Path(wapctl.__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", _PEAK, str(path)], capture_output=True,
                          text=True, cwd=root, check=True)
    *said, last = done.stderr.strip().splitlines()
    exit_code, peak = map(int, last.split())
    assert code == exit_code, done.stderr
    return peak, "\n".join(said)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
@pytest.mark.parametrize("case", ["clean", "a warning", "an error"])
def test_a_big_list_is_read_in_far_less_memory_than_the_file(tmp_path: Path, case: str) -> None:
    """A 96 MB List (6,000 items of 16 KB nobody reads) costs a validate under a quarter of its
    size on top of what a one-item List of the same shape costs (measured: ~12 MB; before the
    UTF-8 check went along with the slices, ~130 MB: every page resident again) -- also with a
    pod the validate warns about (its warning's file:line, which no report shows, was worked
    out when it was made: the whole file read again, ~100 MB more), and with a last pod whose
    error names its line (found by walking the file's map an item at a time, its pages handed
    back; it was read whole again, ~100 MB more)."""
    big, small = tmp_path / "big.json", tmp_path / "small.json"
    extra = {"clean": [], "a warning": [_WARNED_POD], "an error": [_BAD_POD]}[case]
    code = 2 if extra == [_BAD_POD] else 0
    text = _list_text(6000, "x" * 8000, *extra)
    big.write_text(text)
    small.write_text(_list_text(1, "x" * 8000, *extra))
    size = big.stat().st_size
    assert size > 90_000_000
    (peak, said), (base, _) = _peak_rss(big, code), _peak_rss(small, code)
    assert peak - base < size // 4, (peak - base, size)
    if code:  # the last item's line: where its "{" is
        line = text.count("\n", 0, text.rindex("\n  {") + 1) + 1
        assert f"error: Pod d/bad ({big}:{line}, document 1, item 6000, field " in said, said


@pytest.mark.parametrize("where", ["", "first item", "item 200", "last item", "after items"])
def test_a_list_read_in_slices_is_checked_as_utf8_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """A mapped List read in slices of a few items (``json_reader.SLICE`` 4 KiB, the check 3
    bytes at a time, so multi-byte characters are cut by both): valid UTF-8 in values nobody
    reads (2-, 3- and 4-byte characters, a raw lone surrogate, which ``json`` reads) is read; a
    byte that is not UTF-8 in such a value -- in the first item, one in the middle, the last, or
    a member after ``items`` -- is refused as the safe reader refuses it."""
    monkeypatch.setattr(sources, "MAP_FROM", 0)
    monkeypatch.setattr(json_reader, "SLICE", 4096)
    monkeypatch.setattr(utf8, "SLICE", 3)
    monkeypatch.chdir(tmp_path)
    chars = "caf\u00e9 \u20ac \U0001f600 \u00e9".encode() + b"\xed\xa0\x80"
    items = [
        b'{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c%d", '
        b'"namespace": "d"}, "data": {"k": "%s"}}' % (i, chars * (1 + i % 5))
        for i in range(400)
    ]
    tail = b'"x": "' + chars + b'"'
    bad = {"first item": 0, "item 200": 200, "last item": 399}.get(where)
    if bad is not None:
        items[bad] = items[bad].replace(b"caf\xc3\xa9", b"caf\xc3x", 1)
    elif where:
        tail = b'"x": "caf\xc3x"'
    text = b'{"apiVersion": "v1", "kind": "List", "items": [\n' + b",\n".join(items) + (
        b'\n], ' + tail + b"}\n")
    (tmp_path / "big.json").write_bytes(text)
    assert len(text) > 10 * json_reader.SLICE  # read in slices
    result = CliRunner().invoke(app, ["validate", "big.json"])
    if not where:
        assert (0, "") == (result.exit_code, result.stderr)
        text.decode("utf-8", "surrogatepass")  # the oracle agrees
        return
    with pytest.raises(UnicodeDecodeError):
        text.decode("utf-8", "surrogatepass")
    assert (2, "error: big.json: not UTF-8 text (a binary file?)\n") == (
        result.exit_code, result.stderr)
