"""The suite's own rules (tests/conftest.py): no silent skips, deterministic Hypothesis in CI.

Each rule is exercised on a throw-away test directory run by pytest's ``pytester`` with this
repository's conftest, so a broken hook shows here and not as a quietly weaker suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import current_profile
from hypothesis import settings

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).resolve().parent / "conftest.py").read_text(encoding="utf-8")


def run(pytester: pytest.Pytester, source: str | dict[str, str], *args: str) -> pytest.RunResult:
    """Run the sample with this repository's conftest, in process (fast). The conftest loads a
    Hypothesis profile, which is process-wide: this session's profile is loaded back after."""
    pytester.makeconftest(CONFTEST)
    files = source if isinstance(source, dict) else {"test_sample": source}
    pytester.makepyfile(**files)
    before = current_profile()
    try:
        return pytester.runpytest_inprocess("-p", "no:cacheprovider", *args)
    finally:
        settings.load_profile(before)


SKIPS = """
import pytest

def test_skip_in_body():
    pytest.skip("not ready")

@pytest.fixture
def needs_tool():
    pytest.skip("tool missing")

def test_skip_in_fixture(needs_tool):
    pass

@pytest.mark.skip
def test_bare_marker():
    pass

@pytest.mark.skipif(True, reason="")
def test_empty_reason():
    pass

@pytest.mark.skip(reason="   ")
def test_blank_reason():
    pass

@pytest.mark.skip(reason="needs a GPU (kwarg)")
def test_stated_kwarg():
    pass

@pytest.mark.skip("needs a GPU (arg)")
def test_stated_arg():
    pass

@pytest.mark.skipif(True, reason="needs a GPU (skipif)")
def test_stated_skipif():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail():
    assert False
"""


MISSING = "import pytest\nmissing = pytest.importorskip('no_such_module_x')\n" \
          "def test_x():\n    pass\n"


def test_only_skips_with_a_reason_stated_in_their_marker_pass(pytester: pytest.Pytester):
    """pytest.skip() in a test or a fixture, and markers with no or a blank reason, become
    failures (errors at set-up) naming the rule; markers stating a reason skip; strict xfail
    keeps working."""
    result = run(pytester, {"test_sample": SKIPS, "test_missing": MISSING}, "-rA",
                 "--continue-on-collection-errors")
    result.assert_outcomes(failed=1, errors=5, skipped=3, xfailed=1)
    assert 0 != result.ret
    for name in ("test_skip_in_body", "test_skip_in_fixture", "test_bare_marker",
                 "test_empty_reason", "test_blank_reason"):
        result.stdout.fnmatch_lines([
            f"*test_sample.py::{name} was skipped without a reason stated in a skip/skipif "
            "marker*"])
    result.stdout.fnmatch_lines(["SKIPPED*needs a GPU (kwarg)", "SKIPPED*needs a GPU (arg)",
                                 "SKIPPED*needs a GPU (skipif)"], consecutive=False)
    # a module-level importorskip can no longer make a whole file vanish
    result.stdout.fnmatch_lines(["*test_missing.py was skipped at collection*no_such_module_x*"])


PROPERTY = """
from hypothesis import given, settings, strategies as st

SEEN = []

@settings(max_examples=7)
@given(st.integers())
def test_p(x):
    SEEN.append(x)

def test_after():
    import json, os
    with open(os.environ["SEEN_OUT"], "a") as fh:
        fh.write(json.dumps(SEEN) + "\\n")
"""


def test_ci_profile_is_derandomized_and_keeps_stated_counts(pytester: pytest.Pytester,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path):
    """Under CI the same examples run every time (derandomized, no database), as many as the
    test states."""
    out = tmp_path / "seen.jsonl"
    monkeypatch.setenv("SEEN_OUT", str(out))
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "long")  # CI wins over a profile asked for
    for _ in range(2):
        result = run(pytester, PROPERTY)
        result.assert_outcomes(passed=2)
        result.stdout.fnmatch_lines(["*hypothesis profile ci: derandomize=True database=None*"])
        for f in pytester.path.glob("test_*.py"):
            f.unlink()
    first, second = (__import__("json").loads(line) for line in out.read_text().splitlines())
    assert first == second
    assert 1 <= len(first) <= 7


def test_long_profile_multiplies_each_stated_count(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path):
    """HYPOTHESIS_PROFILE=long runs each property LONG_FACTOR times its stated examples."""
    out = tmp_path / "seen.jsonl"
    monkeypatch.setenv("SEEN_OUT", str(out))
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "long")
    result = run(pytester, PROPERTY)
    result.assert_outcomes(passed=2)
    seen = __import__("json").loads(out.read_text())
    assert 7 < len(seen) <= 7 * 20
