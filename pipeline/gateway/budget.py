"""Limits are data, checked in one place: RunBudget and the loop detector."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from config import Settings
from pipeline.outcome import StopRun, Verdict


@dataclass(frozen=True)
class RunBudget:
    max_turns: int
    max_tool_calls: int
    max_tokens: int
    max_seconds: float
    max_unknown_tools: int
    loop_window: int

    @classmethod
    def from_settings(cls, s: Settings) -> RunBudget:
        return cls(s.run_max_turns, s.run_max_tool_calls, s.run_max_tokens, s.run_max_seconds,
                   s.run_max_unknown_tools, s.run_loop_window)


@dataclass
class RunUsage:
    """What one run has spent so far, checked against its RunBudget."""

    budget: RunBudget
    clock: Callable[[], float] = time.monotonic
    turns: int = 0
    tool_calls: int = 0
    tokens: int = 0
    unknown_tools: int = 0
    started: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def check_before_turn(self) -> None:
        b = self.budget
        if self.turns >= b.max_turns:
            raise StopRun(Verdict.budget, "max_turns", f"{self.turns} turns of {b.max_turns}")
        if self.tokens >= b.max_tokens:
            raise StopRun(Verdict.budget, "max_tokens", f"{self.tokens} tokens of {b.max_tokens}")
        self.check_time()
        self.turns += 1

    def check_time(self) -> None:
        """Before a turn and before every attempt of a tool call (pipeline.http cuts off what is in flight)."""
        elapsed = self.clock() - self.started
        if elapsed >= self.budget.max_seconds:
            raise StopRun(Verdict.budget, "max_seconds", f"{elapsed:.1f} s of {self.budget.max_seconds:g} s")

    def check_before_call(self) -> None:
        if self.tool_calls >= self.budget.max_tool_calls:
            raise StopRun(Verdict.budget, "max_tool_calls", f"call {self.tool_calls + 1} after a budget of {self.budget.max_tool_calls}")
        self.tool_calls += 1

    @property
    def calls_spent(self) -> bool:
        return self.tool_calls >= self.budget.max_tool_calls

    def count_unknown_tool(self) -> None:
        self.unknown_tools += 1
        if self.unknown_tools > self.budget.max_unknown_tools:
            raise StopRun(Verdict.budget, "unknown_tool_limit",
                          f"{self.unknown_tools} unknown tool names, limit {self.budget.max_unknown_tools} per run")


@dataclass
class LoopDetector:
    """Stops a run whose last ``window`` call fingerprints repeat with a period of at most window/3."""

    window: int
    history: list[str] = field(default_factory=list)

    def observe(self, fingerprint: str) -> None:
        self.history.append(fingerprint)
        recent = self.history[-self.window:]
        if len(recent) < self.window:
            return
        for period in range(1, self.window // 3 + 1):
            if all(recent[i] == recent[i - period] for i in range(period, self.window)):
                names = " -> ".join(f.split("(")[0] for f in recent[-2 * period:])
                raise StopRun(Verdict.loop, "repeating_calls", f"period {period} over the last {self.window} calls: {names}")
