"""Parser errors said in words a user acts on (issue 26, point 9): a tab in YAML names the tab
and its file:line; a .json file holding YAML says so. One line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wapctl.cli import app
from wapctl.ingest import hints, limits


def _validate(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["validate", str(path)])
    return result.exit_code, result.stderr


@pytest.mark.parametrize("fast_yaml", [False, True], ids=["pyyaml", "fast-path-tried"])
def test_tab_indenting_a_key_names_the_tab_and_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_yaml: bool
) -> None:
    """libyaml says "found character that cannot start any token" for a tab on line 4 (the
    fourth line below starts with one), never the word tab."""
    if fast_yaml:
        monkeypatch.setattr(limits, "FAST_YAML_FROM", 0)
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n", encoding="utf-8")
    assert (2, f"error: {path}:4, document 1: invalid YAML: a tab cannot indent YAML "
               "(indent with spaces) (line 4, column 1)\n") == _validate(path)


def test_tab_before_a_nested_key_says_the_same(tmp_path: Path) -> None:
    """libyaml's other wording for a tab in indentation (line 7 here) reads the same."""
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  a: 1\n\t  b: 2\n",
                    encoding="utf-8")
    assert (2, f"error: {path}:7, document 1: invalid YAML: a tab cannot indent YAML "
               "(indent with spaces) (line 7, column 1)\n") == _validate(path)


def test_tab_after_a_dash_says_a_tab_cannot_start_a_token(tmp_path: Path) -> None:
    """A tab after a list item's dash (line 6, 0-based column 4: "  - " then the tab) is not
    indentation: the error says a tab cannot start a YAML token, with its line and column."""
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  finalizers:\n  - \ta\n",
                    encoding="utf-8")
    assert (2, f"error: {path}:6, document 1: invalid YAML: a tab cannot start a YAML token "
               "(use spaces) (line 6, column 5)\n") == _validate(path)


def test_tab_after_a_dash_on_a_line_a_carriage_return_starts(tmp_path: Path) -> None:
    """libyaml ends a line at a lone carriage return (old Mac line ends) as at a line feed and
    counts lines and columns so: the tab after "- " below is on line 2, column 3, where it
    starts a token; it is not indentation, and the error says so at that line and column. The
    text after the one line feed holds "XX" and a tab at that same column: text before a tab,
    even there, is no indentation either."""
    path = tmp_path / "list.yaml"
    path.write_bytes(b"- a\r- \tb\nXX\tc\n")
    assert (2, f"error: {path}:2, document 1: invalid YAML: a tab cannot start a YAML token "
               "(use spaces) (line 2, column 3)\n") == _validate(path)


@pytest.mark.parametrize("brk", ["\r", "\u0085", "\u2028", "\u2029"],
                         ids=["cr", "nel", "ls", "ps"])
def test_tab_indenting_after_any_yaml_line_break_names_the_tab(tmp_path: Path, brk: str) -> None:
    """libyaml ends a line at a lone CR, NEL, LS or PS as at a line feed: in
    "a: 1<break>b:<break><tab>c: 2" the tab starts line 3, so it indents (column 1) and the
    error names the tab and that line, as it does for a file with line feeds."""
    path = tmp_path / "map.yaml"
    path.write_bytes(f"a: 1{brk}b:{brk}\tc: 2\n".encode())
    assert (2, f"error: {path}:3, document 1: invalid YAML: a tab cannot indent YAML "
               "(indent with spaces) (line 3, column 1)\n") == _validate(path)



@pytest.mark.parametrize("char", ["@", "`"], ids=["at-sign", "backquote"])
def test_other_character_that_cannot_start_a_token_keeps_libyamls_words(
    tmp_path: Path, char: str
) -> None:
    """Only a tab is named as a tab: YAML reserves ``@`` and a backquote, so libyaml refuses
    either at the start of a value with "found character that cannot start any token", and the
    error keeps those words at the character's place (line 2, after the 8 characters of
    "  name: ", column 9), with no tab hint and no file:line of a tab."""
    path = tmp_path / "pod.yaml"
    path.write_text(f"metadata:\n  name: {char}web\n", encoding="utf-8")
    assert (2, f"error: {path}, document 1: invalid YAML: found character that cannot start "
               "any token (line 2, column 9)\n") == _validate(path)


@pytest.mark.parametrize(("text", "problem", "place"), [
    ("metadata:\n  name: & web\n",
     "did not find expected alphabetic or numeric character", "line 2, column 10"),
    ("metadata:\n  name: &\tweb\n",
     "did not find expected alphabetic or numeric character", "line 2, column 10"),
    ("data: |\n\tline\n",
     "found a tab character where an indentation space is expected", "line 2, column 1"),
], ids=["anchor-then-space", "anchor-then-tab", "tab-in-block-scalar"])
def test_other_libyaml_errors_at_a_tab_keep_libyamls_words(
    tmp_path: Path, text: str, problem: str, place: str
) -> None:
    """The tab hint stands in for libyaml's "cannot start any token" only, which never says
    tab. Other errors found at a tab keep libyaml's words: an anchor ``&`` with no name fails
    alike whether a space or a tab follows it (the character after "  name: &", column 10),
    so the tab is not the problem; a tab indenting a block scalar's line is named by libyaml
    itself ("found a tab character ...")."""
    path = tmp_path / "pod.yaml"
    path.write_text(text, encoding="utf-8")
    assert (2, f"error: {path}, document 1: invalid YAML: {problem} ({place})\n"
            ) == _validate(path)

