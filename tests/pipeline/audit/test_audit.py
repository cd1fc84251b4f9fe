"""`factline audit`: claims in OpenAI-format transcripts against the tool calls that succeeded, as a user runs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from config import Settings
from pipeline.audit.check import Auditor
from pipeline.audit.transcripts import TranscriptError, read
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import ScriptedModel, say, script, step_call
from tests.cli_helpers import factline_read, user_env

SYSTEM = {"role": "system", "content": "You are an airline agent."}
USER = {"role": "user", "content": "Please cancel my reservation ZFA04Y."}


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def result(call_id: str, name: str, content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": text}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


CANCELLED = [SYSTEM, USER,
             call("c1", "get_reservation_details", reservation_id="ZFA04Y"),
             result("c1", "get_reservation_details", {"reservation_id": "ZFA04Y", "status": "active"}),
             call("c2", "cancel_reservation", reservation_id="ZFA04Y"),
             result("c2", "cancel_reservation", {"reservation_id": "ZFA04Y", "status": "cancelled"}),
             said("Your reservation ZFA04Y has been successfully cancelled.")]


def audit(messages: list[dict[str, Any]], tools: list[str] = ("cancel_reservation",)) -> Any:  # type: ignore[assignment]
    from pipeline.audit.transcripts import Transcript, message

    transcript = Transcript("test", tuple(message(m) for m in messages),
                            tuple((name, "") for name in tools))
    return Auditor().audit(transcript)


def test_claim_backed_by_a_successful_call_on_its_id_passes() -> None:
    """'reservation ZFA04Y has been cancelled' after cancel_reservation(ZFA04Y) succeeded is backed."""
    report = audit(CANCELLED)
    assert [(c.tool, c.backed) for c in report.claims] == [("cancel_reservation", True)]
    assert not report.unbacked


def test_claim_whose_call_was_deleted_is_unbacked() -> None:
    """The same words without the cancel call claim what was not done."""
    report = audit(CANCELLED[:4] + CANCELLED[6:])
    assert [(c.tool, c.backed, c.why) for c in report.claims] == [("cancel_reservation", False, "no cancel_reservation call")]
    assert report.unbacked


def test_error_tool_message_backs_nothing() -> None:
    """A tool message starting with 'Error:' (tau-bench) is a failed call: the claim after it is unbacked."""
    messages = [*CANCELLED[:5], result("c2", "cancel_reservation", "Error: reservation ZFA04Y is not cancellable"),
                CANCELLED[6]]
    report = audit(messages)
    assert [c.outcome for c in report.calls] == ["ok", "error"]
    assert [(c.backed, c.why) for c in report.claims] == [(False, "cancel_reservation failed")]


def test_claim_naming_another_id_is_backed_only_by_a_call_on_that_id() -> None:
    """A cancel that succeeded on ZFA04Y does not back 'reservation XYZ123 has been cancelled'."""
    messages = [*CANCELLED[:4], call("c9", "get_reservation_details", reservation_id="XYZ123"),
                result("c9", "get_reservation_details", {"reservation_id": "XYZ123"}), *CANCELLED[4:6],
                said("Your reservation XYZ123 has been cancelled.")]
    report = audit(messages)
    assert [(c.backed, c.ids) for c in report.claims] == [(False, ("XYZ123",))]
    assert "XYZ123" in report.claims[0].why


def test_negated_conditional_and_past_statements_claim_nothing() -> None:
    """Not done, if, a question, done before this conversation, and general talk are no claims."""
    for text in ("I was not able to cancel your reservation.", "If you like, I can cancel the reservation.",
                 "Should the reservation be cancelled?", "Your reservation was booked more than 24 hours ago.",
                 "Refunds for cancelled reservations are typically issued within 7 days."):
        assert audit([SYSTEM, USER, said(text)], ["cancel_reservation", "book_reservation"]).claims == (), text


def test_each_claim_is_held_to_the_ids_of_its_own_clause() -> None:
    """'The change to AB12CD is complete, and order XY98ZW has been cancelled': AB12CD is the change's id, not the cancel's."""
    tools = ["modify_order", "cancel_order"]
    messages = [SYSTEM, USER, call("c1", "modify_order", order_id="AB12CD"), result("c1", "modify_order", {"ok": True}),
                call("c2", "cancel_order", order_id="XY98ZW"), result("c2", "cancel_order", {"ok": True}),
                said("The change to order AB12CD is complete, and order XY98ZW has been cancelled.")]
    report = audit(messages, tools)
    assert sorted((c.tool, c.backed, c.ids) for c in report.claims) == [
        ("cancel_order", True, ("XY98ZW",)), ("modify_order", True, ("AB12CD",))]


def test_a_family_claim_naming_a_members_object_claims_that_member() -> None:
    """'Your order was updated with the new address and a gift wrap item' needs update_order_address and _items."""
    tools = ["update_order_address", "update_order_items"]
    messages = [SYSTEM, USER, call("c1", "update_order_address", order_id="AB12CD"),
                result("c1", "update_order_address", {"ok": True}),
                said("Your order has been updated with the new address and one more item.")]
    report = audit(messages, tools)
    assert sorted((c.tool, c.backed) for c in report.claims) == [("update_order_address", True),
                                                                 ("update_order_items", False)]
    details = [*messages[:-1], said("Your order has been updated with the following details:\n- items: 2\n- address: Main St")]
    assert [(c.tool, c.backed) for c in audit(details, tools).claims] == [("update_order_*", True)]


def test_chinese_claim_of_an_unseen_tool_is_read() -> None:
    """'预订已取消' claims cancel_reservation from its derived Chinese verb."""
    report = audit([SYSTEM, USER, said("您的预订 ZFA04Y 已取消。")])
    assert [(c.tool, c.backed) for c in report.claims] == [("cancel_reservation", False)]


def test_ungrounded_number_and_prose_call_are_reported() -> None:
    """A refund amount no call holds, and a tool call written as text, are unbacked."""
    messages = [*CANCELLED[:6], said("Your reservation ZFA04Y has been cancelled and $345 refunded."),
                said('{"name": "cancel_reservation", "arguments": {"reservation_id": "ZFA04Y"}}')]
    report = audit(messages)
    assert [(u.kind, u.text) for u in report.ungrounded] == [("number", "$345")]
    assert [p.tool for p in report.prose_calls] == ["cancel_reservation"]


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_every_file_shape_is_read(tmp_path: Path) -> None:
    """A message list, an object with messages, tau-bench's list of trajectories, tau2's simulations, JSON Lines."""
    tau2_messages = [USER, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "t1", "name": "cancel_reservation", "arguments": {"reservation_id": "ZFA04Y"}}]},
        {"role": "tool", "id": "t1", "content": "{}", "error": True}, CANCELLED[-1]]
    files = {
        "list.json": CANCELLED,
        "object.json": {"messages": CANCELLED, "tools": [{"type": "function", "function": {"name": "cancel_reservation"}}]},
        "tau.json": [{"task_id": 1, "trial": 0, "traj": CANCELLED}, {"task_id": 2, "trial": 0, "traj": CANCELLED[:2]}],
        "tau2.json": {"info": {}, "tasks": [], "simulations": [{"id": "s", "messages": tau2_messages}]},
    }
    counts = {name: [len(t.messages) for t in read(_write(tmp_path / name, value))] for name, value in files.items()}
    assert counts == {"list.json": [7], "object.json": [7], "tau.json": [7, 2], "tau2.json": [4]}
    lines = tmp_path / "many.jsonl"
    lines.write_text("\n".join(json.dumps({"messages": CANCELLED}) for _ in range(3)) + "\n", encoding="utf-8")
    assert len(list(read(lines))) == 3
    tau2 = next(read(tmp_path / "tau2.json"))
    assert Auditor().audit(tau2).claims[0].why == "cancel_reservation failed"


def test_a_broken_file_fails_after_what_it_held(tmp_path: Path) -> None:
    """A file cut in the middle yields the trajectories before the cut, then one TranscriptError."""
    text = json.dumps([{"task_id": 1, "traj": CANCELLED}, {"task_id": 2, "traj": CANCELLED}])
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) - 40], encoding="utf-8")
    seen = []
    with pytest.raises(TranscriptError, match="cut.json"):
        for transcript in read(path):
            seen.append(transcript)
    assert len(seen) == 1


def test_cli_exits_3_on_unbacked_and_reports_a_bad_file_in_one_line(tmp_path: Path) -> None:
    """Exit 3 when a claim is unbacked; a bad file is one line on stderr and the other files are still audited."""
    env = user_env()
    honest = _write(tmp_path / "honest.json", CANCELLED)
    lying = _write(tmp_path / "lying.json", CANCELLED[:4] + CANCELLED[6:])
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    ok = factline_read(env, "audit", str(honest))
    assert ok.returncode == 0, ok.stderr
    assert "1 transcripts: 0 with something unbacked; 1 claims, 0 unbacked" in ok.stdout
    both = factline_read(env, "audit", str(tmp_path / "bad.json"), str(honest), str(lying), "--json")
    assert both.returncode == 3
    assert len(both.stderr.strip().splitlines()) == 1 and "bad.json" in both.stderr
    rows = [json.loads(line) for line in both.stdout.splitlines()]
    assert [r["unbacked"] for r in rows] == [False, True]
    assert rows[1]["claims"][0]["why"] == "no cancel_reservation call"
    only_bad = factline_read(env, "audit", str(tmp_path / "bad.json"))
    assert only_bad.returncode == 2


def test_catalog_file_adds_words_for_a_tool(tmp_path: Path) -> None:
    """A catalog entry gives a tool words its name does not: 'the ticket is closed out' claims resolve_ticket."""
    catalog = _write(tmp_path / "words.json", {"resolve_ticket": {"en_done": ["closed out"]}})
    transcript = _write(tmp_path / "t.json", [USER, said("Your ticket is closed out.")])
    done = factline_read(user_env(), "audit", str(transcript), "--catalog", str(catalog), "--json")
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["claims"][0]["tool"] == "resolve_ticket"
    bad = _write(tmp_path / "bad-words.json", {"resolve_ticket": {"verbs": ["x"]}})
    refused = factline_read(user_env(), "audit", str(transcript), "--catalog", str(bad))
    assert refused.returncode == 2 and "resolve_ticket" in refused.stderr


@pytest.fixture
def db_url(tmp_path: Path, migrated_sqlite: Path) -> str:
    """SQLite only: the audit reads turns and tool calls, whatever database holds
    them (a copy of the migrated ledger, as in conftest)."""
    shutil.copyfile(migrated_sqlite, tmp_path / "ledger.db")
    return f"sqlite:///{tmp_path}/ledger.db"


def test_factline_run_from_the_ledger_is_audited(settings: Settings, model: ScriptedModel) -> None:
    """--run N audits factline's own run: a run that only picked a topic and says it published is unbacked."""
    model.policy = script(step_call("pick_topic"), *[say("The article is published.")] * 4)
    with open_runtime(settings.model_copy(update={"agent_hallucination_max_nudges": 1})) as rt:
        run = run_once(rt)
    env = user_env(DATABASE_URL=settings.deployment().ledger.url)
    done = factline_read(env, "audit", "--run", str(run.run_id), "--json")
    assert done.returncode == 3, done.stderr
    row = json.loads(done.stdout.splitlines()[0])
    assert [c["name"] for c in row["calls"]] == ["pick_topic"] and row["calls"][0]["outcome"] == "ok"
    assert {(c["tool"], c["backed"]) for c in row["claims"]} == {("publish", False)}
