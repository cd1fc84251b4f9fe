"""The pipeline: everything above the capabilities. Its layers, lowest first (docs/architecture.md):

    outcome, turns, retry, catalog, logs, cron -> ledger -> guard, localmodel -> model -> gateway
    -> runtime -> runner -> probe, metrics, alerts, report -> daemon -> cli

A module imports only from its own layer's package or from lower layers (tests/test_layers.py).
"""
