"""The topics file, read and checked at start: plain text (one title a line) or JSON Lines with sources.

    .txt     one title a line; blank lines and lines starting with '#' are ignored (titles only, no sources)
    .jsonl   one JSON object a line: {"title": str (required), "sources": [URL or local path, ...],
             "brief": str, "tags": [str, ...]} (all but the title optional; other keys are an error)

Tags (a ``.jsonl`` topic's ``tags``, a feed entry's categories) are cleaned like titles (whitespace runs
made one space, control characters dropped), repeats (ignoring case) given once; a topics file with more
than MAX_TAGS tags on a line or a tag longer than MAX_TAG_CHARS is an error, a feed's extra or overlong
categories are left out (``clean_tags``).

A local source path is resolved against the topics file's folder (symlinks followed) and must lie inside
that folder or one of SOURCE_LOCAL_DIRS: a topics file cannot make factline read /etc/passwd. A URL
must be http(s). Every problem is one line naming the file and line (``TopicsFileError``); the settings
check turns it into a start-up error (exit 2). Blank lines are ignored in both forms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

MAX_SOURCES = 8
MAX_BRIEF_CHARS = 4000
MAX_TAGS = 8
MAX_TAG_CHARS = 60
_KEYS = {"title", "sources", "brief", "tags"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class TopicsFileError(ValueError):
    """One line saying which line of which topics file is wrong, and how."""


@dataclass(frozen=True)
class TopicSpec:
    """One topic as the topics file (or a feed entry) gives it: sources are URLs or absolute file paths."""

    title: str
    sources: tuple[str, ...] = ()
    brief: str | None = None
    tags: tuple[str, ...] = ()


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def _inside(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def local_source(raw: str, base: Path, allowed: Iterable[Path]) -> str:
    """The absolute path of a local source, or TopicsFileError when it is outside the allowed folders."""
    path = (base / raw).resolve()
    folders = [Path(f).resolve() for f in allowed]
    if not _inside(path, folders):
        raise TopicsFileError(f"source {raw!r} is outside the allowed folders "
                              f"({', '.join(map(str, folders))}; SOURCE_LOCAL_DIRS adds more)")
    if not path.is_file():
        raise TopicsFileError(f"source {raw!r} is not a readable file")
    return str(path)


def _strings(value: object, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise TopicsFileError(f"{key!r} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def clean_tag(value: str) -> str:
    """A tag as a title is cleaned: control characters dropped, whitespace runs made one space."""
    return " ".join(_CONTROL.sub(" ", value).split())


def clean_tags(values: Iterable[str]) -> tuple[str, ...]:
    """Tags from a feed: cleaned, empty or longer than MAX_TAG_CHARS left out, repeats (any case) once, at most
    MAX_TAGS, in their order."""
    kept: dict[str, str] = {}
    for value in values:
        tag = clean_tag(value)
        if tag and len(tag) <= MAX_TAG_CHARS:
            kept.setdefault(tag.casefold(), tag)
    return tuple(kept.values())[:MAX_TAGS]


def _tags(value: object) -> tuple[str, ...]:
    given = [clean_tag(tag) for tag in _strings(value, "tags")]
    if long := [tag for tag in given if len(tag) > MAX_TAG_CHARS]:
        raise TopicsFileError(f"tag {long[0][:20]!r}... is longer than {MAX_TAG_CHARS} characters")
    if (count := len({tag.casefold() for tag in given})) > MAX_TAGS:
        raise TopicsFileError(f"{count} tags, more than {MAX_TAGS}")
    return clean_tags(given)


def parse_topic_line(line: str, base: Path, allowed: Iterable[Path]) -> TopicSpec:
    """One JSON Lines entry as a TopicSpec; TopicsFileError says what is wrong with it."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TopicsFileError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise TopicsFileError("not a JSON object")
    if extra := sorted(set(data) - _KEYS):
        raise TopicsFileError(f"unknown key {extra[0]!r} (known: brief, sources, tags, title)")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise TopicsFileError("missing title (a non-empty string)")
    sources = _strings(data.get("sources", []), "sources")
    if len(sources) > MAX_SOURCES:
        raise TopicsFileError(f"{len(sources)} sources, more than {MAX_SOURCES}")
    checked = []
    for source in sources:
        if "://" in source and not is_url(source):
            raise TopicsFileError(f"source {source!r} is neither an http(s) URL nor a file path")
        if is_url(source):
            if not urlsplit(source).hostname:
                raise TopicsFileError(f"source {source!r} has no host")
            checked.append(source)
        else:
            checked.append(local_source(source, base, allowed))
    brief = data.get("brief")
    if brief is not None and (not isinstance(brief, str) or len(brief) > MAX_BRIEF_CHARS):
        raise TopicsFileError(f"'brief' must be a string of at most {MAX_BRIEF_CHARS} characters")
    return TopicSpec(" ".join(title.split()), tuple(dict.fromkeys(checked)), (brief or "").strip() or None,
                     _tags(data.get("tags", [])))


def read_jsonl_topics(path: Path, allowed_dirs: Iterable[Path] = ()) -> list[TopicSpec]:
    """Every entry of a JSON Lines topics file, or TopicsFileError for the first bad line (file, line, why)."""
    allowed = [path.resolve().parent, *allowed_dirs]
    specs = []
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                raise TopicsFileError(f"{path} line {number}: not UTF-8 (byte {exc.start + 1})") from None
            if not line:
                continue
            try:
                specs.append(parse_topic_line(line, path.resolve().parent, allowed))
            except TopicsFileError as exc:
                raise TopicsFileError(f"{path} line {number}: {exc}") from None
    return specs
