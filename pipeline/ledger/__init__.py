"""The ledger: what the system executed (models), written by one run (journal, store), read back (queries, detail, daily)."""
