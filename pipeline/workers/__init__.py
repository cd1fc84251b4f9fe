"""Celery as the executor (EXECUTOR=celery): the daemon schedules, workers run.

    factline daemon (scheduler)                         factline worker (any number, any machine)
    tick fires -> claim the tick's runs row (queued)    take the run (queued -> running, compare-and-set)
               -> send task run_tick(run_id) ------->   run_once(run_id=...) with a heartbeat
               -> mark sent_at                          ack after the run (acks_late); a killed worker's
    every CELERY_RECONCILE_SECONDS: re-send ticks        task goes back to the queue and the next worker
    claimed but never sent, and runs whose worker        continues the same run (its idempotency keys
    stopped beating; count finished runs for /metrics    replay what it already did)

The ledger is the only coordination: the broker may deliver a task twice (redelivery after a lost
connection, a re-send by the reconciler); a task for a run that is closed is a no-op, and one for a
run a live worker holds is retried later. Modules: app (the Celery app and its settings), ticks (the
ledger transitions), dispatch (the scheduler's side), worker (the task and the worker process), cli.
"""
