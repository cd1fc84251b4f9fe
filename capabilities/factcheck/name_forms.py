"""Other forms of a name than the source's (round 11): forms a careful reader accepts in any article.

Each returns where in the source text the name's other form stands (an index into it), or None. A form is only
accepted when every letter of it is backed by the source: an acronym needs the source's phrase with exactly those
initials, a glued word needs the source's word letter for letter, and two names glued by extraction need both in
one source sentence. Nothing here finds a name by a part of it alone. Round 12: a name with an ordinary word hyphened
to it ("Unix-style", "OpenSSL-driven") is the name before the hyphen. Round 13: a Perl module named with its language
("Perl DBI") is its Debian package lib<module>-perl (libdbi-perl).
"""

from __future__ import annotations

import re
from functools import lru_cache

from capabilities.factcheck.reading import words

_URL = re.compile(r"(?:https?://|www\.)[^\s<>()\"'`]+", re.I)
_WORD = re.compile(r"[^\W_]+")
# the small words a phrase's acronym skips (Free Software Foundation -> FSF, Bank of England -> BoE / BE)
_ACRONYM_SKIPS = frozenset("of for and the on in de du la le von van to at &".split())
# an organisation's suffix names no one: "Acme Foundation" must not pass because "Acme" and "Foundation" are both
# in a source sentence, or an invented organisation would be found by its parts
ORG_SUFFIXES = frozenset("""foundation inc incorporated ltd limited llc gmbh corp corporation co company plc ag sa
srl bv oy ab group association society institute university council consortium""".split())


@lru_cache(maxsize=64)
def _tokens(text: str) -> frozenset[str]:
    """The source's words as written between any non-letters (pyjwt.readthedocs.io: pyjwt, readthedocs, io)."""
    return frozenset(t.casefold() for t in _WORD.findall(text))


def acronym(name: str, text: str) -> int | None:
    """An acronym (FSF, FSFs) of a phrase the source spells out with exactly those initials (Free Software
    Foundation): the reader of the article is told nothing the source does not say. An acronym whose phrase the
    source does not spell out (an invented ASF) is not found, nor one of two letters, which any two capitalised words
    in a row would spell (GS in "Graham Smith")."""
    if not re.fullmatch(r"[A-Z]{3,6}s?", name):
        return None
    letters = name.rstrip("s") if len(name) > 2 and name.endswith("s") and name[:-1].isupper() else name
    tokens = list(re.finditer(r"[A-Za-z][\w'’-]*|&", text))
    for i, first in enumerate(tokens):
        if not first.group()[0].isupper() or first.group()[0] != letters[0]:
            continue
        initials, j = "", i
        while j < len(tokens) and len(initials) < len(letters):
            word = tokens[j].group()
            gap = text[tokens[j - 1].end():tokens[j].start()] if j > i else ""
            if "\n\n" in gap or re.search(r"[.;:!?()]", gap):
                break
            if word[0].isupper():
                initials += word[0]
            elif word.casefold() not in _ACRONYM_SKIPS or j == i:
                break
            j += 1
        runs_on = j < len(tokens) and tokens[j].group()[0].isupper() and not re.search(
            r"[.;:!?()\n]", text[tokens[j - 1].end():tokens[j].start()])
        if initials == letters and tokens[j - 1].group()[0].isupper() and not runs_on:  # the whole phrase, no more
            return first.start()
    return None


def glued_or_split(name: str, sentence: str, text: str) -> int | None:
    """A phrase glued into one word or split (Web Socket / WebSocket, Read the Docs / readthedocs, BIG-REQUESTS /
    Big Requests): the source's word is the article's words glued, letter for letter, or the article's one
    CamelCase word is the source's words in a row. The article's words around the name may be glued with it
    ("Read the Docs" is read as the names Read and Docs with a small word between)."""
    tokens = _tokens(text)
    name_words = words(name)
    if len(name_words) > 1 and "".join(name_words) in tokens and len("".join(name_words)) >= 5:
        return _find(text, "".join(name_words))
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    if len(parts) > 1 and "".join(parts) == name:  # WebSocket: web socket in the source
        needle = [p.casefold() for p in parts]
        source_words = words(text)
        for k in range(len(source_words) - len(needle) + 1):
            if source_words[k:k + len(needle)] == needle:
                return _find(text, needle[0])
    # the name with the article's words beside it, glued: "Read the Docs" for readthedocs
    article = list(re.finditer(r"[^\W_]+", sentence))
    spans = [k for k, m in enumerate(article) if m.group() == name.split()[0]]
    for k in spans:
        n = len(name.split())
        for before in range(0, 3):
            for after in range(0, 3):
                if before + after == 0 or before > k or k + n + after > len(article):
                    continue
                glued = "".join(m.group().casefold() for m in article[k - before:k + n + after])
                if len(glued) >= 8 and glued in tokens:
                    return _find(text, glued)
    return None


