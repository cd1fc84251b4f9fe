"""Polarity by scope: a ConText/NegEx-style reader of negation, hypothesis and question, in Chinese and English.

A claim phrase ("已发布", "was published") is a *target*. A *trigger* ("未", "not", "if", "吗") changes
the targets inside its scope: forward triggers the targets after them, backward ones the targets
before them. Scopes:

    CLAUSE    to the next clause boundary (, : 、 dashes brackets) or terminator
    SENTENCE  to the sentence end or the next terminator ("but", "但", "yet", "所以" ...)

``max_gap`` bounds the distance in characters from a trigger to its target where a word binds
tightly (未/没/不 negate the verb right after them; 将 marks the future only directly before a verb,
else it marks the object: 我已将文章发布). *Pseudo-triggers* contain a trigger word without its
meaning ("no errors", "没有报错", "不出所料", "after the check passed"); a trigger inside one is ignored.

The design follows ConText (Chapman et al. 2007; pyConTextNLP, medspaCy's ConTextRule: literal,
category, direction, max_scope, pseudo and termination rules). It is written here, not taken from
medspaCy or negspacy: those need spaCy and a tokenizer model, ship clinical English lexicons, and a
reader of five capabilities' claims in zh and en is ~150 lines of data and code that scan linearly.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from enum import StrEnum

from pipeline.guard.text import Sentence


class Category(StrEnum):
    NEGATED = "negated"
    HYPOTHETICAL = "hypothetical"
    QUESTION = "question"  # also: every target of a sentence that ends with ?
    HISTORICAL = "historical"  # done, but before this conversation ("booked 3 days ago", "created on 2024-05-01")
    GENERAL = "general"  # talk about how things usually go, not about this run ("refunds are typically issued")


class Direction(StrEnum):
    FORWARD = "forward"
    BACKWARD = "backward"
    BOTH = "both"  # a quantity of zero negates what it counts, before or after: "zero articles", "发布了 0 篇"


class Scope(StrEnum):
    CLAUSE = "clause"
    SENTENCE = "sentence"


@dataclass(frozen=True)
class Trigger:
    pattern: str
    category: Category
    direction: Direction = Direction.FORWARD
    scope: Scope = Scope.SENTENCE
    max_gap: int | None = None


N, H, Q = Category.NEGATED, Category.HYPOTHETICAL, Category.QUESTION
PAST, GENERAL = Category.HISTORICAL, Category.GENERAL
_ZERO = (r"(?<![A-Za-z])zero(?![A-Za-z])|(?<![\d.,])0(?=\s*(?:articles?|posts?|pages?|items?|publications?|registrations?"
         r"|篇|个|条|次|项)(?![A-Za-z]))|零(?=篇|个|条|次|项)")
_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?(?:,? \d{4})?"
FWD, BWD = Direction.FORWARD, Direction.BACKWARD
CLAUSE, SENTENCE = Scope.CLAUSE, Scope.SENTENCE
_EN = r"(?<![A-Za-z])(?:{})(?![A-Za-z])"  # English words: whole words only

TRIGGERS: tuple[Trigger, ...] = (
    # --- English negation
    Trigger(_EN.format(r"not|never|nothing|none|nobody|neither|nor|no|without|cannot|unable to|failed to|fail to"
                       r"|yet to|rather than|instead of|lack of|no longer"), N),
    Trigger(r"n't(?![A-Za-z])", N),
    # a zero quantity: "zero articles were published", "发布了 0 篇", "published: zero articles"
    Trigger(_ZERO, N, Direction.BOTH, SENTENCE),
    Trigger(_EN.format(r"failed|fails|failing|failure|unsuccessful|errored|error|errors|skipped|refused|rejected"
                       r"|timed out|blocked|not attempted|did not happen|unknown|missing|aborted|cancell?ed"),
            N, BWD, CLAUSE),
    # --- Chinese negation: tight before the verb, or a result after it
    Trigger(r"未能|没能|未|没有|没|不能|不|无法|无|尚未|并未|从未|别|非|否|零", N, FWD, CLAUSE, max_gap=6),
    Trigger(r"既没有|既未|既不", N, FWD, SENTENCE),
    Trigger(r"失败|出错|报错|错误|超时|被拒绝?|拒绝|跳过|中止|取消|未成功|没成功|不成功|不在线|暂无|缺失", N, BWD, CLAUSE),
    # --- English hypothesis, condition, future, intent
    Trigger(_EN.format(r"if|unless|once|when|whenever|until|before|after|assuming|provided|in case|as soon as"
                       r"|suppose|supposing|whether"), H, FWD, CLAUSE),
    Trigger(_EN.format(r"will|shall|would|should|could|might|may|must|can|going to|about to|plan to|plans to"
                       r"|planning to|need to|needs to|have to|has to|want to|wants to|let me|let's|try to|trying to"
                       r"|ready to|to be|next step is|intend to|expect to|expected to|scheduled to|waiting for"
                       r"|waiting to|awaiting|hope to|then I|I'm going|gonna"), H),
    Trigger(r"'ll(?![A-Za-z])|'d(?![A-Za-z])", H),
    Trigger(_EN.format(r"pending|next|later|soon|TBD|tomorrow|to do|to-do|queued|scheduled|planned"), H, BWD, CLAUSE),
    # --- Chinese hypothesis, condition, future, intent
    # a condition with its consequence after a comma: 如果发布成功，网站上就可以看到了 (就/便/则 carry it over)
    Trigger(r"(?:如果|若|假如|假设|倘若|要是|万一|一旦|只要)(?=[^。!?\n]{0,40}?,[^。!?\n,]{0,20}?(?:就|便|则|那么))",
            H, FWD, SENTENCE),
    Trigger(r"如果|若|假如|假设|倘若|要是|万一|一旦|如需|只要|除非|是否|等(?=[^,;。]{0,20}?(?:后|之后|以后))", H, FWD, CLAUSE),
    Trigger(r"的话", H, BWD, CLAUSE),
    Trigger(r"与否|whether or not|or not\b", H, BWD, SENTENCE),
    # a future with its time frame before the verb: 会在审核通过后…, 将于明天…之后…, will … be marked as published
    Trigger(r"(?:会|将|将会|要)(?:在|于)[^,。;!?\n]{0,30}?(?:后|之后|以后|时|前)", H, FWD, CLAUSE),
    Trigger(r"(?:会|将|要|will|going to|expected to)[^。.!?\n]{0,40}?(?:标记为|显示为|显示|标注为|marked as|shown as"
            r"|displayed as|mark (?:it|the \w+) as)", H, FWD, CLAUSE),
    Trigger(r"将要|将会|将", H, FWD, CLAUSE, max_gap=0),
    Trigger(r"下一步|接下来|准备|计划|打算|即将|马上|稍后|需要|预计|争取|尽快|希望|等待|要做的|要去|要求|必须|务必|待",
            H, FWD, CLAUSE),
    Trigger(r"会|要|需|应该|应当|可以|能够|能|然后|再|请|想", H, FWD, CLAUSE, max_gap=8),
    Trigger(r"待定|待办|稍后|之后再说|未定", H, BWD, CLAUSE),
    # --- done before this conversation, or talk about what usually happens
    Trigger(_EN.format(r"ago|previously|originally|earlier|in the past|at the time of|within the (?:last|past)"
                       r"|more than \d+ (?:hours?|days?|weeks?)|last (?:week|month|year|night)|yesterday"), PAST, BWD, CLAUSE),
    Trigger(_EN.format(r"previously|originally|previous|prior|earlier|already existing|existing"), PAST, FWD, CLAUSE, max_gap=40),
    Trigger(rf"(?<![A-Za-z])on (?:\d{{4}}-\d{{2}}-\d{{2}}|{_MONTH})", PAST, BWD, CLAUSE, max_gap=1),
    Trigger(r"之前|此前|以前|先前|早些时候|昨天|上周|天前|小时前", PAST, BWD, CLAUSE),
    Trigger(r"曾经|曾|此前|之前|以前|先前|原先|原来", PAST, FWD, CLAUSE, max_gap=6),
    Trigger(_EN.format(r"typically|usually|generally|normally|in general|as a rule|often|tends? to|always|ordinarily"),
            GENERAL, FWD, SENTENCE),
    Trigger(_EN.format(r"typically|usually|generally|normally|in general|as a rule|ordinarily"), GENERAL, BWD, CLAUSE),
    Trigger(r"通常|一般来说|一般|往往|通常情况下", GENERAL, FWD, SENTENCE),
    # --- questions
    Trigger(r"吗|了没有|有没有|是不是|没有\?", Q, BWD, SENTENCE),
    Trigger(_EN.format(r"has it|was it|is it|did it|did you|have you|do you|should I|shall I"), Q),
)

PSEUDO = re.compile(
    _EN.format(r"no errors?|no issues?|no problems?|not a single error|without (?:a hitch|errors?|issues?|problems?)"
               r"|no doubt|not only|no retry|no retries|no warnings?|error-free|if you (?:check|look|open|visit)"
               r"|you(?:'ll| will) (?:see|find|notice)|as you asked|as requested"
               r"|(?:once|after|when|as soon as)\s+(?:\w+\s+){0,3}?(?:passed|succeeded|finished|completed|returned)")
    + r"|zero (?:errors?|issues?|problems?)|not surprisingly|needless to say|no sooner|in no time"
    r"|without any (?:changes?|edits?|modifications?|problems?|trouble|issues?)"
    # a clause of time whose main clause is past asserts it: "once it was live, I sent the link"
    r"|(?:once|after|when|as soon as|right after|now that)(?=[^.!?\n]{0,80}?(?<![A-Za-z])(?:I|we)\s+(?:\w+ed|went|wrote|sent"
    r"|made|did|got|ran|saw|put|set|took|told|gave|found|left|read)(?![A-Za-z]))"
    r"|没有报错|没有错误|没有问题|没有异常|无报错|无错误|无异常|无误|不出所料|不错|不仅|不久|无论如何|毫无问题"
    r"|没想到|未经(?:修改|改动|审核|编辑|处理|任何)|不到(?=\s*[\d一二三四五六七八九十几半])|毫不|不知不觉|不一会"
    r"|通过后|完成后(?=[,，]?已)|(?<=[已])将|(?<=[已经])将|把",
    re.IGNORECASE,
)
TERMINATORS = re.compile(
    _EN.format(r"but|however|yet|although|though|whereas|while|except|so|because|since|and then|instead|then|still"
               r"|despite|nevertheless|anyway")
    + r"|,\s*(?=(?:it|I|we|the|this|that|they|he|she|you|there|which)\b)"
    + r"|但是|但|不过|然而|可是|却|而是|所以|因此|于是|然后|随后|接着|虽然|尽管|最后|最终|结果",
    re.IGNORECASE,
)

_OBJECT_MARKER = re.compile(r"把|将|被|任何|对")

# One regex for every trigger (a match's group names its trigger): one scan of the text, not one per trigger.
# Matches do not overlap; where two triggers start at one place the one listed first wins.
_ALL = re.compile("|".join(f"(?P<g{i}>{t.pattern})" for i, t in enumerate(TRIGGERS)), re.IGNORECASE)


@dataclass(frozen=True)
class Found:
    trigger: Trigger
    start: int
    end: int


class Context:
    """The triggers, pseudo-triggers and terminators of a whole text, by sentence; offsets are absolute.

    Each lexicon is one regex run once over the text (not once per sentence): the cost is a few dozen
    linear scans whatever the number of sentences.
    """

    def __init__(self, reading: str, sentences: list[Sentence]) -> None:
        self.reading = reading
        self.sentences = sentences
        self._starts = [s.start for s in sentences]
        n = len(sentences)
        pseudo: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for m in PSEUDO.finditer(reading):
            if (i := self.locate(m.start())) is not None:
                pseudo[i].append(m.span())
        self.found: list[list[Found]] = [[] for _ in range(n)]
        for m in _ALL.finditer(reading):
            i = self.locate(m.start())
            if i is not None and m.lastgroup and not any(a <= m.start() < b for a, b in pseudo[i]):
                self.found[i].append(Found(TRIGGERS[int(m.lastgroup[1:])], m.start(), m.end()))
        self.terminators: list[list[int]] = [[] for _ in range(n)]
        for m in TERMINATORS.finditer(reading):
            if (i := self.locate(m.start())) is not None:
                self.terminators[i].append(m.start())

    def locate(self, offset: int) -> int | None:
        """The index of the sentence holding ``offset``, or None (between sentences)."""
        i = bisect_right(self._starts, offset) - 1
        return i if i >= 0 and offset < self.sentences[i].end else None

    def categories(self, i: int, start: int, end: int) -> set[Category]:
        """What covers the target at [start, end) of sentence ``i``."""
        sentence = self.sentences[i]
        covered: set[Category] = set()
        if sentence.text.rstrip().endswith("?"):
            covered.add(Category.QUESTION)
        for f in self.found[i]:
            t = f.trigger
            if t.direction is Direction.BOTH:  # either side, up to a terminator ("zero errors, but it went live")
                if (f.end <= start < self._scope_end(i, f.end, t.scope)
                        or end <= f.start and self._scope_start(i, f.start, t.scope) <= start):
                    covered.add(t.category)
            elif t.direction is Direction.FORWARD and f.end <= start:
                if start < self._scope_end(i, f.end, t.scope) and (t.max_gap is None or start - f.end <= t.max_gap
                                                                   or self._object_between(f, start)):
                    covered.add(t.category)
            elif t.direction is Direction.BACKWARD and f.start >= end:
                if self._scope_start(i, f.start, t.scope) <= start and (t.max_gap is None or f.start - end <= t.max_gap):
                    covered.add(t.category)
        return covered

    def _object_between(self, f: Found, start: int) -> bool:
        """未/没有 … 把/将/被/任何 + object … verb: the object phrase between a tight negation and its verb."""
        return (f.trigger.category is Category.NEGATED and start - f.end <= 30
                and bool(_OBJECT_MARKER.search(self.reading[f.end:start])))

    def _bounds(self, i: int, scope: Scope) -> list[int]:
        sentence = self.sentences[i]
        bounds = list(self.terminators[i])
        if scope is Scope.CLAUSE:
            bounds += [sentence.start + c for c in sentence.clause_ends]
        return bounds

    def _scope_end(self, i: int, offset: int, scope: Scope) -> int:
        return min((p for p in self._bounds(i, scope) if p >= offset), default=self.sentences[i].end)

    def _scope_start(self, i: int, offset: int, scope: Scope) -> int:
        return max((p for p in self._bounds(i, scope) if p < offset), default=self.sentences[i].start)
