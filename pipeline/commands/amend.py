"""``factline retract PUBLICATION --reason TEXT`` and ``factline correct PUBLICATION --edit FILE --reason TEXT``.

Exit codes: 0 done; 1 not done (already retracted, the target refused, a correction not verified); 2 usage
(no such publication, an unreadable file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from config import ConfigError, Deployment, Settings, select
from pipeline.commands.common import CommandError, add_command, emit, positive_int

SETTINGS = ("DATABASE_URL", "PUBLISH_*", "LOCAL_SITE_*", "WORDPRESS_*", "CONTENT_COVERAGE_MIN")
NOTES = """\
retract takes a publication down: on WordPress the post leaves `publish` (a draft: an anonymous reader gets
404); on the local site its page answers 410 with a short notice and leaves the index and the feed. The
ledger keeps the publication and its registration, marked retracted, never deleted.
correct updates the same post or page in place (same URL) with the edited text (a Markdown file; a first
line '# Title' sets the title), recorded as a version of its own, checked again and verified on the page
again; the registration keeps its number with the correction counted. Both are recorded with who, when
and why (`factline runs --run N` and the dashboard's Publications page show them)."""


def register_retract(sub: Any) -> None:
    retract = add_command(sub, "retract", help="take a publication down, recorded with the reason",
                          handler=cmd_retract, settings=SETTINGS, notes=NOTES,
                          examples=["factline retract 7 --reason 'wrong figures' --by alice"])
    retract.add_argument("publication", type=positive_int, metavar="PUBLICATION",
                         help="the publication id (factline runs --run N, the dashboard's Publications)")
    retract.add_argument("--reason", required=True, metavar="TEXT", help="why, recorded and shown in the notice")
    retract.add_argument("--by", metavar="NAME", help="the editor's name, recorded with the retraction")


def register_correct(sub: Any) -> None:
    correct = add_command(sub, "correct", help="correct a publication in place (same URL), checked and verified "
                                               "again", handler=cmd_correct, settings=SETTINGS, notes=NOTES,
                          examples=["factline correct 7 --edit fixed.md --reason 'the year is 2024' --by alice"])
    correct.add_argument("publication", type=positive_int, metavar="PUBLICATION",
                         help="the publication id (factline runs --run N, the dashboard's Publications)")
    correct.add_argument("--edit", required=True, type=Path, metavar="FILE",
                         help="the corrected Markdown (a first line '# Title' sets the title)")
    correct.add_argument("--reason", required=True, metavar="TEXT", help="why, recorded with the correction")
    correct.add_argument("--by", metavar="NAME", help="the editor's name, recorded with the correction")


def _settings(deployment: Deployment, args: argparse.Namespace) -> Settings:
    """The settings of the pipeline that made the publication (its target)."""
    from pipeline.ledger.db import open_ledger, read_ledger
    from pipeline.ledger.models import Publication

    read_ledger(deployment.ledger.url)
    with open_ledger(deployment.ledger.url)() as s:
        row = s.get(Publication, args.publication)
        if row is None:
            raise CommandError(f"no publication {args.publication} in the ledger")
        name = row.pipeline
    try:
        return select(args.fleet, name).settings
    except ConfigError as exc:
        raise CommandError(f"publication {args.publication} belongs to pipeline {name!r}, not configured here") from exc


def _answer(done: Any) -> int:
    if done.done:
        emit(done.line)
        return 0
    print(f"factline: {done.line}", file=sys.stderr)
    return 1


def cmd_retract(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.review.amend import retract
    from pipeline.runtime import open_publisher

    with open_publisher(deployment, _settings(deployment, args)) as publisher:
        return _answer(retract(publisher, args.publication, args.reason, args.by))


def cmd_correct(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.review.amend import correct
    from pipeline.review.decide import Edit
    from pipeline.runtime import open_publisher

    try:
        edit = Edit.parse(args.edit.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read --edit {args.edit}: {exc.__class__.__name__}") from None
    with open_publisher(deployment, _settings(deployment, args)) as publisher:
        return _answer(correct(publisher, args.publication, edit, args.reason, args.by))
