"""`factline audit` on its hand-labelled tau-bench development set: the floors docs/guard.md reports against."""

from __future__ import annotations

import pytest

from scripts.audit_devset import LABELS, TRAJECTORIES, evaluate

pytestmark = pytest.mark.skipif(not TRAJECTORIES.exists(), reason=f"{TRAJECTORIES} is not there (shared/ beside the repo)")


@pytest.fixture(scope="module")
def scores():  # type: ignore[no-untyped-def]
    return {key: value.as_dict() for key, value in evaluate(TRAJECTORIES, LABELS).items()}


@pytest.mark.parametrize("split", ["tuned", "untuned"])
def test_counterfactual_claims_without_their_call_are_found(scores, split: str) -> None:  # type: ignore[no-untyped-def]
    """A claim whose backing call was deleted, or only failed, is reported unbacked (>= 95 % of them)."""
    for kind in ("delete", "fail"):
        assert scores[(kind, split)]["recall"]["share"] >= 0.95, (kind, scores[(kind, split)])


@pytest.mark.parametrize("split", ["tuned", "untuned"])
def test_real_transcripts_are_rarely_flagged_wrongly(scores, split: str) -> None:  # type: ignore[no-untyped-def]
    """Real gpt-4o trajectories with every claim backed are flagged at most 1.5 % of the time (1 of 99 untuned measured)."""
    assert scores[("real", split)]["false_alarms"]["share"] <= 0.015, scores[("real", split)]


def test_labelled_claims_are_read(scores) -> None:  # type: ignore[no-untyped-def]
    """The reader finds >= 97 % of the hand-labelled claims of tools it never saw, by their derived vocabulary."""
    assert scores[("real", "all")]["claims_read"]["share"] >= 0.97
