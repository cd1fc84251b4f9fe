"""Claims: does the model's text assert, as a fact of this run, that a capability completed? zh, en and mixed.

The reader, in order (pipeline.guard.text, pipeline.guard.context, pipeline.guard.vocabulary):

1. Normalise (NFKC) and mask what is not the model's own assertion: titles of this run quoted verbatim,
   quoted text, and artifacts (URLs, registration numbers: one opaque token each).
2. Status lines and table rows - ``Published: no``, ``登记号：暂无``, ``| publish | done |``, ``发布 ❌`` -
   are decided by their value: yes/done/✅/成功/an artifact is a claim, no/failed/pending/暂无/❌ is none.
3. In every sentence, targets: completion phrases built from the capability's vocabulary and a
   grammar of completion (已 … 发布, 发布成功/了/到…了, 草稿已写好; "published", "publishing succeeded",
   "the report was generated"); scores ("score 82", "评分 82", "82 分") as humanize claims with a value.
4. A target is a claim unless a trigger in scope negates it, makes it hypothetical/future, or asks it.

Every pattern is an alternation or a bounded repeat, and a sentence is at most ``MAX_SENTENCE``
characters, so a scan is linear in the text length (benchmarks/bench_claim_scan.py).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from pipeline.guard.context import Context
from pipeline.guard.text import MASKS, NUMBER_MARK, URL_MARK, Sentence, sentences
from pipeline.guard.vocabulary import VOCABULARY


@dataclass(frozen=True)
class ClaimMatch:
    capability: str
    span: str
    score: int | None = None  # a humanize claim that states a score


def _alt(items: tuple[str, ...]) -> str:
    return "|".join(sorted(items, key=len, reverse=True))


_STOP = r"[^,:;。!?\n|→\ue000-\ue003]"
ZH_BEFORE = r"(?:已经|已|成功|顺利|完成了|完成|均已|都已|业已|全部)"
ZH_AFTER = r"(?:也|都|均|已经|已)?(?:成功|完成|完毕|好了|完了|过了|了|啦|出去了|掉了)"
ZH_TO = rf"(?:到|至){_STOP}{{0,12}}?(?:了|啦|成功)"
ZH_ANY = r"(?:生成|完成|写好|写完|出好|出炉|更新|确定|做好|搞定|就绪|准备好|录入)"
ZH_COMPLETIVE = r"(?:完成|完毕|写好|写完|出好|出炉|做好|搞定|就绪|生成完毕|生成好|生成了|更新了|确定了)"
EN_PRED = (r"succeeded|succeeds?|worked|went through|was successful|successful|complete|completed|done|finished|ok|okay"
           r"|ready|generated|written|created|sent|recorded|saved|passed|picked|selected|chosen|in place")
_W = r"(?<![A-Za-z_])(?:{})(?![A-Za-z_])"
_ADJECTIVAL = re.compile(r"(?<![A-Za-z])(?:a|an|any|every|each|another)\s+$", re.IGNORECASE)


def _by_capability(words: dict[str, tuple[str, ...]]) -> str:
    """One alternation naming the capability of the words that matched: (?:(?P<c_publish>发布|…)|(?P<c_register>…))."""
    return "(?:" + "|".join(f"(?P<c_{name}>{_alt(w)})" for name, w in words.items() if w) + ")"


def _target_patterns() -> list[re.Pattern[str]]:
    """The claim phrases of every capability, one regex per form (a few dozen linear scans in all).

    The 已 … verb form stays one regex per capability: its lazy gap would otherwise stop at the first
    verb of any capability and miss the rest of a coordination (已选题、写稿并发布).
    """
    verbs = {name: (*v.zh_verbs, name) for name, v in VOCABULARY.items()}
    nouns = {name: (*v.zh_nouns, name) for name, v in VOCABULARY.items()}
    done = {name: v.en_done for name, v in VOCABULARY.items()}
    en_nouns = {name: (*v.en_nouns, name) for name, v in VOCABULARY.items()}
    forms = [rf"{ZH_BEFORE}{_STOP}{{0,10}}?{_by_capability({name: w})}" for name, w in verbs.items()]
    forms += [
        rf"{_by_capability(verbs)}\s?(?:{ZH_AFTER}|{ZH_TO})",
        rf"{_by_capability(verbs)}(?:并|和|与|、|及|以及){_STOP}{{0,8}}?(?:了|完成|完毕|成功)",
        rf"{_by_capability(nouns)}{_STOP}{{0,4}}?(?:已经|已|也已|均已|都已){ZH_ANY}",
        rf"{_by_capability(nouns)}\s?(?:也|都|均)?{ZH_COMPLETIVE}",
        _W.format(_by_capability(done)),
        _W.format(_by_capability(en_nouns)) + r"[^.,;:!?\n|]{0,40}?" + _W.format(rf"(?P<t>{EN_PRED})"),
    ]
    return [re.compile(form, re.IGNORECASE) for form in forms]


TARGETS = _target_patterns()


def _capability(m: re.Match[str]) -> tuple[str, int, int]:
    """The capability a target match names, and the span of its claim word (the predicate, if any)."""
    group = next(g for g, value in m.groupdict().items() if g.startswith("c_") and value is not None)
    start, end = m.span("t") if "t" in m.re.groupindex else m.span(group)
    return group[2:], start, end


# --- scores: a number stated as the humanize result
_SCORE = re.compile(
    _W.format(r"(?:humanize score|score[sd]?|rated|rating|scored it)") + r"(?:\s{0,3}(?:was|is|of|at|to|:|=|->|→))?"
    r"\s{0,3}\**\s{0,2}(?P<n>\d{1,3})(?![\d.]\d)"
    r"|(?:拟人化评分|评分|得分|分数|打分)(?:为|是|:|=|->|→)?\s{0,3}\**(?P<z>\d{1,3})(?!\d)"
    r"|(?<![\d.])(?P<f>\d{1,3})\s{0,2}分(?![钟之析类享别配布数支])"
    r"|(?:humani[sz]ed?|humani[sz]ation|改写|拟人化)\s{0,2}(?:\(|→|->|:|=|\|)?\s{0,2}(?:ok\s{0,2}\(?\s{0,2})?(?P<h>\d{1,3})(?![\d.]\d)",
    re.IGNORECASE)
_NOT_A_RESULT = re.compile(r"(?:目标|满分|阈值|至少|不低于|target|threshold|at least|minimum|maximum|max|min|out of|/)\s*\**$",
                           re.IGNORECASE)

# --- status lines and table rows
KEY_OF = {k.casefold(): name for name, v in VOCABULARY.items() for k in v.keys}
_KEYS = _alt(tuple(KEY_OF))
_KEY = re.compile(
    rf"(?:^|(?<=[|,;.。、✅❌✔✓✗✘☑🟢🔴]))\s*(?:[-*+•>]\s*|\d+[.)]\s*)?(?:[✅❌✔✓✗✘☑🟢🔴]\ufe0f?\s*)?\**"
    rf"(?P<k>{_KEYS})(?![A-Za-z_\u4e00-\u9fff])\**\s{{0,3}}(?P<sep>:|=|->|→|\||(?=[✅❌✔✓✗✘☑🟢🔴]))",
    re.IGNORECASE)
_KEY_ARTIFACT = re.compile(
    rf"(?<![A-Za-z_])(?P<k>{_KEYS})\s{{0,2}}(?:is|was|为|是|:|=|->|→)?\s{{0,2}}\**[{URL_MARK}{NUMBER_MARK}]", re.IGNORECASE)
_AFFIRM = re.compile(
    r"✅|✔|✓|☑|🟢|√|" + _W.format(r"yes|y|ok|okay|done|success|successful|succeeded|complete|completed|true|passed|online"
                                  r"|live|published|registered|generated|finished")
    + r"|是|成功|完成|正常|在线|已上线|已发布|已登记|已生成|好了|搞定|运行|已执行|执行成功", re.IGNORECASE)
_NEGATE = re.compile(
    r"❌|✗|✘|✖|×|🔴|^\s*[-—–]+\s*$|" + _W.format(
        r"no|n|none|n/a|na|false|failed|fail|failure|error|errors|err|pending|skipped|skip|not|tbd|todo|unknown|null"
        r"|nil|never|waiting|blocked|refused|rejected|timeout|timed out|running|in progress|queued")
    + r"|否|无|暂无|失败|未|待|跳过|没有|错误|超时|拒绝|空|0 次|中$|进行中|运行中|处理中", re.IGNORECASE)

# keys whose value is an identifier: any number given there says the step produced one ("登记号：84")
_IDENTIFIER_KEY = re.compile(r"登记号|登记编号|台账编号|注册号|registration (?:number|no|id)|ledger entry", re.IGNORECASE)

# a step's value that is a bare number is the id or figure it returned ("register: 41"), unless an HTTP error
_RESULT_ID = re.compile(r"\s*\**(?![45]\d\d\b)\d{1,6}\**\s*")

MAX_SENTENCE = 400


def _status(reading: str) -> tuple[list[tuple[ClaimMatch, int]], list[tuple[int, int]]]:
    """Claims made by status lines and table rows (with their offsets), and the key spans they consumed."""
    found: list[tuple[ClaimMatch, int]] = []
    consumed: list[tuple[int, int]] = []
    offset = 0
    for line in reading.split("\n"):
        keys = [m for m in _KEY.finditer(line)]
        for i, m in enumerate(keys):
            end = keys[i + 1].start() if i + 1 < len(keys) else len(line)
            value = line[m.end():end]
            if m.group("sep") == "|":
                value = value.split("|")[0]
            consumed.append((offset + m.start("k"), offset + m.end("k")))
            capability = KEY_OF[m.group("k").casefold()]
            if _NEGATE.search(value):
                continue
            named = (_IDENTIFIER_KEY.fullmatch(m.group("k")) and re.search(r"\d", value)) or _RESULT_ID.fullmatch(value)
            if _AFFIRM.search(value) or URL_MARK in value or NUMBER_MARK in value or named:
                found.append((ClaimMatch(capability, (m.group("k") + ": " + value.strip())[:80]), offset + m.start("k")))
        offset += len(line) + 1
    return found, consumed


def _covered(spans: list[tuple[int, int]], starts: list[int], offset: int) -> bool:
    i = bisect_right(starts, offset) - 1
    return i >= 0 and offset < spans[i][1]


def _targets(reading: str, consumed: list[tuple[int, int]]) -> list[tuple[str, int, int, int | None]]:
    """(capability, start, end, score) of every candidate claim phrase (absolute offsets)."""
    consumed = sorted(consumed)
    starts = [s for s, _ in consumed]
    found = []
    for pattern in TARGETS:
        for m in pattern.finditer(reading):
            capability, start, end = _capability(m)
            if _covered(consumed, starts, start) or _ADJECTIVAL.search(reading[max(0, start - 12):start]):
                continue
            found.append((capability, start, end, None))
    for m in _SCORE.finditer(reading):
        group = next(g for g in ("n", "z", "f", "h") if m.group(g) is not None)
        value = int(m.group(group))
        if value <= 100 and not _NOT_A_RESULT.search(reading[max(0, m.start() - 12):m.start()]):
            found.append(("humanize", m.start(group), m.end(group), value))
    for m in _KEY_ARTIFACT.finditer(reading):
        if not _covered(consumed, starts, m.start("k")):
            found.append((KEY_OF[m.group("k").casefold()], m.start("k"), m.end("k"), None))
    return found


def _chunks(reading: str) -> list[Sentence]:
    """Sentences, long ones cut into pieces of at most MAX_SENTENCE characters (scopes never reach that far)."""
    result = []
    for s in sentences(reading):
        if len(s.text) <= MAX_SENTENCE:
            result.append(s)
            continue
        for start in range(0, len(s.text), MAX_SENTENCE):
            piece = s.text[start:start + MAX_SENTENCE]
            result.append(Sentence(s.start + start, s.start + start + len(piece), piece,
                                   tuple(c - start for c in s.clause_ends if start <= c < start + MAX_SENTENCE)))
    return result


_PLAN_HEADER = re.compile(
    r"(?:下一步|接下来|计划|待办|后续|next steps?|plan|to ?do|remaining|still to do|will do)[^\n]{0,40}[:：]\s*$",
    re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)]|\|)|^\s*$")


def _plan_blocks(reading: str) -> list[tuple[int, int]]:
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


def find_claims(reading: str) -> list[ClaimMatch]:
    """Affirmed claims in ``reading`` (text prepared by pipeline.guard.text): the first per capability and score."""
    plans = _plan_blocks(reading)
    statuses, consumed = _status(reading)
    found = [c for c, at in statuses if not any(s <= at < e for s, e in plans)]
    candidates = [c for c in _targets(reading, consumed) if not any(s <= c[1] < e for s, e in plans)]
    if candidates:
        context = Context(reading, _chunks(reading))
        for capability, start, end, score in candidates:
            i = context.locate(start)
            if i is not None and not context.categories(i, start, end):
                found.append(ClaimMatch(capability, reading[start:end].strip(MASKS) or capability, score))
    unique: dict[tuple[str, int | None], ClaimMatch] = {}
    for claim in found:
        unique.setdefault((claim.capability, claim.score), claim)
    return list(unique.values())
