"""The fact check's reading: which facts it extracts, how it normalises them, and its figures on the corpus."""

from __future__ import annotations

import json

import pytest

from capabilities.factcheck import FactKind, check_facts, extract_facts
from testkit.factcorpus import KINDS, evaluate
from tests.capabilities.facts import supported


@pytest.mark.parametrize(("article", "source"), [
    ("It holds 1200 books.", "It holds 1,200 books."),
    ("Bills fell 12%.", "Bills fell 12 percent."),
    ("Bills fell 12 per cent.", "账单下降了百分之十二。"),
    ("账单下降了12%。", "Bills fell by 12 percent."),
    ("It opened on 2024-05-01.", "It opened on May 1, 2024."),
    ("It opened on 1 May 2024.", "开馆日期：2024年5月1日。"),
    ("It cost $3.5 million.", "It cost 3,500,000 dollars."),
    ("项目耗资1400万欧元。", "The project cost €14 million."),
    ("It makes 3 attempts.", "It makes three attempts."),
    ("共有一千二百台。", "There are 1200 of them."),
    ("It opened in 2024.", "It opened on May 1, 2024."),
    ("About 31 000 cars cross it.", "About 31,000 vehicles cross it."),
    ("It took twenty-six months.", "It took 26 months."),
    ("It holds three hundred books.", "It holds 300 books."),
    ("Bills fell twelve percent.", "Bills fell 12%."),
    ("这座2019年开放的博物馆很大。", "博物馆于2019年5月18日开馆。"),
    ("票价：三十元。", "门票价格为30元。"),
    ("新建2条生产线。", "将新建两条生产线。"),
    ("Visits rose to about 18,000.", "The clinic saw 18,400 patients."),
    ("Nearly 19,000 came.", "The clinic saw 18,400 patients."),
    ("A 503 is retried.", "Every 5xx status is retried."),
    ("Dr Okafor runs it.", "It is run by Dr. Samuel Okafor."),
    ("馆长李文华表示欢迎。", "馆长李文华说：“欢迎。”"),
    ("厂长陈志强于去年宣布。", "厂长陈志强在2024年11月20日宣布。"),
    ("玛丽·杜邦表示不会回头。", "里昂能源办公室主任玛丽·杜邦在2025年3月3日说。"),
    ("Hofmann said it was rust.", "It was rust, said chief engineer Lena Hofmann."),
    ("They made 1.1 GWh.", "They produced 1.1 gigawatt-hours."),
    ("It raised $310K.", "It raised $310,000."),
])
def test_the_same_value_in_another_format_is_found(article: str, source: str) -> None:
    """A careful reader's equivalences: separators, percent words, 百分之, dates, scales, currencies, number words."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("It was 12 years old.", "It was founded in 2012."),
    ("Jane Smith said so.", "Jane Smithson said so."),
    ("It took 30 MB.", "It took 30 seconds."),
    ("Bills fell 12%.", "Bills fell 12 points; 12 people."),
    ("It opened in 2023.", "It opened on May 1, 2024."),
    ("It uses 5 workers.", "It retries 5xx answers."),
    ("It lends 250000 items a month.", "It lends 250,000 items a year."),
    ("每月借出25万件。", "每年外借25万件。"),
    ("It took thirty-six months.", "It took 26 months."),
    ("工厂新建三条生产线。", "将新建两条生产线。"),
    ("生产了一百二十万吨电池。", "生产了120万块电池。"),
    ("Visits rose to about 15,000.", "The clinic saw 18,400 patients."),
    ("About 30% agree.", "34 percent agree."),
    ("A 404 is retried.", "Every 5xx status is retried."),
    ("Berger said it would stay.", "The ferry will stay, said Lena Hofmann."),
    ("馆长王建国表示欢迎。", "馆长李文华说：“欢迎。”"),
    ("张明说这里总是排队。", "馆长李文华说：“欢迎。”"),
    ("李明馆长认为如此。", "馆长李文华说：“欢迎。”"),
    ("让·杜邦表示不会回头。", "里昂能源办公室主任玛丽·杜邦在2025年3月3日说。"),
    ("They made 1.1 MWh.", "They produced 1.1 gigawatt-hours."),
    ("公园占地320平方公里。", "公园占地320公顷。"),
    ("由园长周建平管理。", "公园管理处主任郑晓梅介绍。"),
])
def test_a_fact_is_never_found_by_substring_or_a_different_kind(article: str, source: str) -> None:
    """'12' is not in '2012', 'Smith' not in 'Smithson', 30 MB is not 30 seconds, 12 is not 12%."""
    assert not supported(article, source)


def test_each_kind_of_fact_is_extracted_with_its_sentence() -> None:
    """URLs, dates, money, percentages, numbers with units, years, quotations, names and 《》 titles."""
    text = ('# Heat pumps\n\nOn May 1, 2024 Lyon spent $2 million [1]. Bills fell 30% and 1,200 pumps run at 5 kW. '
            'In 2027 it ends, said Marie Dupont: "we will not go back". See https://example.org/a.\n\n'
            '据《里昂晚报》报道，“我们不会再回到燃气时代”。')
    kinds = {(f.kind, f.text) for f in extract_facts(text)}
    assert {(FactKind.date, "May 1, 2024"), (FactKind.money, "$2 million"), (FactKind.percent, "30%"),
            (FactKind.number, "1,200"), (FactKind.number, "5 kW"), (FactKind.year, "2027"),
            (FactKind.name, "Marie Dupont"), (FactKind.quote, "we will not go back"),
            (FactKind.url, "https://example.org/a"), (FactKind.title, "里昂晚报"),
            (FactKind.quote, "我们不会再回到燃气时代")} <= kinds
    dupont = next(f for f in extract_facts(text) if f.text == "Marie Dupont")
    assert dupont.sentence.startswith("In 2027 it ends")


def test_citation_markers_and_sentence_starts_are_not_facts() -> None:
    """[1] is a citation, a list number is markup, a lone capitalised word opening a sentence is no name."""
    facts = extract_facts("1. First point [1].\n\nThe ledger records it. Lyon agrees [2].")
    assert facts == []


def test_an_articles_own_counting_words_are_not_facts() -> None:
    """'three reasons', 'one of them', 'two cities' and 第三 count the article's parts or are too common to check."""
    text = "There are three reasons. One of them is cost, and the two cities agree. 第三，有三个方面。Five key steps follow."
    assert [f.text for f in extract_facts(text)] == []


def test_officials_said_opening_a_sentence_is_no_name() -> None:
    """A capitalised common noun before 'said' opens a sentence without naming anyone."""
    assert [f.text for f in extract_facts("Officials said the line opened. Residents say it is quiet.")] == []


def test_the_summary_line_names_the_missing_facts() -> None:
    """The one line a run ends on quotes each fact no source holds."""
    report = check_facts("About 73% agree, said Jane Smith.", [(1, "About 30 percent agree.")])
    assert report.summary() == "2 facts not in the sources: '73%', 'Jane Smith'"


def test_the_brief_counts_as_a_source() -> None:
    """A fact found only in the topic's brief is supported, with source number 0."""
    report = check_facts("It opened in 1998.", [(1, "A library.")], brief="Opened in 1998.")
    assert report.passed and report.facts[0].source_number == 0


