"""URL map of the REST API (docs/api.md)."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import conformance, house_bots, longpoll, sessions, views
from .errors import not_found

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), and our
    # template drops the inline <style>: the page runs under the Content-Security-Policy.
    path("docs/", SpectacularSwaggerSplitView.as_view(
        url_name="api-schema", template_name="api/swagger_ui.html"), name="api-docs"),
    path("me/", views.MeView.as_view(), name="api-me"),
    path("games/", views.GamesView.as_view(), name="api-games"),
    path("games/<str:key>/leaderboard/", views.LeaderboardView.as_view(),
         name="api-leaderboard"),
    path("tables/", views.TablesView.as_view(), name="api-tables"),
    path("tables/<int:table_id>/", views.TableView.as_view(), name="api-table"),
    path("tables/<int:table_id>/close/", views.CloseTableView.as_view(), name="api-table-close"),
    path("tables/<int:table_id>/route/", views.TableRouteView.as_view(), name="api-table-route"),
    path("tables/<int:table_id>/commands/", views.CommandsView.as_view(), name="api-commands"),
    path("tables/<int:table_id>/wait/", longpoll.wait, name="api-wait"),
    path("hands/", views.HandsView.as_view(), name="api-hands"),
    path("hands/<int:hand_id>/", views.HandView.as_view(), name="api-hand"),
    path("hands/<int:hand_id>/phh", views.HandPhhView.as_view(), name="api-hand-phh"),
    path("players/<str:name>/stats/", views.PlayerStatsView.as_view(), name="api-player-stats"),
    path("players/<str:name>/tables/", views.PlayerTablesView.as_view(),
         name="api-player-tables"),
    path("bots/", views.BotsView.as_view(), name="api-bots"),
    path("bots/<int:bot_id>/", views.BotView.as_view(), name="api-bot"),
    path("bots/<int:bot_id>/token/", views.BotTokenView.as_view(), name="api-bot-token"),
    path("house-bots/", house_bots.HouseBotsView.as_view(), name="api-house-bots"),
    path("house-bots/styles/", house_bots.HouseBotStylesView.as_view(),
         name="api-house-bot-styles"),
    path("house-bots/<int:house_bot_id>/", house_bots.HouseBotView.as_view(),
         name="api-house-bot"),
    path("conformance/", conformance.ConformanceView.as_view(), name="api-conformance"),
    path("matches/", views.MatchesView.as_view(), name="api-matches"),
    path("matches/<int:match_id>/", views.MatchView.as_view(), name="api-match"),
    path("matches/<int:match_id>/phh", views.MatchPhhView.as_view(), name="api-match-phh"),
    path("matches/<int:match_id>/stats", sessions.MatchStatsView.as_view(),
         name="api-match-stats"),
    path("matches/<int:match_id>/csv", sessions.MatchCsvView.as_view(), name="api-match-csv"),
    path("sessions/", sessions.SessionsView.as_view(), name="api-sessions"),
    path("sessions/<int:session_id>/", sessions.SessionView.as_view(), name="api-session"),
    path("sessions/<int:session_id>/stats", sessions.SessionStatsView.as_view(),
         name="api-session-stats"),
    path("sessions/<int:session_id>/phh", sessions.SessionPhhView.as_view(),
         name="api-session-phh"),
    path("sessions/<int:session_id>/csv", sessions.SessionCsvView.as_view(),
         name="api-session-csv"),
    re_path(r"^.*$", not_found),
]
