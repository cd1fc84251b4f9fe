"""A heading's own number counts the article's sections (the embedded model numbers its headings, "### 2. ...")."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

SOURCE = "Retries: 3 attempts, waiting 0.5 seconds and doubling, never longer than 30 seconds."


@pytest.mark.parametrize("heading", ["### 2. **Timeouts**", "## 11) Timeouts", "# 4. Waits"])
def test_a_numbered_heading_is_the_articles_structure(heading: str) -> None:
    assert check_facts(f"{heading}\n\nIt makes 3 attempts.\n", [(1, SOURCE)]).passed


def test_a_numbered_heading_cut_off_by_the_token_limit_is_the_articles_structure() -> None:
    """The embedded model's draft ended "### 42." when it ran out of tokens: still a section's number."""
    assert check_facts("It makes 3 attempts.\n\n### 41. Waits\n\n### 42.", [(1, SOURCE)]).passed


@pytest.mark.parametrize(("article", "flagged"), [
    ("### 2. Timeouts\n\nIt makes 4 attempts.\n", ["4"]),  # the body's number is still checked
    ("### 7 ways to wait\n\nIt makes 3 attempts.\n", ["7"]),  # a count in a heading is no section number
    ("### 2024 in review\n\nIt makes 3 attempts.\n", ["2024"]),  # nor is a year
    ("### 2.5 seconds\n\nIt makes 3 attempts.\n", ["2.5 seconds"]),  # nor a decimal with its unit
])
def test_a_number_in_a_heading_that_is_no_section_number_is_checked(article: str, flagged: list[str]) -> None:
    assert [f.fact.text for f in check_facts(article, [(1, SOURCE)]).unsupported] == flagged
