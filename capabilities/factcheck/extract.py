"""Reading checkable facts out of a text (the kinds and rules: capabilities.factcheck's docstring).

    extract_facts(text, source=False) -> list[Fact]     each span taken once, in the order of the kinds

Here: URLs, identifiers, money, ranges, percentages, quotations and titles, versions and numbers; dates and times
are in capabilities.factcheck.dates, names in capabilities.factcheck.names, what they share in .reading.
"""

from __future__ import annotations

import re
from decimal import Decimal

from capabilities.factcheck.dates import scan_dates, scan_times
from capabilities.factcheck.names import scan_names, scan_zh_names
from capabilities.factcheck.reading import BLANK, SCALES, UNITS, ZH_DIGITS, ZH_NUM, Scan, normalise, words, zh_number
from capabilities.factcheck.types import Fact, FactKind

_BARE_NUM = r"(\d{1,3}(?:,\d{3})+|\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?![\d,]|\.\d)|\d+)(?:\.(\d+))?(?![\d])"
_NUM = r"(?<![A-Za-z0-9_.,\-/])" + _BARE_NUM  # a CJK character may touch a number: 安装了1200台
ZH_COUNTED = ("条", "台", "块", "件", "名", "位", "人", "次", "家", "座", "辆", "天", "年", "个月", "周", "小时", "分钟",
              "秒", "本", "册", "张", "项", "遍", "个字符", "个字节", "字符", "字节", "所", "架", "艘", "套", "款", "倍", "万", "亿", "千", "百", "十")
# what 个 counts when it counts the article's own parts (三个方面, 两个原因): structure, like "three reasons"
ZH_PARTS = "|".join("""方面 原因 问题 步骤 部分 阶段 特点 要点 建议 层面 角度 因素 环节 维度 重点 目标 方向 领域 原则 理由 优点 缺点
好处 教训 启示 关键 途径 办法 方法 类型 种类 层次 场景 例子 案例 选择 结论 想法 观点 主题 章节 小节""".split())
_UNIT_RE = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
MONEY_SUFFIXES = {"k": 1000, "m": 10**6, "bn": 10**9, "b": 10**9}
CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "cny", "￥": "cny"}
CURRENCY_WORDS = {"dollars": "usd", "dollar": "usd", "usd": "usd", "euros": "eur", "euro": "eur", "eur": "eur",
                  "pounds": "gbp", "gbp": "gbp", "yuan": "cny", "rmb": "cny", "元": "cny", "美元": "usd", "欧元": "eur"}
NUMBER_WORDS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                            "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                            "sixteen", "seventeen", "eighteen", "nineteen"))}
NUMBER_WORDS.update({w: 10 * i for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                                      "eighty", "ninety"), 2)})
WORD_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_NUMBER_WORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
# "three hundred", "twenty-six", "forty thousand", "one hundred and five": words, scales, hyphens, "and" inside
# ("and" only after a scale: "between two and ten minutes" is a range, not 12)
_AFTER_SCALE = "(?:(?<=hundred)|(?<=thousand)|(?<=million)|(?<=billion))"
_WORDS_NUM = (rf"\b(?:{_NUMBER_WORD})(?:(?:-|\s+|{_AFTER_SCALE}\s+and\s+)"
              rf"(?:{_NUMBER_WORD}|hundred|thousand|million|billion)){{0,6}}\b")
# what only counts the article's own parts: "three reasons", "five key steps" (not facts about the world)
STRUCTURE_NOUNS = re.compile(
    r"\s+(?:(?:key|main|simple|important|common|big|major|basic|core|practical|quick|essential|different|other|"
    r"new|useful|good|great|critical|crucial|best)\s+)?(?:reasons?|ways?|points?|steps?|things?|tips?|questions?|"
    r"ideas?|examples?|parts?|lessons?|rules?|kinds?|types?|stages?|phases?|options?|factors?|areas?|principles?|"
    r"pillars?|benefits?|takeaways?|sections?|categories|components?|layers?|checks?|problems?|challenges?|"
    r"strategies|practices?|aspects?|features?|elements?|approaches|methods?|goals?|advantages?|of\s+(?:them|these|"
    r"those|us|the))\b", re.I)
