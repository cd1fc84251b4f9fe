"""Forms of the eleventh held-out set (written blind from Debian changelogs, copyright files and manual pages): each
accepted where a source states the fact, and a fabrication of its class still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts

GITLAB = ("* gst: fix a leak\n  Fixes: https://gitlab.freedesktop.org/gstreamer/gstreamer/-/issues/1717\n"
          "  Part-of: <https://gitlab.freedesktop.org/gstreamer/gstreamer/-/merge_requests/3773>\n")


def _flagged(article: str, source: str) -> list[str]:
    return [f.fact.text for f in check_facts(article, [(1, source)]).unsupported]


@pytest.mark.parametrize(("article", "flagged"), [
    ("The fix closes issue 1717 and is part of merge request 3773.", []),
    ("The fix closes issue 1718 and is part of merge request 3774.", ["1718", "3774"]),
])
def test_a_number_a_gitlab_address_labels_after_its_dash_is_the_sources(article: str, flagged: list[str]) -> None:
    assert _flagged(article, GITLAB) == flagged


LZ4 = "lz4 (1.9.4-1) unstable\n  * Drop d/patches/0005-CVE-2021-3520.patch.\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("It drops 0005-CVE-2021-3520.patch.", []),
    ("It drops 0006-CVE-2021-3520.patch.", ["0006"]),
    ("It drops 0005-CVE-2021-3521.patch.", ["CVE-2021-3521"]),
    ("It fixes CVE-2021-3520.", []),
])
def test_a_patch_file_name_gives_its_number_and_its_advisory(article: str, flagged: list[str]) -> None:
    assert _flagged(article, LZ4) == flagged


XDMCP = "The display manager may keep the session alive by periodically XSync'ing on its own connection."


@pytest.mark.parametrize(("article", "flagged"), [
    ("The manager calls XSync periodically.", []),
    ("The manager calls XFlush periodically.", ["XFlush"]),
])
def test_a_name_made_a_verb_with_an_apostrophe_holds_the_name(article: str, flagged: list[str]) -> None:
    assert _flagged(article, XDMCP) == flagged


APT = ("APT will never downgrade unless the priority of an available version exceeds 1000.\n"
       "Install the highest priority version.\n")


@pytest.mark.parametrize(("article", "flagged"), [
    ("APT never downgrades below 1000. Otherwise APT installs the highest priority version.", []),
    ("APT never downgrades below 1000. Otherwise Synaptic installs the highest priority version.", ["Synaptic"]),
])
def test_a_conjunctive_adverb_opening_a_sentence_is_no_part_of_a_name(article: str, flagged: list[str]) -> None:
    assert _flagged(article, APT) == flagged


HARFBUZZ = "Copyright:\n 2016, Igalia S.L\n 2022, Matthias Clasen\n 2018-2021, Khaled Hosny\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("Holders:\n\n- Igalia S.L, 2016, and Matthias Clasen, 2022\n- Khaled Hosny, 2018–2021\n", []),
    ("Holders:\n\n- Igalia S.L and Monotype Imaging, 2016\n- Khaled Hosny, 2018–2021\n", ["Monotype Imaging"]),
    ("Holders:\n\n- Khaled Hosny\n- Behdad Esfahbod\n", ["Behdad Esfahbod"]),
    ("- **Igalia Holders**: 2016\n", []),  # a list item's label is still a label
])
def test_the_names_of_a_list_item_are_checked(article: str, flagged: list[str]) -> None:
    assert _flagged(article, HARFBUZZ) == flagged


UNDERSCORE = "Copyright: 2009-2018 Jeremy Ashkenas, DocumentCloud and Investigative Reporters & Editors\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("版权：\n\n- Jeremy Ashkenas 与 DocumentCloud，2009—2018 年；\n", []),
    ("版权：\n\n- Jeremy Ashkenas 与 Mark Bergstrom，2009—2018 年；\n", ["Mark Bergstrom"]),
])
def test_latin_names_beside_one_chinese_word_are_names(article: str, flagged: list[str]) -> None:
    assert _flagged(article, UNDERSCORE) == flagged


PERF = "To count events in every 1000 msec: perf stat -I 1000\nThe default interval is 100 ms.\n"


@pytest.mark.parametrize(("article", "flagged"), [
    ("It counts events every 1000 msec.", []),
    ("It counts events every 1000 milliseconds.", []),
    ("Run it with the option -I 1000.", []),
    ("It counts events every 1000 seconds.", ["1000 seconds"]),  # the unitless -I 1000 is the same 1000 msec
    ("It counts events every 1000 microseconds.", ["1000 microseconds"]),
])
def test_a_number_the_sources_sentence_gives_a_unit_backs_no_other_unit(article: str, flagged: list[str]) -> None:
    assert _flagged(article, PERF) == flagged


SESSION = "The manager may check the session, perhaps every five to ten minutes, and end it if it is gone."


@pytest.mark.parametrize(("article", "flagged"), [
    ("It checks perhaps every five to ten minutes.", []),
    ("It checks every 5-10 minutes.", []),
    ("It checks between five and ten minutes apart.", []),
    ("It checks perhaps every two to ten minutes.", ["two"]),
    ("It checks perhaps every five to twelve minutes.", ["twelve"]),
    ("It checks perhaps every five to ten hours.", ["five", "ten"]),
])
def test_a_range_in_words_gives_its_unit_to_both_ends(article: str, flagged: list[str]) -> None:
    assert _flagged(article, SESSION) == flagged


def test_and_joins_number_words_only_after_a_scale() -> None:
    source = "The tunnel took one hundred and five days to dig."
    assert _flagged("It took one hundred and five days.", source) == []
    assert _flagged("It took one hundred and six days.", source) == ["one hundred and six days"]


SEMANAGE = "bzip-blocksize: By default the bzip block size is set to 9 (actual block size is 900k)."


@pytest.mark.parametrize(("article", "flagged"), [
    ("默认块大小为九。", []),
    ("默认块大小为九，实际为 900k。", []),
    ("默认块大小为七。", ["七"]),
    ("块大小分为三类", []),  # a count with its noun after it is no value given
])
def test_a_lone_chinese_numeral_given_as_a_value_is_checked(article: str, flagged: list[str]) -> None:
    assert _flagged(article, SEMANAGE) == flagged
