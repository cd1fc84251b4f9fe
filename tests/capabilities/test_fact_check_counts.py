"""Round 11: a count in words or Chinese that the source shows as a list (capabilities/factcheck/counts.py) is found,
and a changed count is still caught."""

from __future__ import annotations

import pytest

from tests.capabilities.facts import supported

CHANGELOG = """heaptrack (1.4.0-2) unstable; urgency=medium

  [ Christian Göttsche ]
  * [8e471bc] d/control: specify Rules-Requires-Root no
  * [f67042b] d/rules: enable hardening
  * [c399e4d] d/rules: enable LTO

  [ Anton Gladky ]
  * [2aa7315] Fix autopkgtests

 -- Anton Gladky <gladk@debian.org>  Wed, 02 Nov 2022 16:22:23 +0100
"""

FONTS = """Available fonts (Sans = sans serif, Mono = monospaced):

DejaVu Sans Mono
DejaVu Sans
DejaVu Sans Condensed (experimental)
DejaVu Serif
DejaVu Serif Condensed (experimental)
"""

CVES = """  * Fix CVE-2025-48038: allocation of resources without limits.
  * Fix CVE-2025-48039: allocation of resources without limits.
  * Fix CVE-2025-48040: uncontrolled resource consumption.
"""


@pytest.mark.parametrize(("article", "found"), [
    ("Christian Göttsche brought three packaging changes: declaring Rules-Requires-Root as no and enabling hardening "
     "and LTO.", True),
    ("Christian Göttsche brought four packaging changes: declaring Rules-Requires-Root as no and enabling hardening "
     "and LTO.", False),
    ("Christian Göttsche 带来了三项打包改动：声明 Rules-Requires-Root 为 no、启用 hardening 以及 LTO。", True),
    ("Christian Göttsche 带来了五项打包改动：声明 Rules-Requires-Root 为 no、启用 hardening 以及 LTO。", False),
])
def test_a_count_of_a_changelog_list_is_found(article: str, found: bool) -> None:
    assert supported(article, CHANGELOG) is found


@pytest.mark.parametrize(("article", "found"), [
    ("The README lists five DejaVu fonts.", True),
    ("The README lists seven DejaVu fonts.", False),
    ("Among them are two condensed fonts.", True),   # the lines that hold the word after the count
    ("Among them are three condensed fonts.", False),
    ("说明文件列出了五个 DejaVu 字体。", True),
    ("说明文件列出了六个 DejaVu 字体。", False),
])
def test_a_count_of_a_list_under_a_heading_is_found(article: str, found: bool) -> None:
    assert supported(article, FONTS) is found


def test_a_count_in_digits_is_the_sources_own_and_not_read_from_a_list() -> None:
    """A figure in digits must be found as the source writes it: "5 DejaVu fonts" is not backed by five lines."""
    assert not supported("The README lists 5 DejaVu fonts.", FONTS)


@pytest.mark.parametrize(("article", "found"), [
    ("修复了三个漏洞，编号从 CVE-2025-48038 到 CVE-2025-48040。", True),
    ("修复了四个漏洞，编号从 CVE-2025-48038 到 CVE-2025-48040。", False),
    ("It fixes three flaws, CVE-2025-48038 to CVE-2025-48040.", True),
    ("It fixes five flaws, CVE-2025-48038 to CVE-2025-48040.", False),
])
def test_a_count_the_article_spans_with_two_source_identifiers_is_found(article: str, found: bool) -> None:
    assert supported(article, CVES) is found


NESTED = """* The interface to GNU make's "jobserver" is stable.

* VMS-specific changes:
  * Perl test harness now works.
  * Full support for converting Unix exit status codes to VMS exit status
    codes.
"""


@pytest.mark.parametrize(("article", "found"), [
    ("针对 VMS 的改动有两项：一是 Perl 测试框架可以工作了；二是支持把 Unix 退出状态码转换为 VMS 退出状态码。", True),
    ("针对 VMS 的改动有三项：一是 Perl 测试框架可以工作了；二是支持把 Unix 退出状态码转换为 VMS 退出状态码。", False),
])
def test_a_count_of_a_nested_list_is_found(article: str, found: bool) -> None:
    """A list under a parent item ("* VMS-specific changes:" and its two items) is a list of its own."""
    assert supported(article, NESTED) is found


@pytest.mark.parametrize(("article", "found"), [
    ("调试需要同时用到三个 xterm 终端窗口。", True),
    ("调试需要同时用到四个 xterm 终端窗口。", False),
])
def test_a_count_of_things_the_source_numbers_one_by_one_is_found(article: str, found: bool) -> None:
    source = "Start faked in xterm 1:\nSend signals to faked in xterm 2:\nThe program runs in another xterm [3], or gdb."
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("新增了对 Librem5、PinePhone 和 PineBook 三款硬件的支持。", True),
    ("新增了对 Librem5、PinePhone 和 PineBook 四款硬件的支持。", False),
])
def test_kuan_counts_models_and_is_checked(article: str, found: bool) -> None:
    """款 counts models (三款硬件): a count like 台 or 套, checked, and found in a list of that many."""
    source = "  * Add support for:\n    - Librem5\n    - PinePhone\n    - PineBook\n"
    assert supported(article, source) is found


# round 12: a list written inline in a sentence, a list under a heading that names what it holds, a GNU ChangeLog
# entry's paragraphs
INLINE = """This package includes the important tools for controlling the network
subsystem of the Linux kernel.  This includes arp, hostname, ifconfig,
netstat, rarp and route.  Additionally, it contains utilities for hardware (plipconfig,
slattach, mii-tool)."""


