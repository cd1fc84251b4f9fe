"""Tool-hallucination probe suite: BFCL-derived probes, factline catalog probes, scoring.

The BFCL converter is used as its own module (``pipeline.probe.bfcl``, also runnable with
``python -m``) and is deliberately not imported here, so running it does not import it twice.
The I/O side (``runner``, ``storage``, ``summary``, ``report``, ``progress``, ``cli``: the
``factline probe`` command) is imported by module too, so the pure part stays free of the ledger
and the endpoint.
"""

from pipeline.probe.model import KINDS, Probe
from pipeline.probe.scoring import Verdict, aggregate, rate, score, wilson_interval

__all__ = [
    "KINDS",
    "Probe",
    "Verdict",
    "aggregate",
    "rate",
    "score",
    "wilson_interval",
]