def test_corpus_recall_per_kind_and_false_alarms_hold_their_floors() -> None:
    """Every injected fabrication of every kind caught; at most the 2 false alarms of 81 measured (docs/fact-check.md)."""
    score = evaluate()
    assert sum(score.honest.values()) >= 80 and set(score.honest) == {"en", "zh"}
    for kind in KINDS:
        caught, injected = score.recall(kind)
        assert caught == injected > 0, (kind, score.misses)
    assert sum(score.false_alarms.values()) <= 2, score.alarms  # '62-year' and 'five days': numbers the writer computed


def test_numbers_that_count_the_articles_parts_are_not_facts() -> None:
    """'### Fact 2:' or 'Step 3' numbers the article, not the world (seen in the embedded model's output)."""
    assert [f.text for f in extract_facts("### Fact 2: Timeouts are retried\n\nStep 3 is to wait. 第2步：等待。")] == []


def test_a_title_cased_heading_repeating_the_topic_is_backed_by_it() -> None:
    """The topic's title is given, not invented: 'Exponential Backoff' in a heading is found in it."""
    from capabilities.fact_check import given
    from capabilities.records import TopicRecord

    topic = TopicRecord(1, "Exponential backoff with jitter, in factline's retry policy")
    report = check_facts("# Exponential Backoff with Jitter\n\nIt retries.", [(1, "It retries.")], given(topic))
    assert report.passed


def test_title_case_headings_and_labels_are_not_names() -> None:
    """'Verification Steps' as a heading and 'Word Count:' as a label are no names; a sentence's name still is."""
    text = "## Verification Steps\n\nWord Count: the page holds 98% of it.\n\nIt was built by Jane Smith."
    assert [(f.kind, f.text) for f in extract_facts(text)] == [("percent", "98%"), ("name", "Jane Smith")]


def test_a_unit_letter_glued_to_a_number_is_no_name() -> None:
    """The B of '0.5B' is part of the model's size, not a name (the embedded trial's fourth run)."""
    assert check_facts("Why the 0.5B model needs constrained mode.", [(1, "Qwen2.5-Coder-0.5B-Instruct.")]).passed


@pytest.mark.parametrize(("article", "source"), [
    ("The bug went back to version 6.7.", "[bug introduced in coreutils-6.7]"),
    ("The kernel has supported it since Linux 5.15.", "It was first supported in the v5.15 Linux kernel."),
    ("In coreutils-9.1 the fix landed.", "* Noteworthy changes in release 9.1 (2022-04-15)"),
    ("Deprecated since release 2.5.3.", "Deprecated since release 2.5.3 (2007)."),
])
def test_a_version_is_found_glued_to_a_word_or_a_v(article: str, source: str) -> None:
    """coreutils-6.7 and v5.15 hold 6.7 and 5.15 (tuning set 2026-12-06: 4 of its 6 false alarms)."""
    assert supported(article, source)


def test_a_changed_three_part_version_is_caught() -> None:
    """2.5.3 is one fact: 2.5.1 is not found in it (it was no fact at all before: tuning set 2026-12-06)."""
    assert not supported("Deprecated since release 2.5.1.", "Deprecated since release 2.5.3 (2007).")
    assert not supported("自 2.5.1 版起已被弃用。", "自 2.5.3 版（2007年）起已被弃用。")


def test_an_option_letter_and_a_manual_section_are_no_facts() -> None:
    """`-M MAX_DAYS` is an option and its argument, not the name 'M MAX_DAYS'; groupadd(8) names a page, not 8."""
    source = "-M, --maxdays MAX_DAYS Set the maximum number of days. The exit values: 0 success 2 invalid syntax"
    assert check_facts("- `-M MAX_DAYS`: how long a password stays valid. All from the groupadd(8) manual.",
                       [(1, source)]).passed
    assert sorted(f.text for f in extract_facts("Use -K GID_MIN=100 here.")) == ["100", "GID_MIN"]


def test_characters_are_a_unit() -> None:
    """32 characters is not 32 bytes, 80 个字符 is not 80 个字节 (tuning set 2026-12-06: both were missed)."""
    assert supported("At most 32 characters.", "Groupnames may only be up to 32 characters long.")
    assert not supported("At most 32 bytes.", "Groupnames may only be up to 32 characters long.")
    assert not supported("退回到 80 个字节。", "若都失败，将退回到 80 个字符。")


def test_a_latin_name_inside_a_chinese_sentence_is_read() -> None:
    """'由 Michael Vogt 于...' is a name even though the line looks Title Case once its Chinese is ignored."""
    source = "apt 2.5.2（2022年7月24日，Julian Andres Klode）：现在会一并升级。"
    assert not supported("这一变化由 Michael Vogt 于2022年7月24日公布。可将 APT::Get 设为 false。", source)
    assert supported("这一变化由 Julian Andres Klode 于2022年7月24日公布。", source)


def test_a_section_number_the_article_cites_is_a_fact_but_its_own_heading_is_not() -> None:
    """'对应第 9 节' cites the source's section 9; '第1节：背景' opening a line numbers the article."""
    assert not supported("--base32 对应第 9 节。", "--base32 与 base32 程序相同 (RFC4648 section 6)")
    assert [f.text for f in extract_facts("## 第1节：背景\n\n第2步：等待。")] == []


def test_the_tuning_set_of_2026_12_06_has_no_false_alarm_and_every_fabrication_caught() -> None:
    """The set the fixes above were made for (docs/fact-check.md: 6/39 false alarms and 76/83 caught before them)."""
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / "tuning-2026-12-06.jsonl")
    assert sum(score.honest.values()) == 39 and not score.alarms and not score.misses, (score.alarms, score.misses)


