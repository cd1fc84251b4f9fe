"""``factline review list | show RUN | approve RUN | reject RUN``: the editor's side of the review gate.

Exit codes: 0 done (or listed); 1 the decision was not taken (another editor decided first, the run was
rejected or has expired, an edit was refused) or the approved run did not end in success; 2 usage (no such
run, not a file). The loser of a race gets one line naming who decided first, never a traceback.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from config import ConfigError, Deployment, Settings, select
from pipeline.commands.common import CommandError, NoSuchRun, add_command, emit, positive_int, to_json

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from config import Pipeline

NOTES = """\
REVIEW (REVIEW_MODE in the environment, `review` in the pipelines file) holds publish for an editor:
none (default), required (every article) or flagged (articles the guard flagged). A held run ends
`awaiting_review`; nothing is published and the run keeps its topic until an editor decides.
approve publishes exactly the approved version (or the edit, a version of its own, checked again) in the
same run, where the pipeline's executor runs (here inline; on the workers with EXECUTOR=celery), then
registers and reports. reject closes it `rejected`; the topic is picked again only with --requeue. A review
older than REVIEW_EXPIRE_HOURS closes `expired` (the topic is free again). Every attempt is recorded
with who and when; the loser of two approvals gets one line and exit 1."""


SETTINGS = ("DATABASE_URL", "REVIEW_MODE", "REVIEW_EXPIRE_HOURS")


def register(sub: Any) -> None:
    review = add_command(sub, "review", help="list, show, approve or reject the articles waiting for an editor",
                         settings=SETTINGS, notes=NOTES,
                         examples=["factline review list [--json]",
                                   "factline review show 12",
                                   "factline review approve 12 --by alice",
                                   "factline review approve 12 --edit fixed.md --by alice",
                                   "factline review reject 12 --reason 'wrong year' --by bob [--requeue]"])
    actions = review.add_subparsers(dest="action", metavar="{list,show,approve,reject}", required=True)
    listing = add_command(actions, "list", help="the runs awaiting review, oldest first: pipeline, age, flags, "
                                               "title, preview page", handler=cmd_list, settings=SETTINGS,
                          examples=["factline review list", "factline review list --json | jq '.[].run_id'"])
    listing.add_argument("--json", action="store_true", help="a JSON list of {run_id, pipeline, title, topic, "
                                                             "requested_at, age_seconds, version_id, preview, flags}")
    show = add_command(actions, "show", help="the article as it would be published, its findings, what humanize "
                                             "changed, the review trail", handler=cmd_show, settings=SETTINGS,
                       examples=["factline review show 12 | less"])
    show.add_argument("run", type=positive_int, metavar="RUN", help="the run id (factline review list)")
    approve = add_command(actions, "approve", help="publish the held version (or --edit FILE) in the same run, "
                                                   "then register and report", handler=cmd_approve,
                          settings=(*SETTINGS, "EXECUTOR", "CELERY_*", "PUBLISH_*", "LOCAL_SITE_*", "WORDPRESS_*"),
                          examples=["factline review approve 12 --by alice",
                                    "factline review approve 12 --edit fixed.md --by alice"])
    approve.add_argument("run", type=positive_int, metavar="RUN", help="the run id (factline review list)")
    approve.add_argument("--edit", type=Path, metavar="FILE", help="publish this Markdown instead, as a version of "
                                                                   "its own (a first line '# Title' sets the title)")
    approve.add_argument("--by", metavar="NAME", help="the editor's name, recorded with the decision")
    reject = add_command(actions, "reject", help="close the run rejected; nothing is published", handler=cmd_reject,
                         settings=SETTINGS, examples=["factline review reject 12 --reason 'wrong year' --by bob",
                                                      "factline review reject 12 --reason 'later' --requeue"])
    reject.add_argument("run", type=positive_int, metavar="RUN", help="the run id (factline review list)")
    reject.add_argument("--reason", required=True, metavar="TEXT", help="why, recorded with the decision")
    reject.add_argument("--by", metavar="NAME", help="the editor's name, recorded with the decision")
    reject.add_argument("--requeue", action="store_true", help="let a later run take the topic again")


def _sessions(deployment: Deployment, fleet: Sequence[Pipeline]) -> sessionmaker[Session]:
    """The ledger (it must exist: a review needs runs), with every pipeline's overdue reviews expired."""
    from pipeline.ledger import reviews
    from pipeline.ledger.db import open_ledger, read_ledger

    read_ledger(deployment.ledger.url)
    sessions = open_ledger(deployment.ledger.url)
    with sessions.begin() as s:
        for pipeline in fleet:
            reviews.expire_due(s, pipeline.name, pipeline.settings.review_expire_hours)
    return sessions


def _run_settings(sessions: sessionmaker[Session], fleet: Sequence[Pipeline], run_id: int) -> Settings:
    from pipeline.ledger.models import Run

    with sessions() as s:
        run = s.get(Run, run_id)
        if run is None:
            raise NoSuchRun(run_id)
        name = run.pipeline
    try:
        return select(fleet, name).settings
    except ConfigError as exc:
        raise CommandError(f"run {run_id} belongs to pipeline {name!r}, which is not configured here") from exc


