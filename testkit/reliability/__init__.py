"""The reliability suite: `factline run` against the real test WordPress under faults (faults.py) and hard
inputs (inputs.py), judged by what WordPress holds (harness.py). Every scenario, in table order: shared by
tests/testkit/test_reliability.py and scripts/reliability.py.
"""

from __future__ import annotations

from testkit.reliability import faults, inputs
from testkit.reliability.harness import Outcome, Scenario, play

SCENARIOS: dict[str, Scenario] = {s.name: s for s in faults.SCENARIOS + inputs.SCENARIOS}

__all__ = ["SCENARIOS", "Outcome", "Scenario", "play"]