@pytest.mark.parametrize(("article", "source"), [
    ("Bills fell 60-70%.", "Bills fell by 60 to 70 percent."),
    ("需要25-30分钟。", "大约需要25到30分钟。"),
    ("Carlo Arenas contributed it.", "新代码由Carlo Arenas贡献。"),
    ("It copies 100 GiB.", "Use 'dd count=100GiB'."),
    ("It shipped on May 1.", "It shipped on May 1, 2024."),
    ("它于7月24日发布。", "apt 2.5.2（2022年7月24日）"),
    ("Debian's Marc Haber uploaded it; read its README file.", "Marc Haber uploaded it to Debian."),
    ("It stores everything in SQLite.", "It links libsqlite3 through sqlite3."),
    ("管理员说可以。", "可以。"),
    ("读三遍。", "读了三次。"),
])
def test_what_the_previous_sessions_held_out_set_showed_is_found(article: str, source: str) -> None:
    """Re-applied from the lost session's note (its held-out set of 2026-12-05): ranges give their unit to both ends,
    Latin words are not glued to the Chinese after them, GiB, a month and day without a year, possessives and a
    project's README or NEWS are not names, SQLite is named in sqlite3, 管理员 is a title, 遍 counts like 次."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("Bills fell 60-75%.", "Bills fell by 60 to 70 percent."),
    ("需要25-30秒。", "大约需要25到30分钟。"),
    ("It copies 100 GiB.", "It copies 100 GB."),
    ("It shipped on May 2.", "It shipped on May 1, 2024."),
    ("它于7月25日发布。", "apt 2.5.2（2022年7月24日）"),
    ("Debian's Marc Weber uploaded it.", "Marc Haber uploaded it to Debian."),
    ("维护者张伟说可以。", "可以。"),
    ("读五遍。", "读了三次。"),
])
def test_those_rules_still_catch_a_changed_fact(article: str, source: str) -> None:
    """A range end, a unit, a day, a name after a possessive or after 维护者: each still checked."""
    assert not supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("It documents GNU coreutils 9.1.", "Written by Padraig Brady. GNU coreutils 9.1 September 2022"),
    ("A status of 124 means the command exited with 255.", "124 if the command exited with status 255 125 if killed"),
    ("123 when a run exited with a status from 1 to 125.", "123 if any invocation of the command exited with status 1-125"),
    ("It retries one of six HTTP codes: 408, 429, 500, 502, 503 and 504.", "HTTP 408, 429, 500, 502, 503 or 504"),
    ("-x 则用十六进制后缀。", "-x use hex suffixes starting at 0, not alphabetic"),
    ("In CI, a step that ends with 124 timed out.", "124 if COMMAND times out"),
])
def test_what_the_second_tuning_set_showed_is_found(article: str, source: str) -> None:
    """The second tuning set's false alarms (docs/fact-check.md): a version before a month, exit codes run together
    or in a range, a count of the list after it, 十六进制, a common acronym."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("It documents GNU coreutils 9.2.", "Written by Padraig Brady. GNU coreutils 9.1 September 2022"),
    ("A status from 1 to 126.", "123 if any invocation of the command exited with status 1-125"),
    ("It retries one of five HTTP codes: 408, 429, 500, 502, 503 and 504.", "HTTP 408, 429, 500, 502, 503 or 504"),
    ("后缀默认三个字符。", "generate suffixes of length N (default 2)"),
])
def test_a_changed_fact_next_to_those_is_still_caught(article: str, source: str) -> None:
    """A changed version, range end, a count the list contradicts, a Chinese count of characters."""
    assert not supported(article, source)


def test_the_second_tuning_set_flags_only_the_examples_its_writer_invented() -> None:
    """What is left of its false alarms are numbers no source holds (timeout 2.5m, sleep 0.5, 2.5 seconds)."""
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / "tuning2-2026-12-06.jsonl")
    assert [a.rsplit(": ", 1)[1] for a in score.alarms] == ["'2.5m'", "'2.5'", "'0.5'"], score.alarms
    # true numbers moved to another claim (documented as not checked), one of them (125) hidden before by the honest
    # article's own false alarm ('2.5m'), and a unit added after a number that keeps its own (1024 kilobytes)
    assert len(score.misses) <= 3, score.misses


def test_a_fabrication_that_fails_only_on_its_honest_articles_false_alarm_is_not_caught(tmp_path) -> None:
    """The corpus counts a fabrication as caught only when its check flags a fact its honest article's did not;
    the looser count (its check failed at all) is kept beside it."""
    entry = {"id": "t", "lang": "en", "sources": ["It has 3 pumps and 5 valves, said Jane Smith."],
             "honest": ["It has 3 pumps and 5 valves, said Jane Smith; 7 were planned."],
             "fabrications": [{"kind": "changed_number", "from": "3 pumps", "to": "5 pumps"},
                              {"kind": "changed_number", "from": "5 valves", "to": "6 valves"}]}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    score = evaluate(path)
    assert score.recall("changed_number") == (1, 2) and score.recall("changed_number", loose=True) == (2, 2)
    assert score.misses == ["t changed_number: '5 pumps' (its check failed only on the honest article's false alarm)"]


def test_a_lone_chinese_scale_word_is_no_number() -> None:
    """千字节 is a kilobyte, 万一 'just in case', 十分 'very' (third tuning set); 三千 and 2万 are still numbers."""
    assert supported("--record-size=10K 表示 10 千字节，十分方便，万一出错再改。", "--record-size=10K, for 10 Kilobytes.")
    assert not supported("共有三千个文件。", "There are 3,200 files.")


def test_a_unit_named_on_its_own_is_no_name() -> None:
    """'默认单位是 KiB' names a unit, not a person (fourth tuning set); a one-letter initial may still be a name."""
    assert supported("默认单位是 KiB，也可以用 MB。", "Display the amount of memory in kibibytes. This is the default.")


@pytest.mark.parametrize("name", ["tuning3-2026-12-06.jsonl", "tuning4-2026-12-06.jsonl"])
def test_the_third_and_fourth_tuning_sets_have_no_false_alarm(name: str) -> None:
    """Their false alarms (2/8 and 1/6 before the fixes for them, docs/fact-check.md) are gone; what they miss are
    true numbers of the source moved to another claim, which the check documents as not checked."""
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / name)
    assert not score.alarms and len(score.misses) <= 2, (score.alarms, score.misses)


@pytest.mark.parametrize(("article", "source"), [
    ("%S runs from 00 to 60 and %V from 01 to 53.", "%S second (00..60) %V ISO week number (01..53)"),
    ("The example is 2006-08-14T02:34:56-06:00.", "Example: 2006-08-14T02:34:56-06:00"),
])
def test_a_dotted_range_and_an_iso_timestamp_are_read_whole(article: str, source: str) -> None:
    """00..60 holds 60, and the T02 of an ISO timestamp is no name (fifth tuning set)."""
    assert supported(article, source)


def test_a_changed_end_of_a_dotted_range_is_caught() -> None:
    assert not supported("%V runs from 01 to 54.", "%V ISO week number (01..53)")


def test_the_fifth_tuning_set_flags_only_the_digit_counts_its_writer_derived() -> None:
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / "tuning5-2026-12-06.jsonl")
    assert score.alarms == ["en-date: 2 facts not in the sources: 'three', 'nine'"] and not score.misses, score.alarms


def test_a_short_chinese_term_in_quotation_marks_is_no_quotation() -> None:
    """“分解时间” translates the source's "broken down time" (sixth tuning set); a quoted sentence is still checked."""
    source = 'gmtime outputs a "broken down time" representation.'
    assert supported("gmtime 输出“分解时间”数组。", source)
    assert not supported("作者写道：“要看 available，而不是 free。”", source)
    assert not supported("他说：“这里的白鹭特别多。”", source)


def test_a_hedged_figure_beside_a_three_part_version_is_checked_without_a_crash() -> None:
    """"More than 32" next to a source holding "version 1.07.1" (a number fact that is no decimal) is still found
    by its own 32; the rounding comparison used to raise decimal.InvalidOperation on the version (held-out set)."""
    source = "This is GNU bc version 1.07.1. It fixes a symbol table bug when more than 32 names were used."
    assert supported("The bug showed when more than 32 names were used.", source)
    assert not supported("The bug showed when more than 40 names were used.", source)


@pytest.mark.parametrize(("article", "source"), [
    ("It was signed by Héctor Orón Martínez.", "-- Héctor Orón Martínez <zumbi@debian.org>  Fri, 23 Nov 2018"),
    ("It was signed by Hector Oron.", "-- Héctor Orón Martínez <zumbi@debian.org>  Fri, 23 Nov 2018"),
    ("这一版由 Noël Köthe 打包。", "-- Noël Köthe <noel@debian.org>  Sat, 02 Jan 2021"),
])
def test_a_latin_name_with_accented_letters_is_read_whole(article: str, source: str) -> None:
    """Héctor Orón Martínez is one name, not 'H' and 'Mart' (held-out set); its accents may be dropped."""
    assert supported(article, source)