QUOTES = (("\u201c", "\u201d"), ('"', '"'), ("\u300c", "\u300d"), ("\u300e", "\u300f"), ("\u2018", "\u2019"))


def _key(value: Decimal) -> str:
    """A value as its lookup key: 1200, 3500000, 0.5 (never 1.2E+3)."""
    text = format(value.normalize(), "f") if value else "0"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _decimal(whole: str, fraction: str | None, scale: int = 1) -> Decimal:
    return Decimal(re.sub(r"[,\s\u00a0\u2009\u202f]", "", whole) + (f".{fraction}" if fraction else "")) * scale


def words_value(phrase: str) -> Decimal:
    """An English number in words as a value: twenty-six = 26, three hundred = 300, forty thousand = 40000."""
    total, current = 0, 0
    for word in re.findall(r"[a-z]+", phrase.lower()):
        if word in NUMBER_WORDS:
            current += NUMBER_WORDS[word]
        elif word == "hundred":
            current = (current or 1) * 100
        elif word in WORD_SCALES:
            total += (current or 1) * WORD_SCALES[word]
            current = 0
    return Decimal(total + current)


ENUMERATORS = re.compile(r"\b(Fact|Step|Part|Section|Chapter|Tip|Point|Rule|Lesson|Reason|Option|Phase|Stage|Item|"
                         r"Lesson|Question|Example|Figure|Table)\s+(\d{1,2})\b(?!\.\d)|第\s*\d{1,2}\s*(?=[步部分点条个])|"
                         r"(?:^|(?<=\n))[#>*\-\s]*第\s*\d{1,2}\s*(?=[章节]\s*[：:])", re.M)
# a manual page's section after its name, groupadd(8), ioctl(2), is part of the name, not a number
MAN_SECTION = re.compile(r"(?<=[A-Za-z0-9_])\(\d[a-z]{0,4}\)")


def _clean(markdown: str) -> str:
    """Marks that are not facts: citation markers [1], emphasis, list and heading marks, and the numbers that
    only count the article's own parts ("Fact 2:", "Step 3", 第2步)."""
    # a citation marker, or one the token limit cut off at the end of the text ("... in the pull requests [1")
    text = re.sub(r"\[(\d{1,2})(?:\](?!\()|\s*\Z)", " ", markdown)
    text = ENUMERATORS.sub(lambda m: (m.group(1) or "第") + " " * (m.end() - m.start() - len(m.group(1) or "第")), text)
    text = MAN_SECTION.sub(lambda m: " " * len(m.group()), text)
    # a heading's own number counts the article's sections ("### 2. Timeouts", "## 3) Costs"), as a list's does
    text = re.sub(r"^\s{0,3}(?:#{1,6}\s+(?:\d{1,3}[.)](?:\s+|$))?|[-*+>]\s+|\d{1,3}[.)]\s+)", "\n", text, flags=re.M)
    text = re.sub(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`", "", text)
    return re.sub(r"\[([^\]]*)\]\((https?://[^)\s]+)\)", r"\1 \2", text)


# an http(s) address, here and where a source's words are read without theirs (capabilities.factcheck): it stops at
# a space, <>, (), quotes, a backtick (a source's code span; an article's are cleaned away first) and CJK or
# full-width punctuation, and never ends in punctuation or "]" (a reST or Markdown bracket around it:
# "[http://www.boost.org/...#naming]")
ADDRESS = re.compile(r"https?://[^\s<>()\"'`\u3000-\u303f\uff00-\uffef]*[^\s<>()\"'`.,;:!?\]\u3000-\u303f\uff00-\uffef]")


def _scan_urls(scan: Scan) -> None:
    for m in ADDRESS.finditer(scan.masked):
        scan.take(m, FactKind.url, normalise(m.group()).split("://", 1)[1].rstrip("/"))


# an address taken inside a quotation (quotations are read after addresses) stays in its text as Scan.take's blanks
_TAKEN_ADDRESS = re.compile(rf"{re.escape(BLANK)}{{10,}}")


