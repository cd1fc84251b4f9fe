"""Round 11: a name in another form than its source's (capabilities/factcheck/name_forms.py) is found, and a
fabrication of the same class is still caught."""

from __future__ import annotations

import pytest

from capabilities.factcheck import check_facts
from tests.capabilities.facts import supported


@pytest.mark.parametrize(("article", "source", "found"), [
    # an acronym of a phrase the source spells out
    ("The FSF distributes this version.", "The Free Software Foundation is distributing this version of patch.", True),
    ("The ASF distributes this version.", "The Free Software Foundation is distributing this version of patch.", False),
    ("The FSF distributes this version.", "The Free Software Federation Trust distributes it.", False),
    # a phrase glued into one word, or split
    ("It speaks Web Socket.", "It supports the websocket protocol.", True),
    ("It speaks WebSocket.", "It supports the Web Socket protocol.", True),
    ("It speaks WebTransport.", "It supports the Web Socket protocol.", False),
    ("The docs live on Read the Docs.", "See https://pyjwt.readthedocs.io/en/stable/ for more.", True),
    ("The docs live on Read the Manual.", "See https://pyjwt.readthedocs.io/en/stable/ for more.", False),
    # PyPI-style initials
    ("It is on the Python Package Index.", "Install it from https://pypi.org/project/pyjwt.", True),
    ("It is on the Perl Package Index.", "Install it from https://pypi.org/project/pyjwt.", False),
    ("Martin Keller found it.", "Make the change before the upgrade.", False),
    # a name whose words are one of the source's addresses
    ("Tests run on GitHub Actions.", ".. image:: x.svg\n   :target: https://github.com/akheron/jansson/actions", True),
    ("Tests run on GitLab Actions.", ".. image:: x.svg\n   :target: https://github.com/akheron/jansson/actions", False),
    # a name glued to a number
    ("The format is an RFC.", "It is documented in [RFC8878](https://datatracker.ietf.org/doc/html/rfc8878).", True),
    ("The format is an ISO.", "It is documented in [RFC8878](https://datatracker.ietf.org/doc/html/rfc8878).", False),
    # two names the extraction glued, each in one source sentence
    ("They ship as TrueType TTF files.", "They are compiled as TTF files (TrueType fonts).", True),
    ("They ship as OpenType TTF files.", "They are compiled as TTF files (TrueType fonts).", False),
    ("Debian MySQL was patched.", "Debian patched MySQL last week.", True),
    ("Debian MySQL was patched.", "Debian patched it. MySQL is a database.", False),
])
def test_a_name_in_another_form_is_found_and_an_invented_one_is_not(article: str, source: str, found: bool) -> None:
    assert supported(article, source) is found


def test_an_organisation_suffix_never_lets_two_names_through() -> None:
    """"Acme" and "Foundation" both in one source sentence is no "Acme Foundation": an invented organisation."""
    source = "The Foundation thanked Acme for the servers."
    assert not supported("The Acme Foundation paid for it.", source)


@pytest.mark.parametrize(("article", "found"), [
    ("Naming is at http://www.boost.org/more/getting_started/unix-variants.html#library-naming.", True),
    ("Naming is at http://www.boost.org/more/getting_started/unix-variants.html#library-names.", False),
])
def test_an_address_in_brackets_is_read_without_the_bracket(article: str, found: bool) -> None:
    assert supported(article, "  [http://www.boost.org/more/getting_started/unix-variants.html#library-naming]") is found


@pytest.mark.parametrize(("article", "found"), [
    ("CI runs at https://github.com/jpadilla/pyjwt/actions.", True),
    ("CI runs at https://github.com/jpadilla/pyjwt/workflows.", False),
])
def test_an_address_without_the_sources_query_is_its_page(article: str, found: bool) -> None:
    assert supported(article, ":target: https://github.com/jpadilla/pyjwt/actions?query=workflow%3ACI") is found


def test_a_word_after_a_quoted_sentence_opens_a_sentence() -> None:
    """'"... for some reason." Authors who want' : Authors opens a sentence (no name); a speaker there still is one."""
    source = 'It was claimed fixed in 3.81, "but wasn\'t, for some reason."'
    assert supported('The notes say it was claimed fixed in 3.81, "but wasn\'t, for some reason." Authors who '
                     'want both can use a variable.', source)
    assert not supported('The notes say it was claimed fixed in 3.81, "but wasn\'t, for some reason." Berger said '
                         'so.', source)


