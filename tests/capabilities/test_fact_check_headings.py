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


XMLTODICT = "v0.13.0\n* parse(generator) is now possible (#212)\n* Processing comments on parsing from xml to dict\n"


@pytest.mark.parametrize("heading", ["## Key Features", "**Key Features**", "### Key Features ###"])
def test_a_title_case_heading_of_short_words_names_nothing(heading: str) -> None:
    """The embedded model's "## Key Features" (writing from a package's metadata) was read as the name Key Features."""
    assert check_facts(f"# xmltodict 0.13.0\n\n{heading}\n\nIt can parse a generator.\n", [(1, XMLTODICT)]).passed


@pytest.mark.parametrize(("article", "flagged"), [
    ("## Jane Doe\n\nJane Doe wrote the parser.\n", ["Jane Doe"]),  # the heading's name is checked where it is said
    ("Key Features\n\nIt can parse a generator.\n", ["Key Features"]),  # a plain line: only long words make Title Case
    ("## Key Features\n\nKey Features says so.\n", ["Key Features"]),  # the same words in a sentence are checked
    ("Written by Jane Doe.\n", ["Jane Doe"]),
])
def test_a_name_outside_a_heading_is_still_checked(article: str, flagged: list[str]) -> None:
    assert [f.fact.text for f in check_facts(article, [(1, XMLTODICT)]).unsupported] == flagged


def test_a_sentences_first_word_written_in_lower_case_elsewhere_is_no_part_of_a_name() -> None:
    """"Generate XML data from a Python object" beside "parse and generate XML": XML is the name, and the source
    writes it (the embedded model's code comment, read as a line of text)."""
    article = "You can parse and generate XML.\n\n```python\n# Generate XML data from a Python object\n```\n"
    assert check_facts(article, [(1, "Parsing from XML to a Python object.")]).passed


@pytest.mark.parametrize("article", ["Generate XML data from a Python object.\n",  # no lower-case "generate"
                                     "Mark Berger said it. We mark it.\n"])  # Berger is still a name
def test_a_sentences_first_word_not_written_in_lower_case_stays_part_of_the_name(article: str) -> None:
    assert not check_facts(article, [(1, "Parsing from XML to a Python object.")]).passed


ARGCOMPLETE = "Tab completion for argparse. Call argcomplete.autocomplete(parser) before parse_args()."


def test_the_first_word_of_a_quoted_text_that_goes_on_in_lower_case_names_nothing() -> None:
    """The embedded model's code: help='Show this help message' was read as the name Show."""
    assert check_facts("```python\nparser.add_argument('--help', action='help', help='Show this help message')\n```\n",
                       [(1, ARGCOMPLETE)]).passed


@pytest.mark.parametrize(("article", "flagged"), [
    ("jwt.encode(claims, secret, algorithm='HS256')\n", ["HS256"]),  # no plain word: an identifier
    ('It is codenamed "Bookworm", for now.\n', ["Bookworm"]),  # a quoted name alone
    ("It is called 'Bookworm' by all.\n", ["Bookworm"]),
])
def test_a_quoted_name_is_still_checked(article: str, flagged: list[str]) -> None:
    assert [f.fact.text for f in check_facts(article, [(1, ARGCOMPLETE)]).unsupported] == flagged


LIBYAML = "0.2.5 2020-06-01\n- #143 Add a test-suite\n- #174 Fix logic for document end\n"


def test_a_citation_marker_the_token_limit_cut_off_is_no_number() -> None:
    """The embedded model's draft ended "... in the pull requests [1" when it ran out of tokens."""
    assert check_facts("These patches are in the pull requests [143] and [174], merged as [1", [(1, LIBYAML)]).passed


@pytest.mark.parametrize(("article", "flagged"), [
    ("They are in the pull requests [143] and [175].", ["175"]),  # a pull request's number in brackets is checked
    ("It was cut at [1 of the 3 pull requests.", ["1", "3"]),  # "[1" inside the text is checked
])
def test_a_bracketed_number_that_is_no_cut_off_citation_is_checked(article: str, flagged: list[str]) -> None:
    assert [f.fact.text for f in check_facts(article, [(1, LIBYAML)]).unsupported] == flagged
