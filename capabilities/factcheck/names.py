"""Proper names: runs of capitalised Latin words, and Chinese personal names the text marks as names."""

from __future__ import annotations

import re

from capabilities.factcheck.reading import MONTHS, STARTERS, UNITS, Scan, sentence_at, words
from capabilities.factcheck.types import Fact, FactKind


# Latin letters, accented ones too: Héctor Orón Martínez is one name, not H, Or and Mart (held-out set)
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff"
_TOKEN = re.compile(rf"(?<![{_LATIN}0-9])[{_LATIN}][{_LATIN}0-9]*(?:[-_.'’][{_LATIN}0-9]+)*")  # not the B of 0.5B


def _capitalised(token: str) -> bool:
    return token[0].isupper() or any(ch.isupper() for ch in token[1:]) or any(ch.isdigit() for ch in token)


def scan_names(scan: Scan) -> None:
    run: list[re.Match[str]] = []
    headings, items = _headings(scan.markdown), _list_items(scan.markdown)

    def flush() -> None:
        while run and (run[0].group().lower() in STARTERS or (len(run) > 1 and run[0].group() in HONORIFICS)
                       or (len(run) > 1 and (_capitalised_by_position(scan, run[0])
                                             or _common_compound_opening(scan, run[0])))):
            run.pop(0)
        if run and not (len(run) == 1 and (_sentence_start(scan.masked, run[0].start())
                                           or _after_quoted_sentence(scan.text, run[0].start())
                                           or _opens_quoted_text(scan.masked, run[0]))
                        and not _speaker(scan.text, run[0])) \
                and not (_title_cased(scan.masked, run[0].start(), _on_line(scan.text, run[0].start(), headings))
                         and not _on_line(scan.text, run[0].start(), items)):
            tokens = [re.sub(r"['’]s$", "", m.group()) for m in run]
            # a lone letter (the C library, plan B) names too little to be checked; in a run it is an initial
            if not (len(tokens) == 1 and (tokens[0].lower() in MONTHS or len(tokens[0]) == 1)):
                start, end = run[0].start(), run[-1].end()
                text = scan.text[start:end]
                scan.blank(start, end)
                first = run[0].group()
                opening = _sentence_start(scan.masked, start) and first[0].isupper() and first[1:].islower()
                scan.facts.append(Fact(FactKind.name, re.sub(r"['’]s$", "", text), " ".join(words(" ".join(tokens))),
                                       sentence_at(scan.text, start), opening=opening))
        run.clear()

    previous_end = None
    for m in _TOKEN.finditer(scan.masked):
        gap = scan.masked[previous_end:m.start()] if previous_end is not None else ""
        if run and (gap.strip() not in ("", "-") or "\n" in gap):
            flush()
        if _OPTION.match(scan.masked[max(0, m.start() - 3):m.start()]):  # -M, --maxdays: an option, not a name
            flush()
            previous_end = m.end()
            continue
        if _capitalised(m.group()) and not _document(m.group()) and not _unit_word(m.group()):
            if run and _lower_identifier(m.group()) != _lower_identifier(run[-1].group()):
                flush()  # "on Fedora re2c, bison": a package's lower-case name is a name of its own (round 13)
            run.append(m)
            if re.search(r"['’]s$", m.group()):
                flush()  # "Debian's Marc Haber": a possessive ends a name
        else:
            flush()
        previous_end = m.end()
    flush()


# a project's own files named in prose ("its NEWS file", "the README", README.Debian): documents, not names; the
# GNU Coding Standards' names and a few more every source tree has
DOCUMENT_NAMES = frozenset("README CHANGELOG ChangeLog CHANGES LICENSE COPYING INSTALL AUTHORS TODO FAQ THANKS "
                           "HACKING CONTRIBUTING NEWS BUGS MAINTAINERS NOTICE SECURITY".split()) | frozenset(
    # and common technical nouns written as acronyms
    "CI CD API APIs CPU CPUs GPU GPUs RAM OS UI CLI URL URLs TTY PDF JSON YAML HTML CSS DNS TCP UDP TLS SSL HTTP HTTPS "
    "IP ID IDs PID SDK IDE".split())


def _document(token: str) -> bool:
    """NEWS, README, and a document named after one: NEWS.Debian, README.python_switch; its possessive too (the
    FAQ's fix)."""
    token = re.sub(r"['’]s$", "", token)
    return token in DOCUMENT_NAMES or token.split(".")[0] in DOCUMENT_NAMES


