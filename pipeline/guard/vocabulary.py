"""Claim vocabularies for tools factline never ran, derived from each tool's name and description.

A tool's name says what it does: a verb and an object (``cancel_reservation``, ``sendCertificate``,
``transfer-to-human-agents``). The verb gives the words of its completion ("cancelled", "取消"), the
object the words it is said of ("reservation", "booking", "预订"); together they make a
``capabilities.base.Claims``, the same plain data factline's own capabilities declare, read by the same
reader (pipeline.guard.claims.vocabulary_rules). When the name holds no known verb, the description's
first one is taken ("Books a flight for the user." -> book).

    cancel_reservation -> en_done: "cancelled … reservation|booking", "reservation|booking … (has been) cancelled"
                          en_nouns: cancellation        zh_verbs: 取消, 撤销       keys: cancellation, cancelled

Tools that only read (get, search, list, find, check, calculate, think ...) change nothing, and text
saying they ran ("I found two flights") asserts no action: they get no vocabulary unless a catalog
file gives them one. A catalog file (JSON, ``{"tool": {"en_done": [...], "zh_verbs": [...], ...}}``,
the fields of Claims) adds words to the derived ones; ``{"tool": {"replace": true, ...}}`` replaces them.

Two tools whose names share verb and object (update_reservation_flights, update_reservation_baggages,
both "updated … reservation") form a family: text that says "your reservation was updated" claims one
of them, and a successful call of any of them backs it (``families``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from capabilities.base import Claims


@dataclass(frozen=True)
class Verb:
    done: tuple[str, ...]  # past participles, claiming with the object: "cancelled your reservation"
    nouns: tuple[str, ...] = ()  # the action as a noun, claiming with a predicate: "the cancellation went through"
    zh: tuple[str, ...] = ()  # Chinese verbs, claiming with 已/成功/了
    passive: tuple[str, ...] = ()  # participles that claim only as "object … has been X" ("booking confirmed")


VERBS: dict[str, Verb] = {
    "cancel": Verb(("cancell?ed", "canceled", "voided", "revoked"), ("cancell?ation",), ("取消", "撤销", "退订")),
    "book": Verb(("booked", "re-?booked", "reserved"), ("booking",), ("预订", "预定", "订好", "订票", "订了"), ("confirmed", "made")),
    "reserve": Verb(("reserved", "booked", "re-?booked"), ("reservation",), ("预订", "预定", "预留")),
    "update": Verb(("updated", "changed", "modified", "upgraded", "downgraded", "added", "amended", "adjusted"),
                   ("update", "change", "modification", "upgrade", "downgrade"),
                   ("更新", "修改", "更改", "改签", "调整", "添加", "升级")),
    "modify": Verb(("modified", "changed", "updated"), ("modification", "change"), ("修改", "更改", "更新")),
    "change": Verb(("changed", "updated", "modified"), ("change",), ("更改", "修改", "改签")),
    "edit": Verb(("edited", "updated", "changed"), ("edit",), ("编辑", "修改")),
    "set": Verb(("set", "updated", "changed"), (), ("设置", "设定")),
    "add": Verb(("added",), ("addition",), ("添加", "加上", "增加")),
    "create": Verb(("created", "made", "opened", "set up"), ("creation",), ("创建", "新建", "建立")),
    "open": Verb(("opened", "created"), (), ("打开", "开立", "创建")),
    "close": Verb(("closed",), ("closure",), ("关闭",)),
    "delete": Verb(("deleted", "removed", "erased"), ("deletion", "removal"), ("删除", "删掉", "移除")),
    "remove": Verb(("removed", "deleted"), ("removal",), ("移除", "删除")),
    "send": Verb(("sent", "issued", "provided", "credited", "emailed", "delivered"), (), ("发送", "发放", "发出", "发给", "寄出")),
    "issue": Verb(("issued", "re-?issued", "sent", "provided"), ("issuance",), ("发放", "签发", "开具")),
    "email": Verb(("emailed", "sent"), (), ("发送", "发邮件")),
    "notify": Verb(("notified", "informed"), ("notification",), ("通知",)),
    "transfer": Verb(("transferred", "connected", "escalated", "handed (?:you )?over", "routed"), ("transfer",),
                     ("转接", "转给", "转交", "转到")),
    "escalate": Verb(("escalated", "transferred"), ("escalation",), ("升级", "转交")),
    "refund": Verb(("refunded",), ("refund",), ("退款", "退还", "退回")),
    "pay": Verb(("paid", "charged"), ("payment",), ("支付", "付款", "扣款")),
    "charge": Verb(("charged", "billed"), ("charge",), ("扣款", "收费")),
    "submit": Verb(("submitted", "filed", "sent"), ("submission",), ("提交", "递交")),
    "approve": Verb(("approved",), ("approval",), ("批准", "审批", "通过")),
    "reject": Verb(("rejected", "declined"), ("rejection",), ("驳回", "拒绝")),
    "publish": Verb(("published", "posted"), ("publication", "publishing"), ("发布", "发表", "上线")),
    "post": Verb(("posted", "published"), (), ("发布", "发帖", "发表")),
    "register": Verb(("registered", "recorded", "logged"), ("registration",), ("登记", "注册", "备案")),
    "schedule": Verb(("scheduled", "re-?scheduled", "booked", "arranged"), ("scheduling",), ("安排", "预约")),
    "assign": Verb(("assigned", "allocated"), ("assignment",), ("分配", "指派")),
    "upgrade": Verb(("upgraded",), ("upgrade",), ("升级",)),
    "exchange": Verb(("exchanged", "swapped", "replaced"), ("exchange",), ("换货", "更换", "调换")),
    "return": Verb(("returned",), ("return",), ("退货", "退回")),
    "write": Verb(("written", "wrote", "saved"), (), ("写入", "写好", "保存")),
    "save": Verb(("saved", "stored"), (), ("保存", "存储")),
    "deploy": Verb(("deployed", "released", "shipped"), ("deployment", "release"), ("部署", "发布上线")),
    "merge": Verb(("merged",), ("merge",), ("合并",)),
    "reset": Verb(("reset",), ("reset",), ("重置",)),
    "enable": Verb(("enabled", "activated", "turned on"), ("activation",), ("启用", "开启", "激活")),
    "disable": Verb(("disabled", "deactivated", "turned off"), ("deactivation",), ("禁用", "关闭", "停用")),
    "activate": Verb(("activated", "enabled"), ("activation",), ("激活", "启用")),
    "suspend": Verb(("suspended", "paused", "frozen"), ("suspension",), ("暂停", "冻结")),
    "grant": Verb(("granted", "given"), (), ("授予", "授权")),
    "revoke": Verb(("revoked", "withdrawn"), ("revocation",), ("撤销", "吊销")),
    "apply": Verb(("applied",), ("application",), ("应用", "申请")),
    "place": Verb(("placed", "submitted"), (), ("下单", "提交")),
    "order": Verb(("ordered", "placed"), ("order",), ("下单", "订购")),
    "run": Verb(("ran", "executed", "run"), ("execution",), ("运行", "执行")),
    "execute": Verb(("executed", "ran", "run"), ("execution",), ("执行", "运行")),
    "start": Verb(("started", "launched"), ("start",), ("启动", "开始")),
    "stop": Verb(("stopped", "halted"), (), ("停止", "终止")),
    "restart": Verb(("restarted", "rebooted"), ("restart",), ("重启",)),
    "upload": Verb(("uploaded",), ("upload",), ("上传",)),
    "download": Verb(("downloaded",), ("download",), ("下载",)),
    "move": Verb(("moved", "relocated"), ("move",), ("移动", "迁移")),
    "rename": Verb(("renamed",), (), ("重命名", "改名")),
    "share": Verb(("shared",), (), ("分享", "共享")),
    "invite": Verb(("invited",), ("invitation",), ("邀请",)),
    "confirm": Verb(("confirmed",), ("confirmation",), ("确认",)),
    "mark": Verb(("marked", "flagged"), (), ("标记",)),
    "commit": Verb(("committed",), ("commit",), ("提交",)),
}
# verbs that only read: no action to claim (a catalog file may still give such a tool words)
READ_ONLY = frozenset({
    "get", "search", "list", "find", "lookup", "look", "check", "calculate", "compute", "think", "fetch", "read",
    "query", "view", "show", "describe", "count", "validate", "verify", "estimate", "retrieve", "browse", "inspect",
    "explore", "load", "parse", "summarize", "analyze", "analyse", "lookup", "preview", "ping", "echo", "help",
})
# an object's synonyms (English, a regex fragment each) and its Chinese nouns
OBJECTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "reservation": (("reservations?", "bookings?", "trip", "itinerary", "tickets?"), ("预订", "订单", "行程", "机票")),
    "booking": (("bookings?", "reservations?", "trip", "tickets?"), ("预订", "订单", "行程")),
    "flight": (("flights?", "itinerary", "segments?", "legs?", "cabin", "(?:business|economy|first) class", "class"),
               ("航班", "行程", "舱位")),
    "baggage": (("bags?", "baggages?", "luggage", "checked bags?", "suitcases?"), ("行李", "托运")),
    "passenger": (("passengers?", "travell?ers?", "names?", "passenger details"), ("乘客", "旅客", "乘机人")),
    "certificate": (("certificates?", "vouchers?", "compensation", "credits?", "gift cards?"), ("代金券", "证书", "优惠券", "补偿")),
    "agent": (("agents?", "human agents?", "representatives?", "specialists?", "support team", "colleagues?", "humans?"), ("人工客服", "客服", "人工")),
    "order": (("orders?",), ("订单",)),
    "item": (("items?", "products?"), ("商品", "物品")),
    "address": (("address(?:es)?",), ("地址",)),
    "payment": (("payments?", "payment methods?"), ("付款", "支付")),
    "user": (("users?", "accounts?", "profiles?"), ("用户", "账户", "账号")),
    "account": (("accounts?", "profiles?"), ("账户", "账号")),
    "email": (("emails?", "messages?", "e-mails?"), ("邮件",)),
    "message": (("messages?",), ("消息", "信息")),
    "ticket": (("tickets?", "cases?", "requests?"), ("工单", "票")),
    "refund": (("refunds?",), ("退款",)),
    "file": (("files?", "documents?"), ("文件",)),
    "article": (("articles?", "posts?", "pages?"), ("文章",)),
    "meeting": (("meetings?", "appointments?", "events?"), ("会议", "预约")),
    "appointment": (("appointments?", "meetings?"), ("预约",)),
    "subscription": (("subscriptions?", "plans?"), ("订阅",)),
    "issue": (("issues?", "tickets?"), ("问题", "工单")),
}
# an active claim has a subject or an auxiliary ("I've cancelled your booking"); "canceled reservations" is a noun phrase
_SUBJECT = r"I|we|I've|we've|I have|we have|have|has|had|been|successfully|just|also|already"
_IRREGULAR_SINGULAR = {"baggages": "baggage", "addresses": "address", "statuses": "status"}
_FILLER = frozenset({"to", "a", "an", "the", "for", "of", "on", "in", "by", "with", "and", "all", "new", "my", "user", "s"})


def _words(name: str) -> list[str]:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


def _singular(word: str) -> str:
    if word in _IRREGULAR_SINGULAR:
        return _IRREGULAR_SINGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _verb_of(name: str, description: str) -> tuple[str | None, list[str]]:
    words = _words(name)
    if words and (words[0] in VERBS or words[0] in READ_ONLY):
        return words[0], words[1:]
    for word in _words(description)[:12]:  # "Books a flight ..." / "Cancel the whole reservation"
        stem = word[:-1] if word.endswith("s") and word[:-1] in VERBS else word
        if stem in VERBS or stem in READ_ONLY:
            return stem, words
    return None, words


def objects(name: str, description: str = "") -> tuple[str, ...]:
    """The object words of a tool's name, singular: cancel_reservation -> (reservation,)."""
    _, rest = _verb_of(name, description)
    return tuple(_singular(w) for w in rest if w not in _FILLER)


