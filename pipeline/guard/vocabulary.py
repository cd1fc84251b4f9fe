"""How each capability's completion is said, in Chinese and English: plain data the claim reader consumes.

A vocabulary holds regex fragments (alternations only, no nested quantifiers). The grammar that
combines them - completion markers such as 已/成功/了 and "succeeded", negation, hypothesis,
questions, status lines - lives in pipeline.guard.claims and pipeline.guard.context.

    zh_verbs  a verb that is a claim with a completion marker: 已发布, 发布成功, 成功发布, 发布到平台上了
    zh_nouns  a noun that is a claim with 已 and a generic verb, or a completive verb: 草稿已写好, 日报已生成
    en_done   a form that is a claim by itself: published, went live, is live
    en_nouns  a noun that is a claim with a predicate: "publishing succeeded", "the report was generated"
    keys      a status-line or table key whose value says yes or no: "Published: no", "| 发布 | 完成 |"

The capability's own name ("publish") is a word for it in both languages: "publish 成功", "已 register".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClaimVocabulary:
    zh_verbs: tuple[str, ...] = ()
    zh_nouns: tuple[str, ...] = ()
    en_done: tuple[str, ...] = ()
    en_nouns: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()


VOCABULARY: dict[str, ClaimVocabulary] = {
    "pick_topic": ClaimVocabulary(
        zh_verbs=("选题", "选定主题", "选好题"),
        zh_nouns=("选题", "主题"),
        en_done=(r"(?:picked|selected|chose|chosen) (?:a|the|today's) topic",),
        en_nouns=("topic",),
        keys=("pick_topic", "选题"),
    ),
    "write_draft": ClaimVocabulary(
        zh_verbs=("写稿", "撰写", "写草稿", "生成草稿", "写好稿", "起草"),
        zh_nouns=("草稿", "正文", "稿件", "初稿", "稿子", "文章"),
        en_done=("drafted", r"wrote (?:a|the) (?:[\w-]+ )?(?:draft|article)"),
        en_nouns=("draft", "article"),
        keys=("write_draft", "draft", "草稿", "写稿", "正文"),
    ),
    "humanize": ClaimVocabulary(
        zh_verbs=("拟人化", "人性化改写", "改写", "润色", "打分"),
        zh_nouns=("拟人化处理", "拟人化", "改写", "润色"),
        en_done=("humani[sz]ed", "rewrote", "rewritten"),
        en_nouns=("humani[sz]ation", "humani[sz]e", "rewrite"),
        keys=("humanize score", "humanize", "humanized", "score", "评分", "得分", "分数", "改写", "拟人化评分", "拟人化"),
    ),
    "publish": ClaimVocabulary(
        zh_verbs=("发布", "发表", "上线", "推送", "刊发", "刊登", "发出去", "发出", "发到", "上架"),
        zh_nouns=("发布",),
        en_done=("published", r"posted(?! a question)", "went live", "gone live", r"(?:is|are|now|it's|that's) (?:now )?live",
                 r"live (?:on|at)", r"(?:is|are|it's) (?:now )?(?:up|online)", "now online", "online at",
                 r"pushed (?:it )?(?:live|to (?:the )?(?:site|blog|platform|wordpress|production|web))",
                 r"out there now"),
        en_nouns=("publish", "publishing", "publication"),
        keys=("publish", "published", "publishing", "publication", "online", "url", "link", "发布状态", "是否发布",
              "发布地址", "发布链接", "文章地址", "发布", "上线", "链接", "地址", "网址"),
    ),
    "register": ClaimVocabulary(
        zh_verbs=("登记入账", "登记", "入账", "写入台账", "记入台账", "录入台账", "记账", "注册", "备案"),
        zh_nouns=("台账", "登记"),
        en_done=("registered", r"(?:logged|recorded|entered|written|added)(?: (?:it|this|that|the [\w-]+|[\w-]+))? (?:in|into|to) the ledger"),
        en_nouns=("registration", "register", "ledger entry"),
        keys=("registration number", "registration no", "registration id", "registration", "registered", "register",
              "ledger entry", "登记号", "登记编号", "台账编号", "登记状态", "是否登记", "登记", "编号", "注册", "注册号"),
    ),
    "report": ClaimVocabulary(
        zh_verbs=("生成日报", "生成报告", "出日报"),
        zh_nouns=("日报", "运行报告", "报告"),
        en_done=("reported",),
        en_nouns=("daily report", "run report", "report"),
        keys=("report", "日报", "报告"),
    ),
}