def around_taken_addresses(quoted: str) -> list[str]:
    """A quotation's text in the parts around its runs of 10 or more blanks, where addresses were taken out of it."""
    return [part.strip() for part in _TAKEN_ADDRESS.split(quoted)]


# an advisory's identifier is one fact, not a year and a number: CVE-2023-27534, DSA-5123-1, GHSA-...; also in a
# patch's file name, 0005-CVE-2021-3520.patch (heldout11), but not as the tail of a longer capitalised code (AB-CVE-...)
_IDENTIFIER = re.compile(r"(?<![\w])(?<![A-Z]-)[A-Z]{2,5}-\d{4}-\d{3,7}(?:-\d{1,3})?(?![\w])")


def _scan_identifiers(scan: Scan) -> None:
    """Found as the same run of words in a source (fix-CVE-2023-27534-regression.patch holds CVE-2023-27534)."""
    for m in _IDENTIFIER.finditer(scan.masked):
        scan.take(m, FactKind.name, " ".join(words(m.group())))


def _scan_money(scan: Scan) -> None:
    scale_words = r"(?:\s*(thousand|million|billion|trillion|万|亿))?"
    signs = "".join(re.escape(s) for s in CURRENCY_SIGNS)
    for m in re.finditer(rf"([{signs}])\s?{_BARE_NUM}(?:{scale_words[3:-2]}|(k|m|bn|b)(?![A-Za-z]))?", scan.masked,
                         flags=re.I):  # $1.2 million, $310K, €14m, $1.9bn
        factor = SCALES.get((m.group(4) or "").lower()) or MONEY_SUFFIXES.get((m.group(5) or "").lower(), 1)
        value = _decimal(m.group(2), m.group(3), factor)
        scan.take(m, FactKind.money, f"{CURRENCY_SIGNS[m.group(1)]}:{_key(value)}")
    words_re = "|".join(sorted(CURRENCY_WORDS, key=len, reverse=True))
    for m in re.finditer(rf"{_NUM}{scale_words}\s?({words_re})(?![a-z])", scan.masked, flags=re.I):
        value = _decimal(m.group(1), m.group(2), SCALES.get((m.group(3) or "").lower(), 1))
        scan.take(m, FactKind.money, f"{CURRENCY_WORDS[m.group(4).lower()]}:{_key(value)}")
    # 三十元, 一千四百万欧元; not the 元 of a word, 二元比较 (binary), 一元运算 (unary): heldout13
    for m in re.finditer(rf"(?<!第)({ZH_NUM})(美元|欧元|元(?![\u4e00-\u9fff])|元(?=[的钱]))", scan.masked):
        if (value := zh_number(m.group(1))) is not None:
            scan.take(m, FactKind.money, f"{CURRENCY_WORDS[m.group(2)]}:{_key(value)}")


_RANGE = re.compile(r"(?<![A-Za-z0-9_.,\-/])(?P<a>\d+(?:\.\d+)?)\s?(?:[-–—~～到至]|\s(?:to|and)\s)\s?(?P<b>\d+(?:\.\d+)?)"
                    rf"\s?(?P<u>%|％|percent\b|per cent\b|(?:{_UNIT_RE})(?![a-z]))", re.I)
# a range in words: "every five to ten minutes", "between two and ten minutes" (heldout11): both ends take the unit,
# so a lone "two" opening it is checked as two minutes
_WORDS_RANGE = re.compile(rf"(?P<a>{_WORDS_NUM})(?:\s+to|(?<!hundred)(?<!thousand)(?<!million)(?<!billion)\s+and)\s+(?P<b>{_WORDS_NUM})[\s-]?(?P<u>(?:{_UNIT_RE})(?![a-z]))",
                          re.I)


