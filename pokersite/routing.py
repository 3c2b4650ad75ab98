"""Websocket routing: browsers by session (Origin-checked), bots by bearer token."""

from channels.routing import URLRouter
from django.urls import path

from lobby.consumers import LobbyConsumer
from research.consumers import MatchConsumer
from tables.consumers import TableConsumer
from tables.middleware import websocket_auth

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
]

websocket_application = websocket_auth(URLRouter(websocket_urlpatterns))