def test_a_name_changed_beside_its_accents_is_still_caught() -> None:
    source = "-- Héctor Orón Martínez <zumbi@debian.org>  Fri, 23 Nov 2018"
    assert not supported("It was signed by Héctor Morán Martínez.", source)
    assert not supported("It was signed by Hector Oron and Noël Köthe.", source)


@pytest.mark.parametrize("article", [
    "Version 1.19 reworks the options, according to its NEWS file.",
    "按照 NEWS 文件，1.19 版改写了选项。",
    "The notes in NEWS.Debian and README.Debian say that version 1.19 reworks the options.",
    "The C library, at version 1.19, reworks the options.",
])
def test_a_document_the_article_read_and_a_lone_letter_are_no_names(article: str) -> None:
    """'its NEWS file' names the file read, not a person or a body (held-out set: 13 articles); a lone letter names
    too little to check (the C library)."""
    assert supported(article, "Changes in version 1.19: the options that silence ed are reworked.")


def test_a_name_beside_a_document_name_is_still_checked() -> None:
    assert not supported("According to Jane Roe's NEWS file, version 1.19 reworks them.",
                         "Changes in version 1.19: the options are reworked.")


@pytest.mark.parametrize(("article", "source"), [
    ("The releases before it did less. Version 2.39 added a --no-weak option.", "Changes in 2.39: nm --no-weak."),
    ("Packaging notes from LLVM\n\nThe LLVM toolchain keeps them.", "LLVM toolchain notes."),
])
def test_a_capitalised_word_is_no_speaker_across_a_number_or_in_a_heading(article: str, source: str) -> None:
    """'Version 2.39 added' is not 'Berger added' once the number is read; 'Packaging notes from' is a heading."""
    assert supported(article, source)


def test_a_lone_name_opening_a_sentence_with_a_verb_of_saying_is_still_checked() -> None:
    source = "Changes in 2.39: nm --no-weak."
    assert not supported("It shipped. Graham added the --no-weak option to 2.39.", source)
    assert not supported("It shipped. Graham notes that 2.39 has --no-weak.", source)


@pytest.mark.parametrize(("article", "source"), [
    ("The batch covered CVEs in CMS code.", "* CVE-2025-15467 (stack buffer overflow in CMS)"),
    ("并为 sha256 模块加入 X9.62 OID。", "- Add X9.62 OIDs to sha256 and sha512 modules."),
    ("pgcrypto 直接把数据块与明文做 XOR。", "pgcrypto simply XOR'd the non-encrypted block with the plaintext"),
])
def test_an_acronym_is_found_in_the_other_number_or_with_a_clitic(article: str, source: str) -> None:
    """CVEs for the source's CVE-..., OID for OIDs, XOR for XOR'd (held-out set)."""
    assert supported(article, source)


def test_another_acronym_is_not_found_by_its_plural() -> None:
    assert not supported("The batch covered DSAs in CMS code.", "* CVE-2025-15467 (stack buffer overflow in CMS)")


@pytest.mark.parametrize(("article", "source"), [
    ("It fixed a regression from the CVE-2023-27534 fix.", "* debian/patches/fix-CVE-2023-27534-regression-{1,2}.patch"),
    ("It addressed CVE-2024-32020 and CVE-2023-32021.", "Fixes CVE-2024-32020, CVE-2023-32021 (closes: #1071160)."),
    ("Its notice spans 1999-2016 and 2018-2020.", "Copyright 1996, 1999-2016, 2018-2020 Free Software Foundation"),
    ("Starting with 2.26-1 it needs a 3.2 kernel.", "Starting with version 2.26-1, the glibc requires a 3.2 kernel."),
    ("It cites release notes 2.39.3 and 2.39.4.", "new upstream point release (see RelNotes/2.39.3.txt, RelNotes/2.39.4.txt)"),
    ("It differs on 32- and 64-bit systems.", "Normalize it as it differs on 32/64-bit systems"),
    ("HTTP API 请求体的默认上限降为 10 MiB。", "- Reduce_default_HTTP_API_request_body_size_limit_to_10_MiB.patch"),
    ("大于 2048 位的模长同样如此。", "in addition to any modulus sizes larger than 2048 bits"),
])
def test_identifiers_range_ends_and_a_sources_file_names_are_read(article: str, source: str) -> None:
    """An advisory's identifier is one fact, a range end before a comma is a number, a source's RelNotes/2.39.3.txt,
    32/64-bit and limit_to_10_MiB say 2.39.3, 64 and 10 MiB; 位 counts bits as well as people (held-out set)."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("It fixed a regression from the CVE-2023-27535 fix.", "* debian/patches/fix-CVE-2023-27534-regression-{1,2}.patch"),
    ("Its notice spans 1999-2017.", "Copyright 1996, 1999-2016, 2018-2020 Free Software Foundation"),
    ("It differs on 32- and 128-bit systems.", "Normalize it as it differs on 32/64-bit systems"),
    ("HTTP API 请求体的默认上限降为 10 GiB。", "- Reduce_default_HTTP_API_request_body_size_limit_to_10_MiB.patch"),
    ("共有 2048 名用户。", "in addition to any modulus sizes larger than 2048 bits"),
])
def test_those_readings_still_catch_a_changed_fact(article: str, source: str) -> None:
    """A changed identifier, range end, the other of two numbers, a unit; 位 is not every counter."""
    assert not supported(article, source)


ARCHIVE = ("Jan 03, 2020: libarchive adds mbed TLS support\nJan 20, 2020: tar gains --safe-writes\n"
           "version 1.10.1 (2022-03-28)\nversion 1.10.0 (2022-02-01)")


@pytest.mark.parametrize(("article", "source"), [
    ("2020年1月3日，项目加入 mbed TLS 支持；同月20日，tar 新增 --safe-writes 选项。", ARCHIVE),
    ("1.10.0 版发布于2022年2月1日，1.10.1 则于同年3月28日推出。", ARCHIVE),
    ("Köthe packaged wget 1.21, an upstream release from New Year's Eve 2020, on 2 January 2021.",
     "wget (1.21-1) unstable; * new upstream release from 2020-12-31 -- Noël Köthe  Sat, 02 Jan 2021 11:58:25 +0100"),
])
def test_a_date_given_relative_to_the_one_before_it_or_as_a_holiday_is_read_whole(article: str, source: str) -> None:
    """同月20日 after 2020年1月3日 is 2020-01-20, 同年3月28日 after 2022年2月1日 is 2022-03-28, New Year's Eve 2020 is
    2020-12-31: not the bare numbers 20, 28 and the names 'New Year', 'Eve' (held-out set)."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("2020年1月3日，项目加入 mbed TLS 支持；同月21日，tar 新增 --safe-writes 选项。", ARCHIVE),
    ("2021年2月1日发布了 1.10.0；1.10.1 则于同年3月28日推出。", ARCHIVE),
    ("An upstream release from Christmas Eve 2020.", "* new upstream release from 2020-12-31"),
])
def test_a_relative_date_or_holiday_that_is_another_day_is_caught(article: str, source: str) -> None:
    assert not supported(article, source)