def _scan_ranges(scan: Scan) -> None:
    """A range gives its unit to both ends: 60-70% is 60% and 70%, 25-30分钟 is 25 and 30 minutes."""
    for m in list(_RANGE.finditer(scan.masked)):
        unit = m.group("u").lower()
        for end in ("a", "b"):
            key = _key(Decimal(m.group(end)))
            if UNITS.get(unit) == "percent":
                scan.take(m, FactKind.percent, key, group=end)
            else:
                scan.take(m, FactKind.number, key, UNITS.get(unit), group=end)
        start, stop = m.span("u")
        scan.blank(start, stop)  # MB is no name either
    for m in list(_WORDS_RANGE.finditer(scan.masked)):
        unit = UNITS.get(m.group("u").lower())
        if unit == "percent":
            continue  # "five to ten percent" is read as two percentages already
        for end in ("a", "b"):
            scan.take(m, FactKind.number, _key(words_value(m.group(end))), unit, group=end)
        scan.blank(*m.span("u"))


def _scan_percent(scan: Scan) -> None:
    for m in re.finditer(rf"{_NUM}\s?(%|％|percent\b|per cent\b)", scan.masked, flags=re.I):
        scan.take(m, FactKind.percent, _key(_decimal(m.group(1), m.group(2))))
    for m in re.finditer(rf"({_WORDS_NUM})(?:\s+|-)(?:percent|per\s+cent)\b", scan.masked, flags=re.I):
        scan.take(m, FactKind.percent, _key(words_value(m.group(1))))  # twelve percent
    # 百分之零点二 is 0.2 %, not 0 % and a 二
    for m in re.finditer(rf"百分之({ZH_NUM}(?:点[零〇一二三四五六七八九]+)?|\d+(?:\.\d+)?)", scan.masked):
        whole, _, fraction = m.group(1).partition("点")
        value = zh_number(whole) if not whole[0].isdigit() else Decimal(m.group(1))
        if value is not None and fraction:
            value += Decimal("0." + "".join(str(zh_number(ch)) for ch in fraction))
        if value is not None:
            scan.take(m, FactKind.percent, _key(value))


PERIODS = {"year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour",
           "年": "year", "月": "month", "周": "week", "天": "day", "日": "day", "小时": "hour"}
# "a year", "per week", and a slash for per (round 13: "300M downloads / week", "5 GB/day")
_RATE_EN = re.compile(r"(?:\s+[A-Za-z-]+){0,2}?(?:\s+(?:a|an|per|each|every)\s+|\s*/\s*)(year|month|week|day|hour)\b", re.I)
_RATE_ZH = re.compile(r"每(年|月|周|天|日|小时)[^\d，。,.]{0,3}$")


def _rate(text: str, start: int, end: int) -> str | None:
    """The period of a rate around a number: "250,000 items a year", "每年外借25万件" -> year."""
    if hit := _RATE_EN.match(text, end, min(len(text), end + 40)):
        return PERIODS[hit.group(1).lower()]
    if hit := _RATE_ZH.search(text[max(0, start - 6):start]):
        return PERIODS[hit.group(1)]
    return None


# a version: three or more parts anywhere (2.5.3), or two glued to a word or a v (coreutils-6.7, v5.15)
_VERSION = re.compile(r"(?:(?<![\w.,/-])(?=\d+\.\d+\.\d)|(?<=[A-Za-z]-)|(?<=(?<![\w])[vV]))(\d+(?:\.\d+){1,3})(?![\w]|\.\d)")
# a source names release notes by their files: RelNotes/2.39.3.txt is version 2.39.3
_SOURCE_VERSION = re.compile(r"(?:(?<![\w.,-])(?=\d+\.\d+\.\d)|(?<=[A-Za-z]-)|(?<=(?<![\w])[vV]))(\d+(?:\.\d+){1,3})(?![\w]|\.\d)")


def _scan_versions(scan: Scan, source: bool) -> None:
    """Versions: 2.5.3 is one fact, kept as written (a changed 2.5.1 is caught); a two-part one glued to a word
    (coreutils-6.7, v5.15) is the number 6.7, as it would be standing alone."""
    for m in (_SOURCE_VERSION if source else _VERSION).finditer(scan.masked):
        version = m.group(1)
        key = version if version.count(".") > 1 else _key(Decimal(version))
        scan.take(m, FactKind.number, key, group=1)


