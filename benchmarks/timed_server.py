"""The scripted OpenAI-compatible server (testkit/scripted_model.py) with its own time measured inside.

Every POST handler is timed from the first byte read to the last byte written; ``GET
/bench/server-time`` answers ``{"seconds": total, "requests": count}``, so a client can subtract the
server's share from its wall time. The counter lives in the server's process. (ScriptedModel itself
switches Nagle's algorithm off, so no delayed-ACK wait hides outside the handler.)
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from testkit.scripted_model import ScriptedModel

SERVER_TIME_PATH = "/bench/server-time"


class TimedScriptedModel(ScriptedModel):
    """ScriptedModel whose handler adds its own duration to a counter readable over HTTP."""

    def __enter__(self) -> TimedScriptedModel:
        super().__enter__()
        assert self._server is not None
        handler = self._server.RequestHandlerClass
        lock, totals = threading.Lock(), {"seconds": 0.0, "requests": 0}
        plain_post, plain_get = handler.do_POST, handler.do_GET  # type: ignore[attr-defined]

        def do_post(request: Any) -> None:
            started = time.perf_counter()
            plain_post(request)
            with lock:
                totals["seconds"] += time.perf_counter() - started
                totals["requests"] += 1

        def do_get(request: Any) -> None:
            if request.path != SERVER_TIME_PATH:
                plain_get(request)
                return
            with lock:
                raw = json.dumps(totals).encode()
            request.send_response(200)
            request.send_header("content-type", "application/json")
            request.send_header("content-length", str(len(raw)))
            request.end_headers()
            request.wfile.write(raw)

        handler.do_POST, handler.do_GET = do_post, do_get  # type: ignore[attr-defined]
        return self

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")