def test_quotation_marks_pair_in_order_around_a_short_quotation() -> None:
    """'refusing "/", which meant backups "silently..."': "/" is the first quotation, not ', which meant backups '."""
    source = 'rrsync: refusing "/" meant that backups silently became full copies instead of hard links'
    assert supported('It fixes rrsync refusing "/", which meant backups "silently became full copies".', source)
    assert not supported('It fixes rrsync refusing "/", which meant backups "silently became empty copies".', source)


@pytest.mark.parametrize(("article", "source"), [
    ("gawk 5.2 puts MPFR mode on parole.", "Changes from 5.2.0 to 5.2.1: MPFR mode in gawk is on parole."),
    ("Python 3.11 security updates keep coming.", "python3.11 (3.11.2-6+deb12u6) bookworm; urgency=medium"),
    ("systemd 252 keeps rolling: it stayed on the 252 branch.", "systemd (252.38-1~deb12u1) bookworm-security"),
    ("GLib 2.74 分支发布了几个维护版本。", "Overview of changes in GLib 2.74.6"),
])
def test_a_release_series_is_found_in_a_sources_version_of_it(article: str, source: str) -> None:
    """'gawk 5.2' names the series of the source's 5.2.0 and 5.2.1 (held-out set: 7 articles named a series)."""
    assert supported(article, source)


def test_a_series_product_may_be_named_by_another_source() -> None:
    """A NEWS file gives 1.10.1 and the README beside it names Libgcrypt."""
    sources = [(1, "Noteworthy changes in version 1.10.1 (2022-03-28): Argon2."), (2, "Library: Libgcrypt")]
    assert check_facts("Libgcrypt 1.10 adds Argon2.", sources).passed


@pytest.mark.parametrize(("article", "source"), [
    ("gawk 5.3 puts MPFR mode on parole.", "Changes from 5.2.0 to 5.2.1: MPFR mode in gawk is on parole."),
    ("Python 3.1 security updates keep coming.", "python3.11 (3.11.2-6+deb12u6) bookworm; urgency=medium"),
    ("systemd 253 keeps rolling.", "systemd (252.38-1~deb12u1) bookworm-security"),
    ("OpenSSL 3.0 is packaged.", "gnutls (3.0.19-1~deb12u2) bookworm-security"),
    ("The upload added 3 options.", "openssl (3.0.19-1~deb12u2) bookworm-security; added options"),
])
def test_another_series_or_a_count_is_not_found_in_a_version(article: str, source: str) -> None:
    """A series the source has no version of, a product it does not name, a count beside a version's first part."""
    assert not supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("每天中午12点新建一个文件。", 'logger.add("file_2.log", rotation="12:00")    # New file is created each day at noon'),
    ("It was signed at 22:14 that night.", "-- Aurelien Jarno <aurel32@debian.org>  Mon, 27 Apr 2026 22:14:33 +0200"),
    ("A new file starts at 3 p.m. each day.", 'logger.add("file.log", rotation="15:00")'),
    ("The example is 2006-08-14T02:34:56-06:00.", "Example: Mon, 14 Aug 2006 02:34:56 -0600"),
])
def test_a_time_of_day_is_one_fact_in_any_format(article: str, source: str) -> None:
    """中午12点 is the source's 12:00 (held-out set), 3 p.m. is 15:00, 22:14 is in 22:14:33."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("每天中午1点新建一个文件。", 'logger.add("file_2.log", rotation="12:00")'),
    ("It fixed a crash on 33-bit arm.", "-- Aurelien Jarno <aurel32@debian.org>  Mon, 27 Apr 2026 22:14:33 +0200"),
    ("The example is 2006-08-14T02:34:57-06:00.", "Example: Mon, 14 Aug 2006 02:34:56 -0600"),
])
def test_another_time_or_a_number_inside_a_time_is_not_found(article: str, source: str) -> None:
    """A changed time is caught, and a timestamp's 33 seconds back no '33-bit'."""
    assert not supported(article, source)


OPENING_SOURCE = "The packagers said it is safer, and GnuPG upstream now defaults to it."


@pytest.mark.parametrize("article", ["It shipped. Packagers said it is safer.", "It shipped. Upstream GnuPG now defaults to it."])
def test_a_word_capitalised_only_by_opening_a_sentence_is_found_in_lower_case(article: str) -> None:
    """'Upstream GnuPG' where the source has 'GnuPG upstream': the first word is an ordinary word the source writes in
    lower case, the name is the rest of the run."""
    assert supported(article, OPENING_SOURCE)


@pytest.mark.parametrize("article", ["It shipped. Packer said it is safer.", "It shipped. Upstream GnuTLS now defaults to it."])
def test_an_invented_name_opening_a_sentence_is_still_caught(article: str) -> None:
    assert not supported(article, OPENING_SOURCE)


QUOTED = '"We will not go back to gas, whatever the price," said Marie Dupont.'


@pytest.mark.parametrize("article", ['She said: "We will not go back ... whatever the price."',
                                     'She said: "We will not go back […] whatever the price."',
                                     'She said: "We [the city] will not go back to gas."'])
def test_a_quotation_cut_short_or_with_the_writers_words_in_brackets_is_found_in_parts(article: str) -> None:
    """A journalist's elision and bracketed insertion: each part is the source's, in its order."""
    assert supported(article, QUOTED)


@pytest.mark.parametrize("article", ['She said: "We will go back ... whatever the price."',
                                     'She said: "whatever the price ... we will not go back."',
                                     'She said: "We will not go back ... price."',
                                     'She said: "We [the city] will go back to gas."'])
def test_an_elided_quotation_that_changes_a_part_or_its_order_is_caught(article: str) -> None:
    assert not supported(article, QUOTED)


SIGNED = "* add patches from upstream. -- Carlos Henrique Lima Melara <charles@debian.org>  Mon, 16 Jun 2025 10:00:00 +0200"


@pytest.mark.parametrize("article", ["Carlos Melara added the patches.", "Carlos Lima Melara added the patches."])
def test_a_name_without_its_middle_names_is_found_in_the_full_one(article: str) -> None:
    """A journalist drops middle names: Carlos Melara is the source's Carlos Henrique Lima Melara."""
    assert supported(article, SIGNED)


@pytest.mark.parametrize("article", ["Samuel Melara added the patches.", "Carlos Silva Melara added the patches.",
                                     "Lima Carlos Melara added the patches."])
def test_a_name_with_another_first_or_middle_name_is_caught(article: str) -> None:
    assert not supported(article, SIGNED)


def test_a_chinese_count_with_ge_is_checked_unless_it_counts_the_articles_parts() -> None:
    """五个 test_compress_* 测试 counts the source's five tests (held-out set: 七个 for 五个 went through); 三个方面
    counts the article's own parts, like "three reasons"."""
    source = "Now the five test_compress_* tests should no longer fail."
    assert supported("现在五个 test_compress_* 测试不会再失败。", source)
    assert not supported("现在七个 test_compress_* 测试不会再失败。", source)
    assert [f.text for f in extract_facts("这有三个方面，也有两个原因，两个版本。")] == []