def _scan_numbers(scan: Scan, number_words: bool) -> None:
    scale = r"(?:\s*(thousand|million|billion|trillion)\b|\s?(万|亿))?"
    unit = rf"(?:\s?-?\s?({_UNIT_RE})(?![a-z]))?"
    # 1-125, 00..59, "1999-2016, 2018"; in a source also the second of two numbers "32/64-bit" gives
    after = r"(?:(?<=\d[-–~～/])|(?<=\d\.\.))" if number_words else r"(?:(?<=\d[-–~～])|(?<=\d\.\.))"
    for m in re.finditer(after + r"(\d+(?:\.\d+)?)(?!\w|[.,-]\d)", scan.masked):
        scan.take(m, FactKind.number, _key(Decimal(m.group(1))))
    for m in re.finditer(rf"{_NUM}{scale}{unit}(?![A-Za-z]|\.\d)", scan.masked, flags=re.I):  # not 5xx, not 0.5B
        factor = SCALES.get((m.group(3) or m.group(4) or "").lower(), 1)
        value = _decimal(m.group(1), m.group(2), factor)
        unit_name = UNITS.get((m.group(5) or "").lower()) if m.group(5) else None
        plain = not m.group(2) and factor == 1 and (unit_name is None or m.group(5) == "年")
        if plain and 1800 <= value <= 2100 and len(m.group(1)) == 4:  # 2024, 2024年
            scan.take(m, FactKind.year, _key(value))
        else:
            rate = _rate(scan.masked, m.start(), m.end())
            scan.take(m, FactKind.number, _key(value), f"{unit_name or ''}/{rate}" if rate else unit_name)
        if number_words and re.search(r"\d\s\d", m.group(1)):  # a source's "status 255 125 if": 255 and 125 too
            sentence = scan.facts[-1].sentence
            scan.facts += [Fact(FactKind.number, part, _key(Decimal(part)), sentence) for part in m.group(1).split()]
    zh_unit = "|".join(sorted((re.escape(u) for u in UNITS if re.match(r"[\u4e00-\u9fff]", u)), key=len, reverse=True))
    pattern = rf"({ZH_NUM})({zh_unit})?" if number_words else rf"([{ZH_DIGITS}]*[十百千万亿][{ZH_DIGITS}]*)({zh_unit})?"
    pattern += rf"(?![{ZH_DIGITS}]*进制)"  # 十六进制 is hexadecimal, not 16
    for m in re.finditer(pattern, scan.masked):
        if not number_words and (len(m.group(1)) == 1 or m.group(1)[0] in "万亿"):
            continue  # a lone 千, 万, 十 in an article is a word: 千字节 (kilobyte), 万一 (in case), 十分 (very)
        value = zh_number(m.group(1))
        if value is not None:
            scan.take(m, FactKind.number, _key(value), UNITS.get(m.group(2) or ""))
    if not number_words:  # an article: a lone 二..九 is a number only with a counter (两条, 三台; not 三个方面, 第三)
        counters = "|".join(sorted((re.escape(u) for u in ZH_COUNTED), key=len, reverse=True))
        # 个, the counter of anything, only from three on: 两个 is as common as "two", which is not checked either
        # 八位组 / 八位元 / 八位字节 is an octet, a term, not eight of anything
        for m in re.finditer(rf"(?<![第{ZH_DIGITS}])(?:([二两三四五六七八九])({counters})(?!(?<=八位)(?:组|元|字节))|"
                             rf"([三四五六七八九])(个)(?!\s*(?:{ZH_PARTS})))", scan.masked):
            digit, counter = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if _counts_the_headings_after(scan, m, zh_number(digit) or Decimal(0)):
                continue  # 介绍了两项功能。 followed by its two headings: the article's own structure
            if re.search(r"(?:这|那|上述|以上|前述)\s*$", scan.masked[max(0, m.start() - 2):m.start()]):
                continue  # 这两项都由...完成: "these two" points back at what the article has just listed
            scan.take(m, FactKind.number, _key(zh_number(digit) or Decimal(0)), UNITS.get(counter))
        # a lone 二..九 given as a value, after 为 or 是 and ending its clause: 默认值为五，(heldout10, heldout11)
        # and a count from which numbering starts, 从二开始编号 (heldout12; not 从一开始, "from the very start")
        for m in re.finditer(r"(?<=[为是])([二三四五六七八九])(?=\s*(?:[。，；、！？）)\n,;.]|$))|"
                             r"(?<=从)([二三四五六七八九])(?=开始|起)", scan.masked):
            scan.take(m, FactKind.number, _key(zh_number(m.group(1) or m.group(2)) or Decimal(0)))
    for m in re.finditer(rf"({_WORDS_NUM})(?:\s?-?({_UNIT_RE})(?![a-z]))?", scan.masked, flags=re.I):
        value = words_value(m.group(1))
        compound = len(re.findall(r"[a-z]+", m.group(1).lower())) > 1
        if not number_words and ((value < 3 and not compound) or STRUCTURE_NOUNS.match(scan.masked, m.end(1))
                                 or _counts_the_list_after(scan.text, m.end(1), value)):
            continue  # an article's "one of", "two cities", "three reasons" are not checked
        unit_name = UNITS.get((m.group(2) or "").lower()) if m.group(2) else None
        rate = _rate(scan.masked, m.start(), m.end())
        scan.take(m, FactKind.number, _key(value), f"{unit_name or ''}/{rate}" if rate else unit_name)


