"""The publication protocol model-checked with spin (models/publication.pml): its invariants hold over every
interleaving of a small configuration with crashes at every step, and the model is able to fail: without the
lookup by key or without the write-ahead intent, spin finds a counterexample.

The short configuration runs here (CI); the full state space is measured in docs/reliability.md.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import ROOT

MODEL = ROOT / "models" / "publication.pml"

pytestmark = pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                                reason="spin (Debian package `spin`) and gcc are needed: .ci/run installs them")


@dataclass(frozen=True)
class Check:
    errors: int
    states: int
    output: str


def check(tmp_path: Path, *defines: str) -> Check:
    """spin -a the model with ``defines``, compile the verifier, run an exhaustive safety search."""
    shutil.copy(MODEL, tmp_path / MODEL.name)
    subprocess.run(["spin", "-a", *defines, MODEL.name], cwd=tmp_path, check=True, capture_output=True, timeout=60)
    subprocess.run(["gcc", "-O2", "-DSAFETY", "-w", "-o", "pan", "pan.c"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=120)
    done = subprocess.run(["./pan", "-m1000000"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    errors = re.search(r"errors: (\d+)", done.stdout)
    states = re.search(r"(\d+) states, stored", done.stdout)
    assert errors and states, done.stdout
    return Check(int(errors.group(1)), int(states.group(1)), done.stdout)


def test_the_protocol_keeps_its_invariants_under_crashes_at_every_step(tmp_path: Path) -> None:
    """2 workers, 2 ticks, 1 topic, a worker death between any two steps: no duplicate post, no post without its
    row once quiet, every run closed; the whole space searched (the search reaches the quiet check)."""
    result = check(tmp_path, "-DMAXCRASH=1")
    assert result.errors == 0, result.output
    assert "Search not completed" not in result.output and result.states > 10_000
    assert "unreached in proctype Quiet\n\t(0 of" in result.output  # the quiet invariants were evaluated


def test_an_approved_run_is_published_once_under_crashes(tmp_path: Path) -> None:
    """With the review gate: a run held for review, approved (continued) or rejected, still posts at most once."""
    result = check(tmp_path, "-DREVIEW", "-DMAXCRASH=1")
    assert result.errors == 0, result.output


def test_without_the_lookup_by_key_a_crash_after_the_post_duplicates_it(tmp_path: Path) -> None:
    """The model can fail: drop the lookup by key and spin finds a second post for one topic."""
    result = check(tmp_path, "-DNO_LOOKUP", "-DMAXCRASH=1")
    assert result.errors == 1 and "assertion violated (posts[t]<=1)" in result.output, result.output


def test_without_the_write_ahead_intent_a_post_can_be_left_without_its_row(tmp_path: Path) -> None:
    """Drop the intent: a run dies after the post, the next start closes it, nothing says a post may exist, and
    the system goes quiet with a post the ledger does not hold."""
    result = check(tmp_path, "-DNO_INTENT", "-DMAXCRASH=1")
    assert result.errors == 1 and "assertion violated ((posts[i]==0)||row[i])" in result.output, result.output
