#!/usr/bin/env python3
"""The claim-vs-fact audit as a script: exactly `factline diff` (see `factline diff --help`), from any folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.cli import main as factline  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    return factline(["diff", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
