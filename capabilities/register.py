"""register: register a verified publication; the number CT-YYYYMMDD-NNN is made by code, never by the model.

The publication's URL is HEAD-checked again right before registering: a post removed since it was
published is refused, and so is one on a host outside the whitelist.
"""

from __future__ import annotations

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, StrictArgs, ToolResult
from capabilities.errors import ToolRejected
from capabilities.verify import head_check


class RegisterArgs(StrictArgs):
    publication_id: int = Field(ge=1)


class Register(Capability[RegisterArgs]):
    name = "register"
    description = "Register a publication of this run's topic after checking it is online. Returns the registration number."
    Args = RegisterArgs

    def validate(self, ctx: CapabilityContext, args: RegisterArgs) -> None:
        publication = ctx.store.publication(args.publication_id)
        if publication is None:
            raise ToolRejected(f"publication {args.publication_id} does not exist", hallucinated_argument=True)
        topic = ctx.store.topic_for_run()
        if topic is None or publication.topic_id != topic.id:
            raise ToolRejected(
                f"publication {args.publication_id} is not of this run's topic", hallucinated_argument=True
            )
        if ctx.store.registration_for(publication.id) is not None:
            return  # already registered: execute() returns the recorded number
        head = head_check(ctx.http, publication.url, ctx.settings.publish_domain_whitelist)
        ctx.store.record_head(publication.id, head.status, head.verified)
        if not head.verified:
            raise ToolRejected(f"publication {publication.id} is not verified online: {head.reason}")

    def idempotency_key(self, ctx: CapabilityContext, args: RegisterArgs) -> str:
        return f"register:publication-{args.publication_id}"

    def execute(self, ctx: CapabilityContext, args: RegisterArgs) -> ToolResult:
        registration = ctx.store.registration_for(args.publication_id)
        replayed = registration is not None
        if registration is None:
            registration = ctx.store.add_registration(args.publication_id)
        payload = {"registration_number": registration.number, "publication_id": args.publication_id, "replayed": replayed}
        return ToolResult(payload, f"registered {registration.number}")


CAPABILITY = Register()