def test_the_eighth_tuning_set_the_held_out_set_of_2026_12_06_has_no_false_alarm() -> None:
    """Tuned on since it was measured held out (37/60 false alarms then, docs/fact-check.md); what it still misses is
    an opening name without a verb of saying, a mislabelled fabrication, a unit the source leaves out, a moved number."""
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / "heldout-2026-12-06.jsonl")
    assert sum(score.honest.values()) == 60 and not score.alarms, score.alarms
    assert len(score.misses) <= 4, score.misses


@pytest.mark.parametrize(("article", "source"), [
    ("A new file starts at 12:00.", "A new file is created each day at noon."),
    ("A new file starts at 12 noon.", 'logger.add("file.log", rotation="12:00")'),
    ("A new file starts at 3 o'clock.", 'logger.add("file.log", rotation="15:00")'),
    ("任务在3点20分开始。", "The job starts at 15:20:00."),
])
def test_a_time_in_words_or_without_its_half_of_the_day_is_found(article: str, source: str) -> None:
    """A source's noon is 12:00; "3 o'clock" and 3点20分 do not say which half of the day, so either is found."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("A new file starts at 13:00.", "A new file is created each day at noon."),
    ("A new file starts at 4 o'clock.", 'logger.add("file.log", rotation="15:00")'),
    ("任务在下午3点20分开始。", "The job starts at 03:20:00."),
    ("每月招收5位学生。", "每年招收5人。"),
])
def test_another_hour_half_of_the_day_or_period_is_caught(article: str, source: str) -> None:
    """A changed hour, an afternoon for a night, and 位 (a person or a bit) still keeps a rate's period."""
    assert not supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("它于8月发布。", "released 2022-08-24"),
    ("它于三月份发布。", "released 2022-03-24"),
    ("它于5月1日发布。", "它于5月1日发布。"),
    ("有100多个文件，500余人参与。", "There are 102 files and 510 people."),
])
def test_a_chinese_month_alone_and_a_figure_with_duo_or_yu_are_read_as_a_reader_would(article: str, source: str) -> None:
    """于8月 is the month of a source's date (as "in August" is not a number 8), a source's yearless 5月1日 holds
    5月1日, and 100多 or 500余 is a hedged figure ("more than 100")."""
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("它于9月发布。", "released 2022-08-24"),
    ("它于5月2日发布。", "它于5月1日发布。"),
    ("有500余人参与。", "There were 610 people."),
    ("持续了四个月。", "It lasted 3 months."),
])
def test_another_month_or_a_hedged_figure_too_far_is_caught(article: str, source: str) -> None:
    assert not supported(article, source)


def test_a_year_first_date_with_slashes_is_a_date() -> None:
    """A source's 2022/08/24 is 2022-08-24 (not the numbers 2022, 8 and 24); another day is caught."""
    assert supported("It shipped on 24 August 2022.", "2022/08/24: release 1.2")
    assert not supported("It shipped on 2022-08-25.", "2022/08/24: release 1.2")


@pytest.mark.parametrize(("article", "source"), [
    ("1.50.11 came out on 3 October 2022.", "1.50.11, 03-10-2022\n1.50.10, 16-09-2022"),
    ("1.50.11 came out on 3 October 2022.", "1.50.11, 03-10-2022"),  # nothing tells the order: either reading
    ("1.50.11 came out on March 10, 2022.", "1.50.11, 03-10-2022"),
    ("1.50.10 came out on 16 September 2022.", "1.50.10, 16-09-2022"),
    ("It came out on 12 December 2025.", "12-25-2022 one\n12-12-2025 two"),
    ("V0.21.2 was released on 26 December 2022.", "26.12.2022 Release V0.21.2"),
    ("10.42 was released on 11 December 2022.", "Version 10.42 11-December-2022"),
    ("10.42 came out on 11 December.", "Version 10.42 11-December-2022"),
    ("1.44.2 was released on 12 July 2022.", "2022.07.12, Version 1.44.2 (Stable)"),
])
def test_a_numeric_date_with_dashes_or_dots_is_a_date(article: str, source: str) -> None:
    assert supported(article, source)


@pytest.mark.parametrize(("article", "source"), [
    ("1.50.11 came out on 4 October 2022.", "1.50.11, 03-10-2022"),
    ("1.50.11 came out on 3 October 2021.", "1.50.11, 03-10-2022"),
    ("1.50.11 came out on 10 March 2022.", "1.50.11, 03-10-2022\n1.50.10, 16-09-2022"),  # the other dates: day first
    ("V0.21.2 was released on 26 December 2023.", "26.12.2022 Release V0.21.2"),
    ("10.42 was released on 12 December 2022.", "Version 10.42 11-December-2022"),
    ("1.44.2 was released on 7 December 2022.", "2022.07.12, Version 1.44.2 (Stable)"),
])
def test_a_wrong_day_or_year_against_a_numeric_date_is_caught(article: str, source: str) -> None:
    assert not supported(article, source)


def test_a_chinese_decimal_percent_is_one_figure() -> None:
    """百分之零点二 is 0.2 % (not 0 % and a 二); 百分之零点三 against 0.2% is caught."""
    assert supported("运行时间减少了百分之零点二。", "contributing to 0.2% less run time")
    assert not supported("运行时间减少了百分之零点三。", "contributing to 0.2% less run time")


def test_an_octet_in_chinese_is_a_term_not_eight_of_anything() -> None:
    assert supported("增加了对构造型定长八位组串的支持。", "added support for constructed definite octet strings.")
    assert not supported("有八位开发者参与。", "added support for constructed definite octet strings.")


def test_a_chinese_count_of_the_articles_own_headings_is_structure() -> None:
    """介绍了两项功能。 followed by two headings counts the article's sections; a count its headings contradict,
    or one with no headings after it, is still checked."""
    source = "You pass price_context explicitly. Batch API requests are cheaper."
    article = "文档介绍了两项与计价相关的功能。\n\n**定价上下文**\n\n显式传入 price_context。\n\n**批量 API**\n\n更便宜。"
    assert supported(article, source)
    assert not supported(article.replace("两项", "三项"), source)
    assert not supported("文档介绍了两项与计价相关的功能。\n\n显式传入 price_context。", source)
    nested = "有两条说明。\n\n## realpath\n\n内容。\n\n### 细节\n\n更多。\n\n## POSIX\n\n内容。"
    assert supported(nested, "realpath notes. POSIX notes.")


@pytest.mark.parametrize(("article", "source", "found"), [
    ("CC0 1.0 Universal 的开头是一段声明。", "CC0 1.0 Universal\n\nStatement of Purpose", True),
    ("加入 Ubuntu 26.04 LTS 的数据。", "    - Add Ubuntu 26.04 LTS (LP: #2126961)", True),
    ("加入 Ubuntu 24.04 LTS 的数据。", "    - Add Ubuntu 26.04 LTS (LP: #2126961)", False),
    ("It was released on Tuesday, October 25, 2022.", "Release 2.5.0 Tue October 25 2022", True),
    ("It was released on Wednesday, October 25, 2022.", "Release 2.5.0 Tue October 25 2022", False),
    ("Under CLI-254, the input no longer breaks.", "o CLI-254:  Input gets parsed as test", True),
    ("Under CLI-255, the input no longer breaks.", "o CLI-254:  Input gets parsed as test", False),
    ("It fixed a hang on AIX and IBM i.", "* aix, ibmi: handle server hang", True),
    ("It fixed a hang on AIX and IBM z.", "* aix, ibmi: handle server hang", False),
])
def test_a_name_with_its_version_weekday_abbreviation_or_glued_form_is_found(article: str, source: str,
                                                                             found: bool) -> None:
    """A product name's version or edition, a weekday's abbreviation (Tue), a sentence opened by a preposition
    (Under CLI-254), and a name the source glues to its next word (IBM i, ibmi) are the source's; others are not."""
    assert supported(article, source) is found


