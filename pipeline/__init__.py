"""The pipeline: everything above the capabilities. Its layers, lowest first (docs/architecture.md):

    outcome, turns, retry, logs, progress, webhook -> catalog -> ledger -> guard, localmodel -> model
    -> gateway -> runtime -> runner -> probe, metrics, alerts, report -> daemon -> cli

A module imports only from its own layer or lower ones, in no circle (tests/test_layers.py).
"""
