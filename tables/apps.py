from django.apps import AppConfig


class TablesConfig(AppConfig):
    default_auto_field = 'django.db.models.BigAutoField'
    name = 'tables'

    def ready(self) -> None:
        from . import lookups

        lookups.install()  # field__any=[...] (tables/lookups.py)
        # Live tables hear of ended credentials in every process that announces one
        # (a REST call, the admin, a management command): tables.owner.announce_revoked.
        from . import owner  # noqa: F401
