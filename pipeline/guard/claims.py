"""Claims: does the model's text assert, as a fact of this run, that a capability completed? zh, en and mixed.

The reader, in order (pipeline.guard.text, pipeline.guard.status, pipeline.guard.context); the words are
each capability's own (``Capability.claims``, capabilities.base.Claims, declared in its module), the
grammar is the guard's:

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
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from capabilities import CATALOG
from capabilities.base import Capability, Claims

from pipeline.guard.context import Context
from pipeline.guard.status import WORD as _W, StatusKeys, alternation as _alt, plan_blocks, status_lines
from pipeline.guard.text import MASKS, Sentence, sentences


@dataclass(frozen=True)
class ClaimMatch:
    capability: str
    span: str
    score: int | None = None  # a humanize claim that states a score
    start: int = -1  # offset of the claim in the reading text (its status line's key, or its claim word)
    phrase: int = -1  # where the whole claim phrase begins (its subject: "the upgrade for … has been completed")


_STOP = r"[^,:;。!?\n|→\ue000-\ue003]"
ZH_BEFORE = r"(?:已经|已|成功|顺利|完成了|完成|均已|都已|业已|全部)"
ZH_AFTER = r"(?:也|都|均|已经|已)?(?:成功|完成|完毕|好了|完了|过了|了|啦|出去了|掉了)"
ZH_TO = rf"(?:到|至){_STOP}{{0,12}}?(?:了|啦|成功)"
ZH_ANY = r"(?:生成|完成|写好|写完|出好|出炉|更新|确定|做好|搞定|就绪|准备好|录入|发给|发送|分配)"
ZH_COMPLETIVE = r"(?:完成|完毕|写好|写完|出好|出炉|做好|搞定|就绪|生成完毕|生成好|生成了|更新了|确定了)"
EN_BEFORE = r"(?:successfully )?(?:completed|finished|done with|carried out|performed|executed)"
EN_PRED = (r"succeeded|succeeds?|worked|went through|was successful|successful|complete|completed|done|finished|ok|okay"
           r"|ready|generated|written|created|sent|recorded|saved|passed|picked|selected|chosen|in place|processed|confirmed")
_ADJECTIVAL = re.compile(r"(?<![A-Za-z])(?:a|an|any|every|each|another)\s+$", re.IGNORECASE)
# a participle after a plural noun, with a present verb after it, is a reduced relative clause about such things
# in general: "Articles published on this blog are indexed by search engines"
_PLURAL_BEFORE = re.compile(r"(?<![A-Za-z])(?:articles|posts|pages|items|texts|drafts|stories|entries)\s+$", re.IGNORECASE)
_GENERIC_AFTER = re.compile(r"[^.;:!?\n|]{0,60}?(?<![A-Za-z])(?:are|is|can|get|gets|will|may|must|stay|remain)(?![A-Za-z])",
                            re.IGNORECASE)
# a participle before a plural noun with no subject before it describes such things: "Published articles appear …"
_PLURAL_AFTER = re.compile(r"\s+(?:articles|posts|pages|items|entries|texts|drafts|versions|stories)(?![A-Za-z])",
                           re.IGNORECASE)
_NO_SUBJECT = re.compile(r"(?:^|[.!?;:\n\ue000-\ue003]\s*|(?<![A-Za-z])(?:the|all|our|your|their|these|those|of|for|in|on"
                         r"|with|from)\s+)$", re.IGNORECASE)
# 已V的 + noun with a general predicate after it: "已发布的文章都可以在首页找到" (what such articles do, not this run)
_ZH_ATTRIBUTIVE = re.compile(r"的[^。!?\n]{0,30}?(?:会|可以|都|能|均可|通常|一般)")
_CLAUSE = re.compile(r"(?<![A-Za-z])(?:been|was|were|is|are|got)(?![A-Za-z])", re.IGNORECASE)  # "a bag has been added"


def _by_capability(words: dict[str, tuple[str, ...]]) -> str:
    """One alternation naming the capability of the words that matched: (?:(?P<c_7075…>发布|…)|(?P<c_…>…)).

    The group name is ``c_`` and the tool name in hex: any tool name ("update_reservation_*", "send-mail") fits.
    """
    return "(?:" + "|".join(f"(?P<c_{name.encode().hex()}>{_alt(w)})" for name, w in words.items() if w) + ")"


def _target_patterns(vocabularies: Mapping[str, Claims]) -> list[re.Pattern[str]]:
    """The claim phrases of every capability, one regex per form (a few dozen linear scans in all).

    The 已 … verb and "completed … noun" forms stay one regex per capability: a lazy gap would otherwise
    stop at the first word of any capability and miss the rest of a coordination (已选题、写稿并发布).
    """
    verbs = {name: (*v.zh_verbs, name) for name, v in vocabularies.items()}
    nouns = {name: (*v.zh_nouns, name) for name, v in vocabularies.items()}
    done = {name: v.en_done for name, v in vocabularies.items()}
    en_nouns = {name: (*v.en_nouns, name) for name, v in vocabularies.items()}
    forms = [rf"{ZH_BEFORE}{_STOP}{{0,10}}?{_by_capability({name: w})}" for name, w in verbs.items()]
    forms += [_W.format(EN_BEFORE) + r"[^.;:!?\n|]{0,100}?" + _W.format(_by_capability({name: w}))
              for name, w in en_nouns.items()]  # "completed the drafting, publication and registration steps"
    forms += [
        rf"{_by_capability(verbs)}\s?(?:{ZH_AFTER}|{ZH_TO})",
        rf"{_by_capability(verbs)}(?:并|和|与|、|及|以及){_STOP}{{0,8}}?(?:了|完成|完毕|成功)",
        rf"{_by_capability(nouns)}{_STOP}{{0,4}}?(?:已经|已|也已|均已|都已){ZH_ANY}",
        rf"{_by_capability(nouns)}\s?(?:也|都|均)?{ZH_COMPLETIVE}",
        rf"{_by_capability({n: (*verbs[n], *nouns[n]) for n in verbs})}\s?(?:done|ok|okay|finished|completed|succeeded)"
        r"(?![A-Za-z])",  # mixed: 发布 done
        _W.format(_by_capability(done)) if any(done.values()) else "",
    ]
    # done, said in a clause of time whose main clause is past: "after publishing it, I checked", "发布之后我检查了"
    gerunds = {name: (f"{name.removesuffix('e')}ing",) for name in vocabularies if name.isalpha()}
    forms += [r"(?<![A-Za-z])(?:after|upon|having)\s+" + _W.format(_by_capability(gerunds)) if gerunds else "",
              rf"{_by_capability(verbs)}(?:完)?(?:之后|以后|后)(?=(?:(?![就便才])[^。!?\n]){{0,30}}?了)"]  # 就/便/才: a consequence
    # one per capability, so that "the upgrade and cancellation of … completed" claims both
    forms += [_W.format(_by_capability({name: w})) + r"[^.,;:!?\n|]{0,60}?" + _W.format(rf"(?P<t>{EN_PRED})")
              for name, w in en_nouns.items() if w]
    return [re.compile(form, re.IGNORECASE) for form in forms if form]


# the whole run said to be done: a claim of every step ("All done", "流水线执行完毕", "the pipeline has been
# successfully executed"); an ended run is not a completed one ("run 结束", "the run finished") and stays out
RUN_DONE = re.compile(
    _W.format(r"all done|everything (?:is |was )?done|everything went through|all (?:six |the )?steps (?:succeeded|completed|are done)"
              r"|(?:the )?(?:pipeline|run|job|workflow) (?:(?:has|have) )?(?:been )?(?:successfully (?:executed|completed|finished)"
              r"|completed successfully|finished successfully|succeeded)(?=\s*(?:today|now)?\s*(?:[.!,;:)\n]|$))")
    + r"|(?:流水线|流程|任务|本次运行|所有步骤|全部步骤|一切)(?:已经|已|均已|都已|全部|均|都)?(?:执行完毕|顺利完成|完成|完毕|成功)"
    r"|全部完成|全部成功", re.IGNORECASE)


@dataclass(frozen=True)
class ClaimRules:
    """The compiled claim reader for one catalog's vocabularies.

    ``pipeline``: the catalog is factline's own pipeline, where "All done" claims every step and a stated
    score is humanize's result; a catalog of someone else's tools (``factline audit``) has neither.
    """

    targets: list[re.Pattern[str]]
    keys: StatusKeys
    capabilities: tuple[str, ...]
    pipeline: bool = True


def claim_rules(catalog: Mapping[str, Capability[Any, Any]]) -> ClaimRules:
    """The reader for a catalog: each capability's vocabulary (``Capability.claims``) in the guard's grammar."""
    return vocabulary_rules({name: capability.claims for name, capability in catalog.items()})


def vocabulary_rules(vocabularies: Mapping[str, Claims], pipeline: bool = True) -> ClaimRules:
    """The reader for plain vocabularies (a tool name each): the same grammar, for tools factline never ran."""
    return ClaimRules(_target_patterns(vocabularies), StatusKeys.of(vocabularies), tuple(vocabularies),
                      pipeline and "humanize" in vocabularies)


CLAIM_RULES = claim_rules(CATALOG)


def _capability(m: re.Match[str]) -> tuple[str, int, int]:
    """The capability a target match names, and the span of its claim word (the predicate, if any)."""
    group = next(g for g, value in m.groupdict().items() if g.startswith("c_") and value is not None)
    start, end = m.span("t") if "t" in m.re.groupindex else m.span(group)
    return bytes.fromhex(group[2:]).decode(), start, end


def _phrase_start(m: re.Match[str]) -> int:
    """Where the claim phrase begins: its subject, when the claim word is a predicate after it."""
    group = next(g for g, value in m.groupdict().items() if g.startswith("c_") and value is not None)
    return min(m.start(group), m.start("t")) if "t" in m.re.groupindex else m.start(group)


# --- scores: a number stated as the humanize result
_SCORE = re.compile(
    _W.format(r"(?:humanize score|score[sd]?|rated|rating|scored it)") + r"(?:\s{0,3}(?:was|is|of|at|to|:|=|->|→))?"
    r"\s{0,3}\**\s{0,2}(?P<n>\d{1,3})(?![\d.]\d)"
    r"|(?:拟人化评分|评分|得分|分数|打分)(?:为|是|:|=|->|→)?\s{0,3}\**(?P<z>\d{1,3})(?!\d)"
    r"|(?<![\d.])(?P<f>\d{1,3})\s{0,2}分(?![钟之析类享别配布数支])"
    r"|(?:humani[sz]ed?|humani[sz]ation|改写|拟人化)\s{0,2}(?:\(|→|->|:|=)?\s{0,2}(?:ok\s{0,2}\(?\s{0,2})?(?P<h>\d{1,3})(?![\d.]\d)"
    r"|(?<![\d./])(?P<o>\d{1,3})\s{0,2}(?:/\s{0,2}100|out of (?:a possible )?100|points?)(?![\d])",
    re.IGNORECASE)
_NOT_A_RESULT = re.compile(r"(?:目标|满分|阈值|至少|不低于|target|threshold|at least|minimum|maximum|max|min|out of|/)\s*\**$",
                           re.IGNORECASE)

MAX_SENTENCE = 400


def _covered(spans: list[tuple[int, int]], starts: list[int], offset: int) -> bool:
    i = bisect_right(starts, offset) - 1
    return i >= 0 and offset < spans[i][1]


def _targets(reading: str, consumed: list[tuple[int, int]],
             rules: ClaimRules) -> list[tuple[str, int, int, int | None, int]]:
    """(capability, start, end, score, phrase start) of every candidate claim phrase (absolute offsets)."""
    consumed = sorted(consumed)
    starts = [s for s, _ in consumed]
    found = []
    for pattern in rules.targets:
        for m in pattern.finditer(reading):
            capability, start, end = _capability(m)
            bare = not _CLAUSE.search(m.group())
            adjectival = ((_ADJECTIVAL.search(reading[max(0, start - 12):start]) and bare)
                          or (_PLURAL_BEFORE.search(reading[max(0, start - 12):start])
                              and _GENERIC_AFTER.match(reading, end))
                          or (bare and _PLURAL_AFTER.match(reading, end)
                              and _NO_SUBJECT.search(reading[max(0, start - 24):start]))
                          or _ZH_ATTRIBUTIVE.match(reading, end))
            if _covered(consumed, starts, start) or adjectival:
                continue
            found.append((capability, start, end, None, _phrase_start(m)))
    for m in _SCORE.finditer(reading) if rules.pipeline else ():
        group = next(g for g in ("n", "z", "f", "h", "o") if m.group(g) is not None)
        value = int(m.group(group))
        if value <= 100 and not _NOT_A_RESULT.search(reading[max(0, m.start() - 12):m.start()]):
            found.append(("humanize", m.start(group), m.end(group), value, m.start()))
    for m in RUN_DONE.finditer(reading) if rules.pipeline else ():
        found += [(name, m.start(), m.end(), None, m.start()) for name in rules.capabilities]
    for m in rules.keys.artifact.finditer(reading):
        if not _covered(consumed, starts, m.start("k")):
            found.append((rules.keys.capability(m), m.start("k"), m.end("k"), None, m.start("k")))
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
            ends = s.clause_ends[bisect_left(s.clause_ends, start):bisect_left(s.clause_ends, start + MAX_SENTENCE)]
            result.append(Sentence(s.start + start, s.start + start + len(piece), piece, tuple(c - start for c in ends)))
    return result


def find_claims(reading: str, rules: ClaimRules = CLAIM_RULES) -> list[ClaimMatch]:
    """Affirmed claims in ``reading`` (text prepared by pipeline.guard.text): the first per capability and score."""
    plans = plan_blocks(reading)
    found: list[ClaimMatch] = []
    consumed: list[tuple[int, int]] = []
    for status in status_lines(reading, rules.keys):
        consumed += [status.key_span, *status.word_spans]
        if status.affirmed and not any(s <= status.key_span[0] < e for s, e in plans):
            found.append(ClaimMatch(status.capability, status.text, start=status.key_span[0], phrase=status.key_span[0]))
            if rules.pipeline and status.capability == "humanize" and status.number is not None and status.number <= 100:
                found.append(ClaimMatch("humanize", status.text, status.number, status.key_span[0], status.key_span[0]))
    candidates = [c for c in _targets(reading, consumed, rules) if not any(s <= c[1] < e for s, e in plans)]
    if candidates:
        context = Context(reading, _chunks(reading))
        for capability, start, end, score, phrase in candidates:
            i = context.locate(start)
            if i is not None and not context.categories(i, start, end):
                found.append(ClaimMatch(capability, reading[start:end].strip(MASKS) or capability, score, start, phrase))
    unique: dict[tuple[str, int | None], ClaimMatch] = {}
    for claim in found:
        unique.setdefault((claim.capability, claim.score), claim)
    return list(unique.values())
