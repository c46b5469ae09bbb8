"""Is the input UTF-8 text, as the safe readers decode it? Checked as the fast readers read.

The fast readers skip what the builders do not read (an unknown key, a comment) without
decoding it, so a file must be checked apart, or it would be valid or not by which reader took
it: ``json`` decodes with lone surrogates passing (``surrogatepass``), PyYAML strictly. A JSON
List read in slices is checked a slice at a time just before its pages are handed back to the
kernel (``json_reader``), while they are still in memory: no page is faulted in a second time,
and a big export's pages are not all resident again at the end. ASCII pieces (most of an
export) are only scanned; the rest is decoded, continuing across pieces, and thrown away.
"""

from __future__ import annotations

import codecs
from typing import Any

SLICE = 16 << 20  # bytes the check takes at a time
NOT_UTF8 = "not UTF-8 text (a binary file?)"  # the one error, whichever reader finds it


class Utf8Check:
    """The check of one text, in order from its start: ``upto`` as far as it has been read (the
    text as the file has it), then ``valid`` for the rest and the end."""

    __slots__ = ("_bad", "_decoder", "checked")

    def __init__(self, errors: str) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors)
        self._bad = False
        self.checked = 0  # data[:checked] is checked

    def upto(self, data: Any, end: int) -> None:
        """Check ``data[checked:end]`` (bytes, or a map of them)."""
        start, self.checked = self.checked, max(self.checked, end)
        if self._bad:
            return
        try:
            for at in range(start, end, SLICE):
                piece = data[at : min(at + SLICE, end)]
                if not piece.isascii() or self._decoder.getstate()[0]:
                    self._decoder.decode(piece)
        except UnicodeDecodeError:
            self._bad = True

    def valid(self, data: Any) -> bool:
        """Whether all of ``data`` is UTF-8 text: the rest checked, and its end."""
        self.upto(data, len(data))
        if not self._bad:
            try:
                self._decoder.decode(b"", True)
            except UnicodeDecodeError:
                self._bad = True
        return not self._bad
