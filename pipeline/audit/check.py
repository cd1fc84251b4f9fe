"""The audit of one transcript: what the assistant said it did, against the tool calls that succeeded.

    calls       every tool call, with its outcome: ok (a result that is not an error), error, or none
    claims      every action the assistant's text asserts as done (read by pipeline.guard.claims, the
                guard's reader, with vocabularies from pipeline.guard.vocabulary), the tool it refers to,
                and whether a successful call of that tool (or of its family) came at or before the
                message; a claim that names a resource id (a value some call took or returned, such as a
                reservation code) is backed only by a successful call whose arguments or result hold it
    ungrounded  ids, URLs and numbers in a claim's sentence that no call's arguments or successful result hold
    prose_calls tool calls written as text (pipeline.guard.prose_calls)

A tool message that is an error backs nothing: its call is ``error``.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline.audit.transcripts import Transcript
from pipeline.guard.artifacts import URL, url_key
from pipeline.guard.claims import ClaimRules, find_claims, vocabulary_rules
from pipeline.guard.prose_calls import prose_calls
from pipeline.guard.text import NUMBER_MARK, QUOTE, URL_MARK, mask, normalize, quote_spans, sentences
from pipeline.guard.vocabulary import ToolVocabulary, objects, specific_object, vocabulary


@dataclass(frozen=True)
class Call:
    message: int
    id: str | None
    name: str
    arguments: Any
    outcome: str  # ok | error | none (no result in the transcript)
    result: str = ""


@dataclass(frozen=True)
class Claim:
    message: int
    tool: str
    span: str
    sentence: str
    backed: bool
    why: str  # what backs it, or why nothing does
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ungrounded:
    message: int
    kind: str  # id | url | number
    text: str


@dataclass(frozen=True)
class ProseCall:
    message: int
    tool: str


@dataclass(frozen=True)
class Audit:
    source: str
    calls: tuple[Call, ...]
    claims: tuple[Claim, ...]
    ungrounded: tuple[Ungrounded, ...]
    prose_calls: tuple[ProseCall, ...]

    @property
    def unbacked(self) -> bool:
        return any(not c.backed for c in self.claims) or bool(self.ungrounded) or bool(self.prose_calls)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "unbacked": self.unbacked, **{k: v for k, v in asdict(self).items() if k != "source"}}


# an identifier: letters and digits (and _), with at least one digit and one letter: ZFA04Y, HAT136, mia_li_3668
ID = re.compile(r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[A-Za-z])[A-Za-z0-9_]{5,40}(?![A-Za-z0-9_\-])")
CODE = re.compile(r"(?<![A-Za-z0-9_\-])[A-Z0-9]{6}(?![A-Za-z0-9_\-])")  # an all-capital code, if some call holds it
NUMBER = re.compile(r"(?<![\w.,:/\-])\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w:/\-]|\.\d|,\d{3})")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}(?::\d{2})?|\d{1,2}/\d{1,2}(?:/\d{2,4})?")
_LIST_LINE = re.compile(r"[ \t]*(?:[-*+•]|\d+[.)])[^\n]*")


def _strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
        if node[:1] in "[{":
            try:
                yield from _strings(json.loads(node))
            except ValueError:
                pass
    elif isinstance(node, Mapping):
        for key, value in node.items():
            yield from _strings(key)
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        yield str(node)


@dataclass
class _Holdings:
    """What a call (or all calls) hold: identifiers, URL keys, numbers."""

    ids: set[str] = field(default_factory=set)
    urls: set[str] = field(default_factory=set)
    numbers: set[float] = field(default_factory=set)

    def add(self, node: Any) -> None:
        for text in _strings(node):
            self.ids.update(m.group() for m in ID.finditer(text))
            self.ids.update(m.group() for m in CODE.finditer(text))
            self.urls.update(url_key(m.group().rstrip(".:?_~-")) for m in URL.finditer(text))
            self.numbers.update(float(n) for n in re.findall(r"\d+(?:\.\d+)?", text))

    def update(self, other: _Holdings) -> None:
        self.ids |= other.ids
        self.urls |= other.urls
        self.numbers |= other.numbers


def calls_of(transcript: Transcript) -> list[Call]:
    """The tool calls in order, each with the outcome of the tool message answering it (by id, else in order)."""
    pending: list[tuple[int, Any]] = []
    found: list[dict[str, Any]] = []
    for i, m in enumerate(transcript.messages):
        for call in m.tool_calls:
            found.append({"message": i, "id": call.id, "name": call.name, "arguments": call.arguments,
                          "outcome": "none", "result": ""})
            pending.append((len(found) - 1, call.id))
        if m.role == "tool" and pending:
            at = next((p for p, (_, cid) in enumerate(pending) if m.tool_call_id and cid == m.tool_call_id), 0)
            index, _ = pending.pop(at)
            found[index].update(outcome="error" if m.error else "ok", result=m.content)
    return [Call(**c) for c in found]


def _keyed(node: Any, key: str = "") -> Iterable[tuple[str, str]]:
    """(key, value) of every string or number leaf, under the nearest key."""
    if isinstance(node, Mapping):
        for k, v in node.items():
            yield from _keyed(v, str(k))
    elif isinstance(node, list):
        for item in node:
            yield from _keyed(item, key)
    elif isinstance(node, (str, int)) and not isinstance(node, bool):
        yield key, str(node)


def _sentence_of(text: str, reading: str, offset: int) -> tuple[int, int]:
    """The [start, end) of the sentence holding ``offset``, with the list that follows it when it ends with a colon."""
    spans = sentences(reading)
    starts = [s.start for s in spans]
    i = bisect_right(starts, offset) - 1
    if i < 0:
        return 0, 0
    start, end = spans[i].start, spans[i].end
    if text[start:end].rstrip().endswith(":"):
        while (m := _LIST_LINE.match(text, end + (text[end:end + 1] == "\n"))) and m.group().strip():
            end = m.end()
    return start, end


def _numbers(sentence: str) -> list[str]:
    sentence = _DATE_TIME.sub(" ", ID.sub(" ", sentence))
    found = []
    for m in NUMBER.finditer(sentence):
        digits = m.group(1).replace(",", "")
        if len(digits.lstrip("0")) >= 2:
            found.append(m.group())
    return found


def _number(text: str) -> float:
    return float(text.lstrip("$").replace(",", ""))


class Auditor:
    """Audits transcripts against a set of tools: vocabularies derived (and a catalog file's), built once per tool set."""

    def __init__(self, catalog: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.catalog = dict(catalog or {})
        self._rules: dict[frozenset[tuple[str, str]], tuple[ToolVocabulary, ClaimRules]] = {}
        self.seen: dict[str, str] = {name: str(entry.get("description", "")) for name, entry in self.catalog.items()}
        self._own: tuple[ToolVocabulary, ClaimRules] | None = None

    @classmethod
    def factline(cls) -> Auditor:
        """The auditor of factline's own runs: its capabilities' declared vocabularies, read as the guard reads them."""
        from capabilities import CATALOG
        from pipeline.guard.claims import CLAIM_RULES

        auditor = cls()
        auditor._own = (ToolVocabulary({n: c.claims for n, c in CATALOG.items()},
                                       {n: frozenset({n}) for n in CATALOG}), CLAIM_RULES)
        return auditor

    def _reader(self, tools: dict[str, str]) -> tuple[ToolVocabulary, ClaimRules]:
        key = frozenset(tools.items())
        if key not in self._rules:
            words = {n: {k: v for k, v in e.items() if k != "description"} for n, e in self.catalog.items()}
            vocab = vocabulary(tools.items(), words)
            self._rules[key] = (vocab, vocabulary_rules(vocab.claims, pipeline=False))
        return self._rules[key]

    def know(self, names: Iterable[str]) -> None:
        """Tools to read claims of even where a transcript does not call them (a file's first pass, a catalog)."""
        for name in names:
            self.seen.setdefault(name, "")

    def audit(self, transcript: Transcript) -> Audit:
        calls = calls_of(transcript)
        for name, description in transcript.tools:
            self.seen.setdefault(name, description)
        for call in calls:
            self.seen.setdefault(call.name, "")
        vocab, rules = self._own or self._reader(dict(self.seen))
        return audit(transcript, calls, vocab, rules)


def audit(transcript: Transcript, calls: list[Call], vocab: ToolVocabulary, rules: ClaimRules) -> Audit:
    everything = _Holdings()
    # a claim's resource ids: values some call took under a key naming the tool's object (reservation_id for
    # cancel_reservation, flight_number for update_reservation_flights)
    keyed = {(k.lower(), v) for call in calls for k, v in _keyed(call.arguments)}
    per_call: list[_Holdings] = []
    for call in calls:
        held = _Holdings()
        held.add(call.arguments)
        if call.outcome == "ok":
            held.add(call.result)
        per_call.append(held)
        everything.update(held)
    names = {c.name for c in calls} | set(rules.capabilities)
    claims: list[Claim] = []
    ungrounded: dict[tuple[int, str, str], Ungrounded] = {}
    prose: list[ProseCall] = []
    for i, m in enumerate(transcript.messages):
        if m.role != "assistant" or not m.content.strip():
            continue
        text = normalize(m.content)
        prose += [ProseCall(i, name) for name in prose_calls(text, names)]
        urls = [(u.start(), u.end()) for u in URL.finditer(text)]
        reading = mask(text, urls, URL_MARK)
        reading = mask(reading, [s for s in quote_spans(reading)
                                 if reading[s[0] + 1:s[1] - 1].strip(URL_MARK + NUMBER_MARK + " ")], QUOTE)
        found_here = find_claims(reading, rules)
        for found in found_here:
            start, end = _sentence_of(text, reading, found.start)
            # the ids a claim names: from its phrase to the next claim's phrase in the sentence ("the upgrade
            # for XEHM4B has been completed, and reservation 59XX6W has been canceled": XEHM4B is the upgrade's)
            until = min((c.phrase for c in found_here if found.phrase < c.phrase < end and c.phrase > found.start),
                        default=end)
            sentence, named = text[start:end], text[max(start, found.phrase):until]
            # a family's claim that names what sets members apart claims those members: "your reservation has been
            # updated with the new flights and one checked bag" (update_reservation_flights and _baggages)
            family = sorted(vocab.families.get(found.capability, ()))
            own = re.split(r"[:\n]", named, maxsplit=1)[0]  # its own words, not the list of details it introduces
            named_members = [n for n in family if len(family) > 1 and (p := specific_object(n)) and p.search(own)]
            for tool in named_members or [found.capability]:
                resources = {v for k, v in keyed if any(o in k for o in objects(tool))}
                claims.append(_judge(i, tool, found.span, sentence, named, calls, per_call, vocab, resources))
            for artifact in _artifacts(sentence, everything):
                ungrounded.setdefault((i, artifact.kind, artifact.text), Ungrounded(i, artifact.kind, artifact.text))
    return Audit(transcript.source, tuple(calls), tuple(claims), tuple(ungrounded.values()), tuple(prose))


def _judge(i: int, tool: str, span: str, sentence: str, named: str, calls: list[Call], per_call: list[_Holdings],
           vocab: ToolVocabulary, resources: set[str]) -> Claim:
    """``named``: the sentence from the claim on (the ids it names are the ones after its start)."""
    family = vocab.families.get(tool, frozenset({tool}))
    ids = tuple(dict.fromkeys(m.group() for pattern in (ID, CODE) for m in pattern.finditer(named)
                              if m.group() in resources))
    tried = [(c, h) for c, h in zip(calls, per_call) if c.name in family and c.message <= i]
    ok = [(c, h) for c, h in tried if c.outcome == "ok"]
    if not ok:
        why = f"{tried[-1][0].name} failed" if tried and tried[-1][0].outcome == "error" else f"no {tool} call"
        return Claim(i, tool, span, sentence.strip(), False, why, ids)
    if ids:
        missing = [x for x in ids if not any(x in h.ids for _, h in ok)]
        if missing:
            return Claim(i, tool, span, sentence.strip(), False, f"no successful {tool} call on {', '.join(missing)}", ids)
        holding = [c for c, h in ok if any(x in h.ids for x in ids)]
        return Claim(i, tool, span, sentence.strip(), True, f"{holding[-1].name} call {holding[-1].id or ''}".strip(), ids)
    return Claim(i, tool, span, sentence.strip(), True, f"{ok[-1][0].name} call {ok[-1][0].id or ''}".strip(), ids)


def _artifacts(sentence: str, everything: _Holdings) -> list[Ungrounded]:
    found = [Ungrounded(-1, "id", m.group()) for m in ID.finditer(sentence) if m.group() not in everything.ids]
    found += [Ungrounded(-1, "url", u) for m in URL.finditer(sentence)
              if url_key(u := m.group().rstrip(".:?_~-")) not in everything.urls]
    found += [Ungrounded(-1, "number", n) for n in _numbers(sentence) if _number(n) not in everything.numbers]
    return found
