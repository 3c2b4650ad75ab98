from django.urls import path

from . import views

app_name = "research"
urlpatterns = [
    path("matches/", views.match_list, name="match_list"),
    path("matches/<int:match_id>/", views.match_detail, name="match_detail"),
]