_HEADING = re.compile(r"(#{1,6})[ \t]+\S.*|\*\*[^*\n]+\*\*[ \t]*")


def _counts_the_headings_after(scan: Scan, m: re.Match[str], value: Decimal) -> bool:
    """"介绍了两项功能。" (or "covers two changes.") ending the paragraph that the article's own headings follow, as
    many as it says, counts the article's sections: its structure, not a fact. The headings counted are those of the
    first one's level, up to one of a higher level; another count than theirs is still checked."""
    text, after = scan.markdown, scan.text[m.start():m.end() + 12]
    at = text.find(after) if after in text else text.find(m.group(0))
    end = text.find("\n\n", at)
    if at < 0 or end < 0:
        return False
    lines = [line.strip() for line in text[end:].splitlines() if line.strip()]
    first = _HEADING.fullmatch(lines[0]) if lines else None
    if not first:
        return False
    level, count = first.group(1), 0
    for line in lines:
        if heading := _HEADING.fullmatch(line):
            if heading.group(1) == level:
                count += 1
            elif level and heading.group(1) and len(heading.group(1)) < len(level):
                break
    return count == value


def _counts_the_list_after(text: str, at: int, value: Decimal) -> bool:
    """"six HTTP codes: 408, 429, 500, 502, 503 and 504" counts the list that follows; it is the article's structure.
    A count the list contradicts ("five codes: 408, 429, 500, 502, 503 and 504") is still a fact and is checked."""
    hit = re.match(r"[^.:;!?\n]{0,40}?:\s*([^.;!?\n]+)", text[at:at + 400])
    if not hit:
        return False
    listed = hit.group(1).strip()
    # a list with commas is split at its commas, and its last item at its last "and" unless a comma opens that
    # "and" (the Oxford comma): "a cache and branch-prediction profiler, and a heap profiler" ends in two items
    if "," in listed:
        items = re.split(r",\s*(?:and\s+|or\s+)?", listed)
        if not re.search(r",\s*(?:and|or)\s", listed):
            items[-1:] = re.split(r"\s+(?:and|or)\s+(?!.*\s(?:and|or)\s)", items[-1])
    else:
        items = re.split(r"\s+(?:and|or)\s+", listed)
    return len([i for i in items if i.strip()]) == value


# a quotation cut short ("we will ... go back", "it […] was fixed") or with the writer's words in brackets ("it [the
# bug] was fixed"): each part must be in the source, in that order
_ELISION = re.compile(r"\s*(?:\.\.\.|…|\[[^\]]*\])\s*")
QUOTE_PARTS = " | "  # between the parts of a key; never a word


def _quote_key(quoted: str) -> str:
    parts = [" ".join(words(part)) for part in _ELISION.split(quoted)]
    return QUOTE_PARTS.join(part for part in parts if part)


_ATTRIBUTED = re.compile(r"\b(?:called|calls|dubbed|termed|branded|described\s+(?:it\s+|them\s+)?as|labell?ed\s+(?:it\s+)?as)"
                         r"\s*(?:it\s+|them\s+|this\s+)?$", re.I)