def _lower_identifier(token: str) -> bool:
    """A lower-case identifier with a digit (re2c, libxml2, x264): a name only by its digit, a package or a program,
    which does not run on into a capitalised word beside it ("on Fedora re2c, bison" names Fedora and re2c)."""
    return token[0].islower() and not any(ch.isupper() for ch in token)


def _unit_word(token: str) -> bool:
    """A unit named on its own ("默认单位是 KiB", "in MB") is no name; one letter (W, T) may be an initial."""
    return len(token) > 1 and token.lower() in UNITS


_OPTION = re.compile(r"(?:^|.?[^\w-])--?$", re.S)
HONORIFICS = frozenset("Dr Mr Mrs Ms Miss Prof Professor Sir Dame Mx".split())
SPEECH = re.compile(r"\s+(?:said|says|told|added|explained|argued|wrote|writes|noted|notes|stated|recalled|warned|"
                    r"insisted|claimed|claims|believes|thinks|admitted|announced|replied|confirmed)\b")
# capitalised words that open "X said" without being a name
SPEAKER_NOUNS = frozenset("""officials experts researchers critics residents engineers analysts scientists users
developers authorities police staff workers teachers doctors nurses patients parents students people others sources
reports studies everyone someone nobody observers insiders supporters opponents employees managers tenants officers
organisers organizers spokesperson spokesman spokeswoman management customers readers visitors commuters drivers
locals economists historians members leaders owners operators authors editors reviewers investigators witnesses""".split())


def _capitalised_by_position(scan: Scan, token: re.Match[str]) -> bool:
    """A sentence's first word that the same text writes in lower case elsewhere is a common word, capitalised only
    where it stands: "Generate XML data from ..." beside "parse and generate XML" names XML, not "Generate XML"
    (embedded model on unseen sources)."""
    word = token.group()
    return word[0].isupper() and word[1:].islower() and _sentence_start(scan.masked, token.start()) \
        and re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w-])", scan.text) is not None


def _common_compound_opening(scan: Scan, token: re.Match[str]) -> bool:
    """A hyphenated word opening a sentence whose later parts are in lower case ("Per-user X resources belong in ...",
    "Built-in Python") is a common word capitalised where it stands; "Jean-Luc Picard", "Mercedes-Benz" are names
    (heldout12)."""
    return re.fullmatch(r"[A-Z][a-z]+(?:-[a-z]+)+", token.group()) is not None \
        and _sentence_start(scan.masked, token.start())


def _speaker(text: str, token: re.Match[str]) -> bool:
    """A lone capitalised word opening a sentence is a name when it is the one who speaks: "Berger said ...".
    ``text`` is the text as written (a number between, "Version 2.39 added", is no speaker's name), and a heading
    ("Packaging notes from LLVM"), a line without an end mark, is no sentence with a speaker."""
    line_end = text.find("\n", token.end())
    line = text[text.rfind("\n", 0, token.start()) + 1:line_end if line_end >= 0 else len(text)].rstrip(" *_")
    return bool(SPEECH.match(text, token.end())) and token.group().lower() not in SPEAKER_NOUNS \
        and token.group().lower() not in STARTERS and line.endswith(tuple(".!?:;\"”’)。！？：；」"))


_MARKDOWN_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s+(.+?)\s*#*|\*\*([^*]+)\*\*:?)\s*$", re.M)


def _headings(markdown: str) -> set[tuple[str, ...]]:
    """The words of each line the article's Markdown made a heading: ``## Key Features``, or a line all bold."""
    return {tuple(words(m.group(1) or m.group(2))) for m in _MARKDOWN_HEADING.finditer(markdown)}


# a list item with no label before a colon: "- Igalia S.L and Monotype Imaging, 2016" (heldout11)
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+([^:：\n]+)$", re.M)


def _list_items(markdown: str) -> set[tuple[str, ...]]:
    """The words of each list item that has no label: a line of a list is its items' text, not a heading, so its
    capitalised words are names ("- Khaled Hosny, 2018–2021"); "- Word Count: 300" keeps its label."""
    return {tuple(words(m.group(1))) for m in _LIST_ITEM.finditer(markdown)}


