from django.apps import AppConfig


class AcpcConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "acpc"
    verbose_name = "ACPC protocol"