def test_the_numbers_inside_a_sources_quoted_strings_are_evidence() -> None:
    """A message catalog quotes every string: its "dist=NUM (1-256; 1)" still holds 256 and 1; 512 is caught."""
    catalog = 'msgid ""\n"Project-Id-Version: xz 5.4.0-pre1\\n"\nmsgstr ""\n"  dist=NUM   相减的字节之间的距离 (1-256; 1)"'
    assert supported("版本为 xz 5.4.0-pre1，dist 的有效范围为 1 到 256，默认值为 1。", catalog)
    assert not supported("dist 的有效范围为 1 到 512。", catalog)


@pytest.mark.parametrize("article", [
    "项目说明指出，好几个程序里都嵌入了语言列表。",
    "他们拥有组管理员和成员的全部权限。",
])
def test_a_chinese_noun_before_shuoming_or_after_a_title_and_he_is_no_name(article: str) -> None:
    """说 of 说明 is no verb of saying (项目说明指出), and 管理员和成员 is a title and another noun, not 和成员."""
    assert [f for f in extract_facts(article) if f.kind == FactKind.name] == []


def test_a_chinese_name_with_a_verb_of_saying_is_still_checked() -> None:
    assert [f.text for f in extract_facts("张明说，这个版本更快。") if f.kind == FactKind.name] == ["张明"]
    assert [f.text for f in extract_facts("管理员李文华说，这个版本更快。") if f.kind == FactKind.name] == ["李文华"]


def test_a_quotation_of_a_source_sentence_with_a_markdown_link_is_found() -> None:
    source = "tiktoken is a fast [BPE](https://en.wikipedia.org/wiki/Byte_pair_encoding) tokeniser for use with OpenAI's models."
    assert supported('It is "a fast BPE tokeniser for use with OpenAI\'s models".', source)
    assert not supported('It is "a slow BPE tokeniser for use with OpenAI\'s models".', source)
    assert supported("See https://en.wikipedia.org/wiki/Byte_pair_encoding for BPE.", source)


@pytest.mark.parametrize(("name", "alarms", "sourced", "misses"), [
    ("heldout2-2026-12-06.jsonl", 1, 1, 4),   # the ninth tuning set: a sum, the writer's own ('Expat XML' found, round
    # 11; 'just two questions' caught in round 12)
    ("heldout3-2026-12-06.jsonl", 2, 0, 0),  # the tenth tuning set: measured 10 and 3 unseen, lowered as it is tuned
    ("heldout4-2026-12-06.jsonl", 7, 1, 2),  # measured 16 unseen; tuned on in round 11 (docs/fact-check.md): 7
    ("heldout5-2026-12-07.jsonl", 17, 6, 6),  # measured 32 unseen; tuned on in round 11: 17 (docs/fact-check.md)
    ("heldout6-2026-12-07.jsonl", 11, 3, 3),  # measured 18 and 5 unseen; tuned on in round 12 (docs/fact-check.md): 11
    ("heldout7-2026-12-07.jsonl", 9, 4, 3),  # measured 15 (11) unseen after round 12; tuned on in round 13: 9 (4)
    ("heldout8-2026-12-07.jsonl", 4, 4, 2),  # measured 4 unseen; tuned on in round 13: 4, all translated quotations
    ("heldout9-2026-12-07.jsonl", 1, 0, 5),  # measured 7 (6) unseen after round 12; tuned on in round 13: 1 (0)
    ("heldout10-2026-12-07.jsonl", 4, 4, 7),  # tuned on in rounds 14, 15, 17; 13, 13, 8 unseen after round 13
    ("heldout11-2026-12-07.jsonl", 4, 2, 1),  # tuned on in round 15 (docs/fact-check.md); 8, 7, 6 unseen after round 14
    ("heldout12-2026-12-07.jsonl", 4, 0, 1),  # tuned on in round 16; 8, 4, 3 unseen after round 15
    ("heldout13-2026-12-07.jsonl", 5, 1, 6),  # tuned on in round 17; 10, 7, 6 unseen after round 16
    ("heldout14-2026-12-07.jsonl", 16, 4, 7),  # tuned on in round 18; 18, 7, 7 unseen after round 17
    ("heldout15-2026-12-07.jsonl", 5, 0, 8),  # tuned on in round 19; 9, 5, 8 unseen after round 18
])
def test_the_later_held_out_sets_keep_their_measured_figures(name: str, alarms: int, sourced: int,
                                                             misses: int) -> None:
    """A change to the checker may not raise more false alarms, more of them on facts the adjudicator found in the
    sources (``sourced``), or miss more fabrications on these sets than the figures docs/fact-check.md gives."""
    from pathlib import Path

    score = evaluate(Path(__file__).resolve().parent.parent / "data" / "facts" / name)
    assert len(score.alarms) <= alarms, score.alarms
    assert sum(score.sourced_alarms.values()) <= sourced, score.alarms
    assert len(score.misses) <= misses, score.misses


@pytest.mark.parametrize(("article", "found"), [
    ("It was uploaded on the twenty-first of December 2012.", True),
    ("It was uploaded on December the twenty-first, 2012.", True),
    ("It was uploaded on the twenty-third of December 2012.", False),
    ("It was uploaded on the twenty-first of November 2012.", False),
])
def test_a_day_written_as_an_ordinal_word_is_read_as_a_date(article: str, found: bool) -> None:
    """"the twenty-first of December 2012" is 2012-12-21, not the number twenty: found in the source's date, and
    another day (twenty-third) or month is caught as a wrong date."""
    assert supported(article, "-- Raphaël Hertzog  Fri, 21 Dec 2012 14:02:06 +0100") is found


@pytest.mark.parametrize(("article", "found"), [
    ("libffi-3.4.4 于二〇二二年十月二十三日发布。", True),
    ("libffi-3.4.4 于二〇二二年十月二十四日发布。", False),
    ("libffi-3.4.4 于二〇二二年九月二十三日发布。", False),
])
def test_a_chinese_date_with_a_numeral_month_is_read_as_a_date(article: str, found: bool) -> None:
    """二〇二二年十月二十三日 is 2022-10-23 (十月 is a numeral month, not a month's English name): found in "October
    23, 2022", and another day or month is caught."""
    assert supported(article, "libffi-3.4.4 was released on October 23, 2022.") is found


def test_a_documents_possessive_is_no_name() -> None:
    """"The FAQ's fix", "the README's note": a source tree's document with 's is a document still, while a
    capitalised name with 's beside it is checked."""
    source = "Q: Why does bash say event not found? A: Say set +H."
    assert supported("The FAQ's fix is to say set +H.", source)
    assert supported("The README’s note says set +H.", source)
    assert not supported("The FAQ's fix, by Philippe Berger, is to say set +H.", source)


