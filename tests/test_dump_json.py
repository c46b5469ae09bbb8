"""``--output json`` is ``json.dumps(doc, indent=2, ensure_ascii=False)`` byte for byte.

``commands.common.dump_json`` writes compactly with json and indents with msgspec's formatter
(faster on big reports); it must print exactly what json's own indentation prints, for any
document a command or ``wapctl snapshot`` (objects from a cluster) can hand it.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from wapctl.commands.common import dump_json

# Scalars as commands and cluster objects hold them, with the spellings that differ between
# JSON writers: exponents (1e+16, 1e-07), -0.0, big integers, non-ASCII and control
# characters, U+2028, quotes and backslashes, lone surrogates, NaN and infinities.
_TEXT = st.text(alphabet=st.sampled_from(
    ['a', 'é', '😀', '\u2028', '"', '\\', '\n', '\t', '\x01', '\x7f', '/', ' ', '\ud800']),
    max_size=6)
_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e16, 1e-7, -0.0, 0.1, 123456789.123, 1.5e300, 5e-324]),
    _TEXT,
)
_KEY = st.one_of(_TEXT, st.integers(-3, 3), st.booleans(), st.none(),
                 st.sampled_from([1.5, 1e16, -0.0]))
_DOC = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(_KEY, inner, max_size=4)),
    max_leaves=20,
)


def _json_module(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@given(_DOC)
def test_dump_json_is_json_dumps_indented(doc: Any) -> None:
    assert dump_json(doc) == _json_module(doc)


def test_dump_json_hand_worked() -> None:
    """Empty containers stay on one line; numbers keep json's spelling; strings their escapes."""
    doc = {"a": [], "b": {}, "c": [1e16, 1e-07, {"d": "x\n\"é"}], "e": None}
    assert dump_json(doc) == (
        '{\n  "a": [],\n  "b": {},\n  "c": [\n    1e+16,\n    1e-07,\n    {\n'
        '      "d": "x\\n\\"é"\n    }\n  ],\n  "e": null\n}\n'
    )
