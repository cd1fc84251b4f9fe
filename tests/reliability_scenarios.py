"""Every reliability scenario, in table order: shared by tests/test_reliability.py and scripts/reliability.py."""

from __future__ import annotations

from tests import reliability_faults, reliability_input
from tests.reliability_harness import Outcome, Scenario, play

SCENARIOS: dict[str, Scenario] = {s.name: s for s in reliability_faults.SCENARIOS + reliability_input.SCENARIOS}

__all__ = ["SCENARIOS", "Outcome", "Scenario", "play"]