@pytest.mark.parametrize(("article", "found"), [
    ("It has six core programs: arp, hostname, ifconfig, netstat, rarp and route.", True),
    ("其中有六个核心程序：arp、hostname、ifconfig、netstat、rarp和route。", True),
    ("It has seven core programs: arp, hostname, ifconfig, netstat, rarp and route.", False),
    ("其中有五个核心程序：arp、hostname、ifconfig、netstat、rarp和route。", False),
    # a list of the sentence that names only some of its items is not the article's list
    ("It has three core programs, among them arp and route.", False),
])
def test_a_count_of_a_list_written_inline_is_found(article: str, found: bool) -> None:
    """A count of things a source sentence lists one by one ("arp, hostname, ..., rarp and route") is found when the
    article's sentence names every item; another count is caught."""
    assert supported(article, INLINE) is found


HEADED = """1.7.15 (Aug 25, 2021)
======
Fixes:
------
* Fix potential core dumped for strrchr, see #546
* Fix null pointer crash in cJSON_CreateXxArray, see #538
* Fix a possible dereference of null pointer, see #519

Version 2.14.0
--------------
- Added lexers:

  * Arturo (#2259)
  * Fift (#2249)
  * Jsonnet (#2239)
  * Wren (#2271)
"""


@pytest.mark.parametrize(("article", "found"), [
    ("cJSON 1.7.15 brings three fixes.", True),
    ("cJSON 1.7.15 brings four fixes.", False),
    ("Its changelog opens with four new lexers.", True),
    ("Its changelog opens with five new lexers.", False),
    ("Its changelog opens with three new lexers.", False),  # the fixes are three, but they are no lexers
])
def test_a_count_of_a_list_under_a_heading_naming_it_is_found(article: str, found: bool) -> None:
    """A count whose noun is the heading of a list of that many items ("four new lexers" under "Added lexers:", "three
    fixes" under "Fixes:" over its underline) is found; another count, or a count of another heading's list, is
    caught."""
    assert supported(article, HEADED) is found


GNU_CHANGELOG = """2021-03-22  Werner Koch  <wk@gnupg.org>

	Release 2.5.5.
	+ commit f8cfb565ee461946901ae3bc573abc0023d821b5


2020-11-17  NIIBE Yutaka  <gniibe@fsij.org>

	m4: Update with newer autoconf constructs.
	+ commit 05535d9863cfc4656554fa5fd8df2f4fbe695178
	* src/libassuan.m4: Replace AC_HELP_STRING to AS_HELP_STRING.

	build: Update to newer autoconf constructs.
	+ commit 12fd96a61033a587482be150a0f955615083ad43
	* configure.ac: Use AC_CONFIG_HEADERS instead of AM_CONFIG_HEADER.
"""


@pytest.mark.parametrize(("article", "found"), [
    ("NIIBE Yutaka提交了两项与autoconf相关的更新。", True),
    ("NIIBE Yutaka made two autoconf updates.", True),
    ("NIIBE Yutaka提交了三项与autoconf相关的更新。", False),
    ("NIIBE Yutaka made four autoconf updates.", False),
])
def test_a_count_of_a_gnu_changelog_entrys_changes_is_found(article: str, found: bool) -> None:
    """A GNU ChangeLog entry ("date  name  <mail>") holds one change per indented paragraph: two paragraphs are two
    changes; another count is caught."""
    assert supported(article, GNU_CHANGELOG) is found


def test_a_long_run_of_commas_is_read_in_one_pass() -> None:
    """A source of 20,000 words between commas and no "and" (a word list, a data dump) holds no inline list, and
    reading it takes no more than its length: the inline lists are read clause by clause, not by a backtracking
    pattern."""
    import time

    source = ", ".join(("alpha", "beta", "gamma", "delta")[i % 4] for i in range(20000))
    started = time.monotonic()
    assert not supported("The list names three fonts.", source)
    assert time.monotonic() - started < 10


RELEASES = ("Release 0.3.9 (2014-06-11)\n==========================\n\n- Mark DEPTH_MASK as Unsigned int.\n"
            "- config: add bug URL to AC_INIT.\n\nRelease 0.3.8 (2010-04-25)\n==========================\n\n"
            "- Split up renderutil into its own repository\n")
UPLOADS = ("libdbi-perl (1.631-1) unstable; urgency=medium\n\n  NOTE: This release changes the handle.\n\n"
           " -- gregor herrmann <gregoa@debian.org>  Sat, 15 Feb 2014 23:38:30 +0100\n\n"
           "libdbi-perl (1.630-1) unstable; urgency=low\n\n  NOTE: This release enables PrintWarn.\n")


@pytest.mark.parametrize(("article", "source", "found"), [
    ("从两次更新的内容来看，改动集中在构建配置上。", RELEASES, True),
    ("从三次更新的内容来看，改动集中在构建配置上。", RELEASES, False),
    ("两次更新提醒开发者检查代码。", UPLOADS, True),
    ("三次更新提醒开发者检查代码。", UPLOADS, False),
    ("他们开了两次会，讨论构建配置。", RELEASES, False),
])
def test_a_count_of_releases_is_found_in_a_release_log_with_that_many(article: str, source: str, found: bool) -> None:
    """Round 13: 两次更新 (two updates) counts a release log's entries, two release headings over their underlines or
    two Debian changelog entries; another count, or a count of something else (两次会), is still caught."""
    assert supported(article, source) is found
