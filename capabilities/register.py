"""register: register a verified publication; the number CT-YYYYMMDD-NNN is made by code, never by the model.

The publication's page is checked again right before registering (capabilities.verify, as publish does):
a post removed, cut short or replaced since it was published is refused with what its page holds
("page holds 61% of the article"), and so is one on a host outside the whitelist. A publication registered
before (by an earlier attempt or run) is answered with its recorded number, without a new check.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field

from capabilities.base import (Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult,
                               require_own)
from capabilities.errors import ToolRejected
from capabilities.records import PublicationRecord
from capabilities.verify import verify_publication


class RegisterArgs(StrictArgs):
    publication_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class RegisterPlan(Prepared[RegisterArgs]):
    publication: PublicationRecord


class Register(Capability[RegisterArgs, RegisterPlan]):
    name = "register"
    description = "Register a publication of this run's topic after checking it is online. Returns the registration number."
    Args = RegisterArgs
    inputs = {"publication_id": "publish.publication_id"}
    probe_task = "Register publication 12."
    lookalike = "register_item"
    claims = Claims(
        zh_verbs=("登记入账", "登记", "入账", "写入台账", "记入台账", "录入台账", "记账", "注册", "备案", "录入", "入册",
                  "分配了登记编号", "分配了登记号",
                  # on record: 登记处已经有这篇文章的记录了, 台账里有了记录
                  r"(?<![没无])有了?(?:[^,:;。!?\n]{0,12}?的)?(?:登记|备案)?记录"),
        zh_nouns=("台账", "登记", "登记号", "登记编号"),
        en_done=("registered", r"(?:logged|recorded|entered|written|added)(?: (?:it|this|that|the [\w-]+|[\w-]+))? (?:in|into|to) the ledger",
                 r"(?:logged|recorded|entered|listed|filed)(?: (?:it|this|that|the [\w-]+|[\w-]+))? (?:in|into|on) the regist(?:ry|er)",
                 r"(?:is|are|was|now) (?:now )?on (?:the )?record", r"(?:registration )?number (?:has been|was|is) (?:now )?assigned",
                 r"(?:has been|was) assigned a (?:registration )?number"),
        en_nouns=("registration", "register", "ledger entry"),
        keys=("registration number", "registration no", "registration id", "registration", "registered", "register",
              "ledger entry", "登记号", "登记编号", "台账编号", "登记状态", "是否登记", "登记", "编号", "注册", "注册号"),
    )
    evidence = EvidenceFields(registrations=("registration_number",))
    side_effect = True

    def prepare(self, ctx: CapabilityContext, args: RegisterArgs) -> RegisterPlan:
        topic = ctx.store.topic_for_run()
        publication = require_own(ctx.store.publication(args.publication_id), f"publication {args.publication_id}",
                                  lambda p: topic is not None and p.topic_id == topic.id, "is not of this run's topic")
        return RegisterPlan(args=args, key=f"register:publication-{publication.id}", publication=publication)

    def execute(self, ctx: CapabilityContext, prepared: RegisterPlan) -> ToolResult:
        publication = prepared.publication
        registration = ctx.store.registration_for(publication.id)
        replayed = registration is not None
        if registration is None:
            version = ctx.store.draft_version(publication.draft_version_id)
            assert version is not None  # a publication always has the draft version it published
            checked = verify_publication(ctx, publication, version)
            if checked.verified_at is None:
                raise ToolRejected(f"publication {publication.id} is not verified: {checked.content_found}")
            registration = ctx.store.add_registration(publication.id)
        payload = {"registration_number": registration.number, "publication_id": publication.id, "replayed": replayed}
        return ToolResult(payload, f"registered {registration.number}")


CAPABILITY = Register()
