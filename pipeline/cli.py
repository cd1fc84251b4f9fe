# PYTHON_ARGCOMPLETE_OK
"""The command line: a registry of commands, and the one place where exceptions become exit codes.

Every command lives in a module of its own in pipeline/commands/ with a ``register(subparsers)``
function; adding a command is one line in ``COMMANDS``. Handlers import
what they need when they run, so ``--help``, ``--version`` and the read-only commands start fast.
Conventions every command follows (docs/cli.md): help that lists the settings it reads and examples,
``--json`` output with ISO 8601 times, read-only commands that never create a file, a quiet exit on a
closed pipe, one line on stderr and exit 2 for anything the user can fix.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from config import ConfigError, Deployment, Settings, load_config, select
from pipeline.commands import (amend, audit, daemon, db, diff, guard, model, pipelines, probe, report, review, run, runs,
                               site, web, worker)
from pipeline.commands.common import CommandError, Handler, stdout_closed

COMMANDS = (
    run.register,
    runs.register,
    report.register,
    diff.register,
    review.register,
    amend.register_retract,
    amend.register_correct,
    audit.register,
    daemon.register,
    probe.register,
    guard.register,
    model.register,
    db.register,
    web.register,
    site.register,
    pipelines.register_pipelines,
    pipelines.register_config,
    worker.register,
)


def _version() -> str:
    try:
        return version("factline")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _exit_codes() -> str:
    """The exit codes, from pipeline.outcome.EXIT_CODES (a run's verdict) and the CLI's own two."""
    from pipeline.outcome import EXIT_CODES

    codes: dict[int, list[str]] = {2: ["a bad setting or usage, a ledger that is not there, no such run"],
                                   143: ["interrupted by SIGTERM"]}
    for verdict, code in EXIT_CODES.items():
        codes.setdefault(code, []).append(str(verdict))
    lines = [f"  {code:>3}  {', '.join(names)}" for code, names in sorted(codes.items())]
    return "\n".join(["exit codes (for run and daemon runs, the verdict's; other commands say theirs in --help):",
                      *lines])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="factline", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A scheduled LLM content pipeline whose success is judged by the ledger of what really ran.",
        epilog=_exit_codes() + "\n\n`factline COMMAND --help` lists the settings a command reads, with examples.")
    parser.add_argument("--version", action="version", version=f"factline {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in COMMANDS:
        register(sub)
    return parser


def _complete(parser: argparse.ArgumentParser) -> None:
    """Shell completion when argcomplete is installed (pip install argcomplete; docs/cli.md); else nothing."""
    try:
        import argcomplete
    except ImportError:
        return
    argcomplete.autocomplete(parser)


def _fail(message: str) -> int:
    print(f"factline: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    _complete(parser)
    args = parser.parse_args(argv)
    try:
        args.config = load_config()  # config.pipelines: one pipeline `content` without a pipelines file
        args.fleet = args.config.pipelines
        one = args.command == "run" or getattr(args, "pipeline", None) is not None
        # a command without --pipeline that is not `run` gets the first pipeline: a pipeline-level default (its
        # schedule's time zone, say), never a deployment value (those are args.config.deployment)
        settings = (select(args.fleet, getattr(args, "pipeline", None)) if one else args.fleet[0]).settings
    except ConfigError as exc:
        for line in exc.problems:
            print(f"factline: {line}", file=sys.stderr)
        return 2
    from config.secrets import Redactor
    from pipeline import logs

    logs.configure(args.config.deployment.logs, Redactor.of(args.config.deployment, *(p.settings for p in args.fleet)))
    return run_command(args.config.deployment, settings, args)


def run_command(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    """Run the parsed command; every exception that ends a command becomes its exit code here, and only here."""
    from loguru import logger
    from sqlalchemy.exc import DBAPIError

    from config.secrets import Redactor
    from pipeline.ledger.db import LedgerError, shown_url
    from pipeline.localmodel import LocalModelError
    from pipeline.outcome import Interrupted, StopRun, one_line

    handler: Handler = args.handler
    redact = Redactor.of(deployment, settings)
    try:
        return handler(deployment, settings, args)
    except ConfigError as exc:
        for line in exc.problems:
            print(f"factline: {line}", file=sys.stderr)
        return 2
    except (CommandError, LedgerError) as exc:
        return _fail(str(exc))
    except StopRun as stop:  # a command outside a run (the probe suite) stopped by the endpoint
        print(f"factline: {redact(stop.detail)}", file=sys.stderr)
        return stop.verdict.exit_code
    except LocalModelError as exc:
        print(f"factline: local model: {exc}", file=sys.stderr)
        return 1
    except Interrupted as exc:  # SIGINT or SIGTERM during `factline run`: its row is closed as interrupted
        print(f"factline: stopped by {exc.signal.name}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # a print that did not go through emit(); the listing was read as far as wanted
        stdout_closed()
        return 0
    except DBAPIError as exc:  # the ledger's server went away or refused: one line, the password never in it
        logger.opt(exception=exc).debug("factline.ledger_failed")
        print(f"factline: the ledger at {shown_url(deployment.ledger.url)} failed: "
              f"{redact(one_line(exc.orig or exc))}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: one line here, the traceback at LOG_LEVEL=DEBUG
        logger.opt(exception=exc).debug("factline.crashed")
        print(f"factline: crashed: {redact(one_line(exc))} (LOG_LEVEL=DEBUG shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
