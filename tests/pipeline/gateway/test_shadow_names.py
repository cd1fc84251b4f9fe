"""Shadow names: an invented tool name is recorded as imitating a real one only when it really does."""

from __future__ import annotations

import pytest

from pipeline.gateway.names import resembles

CATALOG = ["pick_topic", "write_draft", "humanize", "publish", "register", "report"]


@pytest.mark.parametrize("name", ["a", "e", "t", "ab", "ish", "lish", "raft", "do_it", "get_weather"])
def test_short_or_unrelated_names_are_not_shadows(name: str) -> None:
    """One letter, a few letters inside a tool's name, or an unrelated name is no shadow of any tool."""
    assert resembles(name, CATALOG) is None


@pytest.mark.parametrize(("name", "real"), [
    ("publish_article", "publish"), ("publishArticle", "publish"), ("republish", "publish"),
    ("draft", "write_draft"), ("write", "write_draft"), ("topic", "pick_topic"),
    ("write_drafts", "write_draft"), ("Register", "register"), ("humanise", "humanize"),
])
def test_names_that_imitate_a_tool_are_shadows_of_it(name: str, real: str) -> None:
    """A name that contains a tool's name, is made of its words, or is spelled nearly alike, imitates it."""
    assert resembles(name, CATALOG) == real
