"""LLM agents: an MCP server (Model Context Protocol, Streamable HTTP) at ``/mcp/``.

* :mod:`agents.core` — what each tool does, synchronously, through the project's
  services (``tables.services``, ``tables.selectors``, ``lobby.selectors``,
  ``research.services``); errors are :class:`tables.errors.TableError` codes.
* :mod:`agents.render` — a bot's view as compact text (poker, dice, a generic fallback).
* :mod:`agents.server` — the MCP tools and the ASGI application that
  ``pokersite.asgi`` mounts: bot-token authentication, the SDK's session manager
  started on the server's own event loop (Daphne runs no ASGI lifespan).

Not called ``mcp``: that name is the SDK's. See docs/mcp.md.
"""
