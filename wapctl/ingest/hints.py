"""What a parser's error leaves out, said in the one error line (issue 26, point 9).

- libyaml says "found character that cannot start any token" for a tab where YAML expects
  indentation, without the word tab (PyYAML without libyaml: "found character '\\t' that
  cannot start any token"): ``tab_problem`` names the tab and says why (YAML indents
  with spaces only; YAML 1.1 and 1.2 both forbid tabs in indentation) and the error's place
  then carries the file:line.
- ``json`` says "Expecting value" for a ``.json`` file that holds YAML: ``yaml_not_json`` tells
  when the text does not start as JSON does (``{`` or ``[``: broken JSON, which YAML's flow
  style might read, keeps json's own message) and reads as YAML mappings or lists (Kubernetes
  objects or Lists), so the error can say so. Run only once the JSON reader has failed, on
  inputs up to ``HINT_MAX`` bytes. (The other way round needs no hint: YAML reads JSON, and a
  ``.yaml`` file holding broken JSON gets PyYAML's error at the broken place.)
- Python refuses to convert an integer of more than 4,300 digits and says to call
  ``sys.set_int_max_str_digits()``, which a user of the CLI cannot: ``value_problem`` says what
  is wrong in the input instead.
- PyYAML's constructors fail on a scalar they cannot read (``!!timestamp soon``,
  ``!!bool maybe``, an unquoted ``2026-13-45``) with Python's own exception and no place:
  ``BadScalar`` carries the scalar's place and says which value is not what its tag asks for.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import yaml

from wapctl.errors import InputError, Source

HINT_MAX = 16 << 20  # larger inputs that fail as JSON are not parsed again as YAML for a hint
_NO_TOKEN = "found character that cannot start any token"
_NO_TOKEN_PURE = "found character '\\t' that cannot start any token"  # PyYAML without libyaml
_TAB_INDENT = "found a tab character that violates indentation"
# where YAML (libyaml and PyYAML alike) ends a line: CR LF, LF, a lone CR, NEL, LS, PS
_LINE_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def tab_problem(problem: str, text: str | None, line: int, column: int) -> str | None:
    """A message naming the tab when libyaml's ``problem`` at 0-based ``line``/``column`` of
    ``text`` is a tab, else None."""
    if problem == _TAB_INDENT:
        return "a tab cannot indent YAML (indent with spaces)"
    if problem not in (_NO_TOKEN, _NO_TOKEN_PURE) or text is None:
        return None
    lines = _LINE_BREAK.split(text, line + 1)
    if line >= len(lines) or column >= len(lines[line]) or lines[line][column] != "\t":
        return None
    if lines[line][:column].strip(" \t") == "":
        return "a tab cannot indent YAML (indent with spaces)"
    return "a tab cannot start a YAML token (use spaces)"


def yaml_not_json(data: bytes) -> bool:
    """Whether ``data``, which failed as JSON, reads as YAML holding a mapping or a list."""
    if len(data) > HINT_MAX or data.lstrip()[:1] in (b"{", b"["):
        return False  # too big to parse again, or broken JSON (which YAML may read)
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = [d for d in yaml.load_all(data, Loader=loader) if d is not None]
    except Exception:  # not YAML either (or not text): no hint
        return False
    return bool(docs) and all(isinstance(d, dict | list) for d in docs)


def yaml_error(
    exc: yaml.YAMLError, file: str, document: int, text: str | None, depth_message: str
) -> InputError:
    """PyYAML's error as one line: the problem, where it is, and a tab named as such (its
    place then carries the file:line)."""
    if isinstance(exc, yaml.reader.ReaderError):
        return _reader_error(exc, file, text)
    if not isinstance(exc, yaml.MarkedYAMLError):
        return InputError(f"invalid YAML: {exc}", Source(file, document))
    problem = exc.problem or exc.context or "invalid YAML"
    if "maximum nesting depth" in problem:
        return InputError(depth_message, Source(file, document))
    if isinstance(exc, yaml.constructor.ConstructorError) and exc.problem_mark is not None:
        problem = problem.replace("could not determine a constructor for the tag", "tag")
        problem += " is not allowed (only plain YAML data is read, nothing is constructed)"
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return InputError(f"invalid YAML: {problem}", Source(file, document))
    tab = tab_problem(exc.problem or "", text, mark.line, mark.column)
    where = f"(line {mark.line + 1}, column {mark.column + 1})"
    if tab is not None:
        return InputError(
            f"invalid YAML: {tab} {where}", Source(file, document, line=mark.line + 1)
        )
    return InputError(f"invalid YAML: {problem} {where}", Source(file, document))


def _reader_error(exc: yaml.reader.ReaderError, file: str, text: str | None) -> InputError:
    """A character YAML does not allow (a control character), in one line with its place.
    PyYAML's own text gives an offset on a second line, in characters or (libyaml) bytes; the
    reader stops at the first such character, so its first occurrence in the text is the one.
    No document is named: the reader checks text ahead of the parser, so the document being
    parsed need not be the one holding the character."""
    char = exc.character
    if type(char) is not int:  # a byte that is not UTF-8 (wapctl decodes the text first)
        return InputError(f"invalid YAML: {str(exc).splitlines()[0]}", Source(file))
    problem = f"unacceptable character #x{char:04x}: {exc.reason}"
    at = -1 if text is None else text.find(chr(char))
    if text is None or at < 0:
        return InputError(f"invalid YAML: {problem}", Source(file))
    breaks = [m.end() for m in _LINE_BREAK.finditer(text, 0, at)]
    line = len(breaks) + 1
    column = at - (breaks[-1] if breaks else 0) + 1
    return InputError(f"invalid YAML: {problem} (line {line}, column {column})",
                      Source(file, line=line))


# YAML 1.1 tag -> what a value of it is, in the input's words
_TAG_WORDS = {
    "tag:yaml.org,2002:int": "an integer",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean (true or false)",
    "tag:yaml.org,2002:timestamp": "a timestamp",
    "tag:yaml.org,2002:binary": "base64 data",
    "tag:yaml.org,2002:null": "null",
}


class BadScalar(ValueError):
    """A scalar PyYAML's constructor could not read as its tag (explicit or resolved) asks."""

    def __init__(self, node: Any, exc: Exception) -> None:
        super().__init__(str(exc))
        self.line = node.start_mark.line + 1
        self.column = node.start_mark.column + 1
        value = str(node.value)
        problem = value_problem(exc)
        if problem != str(exc):  # said in the input's terms already (a 5,000-digit integer)
            self.problem = problem
            return
        shown = repr(value) if len(value) <= 40 else f"{value[:40]!r}... ({len(value)} characters)"
        what = _TAG_WORDS.get(node.tag, f"a value of tag {node.tag}")
        # a date's reason says which part is wrong; int()'s and float()'s repeat the value
        dated = node.tag == "tag:yaml.org,2002:timestamp" and isinstance(exc, ValueError)
        why = f": {exc}" if dated else ""
        self.problem = f"{shown} is not {what}{why}"

    def error(self, file: str, document: int) -> InputError:
        """The one error line, naming the scalar's line and column."""
        return InputError(
            f"invalid YAML value: {self.problem} (line {self.line}, column {self.column})",
            Source(file, document, line=self.line),
        )


def value_problem(exc: Exception) -> str:
    """What a parser's ``ValueError`` says is wrong with a value, in the input's terms."""
    text = str(exc)
    if text.startswith("Exceeds the limit") and "integer string conversion" in text:
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"
    return text
