from django.contrib import admin

from .models import MatchRun, PlayerStats, Session


@admin.register(MatchRun)
class MatchRunAdmin(admin.ModelAdmin):
    list_display = ["id", "status", "created_by", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["results", "phh", "error", "started_at", "finished_at"]


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin):
    list_display = ["player", "hands", "net", "last_hand_id", "updated_at"]
    readonly_fields = ["counters"]


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "created_by", "start", "end", "created_at"]
    search_fields = ["name", "created_by__username"]
    raw_id_fields = ["created_by"]
    filter_horizontal = ["tables", "players"]
