"""Tool-hallucination probe suite: BFCL-derived probes, factline catalog probes, scoring."""