def test_tab_is_named_by_pyyaml_without_libyaml(tmp_path: Path) -> None:
    """PyYAML installed without its C part (libyaml) words a tab where a token should start
    "found character '\\t' that cannot start any token": the error still names the tab, its
    line and column, as it does with libyaml (a fresh interpreter that cannot import
    ``yaml._yaml``, as on a machine where PyYAML was built without libyaml)."""
    path = tmp_path / "pod.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n", encoding="utf-8")
    code = ("import sys; sys.modules['yaml._yaml'] = None; import yaml; "
            "assert not hasattr(yaml, 'CSafeLoader'); sys.argv[0] = 'wapctl'; "
            "from wapctl.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code, "validate", str(path)],
                          capture_output=True, text=True, check=False)
    assert (2, f"error: {path}:4, document 1: invalid YAML: a tab cannot indent YAML "
               "(indent with spaces) (line 4, column 1)\n") == (done.returncode, done.stderr)


def test_json_file_holding_yaml_says_it_looks_like_yaml(tmp_path: Path) -> None:
    """A .json file is read as JSON only: YAML in it fails at line 1, column 1 and the error
    says it holds YAML."""
    path = tmp_path / "pod.json"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n", encoding="utf-8")
    assert (2, f"error: {path}:1, document 1: invalid JSON: Expecting value (line 1, column 1): "
               "it holds YAML, not JSON (name it .yaml)\n") == _validate(path)


def test_broken_json_keeps_the_json_message(tmp_path: Path) -> None:
    """A trailing comma is broken JSON, not YAML (though YAML's flow style reads it): json's own
    message and place, no YAML hint."""
    path = tmp_path / "pod.json"
    text = '{"apiVersion": "v1",\n "kind": "Pod",}\n'
    path.write_text(text, encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as broken:  # 3.13 words and places it otherwise
        json.loads(text)
    err = broken.value
    assert err.lineno == 2 and err.colno in (15, 16)
    assert (2, f"error: {path}:2, document 1: invalid JSON: {err.msg} "
               f"(line 2, column {err.colno})\n") == _validate(path)


@pytest.mark.parametrize("text", ['\n  {"apiVersion": "v1", "kind": "Pod",}\n',
                                  '[{"apiVersion": "v1", "kind": "Pod"},]\n'],
                         ids=["indented-mapping", "list"])
def test_broken_json_list_or_indented_mapping_keeps_the_json_message(
    tmp_path: Path, text: str
) -> None:
    """Broken JSON is told by its first non-blank character, ``{`` after blank lines and
    indentation as at the start, and ``[`` (a List) as ``{``: both texts end their object with a
    trailing comma, which YAML's flow style reads as a mapping or a list, yet they are broken
    JSON, so json's own message stands alone, no YAML hint."""
    path = tmp_path / "pod.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as broken:  # 3.13 words and places it otherwise
        json.loads(text)
    err = broken.value
    assert (2, f"error: {path}:{err.lineno}, document 1: invalid JSON: {err.msg} "
               f"(line {err.lineno}, column {err.colno})\n") == _validate(path)


def test_json_file_holding_yaml_libyaml_reads_says_it_holds_yaml(tmp_path: Path) -> None:
    """The hint reads the text as the YAML reader does (libyaml): a tab after a value, which
    libyaml takes as blank space (and PyYAML's pure-Python scanner refuses), is still YAML
    holding a Pod, so renaming the file .yaml would read it, and the error says so."""
    path = tmp_path / "pod.json"
    path.write_text("apiVersion: v1\nkind: Pod\t\nmetadata:\n  name: x\n", encoding="utf-8")
    assert (2, f"error: {path}:1, document 1: invalid JSON: Expecting value (line 1, column 1): "
               "it holds YAML, not JSON (name it .yaml)\n") == _validate(path)


def test_json_file_of_hint_max_bytes_still_gets_the_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HINT_MAX`` is the largest input read again as YAML for the hint: a file of exactly that
    many bytes gets the hint, one byte more does not (the limit lowered to the 35-byte text, so
    the test stays small)."""
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n"
    assert 35 == len(text.encode())
    path = tmp_path / "pod.json"
    path.write_text(text, encoding="utf-8")
    plain = f"error: {path}:1, document 1: invalid JSON: Expecting value (line 1, column 1)"
    monkeypatch.setattr(hints, "HINT_MAX", 35)
    assert (2, plain + ": it holds YAML, not JSON (name it .yaml)\n") == _validate(path)
    monkeypatch.setattr(hints, "HINT_MAX", 34)
    assert (2, plain + "\n") == _validate(path)


@pytest.mark.parametrize("text", ["hello world\n", "# only a comment\n", "kind: [Pod\n"],
                         ids=["a-plain-scalar", "no-document", "not-yaml-either"])
def test_json_file_holding_no_yaml_objects_gets_no_yaml_hint(tmp_path: Path, text: str) -> None:
    """The hint promises YAML objects: text YAML reads as a bare string, or as no document at
    all, or cannot read at all (an unclosed ``[``), is not a misnamed YAML file, so json's own
    message stands alone."""
    path = tmp_path / "pod.json"
    path.write_text(text, encoding="utf-8")
    assert (2, f"error: {path}:1, document 1: invalid JSON: Expecting value (line 1, column 1)\n"
            ) == _validate(path)
