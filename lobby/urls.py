"""Lobby, table page, hand histories, replay, statistics and leaderboards."""

from django.urls import path

from . import pages, rulesets, views

urlpatterns = [
    path("lobby/", views.lobby, name="lobby"),
    path("lobby/tables.json", views.tables_json, name="lobby_tables"),
    path("lobby/create/", views.create_table, name="create_table"),
    path("lobby/account.json", views.account_json, name="account_json"),
    path("tables/<int:table_id>/", pages.table, name="table"),
    path("tables/<int:table_id>/log.json", pages.table_log, name="table_log"),
    path("tables/<int:table_id>/close/", pages.close_table, name="close_table"),
    path("tables/<int:table_id>/house-bot/", pages.house_bot, name="house_bot"),
    path("tables/<int:table_id>/hands/", pages.table_hands, name="table_hands"),
    path("my/hands/", pages.my_hands, name="my_hands"),
    path("my/stats/", pages.my_stats, name="my_stats"),
    path("players/<int:player_id>/hands/", pages.player_hands, name="player_hands"),
    path("players/<int:player_id>/stats/", pages.player_stats, name="player_stats"),
    path("hands/<int:hand_id>/", pages.replay, name="replay"),
    path("hands/<int:hand_id>/phh/", pages.phh, name="hand_phh"),
    path("games/<str:game>/leaderboard/", pages.leaderboard, name="leaderboard"),
    path("games/<str:game>/rule-sets/", rulesets.rule_sets_page, name="rule_sets"),
    path("games/<str:game>/rule-sets/new/", rulesets.editor_page, name="rule_set_new"),
    path("games/<str:game>/rule-sets/<int:pk>/", rulesets.editor_page, name="rule_set"),
    path("games/<str:game>/rule-sets/validate.json", rulesets.validate_json,
         name="rule_set_validate"),
    path("games/<str:game>/rule-sets/save.json", rulesets.save_json, name="rule_set_save"),
]
