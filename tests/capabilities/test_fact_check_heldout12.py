"""Forms of the twelfth held-out set (written blind from X protocol notes, Debian copyright files, rendered manual
pages and Python packages' METADATA): each accepted where a source states the fact, and a fabrication of its class
still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts


def _flagged(article: str, source: str) -> list[str]:
    return [f.fact.text for f in check_facts(article, [(1, source)]).unsupported]


COPYRIGHT = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: duktape\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("The file follows copyright-format 1.0.", []),
    ("The file follows copyright-format 1.1.", ["1.1"]),
    ("It is licensed under version 1 or later.", ["1"]),  # the address's 1.0 is a version as written, not a 1
])
def test_a_version_an_address_gives_as_a_path_segment_is_the_sources(article: str, flagged: list[str]) -> None:
    assert _flagged(article, COPYRIGHT) == flagged


XAUTH = ("BUGS\n       Users that have unsecure networks should take care to use encrypted file\n"
         "       transfer mechanisms to copy authorization entries, such as Ker‐\n       beros.\n")


@pytest.mark.parametrize(("article", "flagged"), [
    ("It points to encrypted mechanisms such as Kerberos.", []),
    ("It points to encrypted mechanisms such as Kerbero.", ["Kerbero"]),
    ("It points to encrypted mechanisms such as Hesiod.", ["Hesiod"]),
])
def test_a_word_a_manual_page_hyphenates_at_a_line_end_is_read_whole(article: str, flagged: list[str]) -> None:
    assert _flagged(article, XAUTH) == flagged


XSESSION = "$HOME/.Xresources holds X resources specific to the invoking user's environment; Jean-Luc Picard wrote it."


@pytest.mark.parametrize(("article", "flagged"), [
    ("Per-user X resources belong in $HOME/.Xresources.", []),
    ("Per-user Xfce resources belong in $HOME/.Xresources.", ["Xfce"]),
    ("Jean-Luc Pickard wrote it.", ["Jean-Luc Pickard"]),
])
def test_a_common_compound_opening_a_sentence_is_no_part_of_a_name(article: str, flagged: list[str]) -> None:
    assert _flagged(article, XSESSION) == flagged


PARSO = "Fixed a lot of annoying bugs in the diff parser, no issues anymore after running it for 24 hours (500k tests)."


@pytest.mark.parametrize(("article", "flagged"), [
    ("It ran 500,000 tests.", []),
    ("模糊测试完成了50万次测试。", []),
    ("模糊测试完成了60万次测试。", ["60万次"]),
])
def test_thousands_with_a_lower_case_k_are_read(article: str, flagged: list[str]) -> None:
    assert _flagged(article, PARSO) == flagged


DPMS = """There are four power levels specified by the VESA Display Power Management Signaling (DPMS) standard. These
are:

DPMS Extension Power Levels
     0     DPMSModeOn          In use
     1     DPMSModeStandby     Blanked, low power
     2     DPMSModeSuspend     Blanked, lower power
     3     DPMSModeOff         Shut off, awaiting activity
"""


@pytest.mark.parametrize(("article", "flagged"), [
    ("The DPMS standard specifies four power levels.", []),
    ("The DPMS standard specifies five power levels.", ["five"]),  # the table's title was counted as a fifth level
])
def test_a_tables_title_is_no_item_of_its_list(article: str, flagged: list[str]) -> None:
    assert _flagged(article, DPMS) == flagged


XMESSAGE = "The exit value is 100 plus the button number. Buttons are numbered from the left starting with one."


@pytest.mark.parametrize(("article", "flagged"), [
    ("按钮从左侧开始、从一开始编号。", []),
    ("按钮从左侧开始、从二开始编号。", ["二"]),
    ("这一点从一开始就写明了。", []),  # 从一开始: "from the very start"
])
def test_the_chinese_number_numbering_starts_from_is_checked(article: str, flagged: list[str]) -> None:
    assert _flagged(article, XMESSAGE) == flagged
