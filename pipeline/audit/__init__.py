"""``factline audit``: what an agent's text claims it did, against the tool calls that succeeded, for any transcript.

    transcripts  files in OpenAI chat format, JSON Lines, tau-bench and tau2-bench, streamed (TranscriptError)
    check        one transcript's calls, claims (read by pipeline.guard.claims, the guard's one reader), ungrounded
                 artifacts and prose calls (Auditor, Audit)
    ledger_run   a factline run from the ledger, as a transcript
"""
