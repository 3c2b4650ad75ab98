from django.urls import path

from . import views

app_name = "research"
urlpatterns = [
    path("matches/", views.match_list, name="match_list"),
    path("matches/new/", views.match_new, name="match_new"),
    path("matches/<int:match_id>/", views.match_detail, name="match_detail"),
    path("matches/<int:match_id>/progress/", views.match_progress, name="match_progress"),
    path("matches/<int:match_id>/progress.json", views.match_progress_data,
         name="match_progress_json"),
    path("matches/<int:match_id>/stats/", views.match_stats, name="match_stats"),
    path("matches/<int:match_id>/csv", views.match_csv, name="match_csv"),
    path("sessions/", views.session_list, name="session_list"),
    path("sessions/new/", views.session_create, name="session_create"),
    path("sessions/<int:session_id>/", views.session_detail, name="session_detail"),
    path("sessions/<int:session_id>/edit/", views.session_edit, name="session_edit"),
    path("sessions/<int:session_id>/delete/", views.session_delete, name="session_delete"),
    path("sessions/<int:session_id>/phh", views.session_phh, name="session_phh"),
    path("sessions/<int:session_id>/csv", views.session_csv, name="session_csv"),
]
