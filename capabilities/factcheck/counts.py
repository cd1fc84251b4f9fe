"""Counts a source shows rather than writes (round 11): "three fixes", "two variants", 五个, 两项, 三位, 四次.

A writer counts what the source lists: three bullet items under one maintainer, twenty-two font names under "Available
fonts:", four changelog entries. The count is in no sentence of the source, so it was flagged. It is found here when a
list of the source has exactly that many items, and the list is the one the article's sentence is about: its items
(or its heading) share a word with that sentence, or the count is of the items that hold one of the sentence's words
("all eight condensed variants": the eight lines with Condensed). Only counts written in words or Chinese numerals are
read this way (a writer's own count; a figure in digits is the source's and must be found as written), and only
counts of things (no unit, or a counter: 个, 项, 位, 次, 款), never durations, sizes or money. A count changed to another
number is caught unless the same list happens to have that many items holding one of the sentence's words.

Round 12 reads three more lists: a list written inline in a source sentence ("This includes arp, hostname, ifconfig,
netstat, rarp and route"), counted only when the article's sentence names every item, as the writer who counts it
does; a list whose heading names what the count counts ("twelve new lexers" under "Added lexers:", "five fixes" under
"Fixes:" and its underline); and a GNU ChangeLog entry's changes, one per indented paragraph under its "date  name
<mail>" header.

Round 13: a count of releases or updates (两次更新, "two releases") is found in a release log with exactly that many
entries: Debian changelog entries, or release headings (released).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from capabilities.factcheck.types import Fact, FactKind

# units a count of things may have (none, a person, a time something was done); a duration or a size is no count
_COUNT_UNITS = frozenset({"times", "person", "person|bit"})
_BULLET = re.compile(r"^([ \t]*)(?:[*+•-]|\d{1,2}[.)])[ \t]+(\S.*)$")
_GROUP = re.compile(r"^[ \t]*\[ [^\]]+ \][ \t]*$")  # a changelog's "[ Jochen Sprickerhof ]": who did what follows
_ENTRY = re.compile(r"^[a-z0-9][a-z0-9+.-]* \([^)\s]+\) [^;\n]*; *urgency=", re.M)  # a Debian changelog entry
_UNDERLINE = re.compile(r"^[ \t]*([-=~^*#_])\1{2,}[ \t]*$")  # a heading's underline: "------", "======"
# a GNU ChangeLog entry's header, "2020-11-17  NIIBE Yutaka  <gniibe@fsij.org>": its paragraphs are its changes
_GNU_HEADER = re.compile(r"^\d{4}-\d\d-\d\d[ \t]+\S[^\n<]*<[^>\s]+@[^>\s]+>[ \t]*$")
# what ends a run of an inline list's items: a sentence's or a clause's mark ("." only before a space: 3.2, file.c)
_CLAUSE_END = re.compile(r"[;:()!?]|\.(?!\S)")
_LAST_ITEMS = re.compile(r"(.{1,40}?) (?:and|or) (.{1,40})")
# the heading of an inline list: a sentence's list is counted only when the article's sentence names every item
# ("six programs: arp, hostname, ..."), as "two architectures, ARM64 and S390x" must not be found in the three of
# "for arm64, powerpc64 and s390x"
INLINE = "\x00inline"
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*[A-Za-z0-9]|\d+(?:\.\d+)+")
_COMMON = frozenset("""the and for with from that this these those into onto over under also only then than when
which while what where their there they them have has had was were been being are not but all any each every both its
it's his her our your more most some such very just one two three four five six seven eight nine ten new old same other
after before about fixed fixes fix added adds add changed changes change made make makes version versions release
released""".split())


def is_count(fact: Fact) -> bool:
    """A count in words or Chinese numerals (three, twenty-two, 五个, 两项, 三位, 四次) of things."""
    if fact.kind != FactKind.number or fact.approx or re.search(r"\d", fact.text):
        return False
    if fact.unit is not None and fact.unit not in _COUNT_UNITS:
        return False
    return fact.key.isdigit() and 2 <= int(fact.key) <= 60


def _content_words(text: str) -> set[str]:
    return {w.casefold() for w in _LATIN_WORD.findall(text)
            if len(w) >= 3 and w.casefold() not in _COMMON}


def _bullet_lists(lines: list[str], level: str, found: list[tuple[str, tuple[str, ...]]]) -> None:
    """The bullet lists whose items stand at indentation ``level``: a deeper line is part of the item above it (a
    continuation, or an item of a nested list), a shallower line (a nested list's parent item, a changelog header)
    heads the next list."""
    heading = ""
    run: list[str] = []  # items with no blank line between
    entry: list[str] = []  # items of one indentation across blank lines: one maintainer's items in a changelog
    groups: list[str] = []

    def close_run() -> None:
        if len(run) >= 2:
            found.append((heading, tuple(run)))
        run.clear()

    def close_entry() -> None:
        close_run()
        if len(entry) >= 2:
            found.append((heading, tuple(entry)))
        entry.clear()

    for line in lines:
        bullet = _BULLET.match(line)
        indent = len(line) - len(line.lstrip())
        if bullet and bullet.group(1) == level:
            run.append(bullet.group(2))
            entry.append(bullet.group(2))
        elif not line.strip():
            close_run()
        elif _GROUP.match(line):  # one maintainer's items are one list: a count never runs across two names' work
            close_entry()
            groups.append(line.strip())
        elif indent > len(level) and entry:
            if run:
                run[-1] += " " + line.strip()
            entry[-1] += " " + line.strip()
        else:
            close_entry()
            if len(groups) >= 2:
                found.append((heading, tuple(groups)))
            groups.clear()
            if not _UNDERLINE.match(line):  # "Fixes:" over "------": the words above the underline head the list
                heading = (bullet.group(2) if bullet else line).strip()
    close_entry()
    if len(groups) >= 2:
        found.append((heading, tuple(groups)))


@lru_cache(maxsize=64)
def lists(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The source's lists, each as (its heading line, its items): bullet items of one indentation in a row (deeper
    lines joined to their item), the same across blank lines (never one maintainer's items with another's), the
    "[ Name ]" groups of a changelog entry, lines under a line ending in ":" (a list without marks), and a changelog's
    entries."""
    lines = text.splitlines()
    found: list[tuple[str, tuple[str, ...]]] = []
    for level in sorted({m.group(1) for line in lines if (m := _BULLET.match(line))}):
        _bullet_lists(lines, level, found)
    # lines under a heading that ends in ":" ("Available fonts (...):") up to a blank line: a list without marks
    for m in re.finditer(r"^([^\n]*:)[ \t]*\n(?:[ \t]*\n)?((?:[^\n]{1,80}\n?){2,})", text, flags=re.M):
        lines_of = [line for line in m.group(2).splitlines() if line.strip() and not _UNDERLINE.match(line)]
        heading = m.group(1).strip()
        if len(lines_of) >= 3 and not lines_of[0][:1].isspace() and all(line[:1].isspace() for line in lines_of[1:]):
            # a table's title over its indented rows ("DPMS Extension Power Levels" over levels 0 to 3) is no item
            heading = f"{heading} {lines_of.pop(0).strip()}"
        items = [line.strip() for line in lines_of]
        if len(items) >= 2 and not any(item.endswith((".", ";", ",")) for item in items):
            found.append((heading, tuple(items)))
    entries = _ENTRY.findall(text)
    if len(entries) >= 2:
        found.append(("", tuple(entries)))
    found += _gnu_entries(lines)
    found += [(INLINE, items) for items in _inline_lists(text)]
    return tuple(found)


def _inline_lists(text: str) -> list[tuple[str, ...]]:
    """The lists a source writes inline, "arp, hostname, ifconfig, netstat, rarp and route" (or "..., rarp, and
    route"): three items or more of at most 40 characters, between commas, the last after "and" or "or"; the first may
    be the end of a longer clause ("This includes arp"). Read clause by clause, in one pass (a long run of commas
    without an "and" is no list and costs no more than its length)."""
    found: list[tuple[str, ...]] = []
    for clause in _CLAUSE_END.split(" ".join(text.split())):
        run: list[str] = []
        for segment in (part.strip() for part in clause.split(", ")):
            oxford = re.fullmatch(r"(?:and|or) (.{1,40})", segment)
            last = None if oxford or len(segment) > 81 else _LAST_ITEMS.fullmatch(segment)
            if run and (oxford or last):
                items = [*run, oxford.group(1)] if oxford else [*run, last.group(1), last.group(2)]
                if len(items) >= 3:
                    found.append(tuple(items))
                run = []
            elif len(segment) <= 40:
                run.append(segment)
            else:  # a long clause's end may be the first item: "This package includes arp"
                run = [segment[-40:].split(" ", 1)[-1]] if " " in segment[-40:] else []
    return found


def _gnu_entries(lines: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """A GNU ChangeLog entry's changes: the indented paragraphs under its "date  name  <mail>" header, each a change
    (its summary line, its "+ commit" line, its "* file" lines), when there are two or more."""
    found: list[tuple[str, tuple[str, ...]]] = []
    header, paragraphs, current = "", [], []  # type: str, list[str], list[str]

    def close() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()
        if header and len(paragraphs) >= 2:
            found.append((header, tuple(paragraphs)))
        paragraphs.clear()

    for line in lines:
        if _GNU_HEADER.match(line):
            close()
            header = line.strip()
        elif not line.strip():
            if current:
                paragraphs.append(" ".join(current))
                current.clear()
        elif line[:1] in " \t" and header:
            current.append(line.strip())
        else:
            close()
            header = ""
    close()
    return found


def listed(fact: Fact, text: str) -> int | None:
    """Where in ``text`` a list stands that has exactly as many items as the count ``fact``, about its sentence."""
    count = int(Decimal(fact.key))
    sentence_words = _content_words(fact.sentence)
    if not sentence_words:
        return None
    for heading, items in lists(text):
        item_words = [_content_words(item) for item in items]
        # the list the sentence is about: half its items at least share a word with the sentence (a long sentence
        # shares a word with many lists; half of one list's items is a list it describes)
        shared = sum(bool(words & sentence_words) for words in item_words)
        if heading == INLINE:
            if len(items) == count and shared == count:
                return _at(text, items[0])
            continue
        if len(items) == count and (2 * shared >= count or _names_the_heading(fact, heading)):
            return _at(text, items[0])
        for word in _qualifiers(fact):  # "all eight condensed variants": the items that hold the word after the count
            holding = [item for item, words in zip(items, item_words) if word in words]
            if len(holding) == count and len(holding) < len(items):
                return _at(text, holding[0])
    return None


_SPAN = re.compile(r"(?:from|between|从|自)?\s*(?P<p>[A-Za-z][\w.-]*[-.])?(?P<a>\d+)\s*(?:to|and|through|到|至|–|-)\s*"
                   r"(?P<q>[A-Za-z][\w.-]*[-.])?(?P<b>\d+)(?![\d.])")


def spanned(fact: Fact, text: str) -> int | None:
    """A count the article itself spans right after it ("four flaws, CVE-2025-48038 to CVE-2025-48041", "revisions 1
    to 4 ... four uploads"): the two ends, each checked as a fact of its own, are in the source and the count is the
    span's length. Where in ``text`` the first end stands, or None."""
    at = fact.sentence.find(fact.text)
    if at < 0:
        return None
    count = int(Decimal(fact.key))
    for m in _SPAN.finditer(fact.sentence[at + len(fact.text):at + len(fact.text) + 60]):
        prefix, other = m.group("p") or "", m.group("q") or m.group("p") or ""
        if prefix != other or int(m.group("b")) - int(m.group("a")) + 1 != count:
            continue
        first, last = prefix + m.group("a"), prefix + m.group("b")
        if len(first) >= 4 and first in text and last in text:  # no bare "2 to 5": the ends must be identifiers
            return text.find(first)
    return None


def numbered(fact: Fact, text: str) -> int | None:
    """A count of things the source numbers one by one ("三个 xterm 终端窗口" for its "xterm 1", "xterm 2" and "another
    xterm [3]"): the thing is the word right after the count, and the source's numbers after it are exactly 1 to the
    count. Where the first stands in ``text``, or None."""
    count = int(Decimal(fact.key))
    for word in _qualifiers(fact):
        hits = list(re.finditer(rf"(?<![\w-]){re.escape(word)}\s*\[?(\d{{1,2}})\]?(?![\w.])", text, flags=re.I))
        if hits and {int(h.group(1)) for h in hits} == set(range(1, count + 1)):
            return hits[0].start()
    return None


# what a count of releases counts: "two releases", "three uploads", 两次更新, 两个版本 (round 13)
_RELEASE_NOUN = re.compile(r"\s*(?:(?:new|more|separate|successive|later|earlier|recent)\s+)?(?:releases?|updates?|uploads?|"
                           r"versions?)\b|(?:次|个)?(?:的)?(?:更新|发布|发行|版本|上传)", re.I)
# a release's heading: a line with a version over an underline ("Release 0.3.9 (2014-06-11)" over "====="), or a
# Markdown heading holding a version ("## [1.2.0] - 2020-01-01")
_RELEASE_HEADING = re.compile(r"^[^\n]{0,40}?(?<![\w.])v?\d+(?:\.\d+)+(?![\w.]|\.\d)[^\n]{0,40}\n[ \t]*([=~-])\1{2,}[ \t]*$|"
                              r"^#{1,4}[ \t]+[^\n]{0,40}?(?<![\w.])v?\d+(?:\.\d+)+(?![\w.]|\.\d)", re.M)


def released(fact: Fact, text: str) -> int | None:
    """A count of releases or updates ("两次更新", "two releases") where the source is the releases' own log: its
    Debian changelog entries, or its release headings (a version over an underline, a Markdown heading with a version),
    are exactly that many. The writer who says the log shows two updates counts its entries. Where the first stands in
    ``text``, or None; another count is caught."""
    at = fact.sentence.find(fact.text)
    if at < 0 or not _RELEASE_NOUN.match(fact.sentence, at + len(fact.text)):
        return None
    count = int(Decimal(fact.key))
    for pattern in (_ENTRY, _RELEASE_HEADING):
        hits = list(pattern.finditer(text))
        if len(hits) == count:
            return hits[0].start()
    return None


def _qualifiers(fact: Fact) -> set[str]:
    """The words right after the count that say which things it counts ("eight condensed variants": condensed), the
    only words a subset of a list is picked by: any word of the sentence would pick too many subsets."""
    at = fact.sentence.find(fact.text)
    if at < 0:
        return set()
    after = fact.sentence[at + len(fact.text):at + len(fact.text) + 40]
    return _content_words(" ".join(re.findall(r"[A-Za-z][\w+-]*", after)[:2]))


def _forms(word: str) -> set[str]:
    """A noun and its other number: fix / fixes, lexer / lexers, type / types."""
    word = word.casefold()
    return {word, word + "s", word + "es", word[:-1] if word.endswith("s") else word,
            word[:-2] if word.endswith("es") else word}


def _names_the_heading(fact: Fact, heading: str) -> bool:
    """The noun the count counts is the list's heading's ("twelve new lexers" under "Added lexers:", "five fixes"
    under "Fixes:"): the list is the one the count is of, whatever its items say. A heading says what its items are
    only when it ends in ":" (or stood over an underline, read as its line)."""
    at = fact.sentence.find(fact.text)
    if at < 0 or not heading.rstrip().endswith(":"):
        return False
    after = re.findall(r"[A-Za-z][\w+-]*", fact.sentence[at + len(fact.text):at + len(fact.text) + 40])[:2]
    nouns = {form for word in after if len(word) >= 3 and word.casefold() not in _SMALL for form in _forms(word)}
    return bool(nouns & {w.casefold() for w in re.findall(r"[A-Za-z][\w+-]*", heading)})


_SMALL = frozenset("the and for with from that this new old more other in of on to at by".split())


def _at(text: str, item: str) -> int:
    return max(text.find(item[:40]), 0)
