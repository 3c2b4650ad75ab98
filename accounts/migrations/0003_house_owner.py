"""House bots belong to the system account, not to a person.

Adds the role "System" (no rights, never logs in; a constraint keeps it inactive
with an unusable password) and gives every live house bot (``house_strategy``
set) to the system account, made here if needed (``accounts.services.house_owner``
does the same at run time). Before this, the demo data let the demo tester own the
house bots: the tester was offered their turns and saw their cards as their own.
Backwards: the schema changes are undone; the bots stay with the system account
(who owned them before is not recorded), which then has role Player, still inactive.
"""

from django.contrib.auth.hashers import make_password
from django.db import migrations, models

SYSTEM = 4
HOUSE_USERNAME = "house"


def house_owner(User):  # noqa: N803 - the historical model
    existing = User.objects.filter(role=SYSTEM).order_by("pk").first()
    if existing is not None:
        return existing
    for suffix in ("", *(f"-{n}" for n in range(2, 100))):
        username = HOUSE_USERNAME + suffix
        if not User.objects.filter(username__iexact=username).exists():
            return User.objects.create(
                username=username, role=SYSTEM, is_active=False, is_staff=False,
                is_superuser=False, password=make_password(None))
    raise RuntimeError("No free username for the system account.")


def give_house_bots_to_the_system(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    Player = apps.get_model("accounts", "Player")
    strays = (Player.objects.filter(deleted_at__isnull=True).exclude(house_strategy="")
              .exclude(owner__role=SYSTEM))
    if strays.exists():
        strays.update(owner=house_owner(User), token_hash=None, token_created_at=None)


def system_accounts_become_players(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.filter(role=SYSTEM).update(role=3)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0002_player_house_strategy'),
    ]

    operations = [
        migrations.AlterField(
            model_name='user',
            name='role',
            field=models.PositiveSmallIntegerField(choices=[(1, 'Superuser'), (2, 'Tester'), (3, 'Player'), (4, 'System')], default=3),
        ),
        migrations.RunPython(migrations.RunPython.noop, system_accounts_become_players),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('role', 4), _negated=True), models.Q(('is_active', False), ('password__startswith', '!')), _connector='OR'), name='accounts_user_system_never_logs_in'),
        ),
        migrations.RunPython(give_house_bots_to_the_system, migrations.RunPython.noop),
    ]