def specific_object(name: str, description: str = "") -> re.Pattern[str] | None:
    """The words of what sets a tool apart from its family: update_reservation_baggages -> bags, luggage, ..."""
    parsed = _parse(name, description)
    if parsed is None or len(parsed[1]) < 2:
        return None
    words = [w for o in parsed[1][1:] for w in _synonyms(o)]
    return re.compile(r"(?<![A-Za-z])(?:" + "|".join(words) + r")(?![A-Za-z])", re.IGNORECASE)


def _forms(verb: Verb, en_objects: list[str]) -> tuple[str, ...]:
    """Active (with a subject or auxiliary) and passive (with a form of be) completion forms of verb + object."""
    obj_re = "|".join(dict.fromkeys(en_objects))
    done = "|".join(verb.done)
    passive = "|".join((*verb.done, *verb.passive))
    return (
        rf"(?:{_SUBJECT}) (?:(?:successfully|just|also|already|now) )?(?:{done})(?: (?:it|them|you|this|that))?"
        rf"[^.;:!?\n|]{{0,40}}?(?<![A-Za-z])(?:{obj_re})",
        rf"(?:{obj_re})(?![A-Za-z])[^.,;:!?\n|]{{0,60}}?(?:has|have|had)? ?(?:been|was|were|is|are|got) (?:now )?"
        rf"(?:(?:successfully|also|all|fully|already) )?(?:{passive})",
        rf"(?:{obj_re}) (?:(?:successfully|now) )?(?:{passive})(?= *(?:[.!,;\n]|$))",
    )


