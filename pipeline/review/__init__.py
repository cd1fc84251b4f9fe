"""The editor in the loop: the review gate before publish, and carrying out an editor's decision.

    gate.py       ReviewGate: the gateway's hold for publish when REVIEW is required (or flagged and the run
                  flagged); renders the held version's preview page and records the request
    preview.py    the page a version would be (the local site's layout), in PREVIEW_DIR
    publisher.py  an approved run continued where the pipeline's executor runs: publish exactly the approved
                  version, register, report; the run closes with its verdict judged from the ledger
    decide.py     what `factline review` and the dashboard's Review page share: approve (with an edit, checked
                  again), reject, expire, and sending the approved run to its executor

The states and their transitions are pipeline.ledger.reviews'.
"""
