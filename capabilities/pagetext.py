"""What a reader sees on a page, and how much of an article it holds.

    visible_text(html) -> str                 the text a browser shows (selectolax/Lexbor, an HTML5 parser):
                                              script, style, template, noscript and <head> left out
    words(text) -> list[str]                  normalised words: NFKC, case-folded, punctuation dropped;
                                              CJK split per character (no spaces between its words);
                                              symbols such as emoji kept, one a word
    coverage(page, *parts) -> Coverage        the share of the article's words (title, body) found on the page

Coverage counts an article word as found when a run of SHINGLE consecutive article words containing
it appears on the page in that order: the covered words divided by the article's words. Chrome a
theme adds around the article (menus, footers, comment forms) costs nothing, because coverage is of
the article; a truncated, replaced or partly stripped article loses exactly the words that are gone
(a word changed in place loses itself only). It is linear in the two lengths: difflib's
SequenceMatcher, tried first, took 57 s for a 16,000-word article of repeated paragraphs (it is
quadratic on repetitive text, and MAX_BODY_BYTES allows 2 MB), this takes milliseconds. Punctuation is dropped
because platforms rewrite it (WordPress's wptexturize turns "--" into an en dash and quotes into
curly ones); words are what a reader reads. One character is read as the letter it stands for:
wptexturize writes "10x20" as "10×20" (measured on the corpus, tests/corpus/texturize.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser

INVISIBLE = "script, style, template, noscript, head, svg"
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_SAME_AS = str.maketrans({"×": "x"})
SHINGLE = 4  # words in a run; shorter articles are looked up whole
_CJK_RANGES = (
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x2FA1F),  # extensions B-F, compatibility supplement
)


def visible_text(html: str) -> str:
    """The page's visible text, block elements separated by spaces."""
    tree = LexborHTMLParser(html)
    for node in tree.css(INVISIBLE):
        node.decompose()
    root = tree.body or tree.root
    return root.text(separator=" ", strip=True) if root is not None else ""


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _CJK_RANGES)


def words(text: str) -> list[str]:
    """Normalised words of ``text`` (see the module docstring)."""
    found: list[str] = []
    for token in _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold().translate(_SAME_AS)):
        if token[0].isalnum() or token[0] == "_":
            run: list[str] = []
            for ch in token:
                if _is_cjk(ch):
                    if run:
                        found.append("".join(run))
                        run = []
                    found.append(ch)
                else:
                    run.append(ch)
            if run:
                found.append("".join(run))
        elif unicodedata.category(token)[0] == "S" and unicodedata.category(token) != "Sk":
            found.append(token)  # emoji and other symbols; modifier marks (Sk: ^ `) are punctuation here
    return found


@dataclass(frozen=True)
class Coverage:
    """How much of an article's word sequence a page holds."""

    ratio: float  # 0..1; 1.0 for an article without words
    article_words: int
    found_words: int
    first_missing: str  # the first few words of the article not found in order ("" when none)

    @property
    def percent(self) -> str:
        """The ratio for people: floored, so 98.9% never shows as 99%."""
        return f"{int(self.ratio * 1000) / 10:g}%"


def coverage(page: list[str], *parts: list[str]) -> Coverage:
    """The share of the article's ``parts`` (its title, its body) found in ``page`` as runs of SHINGLE words.

    Each part is looked up on its own: a page puts things between them (a date, a byline) that the
    article does not have, and a run must not have to span them.
    """
    runs: dict[int, set[tuple[str, ...]]] = {}
    matched: list[bool] = []
    article: list[str] = []
    for part in parts:
        size = min(SHINGLE, len(part))
        if size not in runs:
            runs[size] = {tuple(page[i:i + size]) for i in range(len(page) - size + 1)}
        hits = [False] * len(part)
        for start in range(len(part) - size + 1):
            if tuple(part[start:start + size]) in runs[size]:
                hits[start:start + size] = [True] * size
        matched += hits
        article += part
    if not article:
        return Coverage(1.0, 0, 0, "")
    found = sum(matched)
    missing_at = next((i for i, hit in enumerate(matched) if not hit), None)
    first_missing = " ".join(article[missing_at:missing_at + 8]) if missing_at is not None else ""
    return Coverage(found / len(article), len(article), found, first_missing)