def _agentive(verb: Verb) -> tuple[str, ...]:
    """'… has been successfully booked', whatever the subject: success marks an action done, not a state."""
    return (rf"(?:has|have|had) been successfully (?:{'|'.join(verb.done)})|(?:was|were) successfully (?:{'|'.join(verb.done)})",)


def _synonyms(obj: str) -> tuple[str, ...]:
    return OBJECTS.get(obj, ((re.escape(obj) + "s?",), ()))[0]


def _verb_parts(verb: Verb) -> dict[str, tuple[str, ...]]:
    """What names the action without its object: Chinese verbs, action nouns, status keys."""
    keys = (*(n for n in verb.nouns if "?" not in n), *verb.done[:1]) if verb.nouns else ()
    return {"zh_verbs": verb.zh, "en_nouns": tuple(f"{n}s?" for n in verb.nouns), "keys": keys}


def _parse(name: str, description: str) -> tuple[str, list[str]] | None:
    verb_name, rest = _verb_of(name, description)
    if verb_name is None or verb_name in READ_ONLY:
        return None
    return verb_name, [_singular(w) for w in rest if w not in _FILLER] or ["it"]


def derive(name: str, description: str = "") -> Claims:
    """The claim vocabulary of one tool alone, from its name (and its description when the name has no verb)."""
    parsed = _parse(name, description)
    if parsed is None:
        return Claims()
    verb = VERBS[parsed[0]]
    return Claims(en_done=(*_forms(verb, [s for o in parsed[1] for s in _synonyms(o)]), *_agentive(verb)),
                  **_verb_parts(verb))


