"""ASGI entry point: HTTP goes to Django, websockets to the Channels router.

Served by Daphne on uvloop (pokersite/serve.py):
``python -m pokersite.serve -b 127.0.0.1 -p 8000 pokersite.asgi:application``
(plain ``daphne`` with the same arguments serves it on the standard library's loop).
"""

import gc
import os
import sys
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
django_asgi_app = get_asgi_application()  # set up Django before importing consumers

from channels.routing import ProtocolTypeRouter  # noqa: E402

from agents import server as mcp_server  # noqa: E402  (the MCP endpoint, docs/mcp.md)
from pokersite import flush, nodelay, wsclose, wslog  # noqa: E402
from pokersite.routing import websocket_application  # noqa: E402
from tables.worker import ensure_in_process_worker  # noqa: E402

nodelay.install()  # Daphne's sockets send small frames at once (pokersite/nodelay.py)
wsclose.install()  # a slow client gets its refusal's reason (pokersite/wsclose.py)
flush.install()  # a turn's writes go out at its end, not through the selector (pokersite/flush.py)
wslog.install()  # autobahn's per-frame debug text is made only if logged (pokersite/wslog.py)

# Garbage collection: everything loaded so far (Django, the apps, the games) lives as
# long as the process; frozen, the collector's full passes no longer walk it, and with
# fewer young passes the pauses of a loaded server drop from ~200-400 ms to a few ms
# (measured at 500 tables: docs/benchmarks.md, "Scale"). Cycles are still collected
# among everything created later.
# PYTHON_GC_THRESHOLDS ("young,middle,old") overrides the thresholds (to measure).
gc.collect()
gc.freeze()
gc.set_threshold(*(int(n) for n in os.environ.get("PYTHON_GC_THRESHOLDS",
                                                  "20000,20,20").split(",")))

# The interpreter lock: a thread that waits for it (the group commit between its
# statements, a database call) asks the busy event loop to let go after this long
# (Python's default: 5 ms). Each of a commit's waits cost up to that much while the
# loop served frames. Measured (docs/benchmarks.md, "Scale"): at 500 tables ack p99
# 200-320 ms at 5 ms, 160-170 ms at 1 ms, 190 ms at 2.5 ms; but at 1 ms the threads
# took so much from the loop during a takeover's reconnection storm that channel
# layer calls timed out (handshakes refused "unavailable", tables stuck); 2.5 ms
# kept those runs clean.
sys.setswitchinterval(float(os.environ.get("PYTHON_SWITCH_INTERVAL_MS", "2.5")) / 1000)

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": websocket_application,
    }
)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> Any:
    # Without Redis (one process) the table worker runs inside this process: see tables/worker.py.
    ensure_in_process_worker()
    if mcp_server.handles(scope):  # /mcp/: LLM agents over MCP (Streamable HTTP)
        return await mcp_server.application(scope, receive, send)
    return await router(scope, receive, send)