def test_wenti_is_no_verb_of_saying() -> None:
    """问 of 问题 (a problem) asks nothing: 时遇到问题 names no one; 张明问 is still a name."""
    source = "If you hit problems with cgroupv2, switch back to the hybrid setup."
    assert supported("如果用户在使用 cgroupv2 时遇到问题，可以切回混合配置。", source)
    assert not supported("张明问，cgroupv2 是否可以切回混合配置。", source)


@pytest.mark.parametrize(("article", "found"), [
    ('Dickey fixed it, a fix he called "long overdue".', False),
    ('Dickey fixed it, a change the maintainers described as "long overdue".', False),
    ('Dickey fixed it, a fix he called "quite overdue".', True),
    ('The "replace glut" option now installs glut.h.', True),
])
def test_two_quoted_words_put_in_someones_mouth_are_a_quotation(article: str, found: bool) -> None:
    """Two words someone "called" something are a quotation and checked; two quoted words alone are a term."""
    source = "Dickey fixed it; he said it was quite overdue. The replace glut option now installs glut.h."
    assert supported(article, source) is found


def test_a_two_letter_acronym_is_not_read_from_any_two_capitalised_words() -> None:
    assert not supported("The GS team fixed it.", "Graham Smith fixed it.")


@pytest.mark.parametrize(("article", "found"), [
    ("Algorithm::Diff brings Unix-style diffing to Perl.", True),
    ("The point releases were a run of OpenSSL-driven fixes for Perl.", True),
    ("The point releases were a run of Oracle-driven fixes for Perl.", False),
    ("Algorithm::Diff brings Plan9-style diffing to Perl.", False),
])
def test_a_name_with_a_word_hyphened_to_it_is_the_name(article: str, found: bool) -> None:
    """Round 12: "Unix-style", "OpenSSL-driven" are the writer's description of the name before the hyphen, which is
    what the source must hold; an invented name with such a word is caught."""
    source = ("Algorithm::Diff uses an algorithm similar to the one used by the Unix \"diff\" program, in Perl. The "
              "wheels were compiled with OpenSSL 3.0.7.")
    assert check_facts(article, [(1, source)]).passed is found


@pytest.mark.parametrize(("article", "found"), [
    ("It ran on an Intel Xeon Platinum 8280 CPU.", True),
    ("It ran on an Intel Xeon Gold 8280 CPU.", False),
    ("It ran on an AMD Xeon Platinum 8280 CPU.", False),
])
def test_a_name_without_its_trademark_marks_is_the_sources(article: str, found: bool) -> None:
    """Round 13: a reader drops (R), (TM), ® and ™ ("Intel(R) Xeon(R) Platinum" is the Intel Xeon Platinum an article
    names); another product or maker around the same words is still caught."""
    assert supported(article, "Tested on an Intel(R) Xeon(R) Platinum 8280 CPU @ 2.70GHz.") is found


@pytest.mark.parametrize(("article", "found"), [
    ("Acorn 平台新增了 RISC OS 专用的 -/ 选项（Darren）。", True),
    ("Acorn 平台新增了 RISK OS 专用的 -/ 选项（Darren）。", False),
    ("Acorn 平台新增了 RISC UI 专用的 -/ 选项（Darren）。", False),
])
def test_a_name_glued_to_its_next_short_word_in_capitals_is_the_sources(article: str, found: bool) -> None:
    """Round 13: a name with a short word after it is found glued to it, in capitals too (RISC OS for the source's
    riscos, as IBM i for ibmi); another name, or another short word, is still caught."""
    assert supported(article, "acorn: add riscos specific -/ option (Darren)") is found