def initials_word(name: str, text: str) -> int | None:
    """A name the source writes as one word of its words' first letters or syllables, PyPI-style (Python Package
    Index / pypi, Python Software Foundation / psf is an acronym): the source's word is, letter for letter, a
    beginning of each of the name's words in order, the first at least two letters. Three words at least: a
    person's two (Martin Keller) would be found in any word such as "make"."""
    name_words = words(name)
    if len(name_words) < 3 or not all(w.isalpha() for w in name_words):
        return None

    def fits(token: str, rest: list[str], first: bool) -> bool:
        if not rest:
            return not token
        word = rest[0]
        for n in range(len(word), 1 if first else 0, -1):
            if token.startswith(word[:n]) and fits(token[n:], rest[1:], False):
                return True
        return False

    for token in _tokens(text):
        if len(token) >= 4 and token.isalpha() and token[:2] == name_words[0][:2] and fits(token, name_words, True):
            return _find(text, token)
    return None


def in_one_address(name: str, text: str) -> int | None:
    """A name of two words or more whose every word is a word of one of the source's addresses (GitHub Actions in
    https://github.com/akheron/jansson/actions): a badge's link names the service it points to."""
    name_words = words(name)
    if len(name_words) < 2:
        return None
    for m in _URL.finditer(text):
        if set(name_words) <= {t.casefold() for t in _WORD.findall(m.group())}:
            return m.start()
    return None


def glued_to_number(key: str, text: str) -> int | None:
    """A one-word name the source glues to a number (RFC in RFC8878, SQLite in sqlite3, Python in python3.11): the
    name is the source's, with its number."""
    if " " in key or not key.isalpha():
        return None
    hit = re.search(rf"(?<![\w.]){re.escape(key)}\d+(?:\.\d+)*(?![^\W\d])", text.casefold())
    return hit.start() if hit else None


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n[ \t]*\n")


def two_names(name: str, text: str) -> int | None:
    """Two names the extraction glued because nothing stood between them ("Debian MySQL", "TrueType TTF"): each part a
    run of the source's words, both in one source sentence. Never when a part ends in an organisation's suffix
    (Foundation, Inc, Ltd): that would let an invented organisation through by its parts."""
    name_words = words(name)
    if len(name_words) < 2 or any(w in ORG_SUFFIXES for w in name_words):
        return None
    for sentence in _SENTENCE.split(text):
        sentence_words = words(sentence)
        for k in range(1, len(name_words)):
            if _has(sentence_words, name_words[:k]) and _has(sentence_words, name_words[k:]):
                return max(text.find(sentence), 0)
    return None


_MODIFIED = re.compile(r"(?P<name>[^\W_](?:[\w.+]|-(?=[A-Z0-9]))*)-(?P<word>[a-z]{3,})")


def modified(name: str, text: str) -> int | None:
    """A name with an ordinary word hyphened to it ("Unix-style", "OpenSSL-driven", "GTK-based"): the compound is the
    writer's description, the name is the part before the hyphen, found as a run of the source's words ("the Unix
    "diff" program", "compiled with OpenSSL 3.0.7"). An invented name with such a word ("Oracle-driven") is not."""
    m = _MODIFIED.fullmatch(name)
    if not m:
        return None
    needle, source_words = words(m.group("name")), words(text)
    for k in range(len(source_words) - len(needle) + 1):
        if source_words[k:k + len(needle)] == needle:
            return _find(text, m.group("name"))
    return None


# "Perl DBI", "the Perl module DBD::Pg": a Perl module by its language and its name
_PERL_MODULE = re.compile(r"Perl\s+(?:module\s+)?([A-Za-z][\w]*(?:::[A-Za-z]\w*)*)", re.I)


def perl_module(name: str, text: str) -> int | None:
    """A Perl module named with its language ("Perl DBI") in a source that gives it as its Debian package, which
    Perl's policy names lib<module>-perl, :: as - (libdbi-perl, libdbd-pg-perl for DBD::Pg): the package is the
    module, every letter of it in the package's name. Another module (an invented Perl DBX) is not found (round 13)."""
    m = _PERL_MODULE.fullmatch(name)
    if not m:
        return None
    package = "lib" + m.group(1).casefold().replace("::", "-") + "-perl"
    hit = re.search(rf"(?<![\w.+-]){re.escape(package)}(?![\w.+-])", text, flags=re.I)
    return hit.start() if hit else None


def _has(haystack: list[str], needle: list[str]) -> bool:
    return any(haystack[i:i + len(needle)] == needle for i in range(len(haystack) - len(needle) + 1))


def _find(text: str, word: str) -> int:
    hit = re.search(re.escape(word), text, flags=re.I)
    return hit.start() if hit else 0


def other_form(name: str, key: str, sentence: str, text: str) -> int | None:
    """Where the source writes the name ``name`` (key ``key``, in the article's ``sentence``) in another form."""
    for found in (acronym(name, text), glued_or_split(name, sentence, text), initials_word(name, text),
                  in_one_address(name, text), glued_to_number(key, text), two_names(name, text), modified(name, text),
                  perl_module(name, text)):
        if found is not None:
            return found
    return None
