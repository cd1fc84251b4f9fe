#!/usr/bin/env python3
"""Many `factline run` at once, then SIGKILLs at random moments; compare what the target holds with the ledger.

    python scripts/chaos.py                  20 trials of 8 runs, then 50 SIGKILLs, on each setup
    python scripts/chaos.py --short          1 trial of 8 runs, then 4 SIGKILLs (tests/testkit/test_chaos.py, make test)
    python scripts/chaos.py --write-doc      also write the table into docs/reliability.md ("Chaos" section)

Setups: SQLite + the local target, PostgreSQL + the test WordPress (scripts/wordpress; WP_BASE, WP_PORT).
A trial is a brand-new ledger and 8 processes started together on 8 new topics (so they also migrate
together and insert the same topics together). The kill phase runs rounds of 8 processes on one ledger,
SIGKILLing some of them at random moments of the run, until the kills are done, then one more run (the
next start: it closes the killed runs and settles their pending publications). Each is judged by
testkit.swarm.Swarm.audit. Exit 1 if anything is wrong.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit.databases import fresh_pg_database  # noqa: E402
from testkit.scripted_model import ScriptedModel  # noqa: E402
from testkit.swarm import Audit, Swarm  # noqa: E402
from testkit.wordpress import WordPress, start_wordpress, stop_wordpress  # noqa: E402

DOC = Path(__file__).resolve().parent.parent / "docs" / "reliability.md"
SECTION = "## Chaos: concurrent runs and SIGKILLs"
SETUPS = ("sqlite-local", "postgresql-wordpress")


@dataclass
class Tally:
    """One phase on one setup, summed over its trials or rounds."""

    setup: str
    phase: str
    trials: int = 0
    runs: int = 0
    kills: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    items: int = 0
    publications: int = 0
    duplicate_items: int = 0
    items_without_row: int = 0
    rows_without_item: int = 0
    left_running: int = 0
    shared_topics: int = 0
    tracebacks: int = 0
    pending_left: int = 0
    stages: Counter[str] = field(default_factory=Counter)  # where the killed runs were
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def add(self, audit: Audit, kills: int = 0) -> None:
        self.trials += 1
        self.kills += kills
        self.runs += audit.runs
        self.verdicts.update(audit.verdicts)
        for name in ("items", "publications", "duplicate_items", "items_without_row", "rows_without_item",
                     "left_running", "tracebacks"):
            setattr(self, name, getattr(self, name) + getattr(audit, name))
        self.duplicate_items += audit.duplicate_rows
        self.shared_topics += audit.runs_sharing_a_topic
        self.pending_left += audit.pending_intents
        self.problems += [f"trial {self.trials}: {p}" for p in audit.problems()]

    def row(self) -> tuple[str, ...]:
        verdicts = ", ".join(f"{v} {n}" for v, n in sorted(self.verdicts.items()))
        return (self.setup, self.phase, str(self.trials), str(self.runs), str(self.kills), verdicts,
                f"{self.items} / {self.publications}", str(self.duplicate_items), str(self.items_without_row),
                str(self.rows_without_item), str(self.left_running), str(self.shared_topics), str(self.tracebacks),
                str(self.pending_left), f"{self.seconds:.0f}")


HEADER = ("setup", "phase", "trials", "runs", "SIGKILLs", "verdicts", "items on the target / publications rows",
          "duplicates", "items without a row", "rows without an item", "runs left running",
          "topics shared by two successful runs", "tracebacks", "pending intents left", "seconds")


@contextmanager
def ledger(setup: str, workdir: Path) -> Iterator[str]:
    if setup.startswith("postgresql"):
        with fresh_pg_database() as url:
            yield url
    else:
        yield f"sqlite:///{workdir}/ledger.db"


def concurrent_trials(setup: str, wp: WordPress | None, model: ScriptedModel, root: Path, trials: int,
                      processes: int) -> tuple[Tally, float]:
    """The trials' tally, and how long a run took (from its row to its end) when ``processes`` ran at once."""
    tally = Tally(setup, f"{processes} runs at once on a new ledger")
    started = time.monotonic()
    durations: list[float] = []
    for trial in range(1, trials + 1):
        workdir = root / f"{setup}-trial-{trial}"
        with ledger(setup, workdir) as url, Swarm(url, workdir, model.base_url, topics=processes, wp=wp) as swarm:
            swarm.run(processes)
            durations += swarm.run_seconds()
            audit = swarm.audit()
            if audit.verdicts != {"success": processes}:
                failed = [e.output.strip().splitlines()[-1:] for e in swarm.exits if e.code != 0]
                audit.notes.append(f"verdicts {audit.verdicts}: {failed[:2]}")
            tally.add(audit)
        print(f"  [{setup}] trial {trial}/{trials}: {audit.verdicts}, {audit.items} items / {audit.publications} rows"
              f"{'; ' + '; '.join(audit.problems()) if audit.problems() else ''}", flush=True)
    tally.seconds = time.monotonic() - started
    return tally, sorted(durations)[len(durations) // 2] if durations else 5.0


def kill_rounds(setup: str, wp: WordPress | None, model: ScriptedModel, root: Path, kills: int,
                processes: int, span: float) -> Tally:
    """Rounds of ``processes`` runs, half of them SIGKILLed at a uniform moment of their first ``span`` seconds."""
    tally = Tally(setup, f"{kills} SIGKILLs at random moments, rounds of {processes} runs")
    started = time.monotonic()
    per_round = max(1, processes // 2)
    rounds = -(-kills // per_round)
    workdir = root / f"{setup}-kills"
    with ledger(setup, workdir) as url, Swarm(url, workdir, model.base_url, topics=processes * (rounds + 1),
                                               wp=wp) as swarm:
        done = 0
        for number in range(1, rounds + 1):
            exits = swarm.run(processes, kills=min(per_round, kills - done), within=span)
            killed = sum(e.killed for e in exits)
            done += killed
            print(f"  [{setup}] round {number}/{rounds}: {killed} killed, exits "
                  f"{sorted(Counter(e.code for e in exits if not e.killed).items())}", flush=True)
        swarm.run(1)  # the next start: closes the killed runs, settles pending publications
        audit = swarm.audit()
        tally.add(audit, kills=done)
        tally.trials = rounds
        tally.stages = swarm.stages()
    tally.seconds = time.monotonic() - started
    print(f"  [{setup}] after the kills: {dict(tally.verdicts)}; {'; '.join(audit.problems()) or 'clean'}", flush=True)
    return tally


def markdown(tallies: list[Tally]) -> str:
    def line(cells: tuple[str, ...]) -> str:
        return "| " + " | ".join(cells) + " |"

    return "\n".join([line(HEADER), line(tuple("---" for _ in HEADER)), *(line(t.row()) for t in tallies)])


def write_doc(table: str, command: str) -> None:
    """Replace (or append) the chaos section of docs/reliability.md; the rest of the file is left as it is."""
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    section = (
        f"{SECTION}\n\n"
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d')} (2 cores, shared with other work). "
        "A trial is a brand-new ledger and N `factline run` processes started together on N new topics "
        "(scripted model, RETRY_BASE_DELAY=0.05): they migrate together, insert the same topics together and "
        "choose among them together. The kill phase runs rounds of processes on one ledger, SIGKILLing some "
        "(with everything they started) at random moments of the run, then one more run. What the target "
        "really holds (local pages on disk, WordPress posts over REST) is compared with the `publications` "
        "rows: a duplicate is a second item or row for one topic; runs left `running` and tracebacks are "
        "counted in every process's output. A killed run is `interrupted` (closed at the next start); a pending "
        "intent left at the end is a publication whose run died before it reached the target (nothing there, "
        "and the topic's next run publishes it). The window between a target's answer and its row is a few "
        "milliseconds, so random kills seldom land in it (a kill after `humanize ok` may fall in the publish "
        "call); that case is forced in tests/pipeline/ledger/test_concurrency.py (`test_a_run_killed_between_the_post_and_its_"
        "row_is_settled_by_lookup`).\n\n"
        f"{table}\n"
    )
    start = text.find(SECTION)
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(SECTION))
        text = text[:start] + section + (text[end + 1:] if end != -1 else "")
    DOC.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="1 trial and 4 kills per setup (for make test)")
    parser.add_argument("--trials", type=int, default=20, help="concurrent trials per setup (default 20)")
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs per setup (default 50)")
    parser.add_argument("--processes", type=int, default=8, help="runs started together (default 8)")
    parser.add_argument("--setups", default=",".join(SETUPS), help=f"comma-separated, of {', '.join(SETUPS)}")
    parser.add_argument("--write-doc", action="store_true", help="write the table into docs/reliability.md")
    args = parser.parse_args(argv)
    trials, kills = (1, 4) if args.short else (args.trials, args.kills)
    setups = [s for s in args.setups.split(",") if s]
    if unknown := set(setups) - set(SETUPS):
        parser.error(f"unknown setup(s) {', '.join(sorted(unknown))}")
    wp, was_up = start_wordpress() if any("wordpress" in s for s in setups) else (None, True)
    tallies: list[Tally] = []
    try:
        with tempfile.TemporaryDirectory(prefix="factline-chaos-") as tmp, ScriptedModel() as model:
            for setup in setups:
                target = wp if "wordpress" in setup else None
                print(f"{setup}: {trials} trial(s) of {args.processes} runs at once", flush=True)
                tally, span = concurrent_trials(setup, target, model, Path(tmp), trials, args.processes)
                tallies.append(tally)
                print(f"{setup}: {kills} SIGKILLs, each within {span:.1f} s of its run's start", flush=True)
                tallies.append(kill_rounds(setup, target, model, Path(tmp), kills, args.processes, span))
    finally:
        if wp is not None and not was_up:
            stop_wordpress(wp)
    table = markdown(tallies) + "\n\n" + "\n".join(
        f"Where the {t.kills} SIGKILLs of {t.setup} fell (the killed run's last recorded call): "
        + ", ".join(f"{stage} {n}" for stage, n in t.stages.most_common()) + "." for t in tallies if t.kills)
    print(table)
    problems = [f"{t.setup} / {t.phase}: {p}" for t in tallies for p in t.problems]
    for problem in problems:
        print(f"PROBLEM {problem}")
    if args.write_doc:
        command = "python scripts/chaos.py" + (" --short" if args.short else "") + " --write-doc"
        write_doc(table, command)
        print(f"wrote {DOC}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
