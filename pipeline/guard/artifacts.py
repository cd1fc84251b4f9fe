"""Artifacts: URLs and registration numbers in the model's text, each grounded by exact equality with its source.

Extraction runs on NFKC-normalised text (full-width ＣＴ－２０２６… becomes CT-2026…):

- URLs with a scheme, made of RFC 3986 characters less the sub-delimiters ``, ; ! * ' ( )`` and brackets:
  after NFKC a Chinese ``，；！（）`` is ASCII and is glued to the URL in model text, while the URLs the
  targets make (``?p=57``, slugs) never hold them. A run of CJK characters belongs to the URL only as a
  path segment that goes on (``/文章.html``), so ``…?p=57请查收`` ends before 请. Trailing ``. : ? _ ~ -``
  are cut: ``…``, ``**``, ``」``, ``——`` after a URL are not part of it.
- Scheme-less URLs on any host, with a path (``blog.example.com/x``, ``127.0.0.1:8080/?p=57``); a bare
  domain names a site, not an article, and is not an artifact.
- Registration numbers and their near misses: ``CT-20260922-001`` and ``CT-2026-0922-001``,
  ``ct-20260922-001``, ``CT–20260922–001``, ``CT20260922001``, ``CT-20260922-1``, ``Ctx-20260922-001``; a CJK character before
  ``CT`` is a boundary (``登记号CT-…``). A value given as the registration number is one whatever its
  form (``登记号：84``, ``Registration Number: 1234567890``), if it holds a digit (``pending`` is no number).

Grounding is by source and by equality, never by substring: a URL counts only if it equals (percent-
decoded, scheme and one trailing slash aside, host case-folded) a ``url`` field of this run's tool
results - publish's result or the report built from the ledger; a registration number only if it equals
a ``registration_number`` field. A topic title holding ``CT-20200101-999`` grounds nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right, insort
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

_CJK = r"\u3400-\u9fff\uf900-\ufaff"
_URL_CHARS = r"A-Za-z0-9\-._~:/?#@$&+=%"
_CJK_SEGMENT = rf"(?<=[/=_\-])[{_CJK}]+(?=[A-Za-z0-9/._%\-])"
URL = re.compile(rf"https?://(?:[{_URL_CHARS}]|{_CJK_SEGMENT})+", re.IGNORECASE)
SCHEMELESS_URL = re.compile(
    rf"(?<![A-Za-z0-9\-._~/@%])(?:(?:[A-Za-z0-9-]{{1,63}}\.){{1,6}}[A-Za-z]{{2,24}}|\d{{1,3}}(?:\.\d{{1,3}}){{3}})"
    rf"(?::\d{{1,5}})?/(?:[{_URL_CHARS}]|{_CJK_SEGMENT})*")
REGISTRATION = re.compile(
    r"(?<![A-Za-z0-9])[Cc][Tt][A-Za-z]? ?[-–—_ ]? ?\d{4}[-–—_ ]?\d{2}[-–—_ ]?\d{2}[-–—_ ]?\d{1,4}(?![0-9])")
_TRAILING = ".:?_~-"
# a value given as *the* registration number is one, whatever its form ("登记号：84", "Registration Number: 7")
KEYED_NUMBER = re.compile(
    r"(?:登记号|登记编号|台账编号|注册号|registration (?:number|no\.?|id))\**\s{0,3}(?:is|was|为|是|:|=|#)?\s{0,3}\**"
    r"(?P<n>(?=[A-Za-z0-9-]{0,23}\d)[A-Za-z0-9][A-Za-z0-9-]{0,23})(?![A-Za-z0-9-])", re.IGNORECASE)


@dataclass(frozen=True)
class Artifact:
    kind: str  # url | registration
    start: int
    end: int
    text: str


def _trim(url: str) -> str:
    while url:
        if url[-1] in _TRAILING:
            url = url[:-1]
        else:
            break
    return url


def extract(text: str) -> list[Artifact]:
    """Every URL and registration-like number in ``text`` (already normalised), in order."""
    found: list[Artifact] = []
    taken: list[tuple[int, int]] = []  # sorted spans already claimed by a URL

    def free(offset: int) -> bool:
        i = bisect_right(taken, (offset, len(text) + 1)) - 1
        return i < 0 or offset >= taken[i][1]

    for pattern in (URL, SCHEMELESS_URL):
        for m in pattern.finditer(text):
            url = _trim(m.group())
            if not free(m.start()) or (pattern is SCHEMELESS_URL and not url.partition("/")[2]):
                continue  # inside a URL already found, or a bare domain (a site, not an article)
            found.append(Artifact("url", m.start(), m.start() + len(url), url))
            insort(taken, (m.start(), m.start() + len(url)))
    for m in REGISTRATION.finditer(text):
        if free(m.start()):
            found.append(Artifact("registration", m.start(), m.end(), m.group()))
            insort(taken, m.span())
    for m in KEYED_NUMBER.finditer(text):
        if free(m.start("n")):
            found.append(Artifact("registration", m.start("n"), m.end("n"), m.group("n")))
    return sorted(found, key=lambda a: a.start)


def url_key(url: str) -> str:
    """What makes two URLs the same page: host (case-folded) + port + decoded path + query, no scheme."""
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    path = unquote(parts.path)
    if path.endswith("/"):
        path = path[:-1]
    query = f"?{unquote(parts.query)}" if parts.query else ""
    return f"{parts.netloc.casefold()}{path}{query}"
