"""kubectl's label selector syntax (wapctl/selector.py), with the semantics of
k8s.io/apimachinery/pkg/labels: != and notin also match objects without the key."""

from __future__ import annotations

import pytest

from wapctl.errors import UsageError
from wapctl.selector import matches, parse_selector

WEB = {"app": "web", "tier": "frontend"}
DB = {"app": "db", "tier": "backend", "legacy": "true"}
BARE: dict[str, str] = {}


@pytest.mark.parametrize(("text", "web", "db", "bare"), [
    ("", True, True, True),  # the empty selector matches everything
    ("app=web", True, False, False),
    ("app==web", True, False, False),
    ("app!=web", False, True, True),  # a missing key is "not web"
    ("tier in (frontend, edge)", True, False, False),
    ("tier notin (frontend)", False, True, True),
    ("legacy", False, True, False),
    ("!legacy", True, False, True),
    ("app=web,tier=frontend", True, False, False),
    ("app in (web,db), !legacy", True, False, False),
])
def test_selector_semantics(text, web, db, bare):
    s = parse_selector(text)
    assert (web, db, bare) == (matches(s, WEB), matches(s, DB), matches(s, BARE))


@pytest.mark.parametrize("text", ["=web", "app in ()", "app in web", "a b", "app=web,,"])
def test_malformed_selectors_are_usage_errors(text):
    with pytest.raises(UsageError) as info:
        parse_selector(text)
    assert "label selector" in str(info.value)
