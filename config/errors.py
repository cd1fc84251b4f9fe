"""The one exception of the config package.

    ConfigError(*problems)   one or more settings are missing or invalid; each problem is one line that
                             names its variable, and all of them are reported at once (the CLI exits 2)
"""

from __future__ import annotations


class ConfigError(Exception):
    """Settings are missing or invalid; ``problems`` holds one line per bad setting, each naming it."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems
