#!/usr/bin/env python3
"""The claim-vs-fact audit as a script: exactly `factline diff` (see `factline diff --help`), from any folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipeline.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["diff", *sys.argv[1:]]))