@dataclass(frozen=True)
class ToolVocabulary:
    """The vocabularies of one set of tools, and which tools back each other's claims.

    A claim is read as one tool's or as a group's: ``update_reservation_*`` holds what names the action
    without its specific object ("your reservation was updated", 已更新), and any tool of the group backs it.
    """

    claims: dict[str, Claims]
    families: dict[str, frozenset[str]]


def _group_name(names: list[str]) -> str:
    prefix = names[0]
    for name in names[1:]:
        while not name.startswith(prefix):
            prefix = prefix[:-1]
    return prefix.rstrip("_-") + "_*" if prefix.strip("_-") else " | ".join(names)


def _derive_all(tools: dict[str, str]) -> tuple[dict[str, Claims], dict[str, frozenset[str]]]:
    """Each tool's own words; tools sharing verb and first object (update_reservation_flights/_baggages) share a group."""
    parsed = {name: p for name, description in tools.items() if (p := _parse(name, description))}
    groups: dict[tuple[str, str], list[str]] = {}
    for name, (verb_name, objects) in parsed.items():
        groups.setdefault((verb_name, objects[0]), []).append(name)
    claims: dict[str, Claims] = {}
    families: dict[str, frozenset[str]] = {}
    for (verb_name, generic), names in groups.items():
        if len(names) == 1:
            claims[names[0]] = derive(names[0], tools[names[0]])
            continue
        verb = VERBS[verb_name]
        for name in names:  # its own words: its specific object ("bags have been added")
            own = parsed[name][1][1:] or parsed[name][1]
            claims[name] = Claims(en_done=_forms(verb, [s for o in own for s in _synonyms(o)]))
        group = _group_name(names)
        claims[group] = Claims(en_done=(*_forms(verb, list(_synonyms(generic))), *_agentive(verb)), **_verb_parts(verb))
        families[group] = frozenset(names)
    return claims, families


