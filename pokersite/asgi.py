"""ASGI entry point: HTTP goes to Django, websockets to the Channels router.

Served by Daphne: ``daphne -b 127.0.0.1 -p 8000 pokersite.asgi:application``.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pokersite.settings")
django_asgi_app = get_asgi_application()  # set up Django before importing consumers

from channels.routing import ProtocolTypeRouter  # noqa: E402

from agents import server as mcp_server  # noqa: E402  (the MCP endpoint, docs/mcp.md)
from pokersite import nodelay  # noqa: E402
from pokersite.routing import websocket_application  # noqa: E402
from tables.worker import ensure_in_process_worker  # noqa: E402

nodelay.install()  # Daphne's sockets send small frames at once (pokersite/nodelay.py)

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