def _scan_quotes(scan: Scan) -> None:
    for opening, closing in QUOTES:
        # marks pair in order, a short quotation too: in 'refusing "/", which meant "silently..."' the "/" is one
        # quotation and ', which meant ' none
        for m in re.finditer(rf"{re.escape(opening)}([^{re.escape(opening + closing)}\n]*){re.escape(closing)}",
                             scan.masked):
            if not 2 <= len(m.group(1)) <= 400:
                continue
            quoted = words(m.group(1))
            cjk = sum(1 for w in quoted if re.match(r"[\u3400-\u9fff]", w))
            # “分解时间”, a term of 4 or 5 Chinese characters alone, is no quotation; a sentence or a mix still is
            term = cjk == len(quoted) and cjk < 6 and not re.search(r"[，。！？；、,.!?;]", m.group(1))
            # two words a person is said to have called something ('a fix he called "long overdue"') are a quotation
            # put in someone's mouth, checked as one; two quoted words alone ("replace glut") are a term
            attributed = len(quoted) == 2 and not cjk and _ATTRIBUTED.search(scan.masked, max(0, m.start() - 30), m.start())
            if len(quoted) - cjk >= 3 or (cjk >= 4 and not term) or attributed:
                scan.take(m, FactKind.quote, _quote_key(m.group(1)), group=1)
    for m in re.finditer(r"《([^《》\n]{1,100})》", scan.masked):
        scan.take(m, FactKind.title, " ".join(words(m.group(1))), group=1)


# a decade is one fact, not a count of years: 上世纪九十年代 and the mid-1990s are the decade 1990, 九十年代 without
# its century the decade 90 (found in any century's); 九十年 alone stays ninety years
_DECADE_EN = re.compile(r"(?<![\w.])(?:(?:mid|early|late)-)?((?:1[5-9]|20)\d0)['’]?s\b", re.I)
_DECADE_ZH = re.compile(r"(上世纪|上个世纪|二十世纪|20\s*世纪|十九世纪|19\s*世纪)?\s*(\d0|[一二三四五六七八九]十|\d{3}0|一[八九][〇零一二三四五六七八九]〇)\s*年代")


def _scan_decades(scan: Scan) -> None:
    for m in _DECADE_EN.finditer(scan.masked):
        scan.take(m, FactKind.number, m.group(1), "decade")
    for m in _DECADE_ZH.finditer(scan.masked):
        value = m.group(2) if m.group(2).isdigit() else str(int(zh_number(m.group(2)) or 0))
        if len(value) == 2 and m.group(1):
            value = ("18" if m.group(1).replace(" ", "") in ("十九世纪", "19世纪") else "19") + value
        if value.endswith("0") and len(value) in (2, 4):
            scan.take(m, FactKind.number, value, "decade")


def extract_facts(text: str, *, source: bool = False) -> list[Fact]:
    """The checkable facts of ``text`` in the order of the module docstring's kinds (each span taken once).

    ``source``: the text is evidence, so number words (three = 3) and every Chinese numeral count as numbers too.
    """
    cleaned = _clean(text)
    scan = Scan(cleaned, cleaned, [], text)
    _scan_urls(scan)
    if source:  # limit_to_10_MiB.patch: a source's snake_case file name says "limit to 10 MiB"
        scan.masked = re.sub(r"(?<=[A-Za-z0-9])_(?=[A-Za-z0-9])", " ", scan.masked)
    scan_times(scan, source)
    scan_dates(scan, source)
    _scan_decades(scan)
    _scan_money(scan)
    _scan_ranges(scan)
    _scan_percent(scan)
    unquoted = scan.masked
    _scan_quotes(scan)  # a quotation is matched whole, with the identifiers and numbers inside it
    if source:  # a source's quoted text (a message catalog's "dist=NUM (1-256; 1)") is evidence of its numbers too
        scan.masked = unquoted
    _scan_identifiers(scan)
    _scan_versions(scan, source)
    _scan_numbers(scan, number_words=source)
    scan_zh_names(scan)
    scan_names(scan)
    return scan.facts