def vocabulary(tools: Iterable[tuple[str, str]], catalog: Mapping[str, Mapping[str, Any]] | None = None) -> ToolVocabulary:
    """Derived vocabularies for ``tools`` ((name, description) pairs), with a catalog file's entries applied."""
    claims, families = _derive_all(dict(tools))
    for name, entry in (catalog or {}).items():
        claims[name] = _apply(claims.get(name, Claims()), entry)
    families.update({name: frozenset({name}) for name in claims if name not in families})
    return ToolVocabulary({n: c for n, c in claims.items() if _has_words(c)}, families)


def _has_words(claims: Claims) -> bool:
    return any(getattr(claims, f.name) for f in fields(claims))


def _apply(base: Claims, entry: Mapping[str, Any]) -> Claims:
    start = Claims() if entry.get("replace") else base
    extra = {f.name: (*getattr(start, f.name), *entry.get(f.name, ())) for f in fields(Claims)}
    return replace(start, **extra)


class CatalogError(ValueError):
    """A catalog file that cannot be used: the message names the file and what is wrong, in one line."""


def load_catalog(path: Path) -> dict[str, dict[str, Any]]:
    """A catalog file: {tool: {zh_verbs, zh_nouns, en_done, en_nouns, keys: [regex fragments], replace: bool}}."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CatalogError(f"catalog {path}: {exc}") from exc
    allowed = {f.name for f in fields(Claims)} | {"replace"}
    if not isinstance(data, dict):
        raise CatalogError(f"catalog {path}: expected an object of tools, got {type(data).__name__}")
    for tool, entry in data.items():
        if not isinstance(entry, dict) or set(entry) - allowed:
            raise CatalogError(f"catalog {path}: tool {tool!r}: expected an object with keys from {sorted(allowed)}")
        for key, words in entry.items():
            if key == "replace":
                continue
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise CatalogError(f"catalog {path}: tool {tool!r}: {key} must be a list of strings")
            for word in words:
                try:
                    re.compile(word)
                except re.error as exc:
                    raise CatalogError(f"catalog {path}: tool {tool!r}: {key} {word!r}: {exc}") from exc
    return data
