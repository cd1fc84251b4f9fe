"""What a reader sees on a page, and how much of an article it holds.

    visible_text(html) -> str                 the text a browser shows (selectolax/Lexbor, an HTML5 parser):
                                              script, style, template, noscript and <head> left out
    words(text) -> list[str]                  normalised words: NFKC, case-folded, punctuation dropped;
                                              CJK split per character (no spaces between its words);
                                              symbols such as emoji kept, one a word
    coverage(article, page) -> Coverage       the share of the article's words found on the page in order

Coverage is difflib's SequenceMatcher over the two word sequences: the words of the article inside
matching blocks of the page, divided by the article's words. Chrome a theme adds around the article
(menus, footers, comment forms) costs nothing, because coverage is of the article; a truncated,
replaced or partly stripped article loses exactly the words that are gone. Punctuation is dropped
because platforms rewrite it (WordPress's wptexturize turns "--" into an en dash and quotes into
curly ones); words are what a reader reads. One character is read as the letter it stands for:
wptexturize writes "10x20" as "10×20" (measured on the corpus, tests/corpus/texturize.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from selectolax.lexbor import LexborHTMLParser

INVISIBLE = "script, style, template, noscript, head, svg"
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_SAME_AS = str.maketrans({"×": "x"})
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


def coverage(article: list[str], page: list[str]) -> Coverage:
    """The share of ``article`` found in ``page`` as an ordered word sequence."""
    if not article:
        return Coverage(1.0, 0, 0, "")
    matcher = SequenceMatcher(None, article, page, autojunk=False)
    matched = [False] * len(article)
    for block in matcher.get_matching_blocks():
        for i in range(block.a, block.a + block.size):
            matched[i] = True
    found = sum(matched)
    missing_at = next((i for i, hit in enumerate(matched) if not hit), None)
    first_missing = " ".join(article[missing_at:missing_at + 8]) if missing_at is not None else ""
    return Coverage(found / len(article), len(article), found, first_missing)
