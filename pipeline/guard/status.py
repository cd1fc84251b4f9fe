"""Status lines and table rows, read by their value; and plan blocks, whose items are intentions.

    Published: no          登记号：暂无          | publish | done |          发布 ❌  登记 ❌          register: 41

A key (a capability's status word from its vocabulary: "published", "URL", "登记号", "发布状态") at the start
of a line, a list item, a table cell or after another value, then ``:`` ``=`` ``→`` ``|`` or a check mark,
then a value. Negative or pending values (no, failed, pending, n/a, running, ❌, 否, 无, 暂无, 失败, 待定, 进行中)
claim nothing; affirmative ones (yes, done, ok, ✅, 成功, 完成, 是, 正确, 运行) claim the key's step, and so
do an artifact, a number given as an identifier ("登记号：84") and a bare id ("register: 41", not an HTTP
error code). Any other value is left to the sentence reader ("Status: published").

A list or table right under a header that announces a plan ("Next steps:", "下一步要做的是：") is a plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol

from pipeline.guard.text import NUMBER_MARK, URL_MARK

WORD = r"(?<![A-Za-z_])(?:{})(?![A-Za-z_])"
_MARKS = "✅❌✔✓✗✘☑🟢🔴"


def alternation(items: tuple[str, ...] | list[str]) -> str:
    """Longest first, so that "registration number" wins over "registration"."""
    return "|".join(sorted(items, key=len, reverse=True))


class _Keyed(Protocol):
    keys: tuple[str, ...]


AFFIRM = re.compile(
    r"✅|✔|✓|☑|🟢|√|" + WORD.format(r"yes|y|ok|okay|done|success|successful|succeeded|complete|completed|true|passed"
                                     r"|online|live|published|registered|generated|finished")
    + r"|是|成功|完成|正常|在线|已上线|已发布|已登记|已生成|好了|搞定|运行|已执行|执行成功|正确", re.IGNORECASE)
NEGATE = re.compile(
    r"❌|✗|✘|✖|×|🔴|^\s*[-—–]+\s*$|" + WORD.format(
        r"no|n|none|n/a|na|false|failed|fail|failure|error|errors|err|pending|skipped|skip|not|tbd|todo|unknown|null"
        r"|nil|never|waiting|blocked|refused|rejected|timeout|timed out|running|in progress|in_progress|queued")
    + r"|否|无|暂无|失败|未|待|跳过|没有|错误|超时|拒绝|空|0 次|中\s*$|进行中|运行中|执行中|处理中|^\s*\**0\**\s*[,;]?\s*$", re.IGNORECASE)
# keys whose value is an identifier: any number given there says the step produced one ("登记号：84")
IDENTIFIER_KEY = re.compile(r"登记号|登记编号|台账编号|注册号|registration (?:number|no|id)|ledger entry", re.IGNORECASE)
# a step's value that is a bare number is the id or figure it returned ("register: 41"), unless an HTTP error
RESULT_ID = re.compile(r"\s*\**(?![45]\d\d\b)\d{1,6}\**\s*")
# a value that is a template slot, not a value: "[Insert URL here]", "<registration number>", "{url}", "TBD"
PLACEHOLDER = re.compile(r"^\W*(?:\[[^\]]*\]|<[^>]*>|\{[^}]*\}|\.{3}|…|x{3,}|_{3,})\W*$", re.IGNORECASE)
# the header of a table column whose numbers are a step's result ("| step | result |"), not an index ("| 步骤 | 状态 |")
RESULT_HEADER = re.compile(WORD.format(r"results?|scores?|values?|outputs?|outcomes?") + r"|结果|评分|得分|分数|输出",
                           re.IGNORECASE)


@dataclass(frozen=True)
class StatusKeys:
    """The status-line keys of a catalog and the regexes built from them."""

    key_of: dict[str, str]
    line: re.Pattern[str]
    artifact: re.Pattern[str]  # a key right before an artifact: "登记号CT-…", "link https://…"
    pair: re.Pattern[str]  # key=value anywhere in a line: "status: published=false", "is_published=False"
    later: re.Pattern[str]  # a second key inside a status line's value: "publish: … register: …"

    @classmethod
    def of(cls, vocabularies: Mapping[str, _Keyed]) -> StatusKeys:
        key_of = {k.casefold(): name for name, v in vocabularies.items() for k in (*v.keys, name)}
        keys = alternation(list(key_of))
        line = re.compile(
            rf"(?:^|(?<=[|,;.。、:{_MARKS}]))\s*(?:[-*+•>]\s*|\d+[.)]\s*)?(?:[{_MARKS}]\ufe0f?\s*)?\**"
            rf"(?P<p>已经|已|是否)?(?P<k>{keys})(?:\s?的?(?:结果|状态|status|result))?(?![A-Za-z_\u4e00-\u9fff])\**\s{{0,3}}"
            rf"(?P<sep>:|=|->|→|\||(?=[{_MARKS}]))", re.IGNORECASE)
        # a later key in a run-on status line, after a space: "publish: already used register: <URL>"
        later = re.compile(rf"(?<=\s)\**(?P<p>)(?P<k>{keys})\**\s{{0,2}}(?P<sep>:|=|->|→)(?!=)", re.IGNORECASE)
        artifact = re.compile(
            rf"(?<![A-Za-z_])(?P<k>{keys})[ \t]{{0,2}}(?:is|was|为|是|:|=|->|→)?[ \t]{{0,2}}\**[{URL_MARK}{NUMBER_MARK}]",
            re.IGNORECASE)
        pair = re.compile(rf"(?<![A-Za-z\u4e00-\u9fff])(?P<p>is_|has_|was_|已经|已|是否)?(?P<k>{keys})(?:_ok|_status|_done|_state)?\s?"
                          rf"(?P<sep>=)(?!=)", re.IGNORECASE)
        return cls(key_of, line, artifact, pair, later)

    def capability(self, match: re.Match[str]) -> str:
        return self.key_of[match.group("k").casefold()]


@dataclass(frozen=True)
class Status:
    capability: str
    key_span: tuple[int, int]
    affirmed: bool
    text: str
    word_spans: tuple[tuple[int, int], ...]  # values that are one status word ("published", "done"): not prose
    number: int | None = None  # a bare number in a table cell under a result header ("| humanize | 82 |")


def _status_words(value: str, at: int) -> tuple[tuple[int, int], ...]:
    """The cells (or the whole value) made of a single status word, as spans: read as a value, not as a claim."""
    spans, offset = [], at
    for cell in value.split("|"):
        word = cell.strip(" *`")
        if word and (AFFIRM.fullmatch(word) or NEGATE.fullmatch(word)):
            spans.append((offset, offset + len(cell)))
        offset += len(cell) + 1
    return tuple(spans)


def status_lines(reading: str, keys: StatusKeys) -> Iterator[Status]:
    """Every key: value in ``reading``, with whether its value affirms the step."""
    offset, header = 0, None
    for line in reading.split("\n"):
        found = list(keys.line.finditer(line))
        found += [m for m in keys.pair.finditer(line) if not any(f.start("k") <= m.start("k") < f.end() for f in found)]
        found.sort(key=lambda m: m.start("k"))
        table = line.lstrip().startswith("|")
        header = (header if table else None) or (_cells(line) if table else None)
        if table:  # a table row: the first cell is the key, the other cells its value
            first_cell_end = line.find("|", line.find("|") + 1)
            found = [m for m in found if m.start("k") < first_cell_end][:1]
        elif found:  # keys later in the line, after a space: "publish: already used register: <URL>"
            found += [m for m in keys.later.finditer(line, found[0].end())
                      if not any(f.start("k") <= m.start("k") < f.end() for f in found)]
            found.sort(key=lambda m: m.start("k"))
        for i, m in enumerate(found):
            value = line[m.end():_key_start(found[i + 1]) if i + 1 < len(found) else len(line)]
            key = m.group("k")
            bare = value.strip().strip("|")
            identifier = bool(IDENTIFIER_KEY.fullmatch(key) and re.search(r"\d", value)) or bool(RESULT_ID.fullmatch(bare))
            affirmed = not NEGATE.search(value) and not PLACEHOLDER.match(value) and bool(
                AFFIRM.search(value) or URL_MARK in value or NUMBER_MARK in value or identifier)
            number = None
            if table and header and len(header) > 1 and RESULT_HEADER.search(header[1]):
                cell = _cells(line)[1:2]
                number = int(cell[0].strip("*")) if cell and re.fullmatch(r"\**\d{1,3}\**", cell[0]) else None
            start = _key_start(m)
            yield Status(keys.capability(m), (offset + start, offset + m.end("k")), affirmed,
                         f"{key}: {value.strip()}"[:80], _status_words(value, offset + m.end()), number)
        offset += len(line) + 1


def _key_start(m: re.Match[str]) -> int:
    return m.start("p") if m.group("p") else m.start("k")


def _cells(row: str) -> list[str]:
    """The cells of a table row, stripped: "| step | result |" -> ["step", "result"]."""
    return [c.strip() for c in row.strip().strip("|").split("|")]


_PLAN_HEADER = re.compile(
    r"(?:下一步|接下来|计划|待办|后续|next steps?|plan|to ?do|remaining|still to do|will do)[^\n]{0,40}[:：]\s*$",
    re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|\|)|^\s*$")


def plan_blocks(reading: str) -> list[tuple[int, int]]:
    """Lists and tables under a header such as "Next steps:" / "下一步要做的是：": a plan, whatever each item says."""
    blocks, offset, start = [], 0, None
    for line in reading.split("\n"):
        if start is not None and not _LIST_ITEM.match(line):
            blocks.append((start, offset))
            start = None
        if start is None and _PLAN_HEADER.search(line):
            start = offset + len(line)
        offset += len(line) + 1
    if start is not None:
        blocks.append((start, offset))
    return blocks