def test_an_identifier_defined_by_a_d_flag_is_the_sources() -> None:
    """cmake -DCBOR_CUSTOM_ALLOC=ON defines CBOR_CUSTOM_ALLOC: the article names the option without the -D; an
    option the source does not define is still caught."""
    source = "cmake -DCMAKE_BUILD_TYPE=Release -DCBOR_CUSTOM_ALLOC=ON libcbor\nmake"
    assert supported("Build it with the CBOR_CUSTOM_ALLOC option switched on.", source)
    assert supported("Build it with CMAKE_BUILD_TYPE set to Release.", source)
    assert not supported("Build it with the CBOR_CUSTOM_FREE option switched on.", source)


@pytest.mark.parametrize(("article", "found"), [
    ("What changed in dconf, from 0.36 to 0.40", True),
    ("Between dconf 0.36 and 0.40 little changed.", True),
    ("What changed in dconf, from 0.34 to 0.40", False),
    ("What changed in dconf, from 0.36 to 0.42", False),
    ("We upgrade from 0.36 to 0.40.", False),
])
def test_a_range_of_versions_after_its_product_is_that_products_series(article: str, found: bool) -> None:
    """"dconf, from 0.36 to 0.40" names dconf 0.36 and 0.40: found in the source's "dconf 0.36.0" and "dconf
    0.40.0", where the source names the product right before them; a version outside them, or a range no product
    names, is caught."""
    source = "Changes in dconf 0.40.0\n=====\n - common: allow use of headers\n\nChanges in dconf 0.36.0\n====\n - none"
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("这两个软件包在上世纪九十年代中期分叉。", True),
    ("这两个软件包在1990年代分叉。", True),
    ("The two packages forked in the 1990s.", True),
    ("这两个软件包在上世纪八十年代中期分叉。", False),
    ("这两个软件包在十九世纪九十年代分叉。", False),
    ("The two packages forked in the 1980s.", False),
    ("这个代码库已有九十年历史。", False),
])
def test_a_decade_is_read_as_a_decade_not_a_count_of_years(article: str, found: bool) -> None:
    """上世纪九十年代 is the mid-1990s' decade, not 九十年 (ninety years): found in it, while another decade or
    century, or ninety years, is caught."""
    assert supported(article, "man and man-db forked from a common code base in the mid-1990s.") is found


@pytest.mark.parametrize(("article", "found"), [
    ("事务发起者以只读属性公开，pkmon 也显示发起者的名称，这两项都由 Matthias Klumpp 完成。", True),
    ("上述两项改动都由 Matthias Klumpp 完成。", True),
    ("这一版包含三项改动，都由 Matthias Klumpp 完成。", False),
])
def test_a_chinese_count_after_zhe_points_back_and_is_no_fact(article: str, found: bool) -> None:
    """这两项 / 上述两项 ("these two") counts what the article has just listed, as "these two" is not checked in
    English; a count without the demonstrative (三项改动) is still checked against the source."""
    source = "Expose the transaction sender on the bus (Matthias Klumpp)\npkmon: show sender binary name (Matthias Klumpp)"
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "names"), [
    ("项目表示非常欢迎各种贡献。", []),
    ("程序员说，这个版本更快。", []),
    ("项明表示非常欢迎各种贡献。", ["项明"]),
    ("程刚指出，这个版本更快。", ["程刚"]),
])
def test_a_common_noun_opening_with_a_surname_before_a_verb_of_saying_is_no_name(article: str,
                                                                                   names: list[str]) -> None:
    """项目表示 (the project says) is no Mr 项 speaking, as "Developers said" is no name; a surname with a given name
    before a verb of saying (项明表示, 程刚指出) is still a name to check."""
    assert [f.text for f in extract_facts(article) if f.kind == FactKind.name] == names


@pytest.mark.parametrize(("article", "names"), [
    ("项目还强调其测试覆盖率达到 100%。", []),
    ("对于依赖 DBI 的项目来说，升级前应先测试。", ["DBI"]),
    ("README 简要介绍了这个库的定位。", []),
    ("它返回本地时区的 IANA 时区名称。", ["IANA"]),
    ("项明还强调其测试覆盖率达到 100%。", ["项明"]),
    ("简明介绍了这个库的定位。", ["简明"]),
    ("时明称此事属实。", ["时明"]),
    ("陈志强称此事属实。", ["陈志强"]),
])
def test_an_adverb_or_a_word_before_a_verb_of_saying_is_no_given_name(article: str, names: list[str]) -> None:
    """Round 13: 还 (also), 来 of 来说, 要 of 简要 stand between a subject and its verb and are no given name (项目还强调 is
    the project stressing, 简要介绍 a brief introduction), and 称 of 名称 (a name) says nothing (时区名称); a surname and
    a given name before a verb of saying (简明介绍, 时明称, 陈志强称) is still a name to check."""
    assert [f.text for f in extract_facts(article) if f.kind == FactKind.name] == names


@pytest.mark.parametrize(("article", "found"), [
    ('什么是"外部函数接口"？FFI 是 Foreign Function Interface（外部函数接口）的缩写。', True),
    ('什么是"外部函数接口"？FFI 即外部函数接口（Foreign Function Interface）。', True),
    ('什么是"外部函数调用"？FFI 是 Foreign Function Interface（外部函数接口）的缩写。', False),
    ('什么是"外部函数接口"？FFI 是 Foreign Function Invocation（外部函数接口）的缩写。', False),
])
def test_a_quoted_chinese_term_the_article_glosses_as_a_source_term_is_found(article: str, found: bool) -> None:
    """A term quoted as a term and glossed by the article as the translation of the source's English term is the
    source's; a quoted term it does not gloss, or one glossing an English term the source lacks, is caught."""
    assert supported(article, "FFI stands for Foreign Function Interface.") is found


@pytest.mark.parametrize(("article", "found"), [
    ("If long is 64 bits, the limit is 16 exabytes.", True),
    ("If long is 64 bits, the limit is 16 EB.", True),
    ("The old limit was 4 gigabytes.", True),
    ("If long is 64 bits, the limit is 16 petabytes.", False),
    ("The old limit was 4 terabytes.", False),
])
def test_byte_units_written_as_words_keep_their_unit(article: str, found: bool) -> None:
    """16 exabytes is 16 EB and 4 gigabytes 4 GB; 16 petabytes or 4 terabytes is a wrong unit, caught."""
    source = 'The 4 GB limit exists only if "long" is 32 bits. If it is 64 bits, then the limit is 16 exabytes.'
    assert supported(article, source) is found


@pytest.mark.parametrize(("article", "found"), [
    ("It includes six production-quality tools: a memory error detector, two thread error detectors, a cache and "
     "branch-prediction profiler, a call-graph generating profiler, and a heap profiler.", True),
    ("It includes seven production-quality tools: a memory error detector, two thread error detectors, a cache and "
     "branch-prediction profiler, a call-graph generating profiler, and a heap profiler.", False),
])
def test_an_and_inside_a_comma_separated_item_does_not_split_the_list(article: str, found: bool) -> None:
    """"a cache and branch-prediction profiler, ..., and a heap profiler" is one item then the last: a count of the
    list is not taken for the count of items split at every "and", so a changed count (seven) is still checked."""
    source = "Valgrind currently includes six production-quality tools: a memory error detector, two thread error detectors."
    assert supported(article, source) is found