def _on_line(text: str, at: int, lines: set[tuple[str, ...]]) -> bool:
    """Whether ``at`` lies on one of ``lines`` (the words of the article's headings, or of its list items)."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = tuple(words(text[start:end if end >= 0 else len(text)]))
    return bool(line) and line in lines


def _title_cased(text: str, at: int, heading: bool = False) -> bool:
    """Whether ``at`` lies in a Title Case heading or label ("Verification Steps", "Word Count: ..."): the line up
    to its first colon has most of its words capitalised. Such words are headings, not names (embedded trial).
    On a Markdown ``heading`` a short word counts when capitalised ("## Key Features", embedded model on unseen
    sources); elsewhere only words of four letters or more do, so that a line "Jane Doe" is still a name."""
    start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at) if text.find("\n", at) >= 0 else len(text)
    colon = text.find(":", at, line_end)
    segment = text[start:colon] if colon >= 0 else text[start:line_end]
    if colon < 0 and segment.rstrip().endswith((".", "!", "?")):
        return False  # a sentence, not a heading or a label
    if re.search(r"[\u3400-\u9fff]", segment):
        return False  # Latin words inside a Chinese sentence: "由 Michael Vogt 于...", "Jeremy Ashkenas 与 ...", names
    tokens = [t for t in re.findall(r"[A-Za-z][A-Za-z'’-]*", segment) if len(t) > 3 or (heading and t[0].isupper())]
    return len(tokens) >= 2 and sum(t[0].isupper() for t in tokens) >= 0.75 * len(tokens)


def _after_quoted_sentence(text: str, at: int) -> bool:
    """A word right after a quotation whose sentence ends inside its marks ('"... for some reason." Authors who want')
    opens a sentence: the quotation is blanked in the masked text, end mark and all."""
    return bool(re.search(r"[.!?。！？][\"”’'」]\s*$", text[max(0, at - 6):at]))


def _opens_quoted_text(text: str, token: re.Match[str]) -> bool:
    """A plain capitalised word opening a quoted text that goes on in lower case starts that text's sentence:
    help='Show this help message' (the embedded model's code) names no Show; algorithm='HS256' and codenamed
    "Bookworm" are still names."""
    word = token.group()
    return word[1:].islower() and re.match(r" [a-z]", text[token.end():token.end() + 2]) is not None \
        and re.search(r"(?:^|[\s=(\[,])[\"'“‘]$", text[max(0, token.start() - 2):token.start()]) is not None


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'“‘(*_#>-")
    return not before or before[-1] in ".!?:|\n。！？：" or before.endswith("\n")  # | opens a table's cell


SURNAMES = ("欧阳 司马 诸葛 上官 东方 令狐 皇甫 尉迟 公孙 慕容 长孙 王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 朱 胡 郭 何 林 罗 郑 梁 谢 "
            "宋 唐 韩 冯 邓 曹 彭 曾 萧 肖 蔡 潘 袁 董 蒋 杜 叶 程 魏 苏 吕 丁 沈 任 姚 卢 姜 崔 钟 谭 陆 汪 范 廖 贾 夏 韦 "
            "傅 邹 孟 熊 秦 邱 江 尹 薛 阎 段 雷 侯 龙 陶 黎 贺 顾 毛 郝 龚 邵 钱 严 覃 武 戴 莫 孔 汤 温 康 施 牛 樊 葛 邢 "
            "齐 易 乔 伍 庞 颜 倪 庄 聂 章 鲁 岳 翟 殷 詹 申 耿 关 兰 焦 俞 左 柳 甘 祝 包 宁 尚 符 舒 阮 柯 纪 梅 童 凌 "
            "毕 单 季 裴 霍 涂 成 苗 谷 盛 曲 翁 冉 骆 蓝 路 游 辛 靳 管 柴 蒙 鲍 华 喻 祁 蒲 房 滕 屈 饶 解 牟 艾 尤 阳 "
            "时 穆 农 司 卓 古 吉 缪 简 车 项 连 芦 麦 褚 娄 窦 戚 岑 景 党 宫 费 卜 冷 晏 席 卫 米 柏 宗 瞿 桂 全 佟 应 "
            "臧 闵 苟 邬 边 卞 姬 师 和 仇 栾 隋 商 刁 沙 荣 巫 寇 桑 郎 甄 丛 仲 虞 敖 巩 明 佘 池 乐 匡 戈 双").split()
TITLES = ("首席执行官 董事长 总经理 园长 店长 组长 厅长 司长 署长 主管 秘书长 发言人 负责人 工程师 研究员 创始人 总裁 主席 总理 总统 总监 主任 经理 馆长 厂长 部长 "
          "院长 校长 市长 局长 县长 省长 区长 镇长 村长 教授 博士 医生 处长 科长 队长 社长 会长 所长 站长 行长 老师 记者 律师 "
          "书记 主编 编辑 董事 委员 代表 专家 先生 女士 管理员 维护者 开发者").split()
ZH_SPEECH = "表示 指出 认为 介绍 强调 宣布 透露 告诉 坦言 回忆 补充 解释 承认 提到 谈到 写道 说 称 问".split()
# (and, round 13, the adverbs and auxiliaries that stand between a subject and its verb, 还 also, 来 of 来说, 要 of
# 简要 brief: 项目还强调 and 对于...项目来说 are the project speaking, 简要介绍 a brief introduction, no Mr 项 or Mr 简)
_NOT_GIVEN = "的了是在也都就不有这那个些们者人多家我你他她它其和与或对向从把被为以于及等年月日时说称表示认为指出介绍还来要"
_HAN = r"[\u4e00-\u9fff]"
_CONJUNCTIONS = "和与及"
_GIVEN = rf"[^\W\d_{_NOT_GIVEN}a-zA-Z]"
# common nouns that speak in a text (项目表示, 程序指出, 公司称) and open with a surname's character: no names, as
# SPEAKER_NOUNS are not in English
ZH_SPEAKER_NOUNS = frozenset("""项目 项目组 程序 程序员 公司 政府 官方 方面 报告 研究 调查 计划 文件 文档 邮件 时报 周报
周刊 海关 单位 董事会 司法""".split())
_SURNAME = "|".join(sorted(SURNAMES, key=len, reverse=True))
_TITLE = "|".join(sorted(TITLES, key=len, reverse=True))
# 说 of 说明 (a description, explains), 说法, 说服 is no verb of saying: 项目说明指出 names no 项目
_ZH_VERB = "|".join(sorted(ZH_SPEECH, key=len, reverse=True)).replace("|说|", "|说(?![明法服])|")
# 问 of 问题 (a problem) asks nothing: "在使用 cgroupv2 时遇到问题" names no Mr 时
_ZH_VERB = re.sub(r"(?<=\|)问(?=\||$)", "问(?!题)", _ZH_VERB)
# 称 of 名称 (a name) says nothing: "IANA 时区名称" names no Mr 时 (round 13)
_ZH_VERB = re.sub(r"(?<=\|)称(?=\|)", "(?<!名)称", _ZH_VERB)
_ZH_EDGE = r"(?:^|(?<=[。！？；：，、\n“”「」『』（）()《》\s]))"


def scan_zh_names(scan: Scan) -> None:
    """Chinese personal names where the text itself says one is there: a transliteration with a middle dot (玛丽·杜邦),
    a title before it (馆长李文华, 部长汤姆表示), a title after it (李文华馆长), or a surname opening a clause and a
    verb of saying after it (张明说, 陈志强表示). A name without such a mark is not checked."""

    def take(start: int, end: int, key_chars: str, short: str | None = None) -> None:
        scan.blank(start, end)
        scan.facts.append(Fact(FactKind.name, scan.text[start:end], " ".join(key_chars), sentence_at(scan.text, start),
                               short_key=" ".join(short) if short else None))

    for m in list(re.finditer(rf"({_HAN}{{1,2}})·({_HAN}{{1,2}})", scan.masked)):
        take(m.start(), m.end(), m.group(1) + m.group(2))
    patterns = (  # (pattern, whether the given name's length is known from both ends)
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN}{{1,2}}|{_GIVEN}{{2,3}})(?={_ZH_VERB})", True),
        # an adverb may stand between the name and its verb (张明还表示, 张明也指出; round 13)
        (rf"{_ZH_EDGE}((?:{_SURNAME}){_GIVEN}{{1,2}})(?=(?:{_TITLE})|[还也又]?(?:{_ZH_VERB}))", True),
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN}{{2}})", False),
        (rf"(?:{_TITLE})((?:{_SURNAME}){_GIVEN})", True),
    )
    for pattern, exact in patterns:
        for m in re.finditer(pattern, scan.masked):
            name = m.group(1)
            if any(name.startswith(title) for title in TITLES):
                continue  # 管理员说: a title, not 管 and a given name
            if name in ZH_SPEAKER_NOUNS:
                continue  # 项目表示: the project speaks, not a Mr 项 (a common noun opening with a surname)
            if name[0] in _CONJUNCTIONS and m.start(1) > m.start():
                continue  # 组管理员和成员: a title and another noun joined by 和, not a Mr 和 after a title
            take(m.start(1), m.end(1), name, None if exact else name[:-1])