def _age(since: datetime) -> str:
    minutes = int((datetime.now(timezone.utc) - since).total_seconds() // 60)
    return f"{minutes // 60}h{minutes % 60:02d}m"


def cmd_list(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger import reviews

    sessions = _sessions(deployment, args.fleet)
    with sessions() as s:
        rows = reviews.pending(s)
    if args.json:
        emit(to_json([{**r.__dict__, "age_seconds": int((datetime.now(timezone.utc) - r.requested_at)
                                                       .total_seconds())} for r in rows]))
        return 0
    if not rows:
        emit("no article is awaiting review")
        return 0
    emit(f"{'RUN':>5}  {'PIPELINE':<12} {'AGE':>7}  {'FLAGS':>5}  TITLE")
    for r in rows:
        emit(f"{r.run_id:>5}  {r.pipeline:<12} {_age(r.requested_at):>7}  {len(r.flags):>5}  {r.title}")
        emit(f"{'':>7}fact check: {r.fact_check}")
        for flag in r.flags:
            emit(f"{'':>7}flag: {flag}")
        if r.preview:
            emit(f"{'':>7}preview: {r.preview}")
    return 0


def cmd_show(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from sqlalchemy import select as sa_select

    from pipeline.ledger import reviews
    from pipeline.ledger.models import DraftVersion, Run
    from pipeline.ledger.prune import PRUNED_NOTE

    sessions = _sessions(deployment, args.fleet)
    _run_settings(sessions, args.fleet, args.run)
    with sessions() as s:
        run = s.get_one(Run, args.run)
        held = reviews.requested(s, args.run)
        if held is None or held.version_id is None:
            raise CommandError(f"run {args.run} was never held for review")
        version = s.get_one(DraftVersion, held.version_id)
        first = s.scalars(sa_select(DraftVersion).where(DraftVersion.draft_id == version.draft_id,
                                                        DraftVersion.kind == "draft").order_by(DraftVersion.version)).first()
        trail = reviews.attempts(s, args.run)
        status, verdict = run.status, run.verdict
        fact_check = reviews.fact_check_line(s, args.run)
    emit(f"run {args.run} ({run.pipeline}): {status}, verdict {verdict}")
    emit(f"version {version.id} ({version.kind}), score {version.score}")
    if held.preview:
        emit(f"preview: {held.preview}")
    emit("findings: " + (held.detail or "none: the guard and the fact check flagged nothing"))
    emit(f"fact check: {fact_check}")
    emit("")
    emit(f"# {version.title}")
    emit("")
    emit(version.body.rstrip("\n"))
    if first is not None and not first.body:
        emit("")
        emit(f"what humanize changed (version {first.id} -> {version.id}): {PRUNED_NOTE} (factline db prune)")
    elif first is not None and first.body != version.body:
        emit("")
        emit(f"what humanize changed (version {first.id} -> {version.id}):")
        for line in difflib.unified_diff(first.body.splitlines(), version.body.splitlines(), "draft", "humanized",
                                         lineterm="", n=1):
            emit(line)
    emit("")
    emit("review trail:")
    for row in trail:
        who = f" by {row.editor}" if row.editor else ""
        outcome = "" if row.accepted else " (refused)"
        note = f": {row.reason or row.detail}" if (row.reason or row.detail) else ""
        emit(f"  {row.created_at:%Y-%m-%d %H:%M:%S} {row.action}{who}{outcome}{note}")
    return 0


def _refused(line: str) -> int:
    print(f"factline: {line}", file=sys.stderr)
    return 1


def cmd_approve(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.review import decide

    edit = None
    if args.edit is not None:
        try:
            edit = decide.Edit.parse(args.edit.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read --edit {args.edit}: {exc.__class__.__name__}") from None
    sessions = _sessions(deployment, args.fleet)
    run_settings = _run_settings(sessions, args.fleet, args.run)
    inline = deployment.executor.kind == "inline"
    decision = decide.approve(sessions, args.run, args.by, edit, take=inline)
    if not decision.accepted:
        if inline and decide.is_owed(sessions, args.run):
            emit(f"{decision.line}; the process publishing it died: publishing it here")
            return _carry_out(deployment, run_settings, args.run, taken=False)
        return _refused(decision.line)
    emit(decision.line)
    if deployment.executor.kind == "celery":
        from pipeline.workers.dispatch import send_run

        sent = send_run(deployment.executor, run_settings, sessions, args.run)
        emit(f"run {args.run}: sent to the workers (queue {deployment.executor.queue})" if sent else
             f"run {args.run}: the broker did not take it; the scheduler's reconciler sends it again")
        return 0
    return _carry_out(deployment, run_settings, args.run, taken=True)


def _carry_out(deployment: Deployment, settings: Settings, run_id: int, *, taken: bool) -> int:
    """Publish run ``run_id`` here (``taken``: this process approved and holds it), and approvals left owed."""
    from pipeline.ledger.detail import run_detail
    from pipeline.report import format_run
    from pipeline.review import decide
    from pipeline.review.publisher import continue_approved
    from pipeline.runtime import open_publisher

    with open_publisher(deployment, settings) as publisher:
        done = continue_approved(publisher, run_id) if taken else None
        owed = {other.run_id: other for other in decide.carry_out_owed(publisher)}
        done = done or owed.pop(run_id, None) or decide.carry_out(publisher, run_id)
        for other in owed.values():
            emit(f"run {other.run_id}: an approval left owed by a process that died was carried out: {other.verdict}")
        if done is None:
            emit(f"run {run_id}: published by another process")
            return 0
        with publisher.sessions() as s:
            detail = run_detail(s, run_id)
        assert detail is not None
        emit(format_run(detail))
    return done.exit_code


def cmd_reject(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.review import decide

    sessions = _sessions(deployment, args.fleet)
    _run_settings(sessions, args.fleet, args.run)
    decision = decide.reject(sessions, args.run, args.by, args.reason, args.requeue)
    if not decision.accepted:
        return _refused(decision.line)
    emit(decision.line)
    return 0