@pytest.mark.parametrize(("article", "found"), [
    ("It pulls in around 300M downloads per week.", True),
    ("It pulls in around 300M downloads a week.", True),
    ("It pulls in around 300M downloads per month.", False),
    ("It pulls in around 200M downloads per week.", False),
])
def test_a_slash_is_per_in_a_rate(article: str, found: bool) -> None:
    """Round 13: "300M downloads / week" is a rate per week, as "300M downloads per week" is; another period or
    figure is still caught."""
    source = "Requests is one of the most downloaded Python packages, pulling in around `300M downloads / week`."
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("On Fedora re2c, bison and autoconf are installed with dnf.", True),
    ("On Debian re2c, bison and autoconf are installed with dnf.", False),
    ("On Fedora re2d, bison and autoconf are installed with dnf.", False),
])
def test_a_lower_case_identifier_does_not_run_into_a_name_beside_it(article: str, found: bool) -> None:
    """Round 13: "on Fedora re2c, bison" names Fedora and the package re2c, not one "Fedora re2c"; each is checked on
    its own, so another system or package is still caught."""
    assert supported(article, "On Fedora, you can install these using:\n\n    sudo dnf install re2c bison autoconf") is found


@pytest.mark.parametrize(("article", "found"), [
    ("Perl DBI 的更新提醒开发者检查回调代码。", True),
    ("Perl DBX 的更新提醒开发者检查回调代码。", False),
    ("Python DBI 的更新提醒开发者检查回调代码。", False),
])
def test_a_perl_module_is_its_debian_package(article: str, found: bool) -> None:
    """Round 13: "Perl DBI" is the source's Debian package libdbi-perl (Perl's policy: lib<module>-perl); another
    module or another language is still caught."""
    assert supported(article, "libdbi-perl (1.631-1) unstable; urgency=medium\n\n  NOTE: This release changes the "
                              "handle passed to Callbacks.\n") is found


@pytest.mark.parametrize(("article", "found"), [
    ("The library includes the Prototype JavaScript Framework V1.6.0, though later versions work.", True),
    ("The library includes the Prototype JavaScript Framework v1.6.0.", True),
    ("The library includes the Prototype JavaScript Framework V1.7.0.", False),
    ("The library includes the Prototype JavaScript Library V1.6.0.", False),
])
def test_a_name_with_its_version_glued_to_a_v(article: str, found: bool) -> None:
    """Round 14: "Prototype JavaScript Framework V1.6.0" is the name read with its version, found where the source
    writes both (across a line break too); another version or another name is still caught."""
    source = "script.aculo.us includes the Prototype JavaScript Framework \nV1.6.0. You can use later versions"
    assert supported(article, source) is found


def test_a_long_sentence_with_a_glued_version_is_read_quickly() -> None:
    import time

    from capabilities.factcheck import Fact, FactKind, _name_forms

    for tail in ("1." * 100_000, "1" * 200_000, "1.1" * 70_000 + "x"):
        sentence = "It bundles Prototype Framework V" + tail
        started = time.monotonic()
        _name_forms(Fact(FactKind.name, "Prototype Framework V", "prototype framework v", sentence))
        assert time.monotonic() - started < 1


@pytest.mark.parametrize(("article", "found"), [
    ('Conda users can run "conda install -c https://conda.anaconda.org/conda-forge prompt_toolkit".', True),
    ('Conda users can run "conda install -c https://conda.anaconda.org/conda-forge prompt_toolkits".', False),
    ('Conda users can run "mamba install -c https://conda.anaconda.org/conda-forge prompt_toolkit".', False),
    ('Conda users can run "conda install -c https://conda.anaconda.org/other prompt_toolkit".', False),
    ('Conda users can run "conda install -c prompt_toolkit".', False),  # the address left out is no quotation of it
])
def test_a_quotation_holding_an_address(article: str, found: bool) -> None:
    """Round 14: a quotation that holds an address is read without it (the address is checked as one of its own), so
    the source's words around its address are found; another word, another address, or the quotation without its
    address are still caught."""
    source = "Conda:\n\n    conda install -c https://conda.anaconda.org/conda-forge prompt_toolkit\n\nPip: pip install x"
    assert supported(article, source) is found


def test_a_long_sentence_with_a_quoted_address_is_read_quickly() -> None:
    import time

    from capabilities.factcheck import Fact, FactKind, _holds_address

    for sentence in ('run "a b' + " https://x.org/" + "a" * 200_000, 'run "a b ' + "https://x " * 25_000 + '"'):
        text = "a b" + " " * 20 + "c d"
        started = time.monotonic()
        _holds_address(Fact(FactKind.quote, text, "a b c d", sentence))
        assert time.monotonic() - started < 1
