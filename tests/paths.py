"""Where the repository and the test data are, for tests at any depth of tests/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"  # the content corpus (docs/content.md)
CLAIMS = ROOT / "tests" / "data" / "claims"  # the guard's labelled corpus (docs/guard.md)
